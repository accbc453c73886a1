"""What the fuzz test found, through the whole intake on both databases (SQLite and PostgreSQL).

The single messages are in tests/email/corpus (charset_not_a_text_codec,
charset_idna, charset_with_nul, password_trailing_period, nul_bytes), where
their reading is pinned; the corpus replies run on SQLite only.  A NUL
failed only on PostgreSQL (its text columns cannot hold one): the message
failed on every attempt and was parked unanswered; in a Message-ID (stored
with the message) the message could not even be kept.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import select

from bot.email.mime import message_id_of
from bot.store.db import unit_of_work
from bot.store.models import InboundMessage
from tests.email.pipeline import deliver, processor_for
from tests.email.world import build_world, outbox_rows

CORPUS = Path(__file__).parent.parent / "corpus"


def test_nul_bytes_in_a_message_are_answered_on_every_database(sessions):
    build_world(sessions, games=("demo",))
    raw = (CORPUS / "nul_bytes.eml").read_bytes()
    assert b"\x00" in raw
    result = deliver(processor_for(sessions), raw)
    assert (result.done, result.failed, result.parked) == (1, 0, 0)
    with unit_of_work(sessions) as session:
        assert session.scalars(select(InboundMessage.status)).all() == ["done"]
    (reply,) = [row for row in outbox_rows(sessions) if row.kind == "reply" and row.recipient == "cat@example.org"]
    assert "STATUS demo" in reply.body and "> HELP\ufffd" in reply.body and "\x00" not in reply.body
    assert "application/pd\ufffdf" in reply.body


def test_a_nul_in_the_message_id_is_stored_and_answered_on_every_database(sessions):
    build_world(sessions, games=("demo",))
    raw = (
        b"Return-Path: <cat@example.org>\nFrom: Cat Cole <cat@example.org>\nTo: referee@example.com\n"
        b"Subject: status\nMessage-ID: <a\x00b@mail.example.org>\n\nSTATUS demo\n"
    )
    assert message_id_of(raw) == "<a\ufffdb@mail.example.org>"
    result = deliver(processor_for(sessions), raw)
    assert (result.done, result.failed, result.parked) == (1, 0, 0)
    (reply,) = [row for row in outbox_rows(sessions) if row.kind == "reply" and row.recipient == "cat@example.org"]
    assert "STATUS demo" in reply.body
