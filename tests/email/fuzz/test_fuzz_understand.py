"""Fuzzing the mail reader: generated mails (tests/email/fuzz/strategies.py) through ``understand``.

``understand`` is what the intake runs on every stored message; an exception
there leaves a player's mail unanswered until it is parked.  For every input:

* no exception escapes ``understand`` or ``message_id_of`` (whose result is
  stored with the raw message: valid UTF-8 without NUL);
* the result is either an envelope or a non-empty skip reason (recorded with
  the message), never both; reading the same bytes twice gives the same result
  (checked on one input in eight);
* every command is one the email vocabulary makes (HELP, LIST, JOIN, ORDERS,
  STATUS, RESIGN) with a game name, or a NotUnderstood with a non-empty reason;
* every text of the envelope is valid Unicode without NUL (SQLite, PostgreSQL
  and the reply must be able to store and send it); a password read ends in
  no punctuation, and one shaped like a seat secret is shown in no line
  quoted back (not even its start where a long line is cut), nothing listed
  as ignored, and not in the reply subject, which shows no secret-shaped word;
* a mail with an automatic-mail header is skipped, never answered.

For a *faithful* mail (see the strategies) the reader must be exact: the text
it reads is the text that was encoded, the subject the one written, and the
commands those of reading that text directly.

Examples: ``REFEREE_FUZZ_EXAMPLES`` generated mails (default 300; ``scripts/fuzz``
runs 10,000), half as many damaged ones (cut, spliced, bytes changed), and a
tenth as many arbitrary byte strings.
"""

from __future__ import annotations

import os
import re
import zlib
from dataclasses import astuple
from datetime import UTC, datetime

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.core.model import commands as c
from bot.email.htmltext import html_to_text
from bot.email.mail_reading import read_commands
from bot.email.mime import message_id_of, read_mail
from bot.email.understand import IntakePolicy, Understanding, understand
from tests.email.fuzz.strategies import Mail, damaged, mails

