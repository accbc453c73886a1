"""The folder channel: order files are read from one folder, replies written to another.

Declared as every channel is (bot/channel_contract.py), in one ``channel.py``.
Each ``*.txt`` file of ``inbox`` is one message: its first line is the
sender (``@name``), the rest the commands (``HELP``, ``JOIN <game> <seat>``,
or ``ORDERS <game>`` and the order lines).  A file read and stored is moved
to ``inbox/done/``.  Each outbox row is written to ``outbox`` as
``<row id>.json`` (the recipient, the template and its data), for another
program to show.  People on it are written ``@name``.  The durable loops
(store before acknowledging, apply, settle, retry; claim, lease, mark sent)
are the core's intake runner and sender loop, run as the core's workers.
"""

from __future__ import annotations

import json
import threading
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.channel_contract import AddressSyntax, Channel, Check, DoctorContext, Runtime
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

NAME = "folder"


@dataclass(frozen=True)
class FolderSettings:
    """``[referee.folder]``: the two folders (``folder_inbox``, ``folder_outbox``); empty: the channel is off."""

    inbox: str = ""
    outbox: str = ""
    poll_seconds: float = 5.0


class FolderSource:
    """The inbox folder as a source: its ``*.txt`` files not yet moved to ``done/``."""

    name = f"{NAME}-intake"

    def __init__(self, inbox: Path) -> None:
        self.inbox = inbox

    def unacknowledged(self) -> Sequence[MessageRef]:
        files = sorted(self.inbox.glob("*.txt"))
        return [MessageRef(p.name, p.stat().st_size, datetime.fromtimestamp(p.stat().st_mtime, UTC), None) for p in files]

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
    address = _read(first.strip())
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


def _read(text: str) -> str | None:
    name = text.strip().lower()
    return name if name.startswith("@") and name[1:].isalnum() and len(name) <= 32 else None


def workers(settings: FolderSettings, runtime: Runtime) -> list[Worker]:
    """The core's intake and sender workers around the folders."""
    if not (settings.inbox and settings.outbox):
        return []
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


def doctor(settings: FolderSettings, context: DoctorContext) -> list[Check]:
    """Both folders exist."""
    return [
        Check(f"folder {role}", bool(path) and Path(path).is_dir(), path or "not set", f"create {path or role}")
        for role, path in (("inbox", settings.inbox), ("outbox", settings.outbox))
        if settings.inbox or settings.outbox
    ]


CHANNEL: Channel[FolderSettings] = Channel(
    name=NAME,
    label="Folder",
    settings=FolderSettings,
    prefix="folder_",
    address=AddressSyntax(_read, "folder names (@name)"),
    workers=workers,
    doctor=doctor,
    unreachable=lambda settings: "" if settings.outbox else "folder names, but no outbox folder is set",
    reach_by="folder_outbox",
)
