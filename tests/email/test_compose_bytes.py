"""``compose_bytes`` (what the sender sends) is byte for byte what ``compose`` serialises (bot/email/render.py)."""

from __future__ import annotations

from datetime import UTC, datetime
from unittest import mock

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from bot.core.messaging.outbox import PendingMessage
from bot.email.render import MailIdentity, UnsendableMessage, compose, compose_bytes
from tests.email.world import outbox_rows

NOW = datetime(2026, 3, 2, 11, 0, tzinfo=UTC)
IDENTITY = MailIdentity("referee@example.com", "Referee")


def row(template: str = "report", data: dict | None = None, context: dict | None = None, kind: str = "report",
        recipient: str = "ann@example.org") -> PendingMessage:  # fmt: skip
    return PendingMessage(1, "<abc@example.com>", "email", recipient, kind, template, data or {}, context or {}, 0, NOW)


def test_every_message_of_a_played_world_is_the_same_either_way(world):
    from bot.core.model import commands as c
    from tests.email.world import GM, PLAYERS, SETUP_ORDERS, START, apply, service_for

    service = service_for(world)
    for name, address in PLAYERS.items():
        apply(service, address, name, c.SubmitOrders("club", SETUP_ORDERS[name]))
    apply(service, GM, "GM", c.ShowStatus("club"))
    rows = outbox_rows(world)
    assert len(rows) > 6
    from bot.core.messaging.outbox import OutboxDrain

    for pending in OutboxDrain(world).due("email", START.replace(year=2027)):
        assert compose_bytes(pending, IDENTITY, NOW).raw == compose(pending, IDENTITY, NOW).as_bytes()


@settings(max_examples=150, deadline=None)
@given(
    subject_words=st.lists(st.text(st.characters(min_codepoint=33, max_codepoint=0x2FF), min_size=1, max_size=30),
                           min_size=0, max_size=12),
    body=st.text(st.characters(min_codepoint=0, max_codepoint=0x17F, blacklist_categories=("Cs",)), max_size=400),
    name=st.text(st.characters(min_codepoint=32, max_codepoint=0x17F), max_size=20),
    references=st.lists(st.from_regex(r"<[a-z0-9]{1,40}@[a-z]{1,20}\.org>", fullmatch=True), max_size=8),
)  # fmt: skip
@example(subject_words=[], body="", name="", references=["<0@a.org>"] * 6)  # a long References fold once differed
def test_generated_messages_are_the_same_either_way(subject_words, body, name, references):
    """Folding, non-ASCII headers and bodies, control characters: the fast path or the fallback, same bytes."""
    import bot.email.render as compose_module
    from bot.core.messaging.rendering import Rendered

    rendered = Rendered(" ".join(subject_words), body)
    with mock.patch.object(compose_module, "render_message", lambda form, template, data: rendered):
        check(row(context={"message_id": "<m@x.org>", "references": references} if references else {}),
              MailIdentity("referee@example.com", name))  # fmt: skip


def check(pending: PendingMessage, identity: MailIdentity) -> None:
    try:
        expected = compose(pending, identity, NOW).as_bytes()
    except UnsendableMessage:
        with pytest.raises(UnsendableMessage):
            compose_bytes(pending, identity, NOW)
        return
    assert compose_bytes(pending, identity, NOW).raw == expected


def test_a_bad_recipient_is_unsendable_either_way():
    with pytest.raises(UnsendableMessage):
        compose_bytes(row(recipient="not an address"), IDENTITY, NOW)
