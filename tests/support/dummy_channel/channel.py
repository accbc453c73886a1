"""The dummy channel, declared as every channel is (bot/channel_contract.py): one ``channel.py``.

Its "network" is a :class:`Line` in memory: the test puts what people send in
``line.inbound`` and reads what the referee sent in ``line.delivered``.  Its
two workers have the shape of every channel's: an intake that turns what
arrived into envelopes and applies them through the GameService, and a sender
that drains its outbox rows through the outbox API.  (When the core owns the
intake runner and the sender loop, these two become a source and a transport.)
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from bot.channel_contract import AddressSyntax, Channel, Check, DoctorContext, Runtime
from bot.core.messaging.outbox import OutboxDrain, PendingMessage
from bot.core.model import commands as c
from bot.core.runtime.supervisor import Stage, Worker
from bot.settings_fields import secret, setting, whole

NAME = "dummy"


@dataclass(frozen=True)
class DummySettings:
    """``[dummy] enabled = true``, the token from ``REFEREE_DUMMY_TOKEN``."""

    enabled: bool = False
    token: str = secret()
    poll_seconds: float = 0.05
    public: bool = False
    """Every game has a public place here (written ``public:<slug>``)."""
    batch: int = setting(10, whole(1, 100, "a whole number from 1 to 100"))


@dataclass
class Line:
    """The dummy network: (source id, address, commands) in, outbox rows out."""

    inbound: deque[tuple[str, str, tuple[c.Command, ...]]] = field(default_factory=deque)
    delivered: list[PendingMessage] = field(default_factory=list)
    applied: list[Any] = field(default_factory=list)


class DummyIntake:
    """Applies what arrived on the line, one envelope per message (the source id is the idempotency key)."""

    stage = Stage.INTAKE

    def __init__(self, settings: DummySettings, runtime: Runtime, line: Line) -> None:
        self.name = f"{NAME}-intake"
        self.settings, self.runtime, self.line = settings, runtime, line

    async def prepare(self) -> None:
        await self.run_once()

    async def run_once(self) -> bool:
        for _ in range(min(self.settings.batch, len(self.line.inbound))):
            source_id, address, commands = self.line.inbound.popleft()
            sender = c.Sender(NAME, address, address)
            now = self.runtime.clock.now()  # the line authenticates its users, as Discord does
            envelope = c.Envelope(sender, commands, f"{NAME}:{source_id}", now, trust=c.Trust.VERIFIED)
            self.line.applied.append(self.runtime.service.apply(envelope))
        return True

    async def run(self, stop: asyncio.Event) -> None:
        await _every(self, stop)


class DummySender:
    """Delivers this channel's outbox rows onto the line and marks them sent."""

    stage = Stage.SENDING

    def __init__(self, settings: DummySettings, runtime: Runtime, line: Line) -> None:
        self.name = f"{NAME}-sender"
        self.settings, self.line = settings, line
        self.clock, self.drain = runtime.clock, OutboxDrain(runtime.sessions)

    async def prepare(self) -> None:
        """Nothing to read."""

    async def run_once(self) -> bool:
        for row in self.drain.due(NAME, self.clock.now(), limit=self.settings.batch):
            self.line.delivered.append(row)
            self.drain.mark_sent(row.id, self.clock.now())
        return True

    async def run(self, stop: asyncio.Event) -> None:
        await _every(self, stop)


async def _every(worker: DummyIntake | DummySender, stop: asyncio.Event) -> None:
    while not stop.is_set():
        await worker.run_once()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), worker.settings.poll_seconds)


def _read(text: str) -> str | None:
    return text.lower() if text.isalpha() else None


def dummy_channel(line: Line) -> Channel[DummySettings]:
    """The dummy channel on ``line`` (a test's own: nothing is shared between tests)."""

    def workers(settings: DummySettings, runtime: Runtime) -> list[Worker]:
        return [DummyIntake(settings, runtime, line), DummySender(settings, runtime, line)] if settings.enabled else []

    def doctor(settings: DummySettings, context: DoctorContext) -> list[Check]:
        return [Check("dummy line", settings.enabled, f"{len(line.inbound)} waiting", "set dummy_enabled")]

    def missing(settings: DummySettings) -> list[str]:
        return ["dummy_token: missing: set REFEREE_DUMMY_TOKEN"] if settings.enabled and not settings.token else []

    return Channel(
        name=NAME,
        label="Dummy",
        settings=DummySettings,
        prefix="dummy_",
        address=AddressSyntax(_read, "dummy names"),
        workers=workers,
        doctor=doctor,
        missing=missing,
        public_place=lambda settings: settings.enabled and settings.public,
        unreachable=lambda settings: "" if settings.enabled else "dummy names, but the dummy line is off",
        reach_by="dummy_enabled",
    )


CHANNEL = dummy_channel(Line())
"""As a channel package declares itself (tests use :func:`dummy_channel` with a line of their own)."""
