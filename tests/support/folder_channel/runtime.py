"""The folder channel's parts for the core's loops: the inbox folder as a source, the reading of a
file, the outbox folder as a transport (see channel.py)."""

from __future__ import annotations

import json
import threading
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.channels.contract import Runtime
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

from .channel import NAME, FolderSettings, read_address


class FolderSource:
    """The inbox folder as a source: its ``*.txt`` files not yet moved to ``done/``."""

    name = f"{NAME}-intake"

    def __init__(self, inbox: Path) -> None:
        self.inbox = inbox

    def unacknowledged(self) -> Sequence[MessageRef]:
        files = sorted(self.inbox.glob("*.txt"))
        return [
            MessageRef(p.name, p.stat().st_size, datetime.fromtimestamp(p.stat().st_mtime, UTC), None) for p in files
        ]

    def read(self, ref: MessageRef, max_bytes: int) -> bytes:
        with (self.inbox / ref.key).open("rb") as file:
            return file.read(max_bytes)

    def acknowledge(self, refs: Sequence[MessageRef]) -> None:
        done = self.inbox / "done"
        done.mkdir(exist_ok=True)
        for ref in refs:
            (self.inbox / ref.key).replace(done / ref.key)


def understand(item: Arrived) -> c.Envelope | Skip:
    """``@name`` on the first line, then HELP, JOIN <game> <seat> or ORDERS <game> and its lines."""
    first, _, text = item.raw.decode(errors="replace").partition("\n")
    address = read_address(first.strip())
    if address is None:
        return Skip("no @name on the first line")
    words = text.split()
    verb, args = (words[0].upper(), words[1:]) if words else ("", [])
    command: c.Command
    if verb == "HELP":
        command = c.ShowHelp()
    elif verb == "JOIN" and len(args) == 2:
        command = c.JoinGame(args[0], args[1])
    elif verb == "ORDERS" and len(args) >= 1:
        command = c.SubmitOrders(args[0], text.split("\n", 1)[1] if "\n" in text else "")
    else:
        command = c.NotUnderstood(text.strip()[:80], "not a folder command")
    sender = c.Sender(NAME, address, address)
    return c.Envelope(sender, (command,), f"{NAME}:{item.key}", item.received_at, trust=c.Trust.CLAIMED)


class FolderTransport:
    """Writes each outbox row to the outbox folder as JSON."""

    def __init__(self, outbox: Path) -> None:
        self.outbox = outbox

    @asynccontextmanager
    async def connect(self) -> AsyncIterator[FolderTransport]:
        yield self

    async def send(self, row: PendingMessage) -> Outcome:
        body = {"to": row.recipient, "template": row.template, "data": dict(row.data)}
        (self.outbox / f"{row.id}.json").write_text(json.dumps(body, default=str, sort_keys=True))
        return Sent()


class FolderIntake:
    """Passes of the core's intake runner over the inbox folder, every ``poll_seconds`` until stopped."""

    def __init__(self, runner: IntakeRunner, source: FolderSource, poll_seconds: float) -> None:
        self.intake, self.source, self.poll_seconds = runner, source, poll_seconds

    def run_once(self) -> IntakeResult:
        return self.intake.run_once(self.source)

    def run(self, stop: threading.Event) -> None:
        while not stop.is_set():
            self.run_once()
            stop.wait(self.poll_seconds)


def folder_workers(settings: FolderSettings, runtime: Runtime) -> list[Worker]:
    """The core's intake and sender workers around the folders."""
    inbox = Inbox(
        runtime.sessions, runtime.intake.inbound_max_attempts, timedelta(seconds=runtime.intake.inbound_retry_seconds)
    )
    processor = Processor(inbox, runtime.service, runtime.clock, NAME, Inline(understand))
    intake = FolderIntake(IntakeRunner(processor), FolderSource(Path(settings.inbox)), settings.poll_seconds)
    sender = SenderLoop(
        OutboxDrain(runtime.sessions), FolderTransport(Path(settings.outbox)), runtime.clock, (NAME,),
        bell=runtime.bell, interval=settings.poll_seconds,
    )  # fmt: skip
    return [IntakeWorker(f"{NAME}-intake", intake), SenderWorker(f"{NAME}-sender", sender, "the outbox folder")]
