"""An end-to-end world: a migrated database, the core, the bot's real runtime, and the fake Discord.

The runtime is the one ``referee serve`` runs (:class:`bot.discord.runtime.DiscordRuntime`),
pointed at the fake through the two settings ``discord_api_base`` and
``discord_gateway_url``.  Time is a simulated clock shared with the core's
harness, so deadlines pass when a test says so.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from bot.core.runtime.deadline_worker import DeadlineWorker
from bot.discord.channel import DiscordSettings
from bot.discord.runtime import DiscordRuntime
from bot.store.db import unit_of_work
from bot.store.models import OutboxMessage
from tests.core.harness import Harness
from tests.support.fake_discord import FakeDiscord


@dataclass
class World:
    fake: FakeDiscord
    harness: Harness
    runtime: DiscordRuntime
    users: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def sessions(self) -> sessionmaker[Session]:
        return self.harness.sessions

    def user(self, name: str) -> dict[str, Any]:
        if name not in self.users:
            self.users[name] = self.fake.add_member(name)
        return self.users[name]

    async def command(self, who: str, name: str, options: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """``/name`` from ``who``; waits for the deferral and the first follow-up, returns the replies."""
        interaction = await self.fake.slash(name, options or {}, self.user(who))
        await self.fake.wait_for_callback(interaction)
        return await self.fake.wait_for_replies(interaction)

    async def pass_deadline(self) -> list[tuple[str, int]]:
        """An hour and a minute later (the games' turn length), the deadline worker's pass."""
        self.harness.clock.advance(timedelta(minutes=61))
        return await asyncio.to_thread(DeadlineWorker(self.harness.service, self.harness.clock).run_once_sync)

    async def delivered(self) -> None:
        """Until every Discord (and public) row is sent or parked; time moves on past back-offs."""
        delivery = self.runtime.delivery
        for _ in range(200):
            await delivery.deliver_due()
            waiting = await asyncio.to_thread(self._waiting)
            if waiting is None:
                return
            self.harness.clock.set(max(waiting, delivery.held_until or waiting, self.harness.clock.now()))
            await asyncio.sleep(0.01)
        raise AssertionError("the outbox did not drain")

    def _waiting(self) -> datetime | None:
        """When the next unsent, unparked row of the bot's channels is due (None: there is none)."""
        with unit_of_work(self.sessions) as session:
            return session.scalars(select(func.min(OutboxMessage.next_attempt_at)).where(
                OutboxMessage.channel.in_(self.runtime.delivery.channels), OutboxMessage.sent_at.is_(None),
                OutboxMessage.parked_at.is_(None))).first()  # fmt: skip

    def thread(self, slug: str) -> dict[str, Any]:
        [thread] = [t for t in self.fake.threads() if t["name"].startswith(f"{slug} ")]
        return thread

    def thread_messages(self, slug: str) -> list[dict[str, Any]]:
        """Every message in the game's post, as posted (the pinned status and Discord's pin notice included)."""
        return self.fake.messages[int(self.thread(slug)["id"])]

    def thread_posts(self, slug: str) -> list[dict[str, Any]]:
        """The posts of the game's post but its pinned status message and Discord's system messages."""
        pinned = {m["id"] for m in self.fake.pinned(self.thread(slug)["id"])}
        return [m for m in self.thread_messages(slug) if m["type"] == 0 and m["id"] not in pinned]


def discord_harness(sessions: sessionmaker[Session]) -> Harness:
    """The core's harness with Discord as the channel that has a public place for every game."""
    base = Harness(sessions)
    config = dataclasses.replace(base.config, public_channels=("discord",), status_channels=("discord",))
    return Harness(sessions, clock=base.clock, config=config)


@asynccontextmanager
async def running_world(
    fake: FakeDiscord, sessions: sessionmaker[Session], harness: Harness | None = None
) -> AsyncIterator[World]:
    """The bot running against ``fake`` (pass the ``harness`` of an earlier run to restart it)."""
    harness = harness or discord_harness(sessions)
    settings = DiscordSettings(
        token="fake-token",
        guild_id=fake.guild_id,
        forum_channel_id=fake.forum_channel_id,
        gm_role_id=fake.gm_role_id,
        api_base=fake.api_base,
        gateway_url=fake.gateway_url,
        send_interval_seconds=0.2,
    )
    runtime = DiscordRuntime(settings, sessions, service=harness.service, clock=harness.clock, guild_ready_timeout=0.05)
    stop = asyncio.Event()
    task = asyncio.create_task(runtime.run(stop))
    ready = asyncio.create_task(runtime.ready.wait())
    await asyncio.wait({task, ready}, timeout=10, return_when=asyncio.FIRST_COMPLETED)
    if task.done():
        task.result()
    assert runtime.ready.is_set(), "the bot did not become ready"
    try:
        yield World(fake, harness, runtime, users={u["username"]: u for u in fake.users.values()})
    finally:
        stop.set()
        await asyncio.wait_for(task, 10)
