"""The cheap screen before any parsing, and the cheap read of From (bot/email/prescreen.py).

Every hostile shape here is one the email package's parsers pay more than
linear time (or their recursion limit) for; the screen must refuse it in
milliseconds, and answer it only when the From field is one plain address.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime

import pytest

from bot.core.model import commands as c
from bot.email.mail_reader import NotRead, ReadingFailed, ToRead, read_mail, read_mails
from bot.email.prescreen import DEFAULT_LIMITS, MailLimits, cheap_sender, screen
from bot.email.understand import IntakePolicy, Understanding

POLICY = IntakePolicy(own_addresses=frozenset({"referee@example.com"}))
NOW = datetime(2026, 3, 1, 12, tzinfo=UTC)


def mail(headers: str, body: str = "HELP\r\n") -> bytes:
    return (headers.replace("\n", "\r\n") + "\r\n" + body).encode("utf-8")


def many_cc(count: int, sender: str = "Mallory <mallory@example.net>", where: str = "before") -> bytes:
    cc = ",\r\n ".join(f"victim{n}@example.net" for n in range(count))
    head = f"To: referee@example.com\r\nCc: {cc}\r\nSubject: hi\r\nMessage-ID: <many@example.net>\r\n"
    sender_line = f"From: {sender}\r\n"
    head = sender_line + head if where == "before" else head + sender_line
    return (head + "\r\nSTATUS g\r\n").encode()


def nested(depth: int) -> bytes:
    """A multipart nested ``depth`` deep, with a plain From: the parser's recursion limit is ~1,000."""
    head = b"From: Ann <ann@example.org>\r\nTo: referee@example.com\r\nSubject: deep\r\nMIME-Version: 1.0\r\n"
    body = b"".join(b'Content-Type: multipart/mixed; boundary="b%d"\r\n\r\n--b%d\r\n' % (n, n) for n in range(depth))
    body += b"Content-Type: text/plain\r\n\r\nHELP\r\n"
    body += b"".join(b"--b%d--\r\n" % n for n in reversed(range(depth)))
    return head + body


def slow_to_read(
    depth: int,
    lines: int,
    sender: str = "Mallory <mallory@example.net>",
    message_id: str = "<slow@example.net>",
    command: str = "STATUS g",
) -> bytes:
    """A multipart nested ``depth`` deep whose text part, ``command``, is followed by ``lines``
    empty lines (two bytes each): genuinely slow for the reader, within the mail size limit.

    The email package's feed parser tests every line against the boundary of every multipart
    around it (RFC 2046 asks that an outer boundary be seen at any depth), so this mail costs
    ``depth`` x ``lines`` boundary matches, about 85 ns each here: 500 deep with 500,000 lines
    (1 MB) is about 21 s of CPU, with 2,500,000 lines (5 MB) about 105 s.  Over 100 deep
    it is over the screen's default limit of multipart sections (raise it to read the mail).
    """
    head = (
        f"From: {sender}\r\nTo: referee@example.com\r\nSubject: hi\r\nMessage-ID: {message_id}\r\nMIME-Version: 1.0\r\n"
    ).encode()
    body = b"".join(b'Content-Type: multipart/mixed; boundary="b%d"\r\n\r\n--b%d\r\n' % (n, n) for n in range(depth))
    body += f"Content-Type: text/plain\r\n\r\n{command}\r\n".encode() + b"\r\n" * lines
    body += b"".join(b"--b%d--\r\n" % n for n in reversed(range(depth)))
    return head + body


def answer(raw: bytes, limits: MailLimits = DEFAULT_LIMITS) -> Understanding:
    read = read_mail(ToRead("k", raw, NOW), POLICY, limits)
    assert isinstance(read.reading, Understanding)
    return read.reading


def refusal_text(understood: Understanding) -> str:
    assert understood.envelope is not None, understood.skip
    (command,) = understood.envelope.commands
    assert isinstance(command, c.NotUnderstood)
    return command.reason


def test_a_3_mb_mail_with_90000_cc_addresses_is_refused_in_milliseconds_and_answered():
    raw = many_cc(90_000)
    assert len(raw) > 2_000_000
    started = time.perf_counter()
    understood = answer(raw)
    took = time.perf_counter() - started
    assert took < 0.5, f"the screen took {took:.2f} s"
    assert "too many recipients or headers" in refusal_text(understood)
    assert understood.envelope is not None
    assert understood.envelope.sender.address == "mallory@example.net"
    assert understood.envelope.trust is c.Trust.CLAIMED and understood.envelope.password is None


def test_the_sender_is_found_after_a_huge_cc_field_too():
    understood = answer(many_cc(90_000, where="after"))
    assert understood.envelope is not None and understood.envelope.sender.address == "mallory@example.net"


def test_too_many_addresses_within_a_small_header_say_too_many_recipients():
    understood = answer(many_cc(1_500))
    assert "too many recipients: 1,50" in refusal_text(understood)
    assert answer(many_cc(900)).envelope.commands == (c.ShowStatus("g"),), "under the limit: read as ever"


def test_too_many_header_fields_are_refused():
    fields = "".join(f"X-Filler-{n}: {n}\n" for n in range(1_200))
    understood = answer(mail(f"From: ann@example.org\nTo: referee@example.com\n{fields}Subject: help\n"))
    assert "too many headers: 1,20" in refusal_text(understood)


