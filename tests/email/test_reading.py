"""Reading commands from text, the loop and forgery policy, HTML to text: rules and properties."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core.model import commands as c
from bot.email.htmltext import html_to_text
from bot.email.mail_reading import read_commands, subject_text
from bot.email.mime import read_mail
from bot.email.policy import automatic_reason, vouching
from tests.email.pipeline import compact, message


def read(body: str, subject: str = "hello") -> list[str]:
    return [compact(command) for command in read_commands(subject, body).commands]


@pytest.mark.parametrize(
    ("subject", "stripped"),
    [
        ("Re: [demo] Golden Strider: turn 3 report", "Golden Strider: turn 3 report"),
        ("RE: AW: Fwd: STATUS demo", "STATUS demo"),
        ("Re[2]: ORDERS demo [demo]", "ORDERS demo"),
        ("SV: Sv: list", "list"),
        ("  [club]  Re:  help ", "help"),
    ],
)
def test_subject_prefixes_and_tags_are_removed(subject, stripped):
    assert subject_text(subject) == stripped


@pytest.mark.parametrize(
    ("subject", "body", "commands"),
    [
        ("Re: [demo] turn 3 report", "", []),
        ("Re: Game over", "", []),
        ("orders with a photo", "", []),
        ("ORDERS demo", "play 6 bank 2", ["ORDERS demo: play 6 bank 2"]),
        ("ORDERS demo", "ORDERS demo\nplay 6", ["ORDERS demo: play 6"]),
        ("ORDERS demo", "STATUS demo", ["STATUS demo"]),
        ("list", "LIST", ["LIST"]),
        ("join demo", "", ["JOIN demo"]),
    ],
)
def test_the_subject_counts_only_as_a_whole_command(subject, body, commands):
    assert read(body, subject) == commands


def test_orders_run_to_the_next_command_and_passwords_may_stand_between():
    body = "ORDERS demo\nPASSWORD amber-raven-1001\nplay 6 bank 2\nmove 3\nSTATUS demo\nGAME club: play 1\nplay 2\n"
    reading = read_commands("x", body)
    assert [compact(command) for command in reading.commands] == [
        "ORDERS demo: play 6 bank 2 | move 3",
        "STATUS demo",
        "ORDERS club: play 1 | play 2",
    ]
    assert reading.password == "amber-raven-1001"


def test_keywords_with_the_wrong_arguments_are_explained():
    reading = read_commands("x", "STATUS\nJOIN\nhelp me please\nRESIGN a b\nPASSWORD\n")
    reasons = {command.line: command.reason for command in reading.commands if isinstance(command, c.NotUnderstood)}
    assert reasons["STATUS"] == "write it as STATUS <game>"
    assert reasons["JOIN"] == "write it as JOIN <game> or JOIN <game> AS <name>"
    assert reasons["help me please"] == "write it as HELP or HELP <game>"
    assert reasons["RESIGN a b"] == "write it as RESIGN <game>"
    assert reasons["PASSWORD"].startswith("give the password on the same line")


def test_an_empty_orders_block_in_the_body_is_reported():
    assert read("ORDERS demo\n\nSTATUS demo") == ["? ORDERS demo", "STATUS demo"]


def test_two_different_passwords_are_reported_without_showing_either():
    reading = read_commands("x", "PASSWORD amber-raven-1001\nORDERS demo\nplay 1\nPASSWORD birch-dune-2002\n")
    assert reading.password == "amber-raven-1001"
    shown = " ".join(compact(command) for command in reading.commands)
    assert "? PASSWORD ..." in shown and "1001" not in shown and "2002" not in shown


def test_quoted_replies_attributions_and_signatures_are_skipped():
    body = (
        "ORDERS demo\nplay 6\n\n"
        "Le lun. 2 mars 2026 à 12:00, Referee <referee@example.com> a écrit :\n> STATUS demo\n"
        "Am 02.03.2026 um 12:00 schrieb Referee <referee@example.com>:\n>> LIST\n"
        "-- \nAnn\nLIST\n"
    )
    reading = read_commands("x", body)
    assert [compact(command) for command in reading.commands] == ["ORDERS demo: play 6"]
    assert reading.ignored == ("4 quoted lines (starting with > or 'On ... wrote:')", "signature (3 lines)")


def test_the_referees_own_reply_quoted_without_marks_stops_reading():
    body = "STATUS demo\n\nReceipt R1A2B3C4D -- 2026-03-02 12:00 UTC\n\nJOINED demo\n  Your seat password: amber-raven-1001\n"
    reading = read_commands("x", body)
    assert [compact(command) for command in reading.commands] == ["STATUS demo"]
    assert "amber-raven-1001" not in " ".join(reading.ignored)


def test_secret_shaped_words_are_hidden_in_quoted_lines():
    reading = read_commands("x", "my password is quartz-violet-0042, right?\n")
    assert [compact(command) for command in reading.commands] == ["? my password is ********, right?"]


lines = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=60)


@settings(max_examples=300, deadline=None)
@given(
    subject=lines,
    body=st.lists(lines, max_size=30),
    secret=st.from_regex(r"[a-z]{3,8}-[a-z]{3,8}-\d{4}", fullmatch=True),
)
def test_reading_never_raises_and_never_shows_the_password(subject, body, secret):
    text = "\n".join([*body[:5], f"PASSWORD {secret}", *body[5:], f"and {secret.upper()} again"])
    reading = read_commands(subject, text)
    assert reading.password == secret
    for command in reading.commands:
        if isinstance(command, c.NotUnderstood):
            assert secret not in command.line.lower()
        if isinstance(command, c.SubmitOrders):
            assert secret not in command.text.lower()
    assert all(secret not in entry.lower() for entry in reading.ignored)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=2000))
def test_any_bytes_can_be_read(raw):
    mail = read_mail(raw, 10_000)
    read_commands(mail.subject, mail.text)
    automatic_reason(mail)
    vouching(mail, frozenset({"mx.example.com"}))


def test_a_read_receipt_is_automatic():
    raw = (
        b"Return-Path: <ann@example.org>\nFrom: ann@example.org\nSubject: Read: orders\n"
        b'Content-Type: multipart/report; report-type=disposition-notification; boundary="r"\n\n'
        b"--r\nContent-Type: text/plain\n\nYour message was read.\n--r--\n"
    )
    assert "multipart/report" in (automatic_reason(read_mail(raw, 10_000)) or "")


def test_html_becomes_lines_and_blockquotes_become_quotes():
    html = (
        "<html><head><style>x{}</style></head><body><div>ORDERS&nbsp;demo</div><p>play 6<br>bank 2</p>"
        "<blockquote>STATUS demo<blockquote>LIST</blockquote></blockquote><pre>a\nb</pre><script>LIST</script></body>"
    )
    assert html_to_text(html).splitlines() == [
        "ORDERS demo", "", "play 6", "bank 2", "", "> STATUS demo", "> > LIST", "", "a", "b",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("sender", "headers", "reason"),
    [
        ("ann@example.org", {}, None),
        ("ann@example.org", {"Auto-Submitted": "no"}, None),
        ("ann@example.org", {"Auto-Submitted": "auto-generated; owner-email=x@y"}, "Auto-Submitted: auto-generated"),
        ("ann@example.org", {"Precedence": "junk"}, "Precedence: junk"),
        ("ann@example.org", {"List-Unsubscribe": "<mailto:x@y>"}, "mailing-list message"),
        ("postmaster@example.org", {}, "bounce (postmaster)"),
        ("referee@example.com", {}, "sent by the referee itself"),
    ],
)
def test_automatic_mail(sender, headers, reason):
    mail = read_mail(message("x\n", sender=sender, headers=headers), 10_000)
    found = automatic_reason(mail, frozenset({"referee@example.com"}))
    assert (found is None) if reason is None else (reason in (found or ""))


@pytest.mark.parametrize(
    ("body", "orders", "closing"),
    [
        ("ORDERS demo\nplay 6 / 0, bank 2\n\nThanks,\nSteve\n", "play 6 / 0, bank 2", "2 closing lines"),
        ("ORDERS demo\nplay 6 bank 2\nCheers, N.\n", "play 6 bank 2", "1 closing line "),
        ("ORDERS demo\nplay 6 bank 2\nBest regards\nSteve Cram\n", "play 6 bank 2", "2 closing lines"),
        ("ORDERS demo\nThanks\n", "Thanks", None),  # nothing but a sign-off: the game says what it expected
        ("ORDERS demo\npass\nthanks\ntake over\n", "pass\nthanks\ntake over", None),  # orders after it
        ("ORDERS demo\nplay 6\nthanks\nplay 7\n", "play 6\nthanks\nplay 7", None),
    ],
)
def test_a_sign_off_after_the_orders_is_ignored_once(body, orders, closing):
    """'Thanks,' after accepted orders is listed as ignored, not sent to the game."""
    reading = read_commands("", body)
    assert reading.commands == (c.SubmitOrders("demo", orders),)
    if closing is None:
        assert not any("closing line" in entry for entry in reading.ignored)
    else:
        (entry,) = [entry for entry in reading.ignored if "closing line" in entry]
        assert entry.startswith(closing) and "orders for demo" in entry


@pytest.mark.parametrize("line", ["LIN\u212a", "ROLLBAC\u212a x", "\u017fTATU\u017f", "\u017fET DEADLINE"])
def test_a_keyword_with_a_letter_that_folds_to_ascii_is_quoted_back_not_a_crash(line: str) -> None:
    """IGNORECASE matches a Kelvin sign with k and a long s with s; the usage looked up for the
    keyword must be found for them too (it raised KeyError: found by tests/email/test_command_starts.py)."""
    reading = read_commands("", line)
    assert [type(command) for command in reading.commands] == [c.NotUnderstood]
    assert reading.commands[0].reason.startswith("write it as ")


def test_an_attachment_in_a_charset_no_text_decodes_is_sized_not_fatal():
    """8-bit bytes in a part whose charset is a codec that cannot replace errors (idna): the mail is
    still read, the text part understood, the odd part counted as an attachment (found by the fuzz test)."""
    raw = (
        b"From: ann@example.org\r\nTo: referee@example.org\r\nSubject: STATUS demo\r\n"
        b"Message-ID: <odd@example.org>\r\nMIME-Version: 1.0\r\n"
        b'Content-Type: multipart/mixed; boundary="b"\r\n\r\n'
        b"--b\r\nContent-Type: text/plain\r\n\r\nSTATUS demo\r\n"
        b'--b\r\nContent-Type: tex4/html; charset="idna"\r\nContent-Transfer-Encoding: base64\r\n\r\n'
        b"PGh0bWw+\x98\xa3P\xe03\r\n--b--\r\n"
    )
    mail = read_mail(raw, 1_000_000)
    assert "STATUS demo" in mail.text
    assert len(mail.attachments) == 1


@pytest.mark.parametrize(
    ("body", "commands"),
    [
        ("ORDERS? demo", ["ShowFiledOrders(game='demo')"]),
        ("orders ? Demo", ["ShowFiledOrders(game='demo')"]),
        ("ORDERS?demo.", ["ShowFiledOrders(game='demo')"]),
        # it ends an orders block, and is never read as orders for a game called "?"
        ("ORDERS demo\nplay 6\nORDERS? demo", ["ORDERS demo: play 6", "ShowFiledOrders(game='demo')"]),
        ("ORDERS?", ["? ORDERS?"]),
        ("ORDERS? demo club", ["? ORDERS? demo club"]),
    ],
)
def test_orders_on_file_is_asked_with_a_question_mark(body, commands):
    assert read(body) == commands
