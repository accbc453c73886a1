"""Every free text from outside is cleaned once, as it enters the core (bot/core/basics/free_text.py).

The attack: a control character or a bidi override in any text a person types (a game master's
reason, a broadcast, a seat or display name, orders, press, a line quoted back as not understood)
reaches every player's mail and the public pages as it was written: an escape sequence that rewrites
a terminal, U+202E that shows a line backwards, a NUL that PostgreSQL cannot store, a character that
makes the Atom feed unwritable.  The pipeline cleans every text of every command by its field's
declared kind (:func:`bot.core.model.declaration.cleaned`), so every command is checked here,
including one added later.
"""

from __future__ import annotations

import types
import typing
import unicodedata
from datetime import timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import select

from bot.core.basics.free_text import DROPPED, clean_line, clean_text, visible
from bot.core.model import commands as c
from bot.core.model.declaration import cleaned, declared
from bot.store.db import unit_of_work
from bot.store.models import AuditEntry, OutboxMessage, Seat
from tests.core.harness import SEATS, Harness

HOSTILE = "a\x1b[2J\u202eb\x00c\u200b\r\nd\te\x85f\u2066g\u2028h\x7f\ufeff\U000f0000"
"""An escape sequence, a right-to-left override, NUL, a zero width space, CR LF, a tab, NEL, an isolate,
a line separator, DEL, a byte order mark and a private use character."""


def _acting(text: str) -> list[str]:
    """The characters of ``text`` that act rather than show (``\\n`` is a line break, and kept apart)."""
    return [f"U+{ord(ch):04X}" for ch in text if ch != "\n" and unicodedata.category(ch) in DROPPED]


