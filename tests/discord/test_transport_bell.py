"""The Discord delivery wakes when rows of its channel are committed in this process (the outbox's bell).

Before, a row written by anything but a Discord answer (a deadline's report, a
notice the email intake wrote for a Discord player) waited for the next pass,
up to ``discord_send_interval_seconds``; and a wake that came during a pass was
cleared after it, so its row waited a whole interval.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from bot.core.messaging.outbox import Outgoing, enqueue
from bot.core.messaging.outbox_bell import OutboxBell
from bot.core.messaging.sender_loop import PassReport as SentReport
from bot.discord.client import RefereeClient
from bot.discord.runtime import point_at
from bot.discord.transport import DiscordDelivery
from bot.store.db import unit_of_work
from bot.store.models import OutboxMessage
from tests.core.harness import START, Harness
from tests.support.fake_discord import FakeDiscord

INTERVAL = 30.0
"""Far longer than any wait below: a row delivered sooner was woken, not found by the next pass."""


def _queue(sessions: sessionmaker[Session], user_id: str, key: str, now: datetime) -> None:
    """A DM row committed (run in another thread, as the deadline worker and the intake write theirs)."""
    with unit_of_work(sessions) as session:
        enqueue(session, Outgoing("discord", f"user:{user_id}", "reply", "prerendered",
                                  {"subject": key, "body": f"body of {key}"}, key), now)  # fmt: skip


async def _delivered(fake: FakeDiscord, user_id: str, count: int, within: float) -> float:
    started = time.monotonic()
    while len(fake.dm_messages(user_id)) < count:
        assert time.monotonic() - started < within, f"not delivered within {within} s"
        await asyncio.sleep(0.02)
    return time.monotonic() - started


@asynccontextmanager
async def _delivery(fake: FakeDiscord, sessions: sessionmaker[Session]) -> AsyncIterator[tuple[DiscordDelivery, Any]]:
    """A delivery logged in to the fake Discord, with INTERVAL between passes, and a member (Ann)."""
    point_at(fake.api_base, fake.gateway_url)
    harness = Harness(sessions)
    ann = fake.add_member("Ann")
    client = RefereeClient(fake.guild_id, guild_ready_timeout=0.05)
    await client.login("fake-token")
    try:
        bell = OutboxBell().listen(sessions)  # as the composition root makes it (bot.host.wiring)
        yield DiscordDelivery(client, sessions, harness.clock, fake.forum_channel_id, interval=INTERVAL, bell=bell), ann
        bell.stop_listening(sessions)
    finally:
        await client.close()


@asynccontextmanager
async def _running(delivery: DiscordDelivery) -> AsyncIterator[None]:
    stop = asyncio.Event()
    running = asyncio.create_task(delivery.run(stop))
    try:
        yield
    finally:
        stop.set()
        await asyncio.wait_for(running, 10)


async def test_a_row_committed_elsewhere_is_delivered_at_once_not_at_the_next_pass(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> None:
    async with _delivery(fake_discord, sqlite_sessions) as (delivery, ann), _running(delivery):
        await asyncio.sleep(0.2)  # its first pass found nothing; it waits now
        for number in range(1, 4):
            await asyncio.to_thread(_queue, sqlite_sessions, ann["id"], f"notice-{number}", START)
            waited = await _delivered(fake_discord, ann["id"], number, within=5.0)
            assert waited < 5.0


async def test_a_wake_during_a_pass_is_kept_for_the_next_wait(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> None:
    async with _delivery(fake_discord, sqlite_sessions) as (delivery, ann):
        passes = 0
        send_due = delivery.loop.send_due

        async def one_pass() -> SentReport:
            nonlocal passes
            passes += 1
            found = await send_due()
            if passes == 1:  # a row and its wake arrive while this pass runs, after it looked
                await asyncio.to_thread(_write_silently, sqlite_sessions, ann["id"], START)
                delivery.wake()
            return found

        delivery.loop.send_due = one_pass  # type: ignore[method-assign,assignment]
        async with _running(delivery):
            await _delivered(fake_discord, ann["id"], 1, within=5.0)
        assert passes == 2


def _write_silently(sessions: sessionmaker[Session], user_id: str, now: datetime) -> None:
    """A row written without the bell (as by another process): only the wake can bring it before the interval."""
    with unit_of_work(sessions) as session:
        session.add(OutboxMessage(message_id="<during@example.com>", channel="discord", recipient=f"user:{user_id}",
                                  kind="reply", template="prerendered", data={"subject": "s", "body": "during"},
                                  context={}, created_at=now, next_attempt_at=now, attempts=0))  # fmt: skip
