"""What the fuzz test found, through the whole intake on both databases (SQLite and PostgreSQL).

The single messages are in tests/email/corpus (charset_not_a_text_codec,
charset_idna, charset_with_nul, password_trailing_period, nul_bytes), where
their reading is pinned; the corpus replies run on SQLite only.  A NUL
failed only on PostgreSQL (its text columns cannot hold one): the message
failed on every attempt and was parked unanswered.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import select

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