def _hostile(annotation: Any) -> Any:
    """A value of ``annotation`` holding :data:`HOSTILE` wherever a text can be."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if annotation is str or annotation is Any:
        return HOSTILE
    if annotation is bool:
        return False
    if annotation is int:
        return 1
    if origin in (typing.Union, types.UnionType):
        return _hostile(next(arg for arg in args if arg is not type(None)))
    if origin is tuple:
        return tuple(_hostile(arg) for arg in args if arg is not Ellipsis)
    if origin is dict:
        return {_hostile(args[0]): _hostile(args[1])}
    raise AssertionError(f"no hostile value for {annotation!r}")


def _texts(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, tuple | list):
        return [text for item in value for text in _texts(item)]
    if isinstance(value, dict):
        return [text for pair in value.items() for text in _texts(list(pair))]
    return []


@pytest.mark.parametrize("kind", declared(), ids=lambda kind: kind.__name__)
def test_every_text_of_every_command_is_cleaned_by_its_kind(kind: type[c.Declared]):
    hints = typing.get_type_hints(kind)
    fields = {name: hint for name, hint in hints.items() if name != "declaration"}
    command = cleaned(kind(**{name: _hostile(hint) for name, hint in fields.items()}))
    for name in fields:
        lines = kind.__dataclass_fields__[name].metadata.get("text") == "lines"
        for text in _texts(getattr(command, name)):
            assert not _acting(text), (kind.__name__, name, text)
            assert lines or "\n" not in text, (kind.__name__, name, text)
            assert "b\ufffdc" in text or text == "", "nothing vanishes: what acted shows as U+FFFD"


def test_the_texts_of_several_lines_are_orders_and_messages():
    lines = {(kind.__name__, name) for kind in declared() for name, found in kind.__dataclass_fields__.items()
             if found.metadata.get("text") == "lines"}  # fmt: skip
    assert lines == {("SubmitOrders", "text"), ("EnterOrders", "text"), ("Broadcast", "text"),
                     ("SendPress", "text"), ("ReplyPress", "text")}  # fmt: skip


def test_the_rule():
    assert clean_line(HOSTILE) == "a\ufffd[2J\ufffdb\ufffdc\ufffd  d e\ufffdf\ufffdg h\ufffd\ufffd\ufffd"
    assert clean_text(HOSTILE) == "a\ufffd[2J\ufffdb\ufffdc\ufffd\nd    e\ufffdf\ufffdg\nh\ufffd\ufffd\ufffd"
    assert visible("keep\tthis\nand \u00e9\u5f35 \u00a0 as it is") == "keep\tthis\nand \u00e9\u5f35 \u00a0 as it is"
    assert visible("a\x00b\x1b\r") == "a\ufffdb\ufffd\ufffd"


@given(st.text())
def test_cleaning_is_idempotent_and_leaves_nothing_that_acts(text: str):
    for clean in (clean_line, clean_text):
        once = clean(text)
        assert clean(once) == once
        assert not _acting(once)
    assert "\n" not in clean_line(text)
    assert not _acting(visible(text)) or set(_acting(visible(text))) <= {"U+0009"}


@pytest.fixture
def harness(sessions):
    return Harness(sessions)


def test_a_reason_a_broadcast_and_a_name_reach_no_mail_log_or_page_acting(harness):
    """The attack through the service, as every channel reaches it: what is stored and what is sent."""
    harness.golden_strider_game("g1")
    moved = harness.send("GM", c.SetDeadline("g1", "+1d", "club night\x1b[2J\u202e\x00 holiday"))
    assert moved.applied.problems == (), moved.reply
    harness.send("GM", c.Broadcast("g1", "Good luck\x1b]0;pwned\x07 all\u202e\r\n\x00second line"))
    harness.send("Ann", c.NotUnderstood("HELP\x1b[31m me\u2066", "not a command\x00"))
    harness.clock.advance(timedelta(days=1, minutes=61))
    assert harness.service.resolve_due(harness.clock.now()) == [("g1", 0)]  # its report announces the reason
    with unit_of_work(harness.sessions) as session:
        entries = [(entry.reason, entry.detail) for entry in session.scalars(select(AuditEntry))]
        seats = [seat.name for seat in session.scalars(select(Seat))]
        data = [row.data for row in session.scalars(select(OutboxMessage))]
    assert ("club night\ufffd[2J\ufffd\ufffd holiday") in [reason for reason, _ in entries]
    assert seats == SEATS
    for text in _texts([*entries, *data]):
        assert not _acting(text), text
    mails = harness.outbox()
    assert any("Good luck\ufffd]0;pwned\ufffd all\ufffd" in row.body and "second line" in row.body for row in mails)
    reports = [" ".join(row.body.split()) for row in mails if row.template == "report"]
    assert reports and all("club night\ufffd[2J\ufffd\ufffd holiday" in report for report in reports)
    for row in mails:
        assert not _acting(row.body) and not _acting(row.subject), (row.template, row.body)


def test_a_display_name_is_cleaned_as_it_enters(harness):
    """The name a channel carries (a Discord member's, a mail's display name) is free text too: a JOIN
    without AS that would name the seat after it is answered with the name cleaned (and refused: a seat
    name is letters, digits and spaces)."""
    harness.send("GM", c.CreateGame("g1", "golden-strider", {}, "UTC", 60, False, "address"))
    envelope = c.Envelope(c.Sender("discord", "4242", " Zoe\t\x00 Lee\u202e "), (c.JoinGame("g1"),), "t:1",
                          harness.clock.now(), trust=c.Trust.VERIFIED)  # fmt: skip
    applied = harness.service.apply(envelope)
    assert applied.problems == ("bad_seat_name",) and applied.reply is not None
    assert applied.reply.data["problems"][0]["name"] == "Zoe \ufffd Lee\ufffd"


def test_a_reason_stored_before_is_shown_clean_in_the_log(harness):
    """A reason an older referee logged as it came prints nothing that acts on the host's terminal
    (``referee gm log``) or in a game master's mail."""
    harness.golden_strider_game("g1")
    with unit_of_work(harness.sessions) as session:
        game_id = session.scalars(select(Seat.game_id)).first()
        session.add(AuditEntry(game_id=game_id, actor="gm@example.org", channel="email", action="SetDeadline",
                               reason="\x1b]0;pwned\x07late\u202e", detail={}, at=harness.clock.now()))  # fmt: skip
    shown = harness.send("GM", c.ShowLog("g1"))
    assert shown.applied.reply is not None and shown.reply is not None
    reasons = [entry["reason"] for entry in shown.applied.reply.data["items"][0]["entries"]]
    assert "\ufffd]0;pwned\ufffdlate\ufffd" in reasons and not _acting(shown.reply)
