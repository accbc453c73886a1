"""A row the delivery meets after its client closed (``referee serve`` stopping) is given back untouched.

Found by tests/host/test_full_serve.py: on SIGTERM, a DM still being
delivered for an answer was marked failed, so the next run held it back by
the first back-off (5 s, doubling at every such stop) and counted an attempt
that never reached Discord.  Stopping is not a failure: the row is released,
due again at once, its attempts unchanged.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy.orm import Session, sessionmaker

from bot.discord.client import RefereeClient
from bot.discord.runtime import point_at
from bot.discord.transport import RETRY, SENT, DiscordDelivery
from bot.store.db import unit_of_work
from bot.store.models import OutboxMessage
from tests.core.harness import START, Harness
from tests.support.fake_discord import FakeDiscord


def _reply_row(sessions: sessionmaker[Session], user_id: object, message_id: str) -> int:
    """A reply due now in the outbox to Discord user ``user_id``, never tried; its id."""
    with unit_of_work(sessions) as session:
        row = OutboxMessage(message_id=message_id, channel="discord", recipient=f"user:{user_id}", kind="reply",
                            template="reply", data={}, context={}, created_at=START, next_attempt_at=START,
                            attempts=0)  # fmt: skip
        session.add(row)
        session.flush()
        return row.id


async def test_a_row_met_after_the_client_closed_is_released_with_no_attempt_counted(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> None:
    point_at(fake_discord.api_base, fake_discord.gateway_url)
    harness = Harness(sqlite_sessions)
    ann = fake_discord.add_member("Ann")
    row_id = _reply_row(sqlite_sessions, ann["id"], "<m1@example.com>")
    client = RefereeClient(fake_discord.guild_id, guild_ready_timeout=0.05)
    await client.login("fake-token")
    await client.close()
    delivery = DiscordDelivery(client, sqlite_sessions, harness.clock, fake_discord.forum_channel_id)

    [outcome] = await delivery.deliver_due()

    assert outcome.status == RETRY and outcome.row_id == row_id
    with unit_of_work(sqlite_sessions) as session:
        kept = session.get_one(OutboxMessage, row_id)
        assert (kept.sent_at, kept.parked_at, kept.attempts, kept.last_error) == (None, None, 0, None)
        assert kept.next_attempt_at == START and kept.claimed_until is None, "due again at once, for the next run"
    assert delivery.held_until is None, "nothing held back"
    assert not fake_discord.dm_messages(ann["id"])


async def test_a_late_retry_sends_only_the_blocks_discord_did_not_take(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> None:
    """Discord keeps a nonce for minutes only: after a long outage, the blocks it took are not sent again."""
    point_at(fake_discord.api_base, fake_discord.gateway_url)
    harness = Harness(sqlite_sessions)
    ann = fake_discord.add_member("Ann")
    body = "\n".join(f"line {n:03d} " + "x" * 60 for n in range(60))  # about 4,200 characters: three blocks
    with unit_of_work(sqlite_sessions) as session:
        session.add(OutboxMessage(message_id="<long@example.com>", channel="discord", recipient=f"user:{ann['id']}",
                                  kind="reply", template="prerendered", data={"subject": "s", "body": body},
                                  context={}, created_at=START, next_attempt_at=START, attempts=0))  # fmt: skip
    client = RefereeClient(fake_discord.guild_id, guild_ready_timeout=0.05)
    await client.login("fake-token")
    delivery = DiscordDelivery(client, sqlite_sessions, harness.clock, fake_discord.forum_channel_id)
    sends = [0]

    def second_send(request: object) -> bool:
        if getattr(request, "method", "") == "POST" and getattr(request, "path", "").endswith("/messages"):
            sends[0] += 1
            return sends[0] == 2
        return False

    fake_discord.outage(503, times=1, match=second_send)
    try:
        [first] = await delivery.deliver_due()
        assert first.status == RETRY
        assert len(fake_discord.dm_messages(ann["id"])) == 1  # the first block went out, the second failed
        fake_discord.forget_nonces()  # an hour later: Discord no longer knows the first block's nonce
        harness.clock.advance(timedelta(hours=1))
        [second] = await delivery.deliver_due()
    finally:
        await client.close()
    assert second.status == SENT
    posted = [m["content"] for m in fake_discord.dm_messages(ann["id"])]
    assert len(posted) == 3 and len(set(posted)) == 3, posted
    assert "line 000" in posted[0] and "line 059" in posted[-1]


async def test_a_client_closed_during_a_send_gives_the_row_back_and_logs_no_error(
    fake_discord: FakeDiscord,
    sqlite_sessions: sessionmaker[Session],
    discord_endpoints: None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Found by the CI run: a restart closed the client while a DM was on its way, and aiohttp's
    "Session is closed" was logged as the row's failure.  Closed during the send is closed before it."""
    point_at(fake_discord.api_base, fake_discord.gateway_url)
    harness = Harness(sqlite_sessions)
    ann = fake_discord.add_member("Ann")
    row_id = _reply_row(sqlite_sessions, ann["id"], "<m2@example.com>")
    client = RefereeClient(fake_discord.guild_id, guild_ready_timeout=0.05)
    await client.login("fake-token")
    delivery = DiscordDelivery(client, sqlite_sessions, harness.clock, fake_discord.forum_channel_id)

    async def closed_on_the_way(_row: object) -> None:
        await client.close()
        raise RuntimeError("Session is closed")  # what aiohttp raises for a request on a closed session

    monkeypatch.setattr(delivery.transport, "_send", closed_on_the_way)
    [outcome] = await delivery.deliver_due()

    assert outcome.status == RETRY and outcome.row_id == row_id
    with unit_of_work(sqlite_sessions) as session:
        kept = session.get_one(OutboxMessage, row_id)
        assert (kept.sent_at, kept.parked_at, kept.attempts, kept.last_error) == (None, None, 0, None)
