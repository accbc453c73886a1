"""The dummy channel, declared as every channel is (bot/channels/contract.py): one ``channel.py``.

Its "network" is a :class:`Line` in memory: the test puts what people send in
``line.inbound`` (one line of text each: ``HELP``, ``CREATE <game> <kind>``,
``JOIN <game> <seat>``, ``START <game>``) and reads what the referee sent in ``line.delivered``.
It brings only what the contract asks of a channel: a source (list, read,
acknowledge), an understanding (``understand(raw) -> Envelope | Skip``) and a
transport (``send(row) -> Sent``); the durable loops around them (store before
acknowledging, apply, settle, retry, park; claim, lease, back-off, mark sent)
are the core's intake runner and sender loop, run as the core's channel workers.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import timedelta

from bot.channels.contract import AddressSyntax, Channel, Check, DoctorContext, Runtime
from bot.core.intake.inbox import Inbox
from bot.core.intake.understanding import Arrived, Inline, Skip
from bot.core.messaging.outbox import OutboxDrain, PendingMessage
from bot.core.messaging.sender_loop import SenderLoop
from bot.core.messaging.transport import Outcome, Sent
from bot.core.model import commands as c
from bot.core.runtime.channel_workers import IntakeWorker, SenderWorker
from bot.core.runtime.intake_processor import Processor
from bot.core.runtime.intake_runner import IntakeResult, IntakeRunner, MessageRef
from bot.core.runtime.supervisor import Worker
from bot.settings.fields import secret, setting, whole

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
    """The dummy network: (message id, address, text) in, outbox rows out."""

    inbound: deque[tuple[str, str, str]] = field(default_factory=deque)
    delivered: list[PendingMessage] = field(default_factory=list)
    acknowledged: set[str] = field(default_factory=set)


class LineSource:
    """The line as a source: what arrived and is not acknowledged yet (the core stores it before acknowledging)."""

    name = f"{NAME}-intake"

    def __init__(self, line: Line, runtime: Runtime) -> None:
        self.line, self.runtime = line, runtime

    def unacknowledged(self) -> Sequence[MessageRef]:
        now = self.runtime.clock.now()
        return [
            MessageRef(key, len(text), now, None)
            for key, _, text in self.line.inbound
            if key not in self.line.acknowledged
        ]

    def read(self, ref: MessageRef, max_bytes: int) -> bytes:
        address, text = next((a, t) for key, a, t in self.line.inbound if key == ref.key)
        return f"{address}\n{text}".encode()[:max_bytes]

    def acknowledge(self, refs: Sequence[MessageRef]) -> None:
        self.line.acknowledged.update(ref.key for ref in refs)


def understand(item: Arrived) -> c.Envelope | Skip:
    """``<address>\\n<text>``: HELP, CREATE <game> <kind>, JOIN <game> <seat>, START <game>; else not understood."""
    address, _, text = item.raw.decode().partition("\n")
    words = text.split()
    if not words:
        return Skip("an empty message")
    verb, args = words[0].upper(), words[1:]
    command: c.Command
    if verb == "HELP":
        command = c.ShowHelp()
    elif verb == "CREATE" and len(args) == 2:
        command = c.CreateGame(args[0], args[1])
    elif verb == "JOIN" and len(args) == 2:
        command = c.JoinGame(args[0], args[1])
    elif verb == "START" and len(args) == 1:
        command = c.StartGame(args[0])
    else:
        command = c.NotUnderstood(text, "not a dummy command")
    sender = c.Sender(NAME, address, address)  # the line authenticates its users, as Discord does
    return c.Envelope(sender, (command,), f"{NAME}:{item.key}", item.received_at, trust=c.Trust.VERIFIED)


class LineTransport:
    """Puts each outbox row on the line."""

    def __init__(self, line: Line) -> None:
        self.line = line

    @asynccontextmanager
    async def connect(self) -> AsyncIterator[LineTransport]:
        yield self

    async def send(self, row: PendingMessage) -> Outcome:
        self.line.delivered.append(row)
        return Sent()


class LineIntake:
    """Passes of the core's intake runner over the line, every ``poll_seconds`` until stopped."""

    def __init__(self, runner: IntakeRunner, source: LineSource, poll_seconds: float) -> None:
        self.intake, self.source, self.poll_seconds = runner, source, poll_seconds

    def run_once(self) -> IntakeResult:
        return self.intake.run_once(self.source)

    def run(self, stop: threading.Event) -> None:
        while not stop.is_set():
            self.run_once()
            stop.wait(self.poll_seconds)


def _read(text: str) -> str | None:
    return text.lower() if text.isalpha() else None


def dummy_channel(line: Line) -> Channel[DummySettings]:
    """The dummy channel on ``line`` (a test's own: nothing is shared between tests)."""

    def workers(settings: DummySettings, runtime: Runtime) -> list[Worker]:
        """The core's intake and sender workers around the line's source, understanding and transport."""
        if not settings.enabled:
            return []
        inbox = Inbox(
            runtime.sessions,
            runtime.intake.inbound_max_attempts,
            timedelta(seconds=runtime.intake.inbound_retry_seconds),
        )
        processor = Processor(inbox, runtime.service, runtime.clock, NAME, Inline(understand))
        intake = LineIntake(IntakeRunner(processor), LineSource(line, runtime), settings.poll_seconds)
        sender = SenderLoop(
            OutboxDrain(runtime.sessions), LineTransport(line), runtime.clock, (NAME,), bell=runtime.bell,
            batch=settings.batch, interval=settings.poll_seconds,
        )  # fmt: skip
        return [IntakeWorker(f"{NAME}-intake", intake), SenderWorker(f"{NAME}-sender", sender, "the dummy line")]

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