EXAMPLES = int(os.environ.get("REFEREE_FUZZ_EXAMPLES", "300"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
POLICY = IntakePolicy(own_addresses=frozenset({"referee@example.com"}), max_message_bytes=1024 * 1024)
WHEN = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
EMAIL_COMMANDS = (c.ShowHelp, c.ListGames, c.JoinGame, c.SubmitOrders, c.ShowStatus, c.Resign)
_GAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}")
_SECRET_SHAPE = re.compile(r"[a-z]+-[a-z]+-[0-9]{3,5}", re.IGNORECASE)
_SECRET_SHAPE_WORD = re.compile(r"\b[a-z]+-[a-z]+-\d{4}\b", re.IGNORECASE)
"""Words the reader hides wherever they are quoted (bot.text.reading), the reply subject included."""


def check_invariants(raw: bytes) -> Understanding:
    """The invariants of the module docstring that hold for any input; returns the result."""
    message_id = message_id_of(raw)
    assert message_id is None or (message_id.startswith("<") and message_id.endswith(">"))
    assert message_id is None or ("\x00" not in message_id and message_id.encode("utf-8")), "it is stored"
    understood = understand(raw, "fuzz:1", WHEN, POLICY)
    assert (understood.envelope is None) != (understood.skip is None), understood
    if zlib.crc32(raw) % 8 == 0:  # one input in eight (reading is most of the cost): the same bytes, the same result
        assert understand(raw, "fuzz:1", WHEN, POLICY) == understood, "the same bytes are read the same way"
    if understood.envelope is None:
        assert understood.skip and understood.skip.strip()
        return understood
    envelope = understood.envelope
    assert "@" in envelope.sender.address and envelope.source_id == "fuzz:1"
    for command in envelope.commands:
        # Any declared command may be read (a garbage line can spell LINK CODE 0 as well as any player), and
        # what names a game names it in the game names' form; the commands the mails are made of are checked
        # more closely below.
        assert isinstance(command, c.Declared), command
        if isinstance(command, c.NotUnderstood):
            assert command.reason.strip(), command
        elif isinstance(command, c.ConfirmLink):
            assert command.code and command.code == command.code.strip(), command
        elif isinstance(command, EMAIL_COMMANDS) and not isinstance(command, c.ListGames):
            game = command.game
            assert game is None or _GAME.fullmatch(game), command
        if isinstance(command, c.SubmitOrders):
            assert command.text.strip(), command
    for text in _texts(envelope):
        text.encode("utf-8")  # raises on a lone surrogate: such text could not be stored or mailed
        assert "\x00" not in text, "PostgreSQL cannot store a NUL in a text column"
    assert not _SECRET_SHAPE_WORD.search(envelope.reply_context["subject"]), envelope.reply_context["subject"]
    password = envelope.password
    if password is not None:
        assert password and password.strip() == password and password[-1] not in ".:;!?,", password
    if password and _SECRET_SHAPE.fullmatch(password):  # a short "password" such as x is in many a text
        secret = password.lower()
        shown = [cmd.line for cmd in envelope.commands if isinstance(cmd, c.NotUnderstood)]
        assert not any(secret in line.lower() for line in shown), shown
        clipped = [line.lower().removesuffix("…") for line in shown if line.endswith("…")]
        assert not any(line.endswith(secret[:k]) for line in clipped for k in range(6, len(secret))), clipped
        assert not any(secret in entry.lower() for entry in envelope.ignored), envelope.ignored
        assert secret not in envelope.reply_context["subject"].lower(), envelope.reply_context["subject"]
    return understood


def _texts(envelope: c.Envelope) -> list[str]:
    texts = [envelope.sender.address, envelope.sender.display_name or "", envelope.reply_context["subject"]]
    texts += [envelope.reply_context["message_id"] or "", *envelope.reply_context["references"], *envelope.ignored]
    for command in envelope.commands:
        texts += [value for value in astuple(command) if isinstance(value, str)]
    return texts


def _lines(text: str) -> list[str]:
    lines = [line.rstrip("\r") for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def check_exact(mail: Mail, understood: Understanding) -> None:
    """For a faithful mail: the reader reads exactly what was written."""
    if mail.automatic:
        assert understood.envelope is None, "automatic mail is never answered"
    if not mail.faithful:
        return
    assert mail.text is not None and mail.subject is not None
    read = read_mail(mail.raw, POLICY.max_message_bytes)
    written = mail.text.replace("\x00", "\ufffd")  # a NUL is read as U+FFFD (bot.email.mime)
    expected = html_to_text(written) if mail.kind == "text/html" else written
    assert _lines(read.text) == _lines(expected)
    assert read.subject == mail.subject
    assert read.problems == (), read.problems
    envelope = understood.envelope
    assert envelope is not None, understood.skip
    direct = read_commands(read.subject, expected)
    assert envelope.commands == direct.commands
    assert envelope.password == direct.password


@FUZZ
@given(mails())
def test_generated_mails_are_understood(mail: Mail) -> None:
    check_exact(mail, check_invariants(mail.raw))


@settings(FUZZ, max_examples=max(EXAMPLES // 2, 1))
@given(damaged())
def test_damaged_mails_are_understood(raw: bytes) -> None:
    check_invariants(raw)


@settings(max_examples=max(EXAMPLES // 10, 30), deadline=None)
@given(st.binary(max_size=3000))
def test_any_bytes_are_understood(raw: bytes) -> None:
    check_invariants(raw)


def test_the_fuzzer_makes_faithful_mails_and_every_structure():
    """The strategies reach what the docstring claims (else the exact checks would check nothing)."""
    seen: list[Mail] = []

    @settings(
        max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None, derandomize=True
    )
    @given(mails())
    def collect(mail: Mail) -> None:
        seen.append(mail)

    collect()
    assert sum(mail.faithful for mail in seen) >= 20
    assert sum(bool(mail.automatic) for mail in seen) >= 10
    kinds = {mail.kind for mail in seen}
    assert {"text/plain", "text/html", "broken", "report"} <= kinds, kinds
    raw = b"\n".join(mail.raw for mail in seen)
    for needle in (b"multipart/alternative", b"multipart/mixed", b"=?utf-8?b?", b"base64", b"quoted-printable",
                   b"iso-2022-jp", b"windows-1252", b"message/rfc822", b"Auto-Submitted", b"\r\n"):  # fmt: skip
        assert needle in raw, needle


def test_a_garbage_subject_that_spells_a_link_code_is_read_as_one() -> None:
    """Found by the fuzz run: ``LINK CODE0`` in a subject of garbage is ``LINK CODE 0`` (refused later, as any
    wrong code), a command mail may carry like any player's."""
    raw = (
        b"From: Ann Archer <ann@example.org>\nTo: referee@example.com\nSubject: LINK CODE0\n"
        b"Date: Mon, 32 Foo 2026 25:61:00 +9999\nMessage-ID: <m1@example.org>\n\nzz\n"
    )
    understood = check_invariants(raw)
    assert understood.envelope is not None
    assert c.ConfirmLink("0") in understood.envelope.commands, understood.envelope.commands
