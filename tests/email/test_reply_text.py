"""How the reply reads when a player's mail has lines that are not commands (templates/email/reply.txt.j2)."""

from __future__ import annotations

from sqlalchemy.orm import Session, sessionmaker

from tests.email.pipeline import deliver, message, processor_for
from tests.email.world import PASSWORDS, build_world, outbox_rows


def test_a_greeting_and_a_sign_off_share_one_explanation(sessions: sessionmaker[Session]) -> None:
    """Each line not understood is quoted; lines in a row with the same explanation get it once, after them."""
    build_world(sessions, ("demo",))
    text = f"Hi referee,\nhope you are well.\nORDERS demo\ncards 10 8 6 4 2\nPASSWORD {PASSWORDS['Ann']}\n"
    deliver(processor_for(sessions), message(text, subject="my orders"))
    body = outbox_rows(sessions, "reply")[-1].body
    assert "ORDERS ACCEPTED for demo" in body
    assert "  > Hi referee,\n  > hope you are well.\n    not a command (send HELP for the list)" in body
    assert body.count("not a command (send HELP for the list)") == 1