@pytest.mark.parametrize("multiparts", [100, 10_000])
def test_a_multipart_nested_1000_deep_is_answered_that_it_could_not_be_taken_apart(multiparts):
    """With the default limit the screen refuses it; with the limit raised the parser's recursion
    fails and the raw From still gets the answer (it used to be recorded as "no From address")."""
    understood = answer(nested(1_000), MailLimits(multiparts=multiparts))
    assert "could not be taken apart" in refusal_text(understood)
    assert understood.envelope is not None and understood.envelope.sender.address == "ann@example.org"


def test_a_normally_nested_mail_is_read_as_ever():
    assert answer(nested(5)).envelope.commands == (c.ShowHelp(None),)


@pytest.mark.parametrize(
    ("from_field", "address"),
    [
        ("ann@example.org", "ann@example.org"),
        ("<Ann@Example.org>", "ann@example.org"),
        ("Ann Archer <ann@example.org>", "ann@example.org"),
        ('"Archer, Ann" <ann@example.org>', "ann@example.org"),
        ("Ann Archer\n <ann@example.org>", "ann@example.org"),  # folded
        # Not a sender this scan answers: encoded words, control characters, two addresses,
        # an address in the display name, a group, a comment, non-ASCII.
        ("=?utf-8?b?DQphbm5AZXhhbXBsZS5vcmc=?= <mallory@evil.example>", None),
        ("=?utf-8?q?ann=40example.org?=", None),
        ("ann@example.org\x00", None),
        ("Evil\x0bBcc <mallory@evil.example>", None),
        ("ann@example.org, ben@example.org", None),
        ("ann@example.org <mallory@evil.example>", None),
        ('"ann@example.org" <mallory@evil.example>', None),
        ("players: ann@example.org;", None),
        ("ann@example.org (Ann)", None),
        ("Änn <ann@example.org>", None),
        ("MAILER-DAEMON@example.org", None),
        ("noreply@example.org", None),
        ("referee@example.com", None),
    ],
)
def test_the_cheap_from_read_takes_one_plain_address_only(from_field, address):
    raw = mail(f"From: {from_field}\nTo: referee@example.com\nSubject: hi\n")
    assert cheap_sender(raw, MailLimits(), POLICY.own_addresses) == address


@pytest.mark.parametrize(
    "extra",
    ["From: ben@example.org\n", "Auto-Submitted: auto-replied\n", "Precedence: bulk\n", "List-Id: <l.example.org>\n",
     "Return-Path: <>\n"],
)  # fmt: skip
def test_two_from_fields_or_automatic_mail_get_no_answer(extra):
    raw = mail(f"From: ann@example.org\n{extra}To: referee@example.com\nSubject: hi\n")
    assert cheap_sender(raw, MailLimits(), POLICY.own_addresses) is None
    refused = answer(raw, MailLimits(header_fields=2))
    assert refused.envelope is None and "not answered" in (refused.skip or "")


def test_an_over_limit_mail_without_a_readable_from_is_recorded_not_answered():
    understood = answer(many_cc(2_000, sender="=?utf-8?b?YW5uQGV4YW1wbGUub3Jn?="))
    assert understood.envelope is None
    assert "too many recipients" in understood.summary and "not answered" in (understood.skip or "")


def test_the_screen_is_linear():
    """Twice the addresses, about twice the time (a quadratic scan would take four times)."""
    limits = MailLimits(header_bytes=10**9, addresses=10**9)

    def timed(raw: bytes) -> float:
        best = float("inf")
        for _ in range(3):
            started = time.perf_counter()
            assert screen(raw, limits) is None
            best = min(best, time.perf_counter() - started)
        return best

    small, large = timed(many_cc(50_000)), timed(many_cc(200_000))
    assert large < 8 * small + 0.05, (small, large)


def test_a_memory_error_while_reading_makes_the_mail_not_read(monkeypatch):
    import bot.email.mail_reader as reader_module

    def exhausted(*args: object, **kwargs: object) -> Understanding:
        raise MemoryError

    monkeypatch.setattr(reader_module, "understand", exhausted)
    (read,) = read_mails([ToRead("k", mail("From: ann@example.org\nSubject: help\n"), NOW)], POLICY)
    assert isinstance(read.reading, NotRead) and "memory" in read.reading.reason
    assert read.reading.reply is not None and read.reading.reply.sender.address == "ann@example.org"
    assert not isinstance(read.reading, ReadingFailed)


def test_many_lines_inside_deep_multiparts_are_refused_and_a_long_attachment_is_read():
    """99 levels (under the sections limit) around 500,000 empty lines took about 9 s of CPU to read:
    refused by the screen, answered; an ordinary mail with a 2 MB attachment (40,000 lines) is read."""
    slow = slow_to_read(99, 500_000)
    refusal = screen(slow, DEFAULT_LIMITS)
    assert refusal is not None and "multipart sections around" in refusal.reason
    understood = answer(slow)
    assert understood.envelope is not None and understood.envelope.sender.address == "mallory@example.net"
    head = b"From: Ann <ann@example.org>\r\nTo: referee@example.com\r\nSubject: orders\r\nMIME-Version: 1.0\r\n"
    attached = b"QUJD" * 19 + b"\r\n"
    body = (
        b'Content-Type: multipart/mixed; boundary="b"\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nSTATUS g\r\n'
        b"--b\r\nContent-Type: application/pdf\r\nContent-Transfer-Encoding: base64\r\n\r\n"
        + attached * 40_000
        + b"--b--\r\n"
    )
    assert screen(head + body, DEFAULT_LIMITS) is None
