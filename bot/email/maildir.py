"""Maildir on both ends: intake from a Maildir a mail server delivers to, and an outbox Maildir.

**Intake** (:class:`MaildirMailbox`): the messages in ``new/`` are the
unacknowledged ones (a delivery agent writes into ``tmp/`` and renames into
``new/``, so a file there is complete).  Each is keyed
``maildir:<unique name>`` (the part of the file name before ``:2,``, unique
by the Maildir convention).  Acknowledging moves it into the ``done_folder``
subfolder (Maildir++ ``.<folder>/cur/``, flagged seen), or into ``cur/``
when no folder is configured.  It is stored before it is moved, exactly as
with IMAP.

**Outbox** (:class:`MaildirTransport`): each outgoing message is written to
``tmp/`` and renamed into ``new/`` under a name derived from its
Message-ID, so writing the same outbox row twice leaves one file.  This is
what ``referee demo --via email`` uses, and a host may use it to hand mail to
a local delivery agent.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import socket
import threading
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from email.message import EmailMessage
from pathlib import Path

from bot.email.intake import Intake, IntakeResult, MessageRef
from bot.email.render import BuiltMail

log = logging.getLogger(__name__)


def make_maildir(root: Path) -> Path:
    """Create ``root`` with ``tmp``, ``new`` and ``cur`` (as needed); returns ``root``."""
    for sub in ("tmp", "new", "cur"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    return root


def deliver(root: Path, raw: bytes, name: str | None = None) -> Path:
    """Deliver ``raw`` into the Maildir at ``root`` the Maildir way (tmp, then rename into new)."""
    make_maildir(root)
    name = name or f"{time.time_ns()}.P{os.getpid()}R{os.urandom(4).hex()}.{socket.gethostname()}"
    temporary = root / "tmp" / name
    with temporary.open("wb") as handle:
        handle.write(raw)
        handle.flush()
        os.fsync(handle.fileno())
    target = root / "new" / name
    os.replace(temporary, target)
    return target


class MaildirMailbox:
    """Implements :class:`bot.email.intake.Mailbox` over a local Maildir."""

    def __init__(self, root: Path, done_folder: str = "Processed") -> None:
        self.root = make_maildir(root)
        self.done = make_maildir(root / f".{done_folder}") if done_folder else self.root
        self.name = maildir_intake_name(root)

    def unacknowledged(self) -> Sequence[MessageRef]:
        refs: list[MessageRef] = []
        for path in sorted((self.root / "new").iterdir(), key=_delivery_order):
            if path.name.startswith("."):
                continue
            try:
                status = path.stat()
            except FileNotFoundError:  # taken by another reader meanwhile
                continue
            unique = path.name.split(":", 1)[0]
            arrived = datetime.fromtimestamp(status.st_mtime, UTC)
            refs.append(MessageRef(f"maildir:{unique}"[:200], status.st_size, arrived, path))
        return refs

    def read(self, ref: MessageRef, max_bytes: int) -> bytes:
        assert isinstance(ref.handle, Path)
        with ref.handle.open("rb") as handle:
            return handle.read(max_bytes)

    def acknowledge(self, refs: Sequence[MessageRef]) -> None:
        for ref in refs:
            assert isinstance(ref.handle, Path)
            unique = ref.handle.name.split(":", 1)[0]
            with contextlib.suppress(FileNotFoundError):
                os.replace(ref.handle, self.done / "cur" / f"{unique}:2,S")


def maildir_intake_name(root: Path) -> str:
    """The watermark name of the intake reading the Maildir at ``root`` (``ServiceConfig.intakes``)."""
    name = f"maildir:{root.resolve()}"
    return name if len(name) <= 120 else "maildir:" + hashlib.sha256(name.encode()).hexdigest()[:24]


def _delivery_order(path: Path) -> tuple[float, str]:
    try:
        return path.stat().st_mtime, path.name
    except FileNotFoundError:
        return 0.0, path.name


WATCH_SECONDS = 2.0
"""How often a waiting Maildir intake looks at its ``new/`` folder (one stat): a message delivered there
is read within about this long, whatever ``poll_seconds`` (the longest wait between passes) says."""


class MaildirIntakeLoop:
    """Intake passes over a Maildir until stopped: at once when ``new/`` changes (it is looked at every
    :data:`WATCH_SECONDS`), and at least every ``poll_seconds``."""

    def __init__(
        self, mailbox: MaildirMailbox, intake: Intake, poll_seconds: float = 5.0, watch_seconds: float = WATCH_SECONDS
    ) -> None:
        self.mailbox = mailbox
        self.intake = intake
        self.poll_seconds = poll_seconds
        self.watch_seconds = watch_seconds

    def _new_folder(self) -> tuple[int, int] | None:
        """What changes when a message is delivered into (or taken from) ``new/``: its mtime and size."""
        try:
            status = (self.mailbox.root / "new").stat()
        except OSError:
            return None
        return status.st_mtime_ns, status.st_size

    def _wait(self, stop: threading.Event, seconds: float) -> None:
        """Wait up to ``seconds``, or less when ``new/`` changes meanwhile (or ``stop`` is set)."""
        until = time.monotonic() + seconds
        seen = self._new_folder()
        while not stop.is_set():
            left = until - time.monotonic()
            if left <= 0 or stop.wait(min(self.watch_seconds, left)):
                return
            if self._new_folder() != seen:
                return

    def run_once(self) -> IntakeResult:
        return self.intake.run_once(self.mailbox)

    def run(self, stop: threading.Event) -> None:
        while not stop.is_set():
            try:
                self.run_once()
                wait = self.intake.seconds_to_wait(self.poll_seconds, self.mailbox.name)
            except Exception as exc:
                log.exception("Maildir intake pass failed; trying again in %g s", self.poll_seconds)
                self.intake.record_error(self.mailbox.name, exc)
                wait = self.poll_seconds
            self._wait(stop, wait)

    @property
    def name(self) -> str:
        return self.mailbox.name


class MaildirTransport:
    """Delivers outgoing mail into a Maildir; see the module docstring (a :class:`bot.email.transport.Transport`)."""

    def __init__(self, root: Path) -> None:
        self.root = make_maildir(root)

    def connect(self) -> _MaildirConnection:
        return _MaildirConnection(self.root)


class _MaildirConnection:
    def __init__(self, root: Path) -> None:
        self.root = root

    async def __aenter__(self) -> _MaildirConnection:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    async def send(self, message: EmailMessage | BuiltMail, recipient: str) -> None:
        name = "referee-" + hashlib.sha256(str(message["Message-ID"]).encode()).hexdigest()[:32]
        if (self.root / "new" / name).exists() or any((self.root / "cur").glob(f"{name}:*")):
            return
        deliver(self.root, message.as_bytes(), name)
