"""IMAP intake: a mailbox the bot logs in to, waits on, and empties safely.

:class:`ImapMailbox` is one logged-in connection with the folder selected.
Messages are keyed ``imap:<user>@<host>/<folder>:<UIDVALIDITY>:<UID>``, so a
key never names two messages even if the folder is recreated.  A message is
acknowledged by moving it to ``done_folder`` (created if missing) when the
server offers MOVE, else by flagging it ``\\Seen`` plus the ``done_flag``
keyword; unacknowledged means "without that keyword".  Bodies are fetched
with ``BODY.PEEK`` so fetching alone changes nothing on the server.

:class:`ImapIntakeLoop` runs intake passes forever: after each pass it waits
with IDLE where the server offers it (else it polls), at most
``poll_seconds``, and when anything fails (the connection drops, the server
restarts, the database is away) it logs, waits with exponential back-off,
reconnects and carries on.  It runs in a thread; ``stop`` ends it within
a quarter of a second (or one command's time).

**No mail waits for the next poll**.  A server reports
new mail (``* n EXISTS``) once, in the response to whatever command is
running when it arrives; imapclient files such reports away.  So each pass
first forgets the reports seen so far, and after the pass the loop sends
NOOP and looks at every report since: if any mail arrived during the pass, it
runs another pass at once instead of waiting.  Mail that arrives after that
NOOP is reported when IDLE begins, and IDLE wakes the loop.  The wait also
ends when a pass would carry the watermark past the next deadline
(:meth:`bot.email.intake.Intake.seconds_to_wait`).
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import select
import socket
import ssl
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import cast

from imapclient import IMAPClient
from imapclient.exceptions import IMAPClientError

from bot.email.imap_fetch import uid_fetch
from bot.email.intake import Intake, IntakeResult, MessageRef

log = logging.getLogger(__name__)

SEEN = b"\\Seen"
PROTOCOL_LOGGER = "imapclient.imaplib"
"""imapclient's logger of the IMAP protocol, line by line (at DEBUG)."""
RECHECK_SECONDS = 5.0
"""How often a long wait asks again how long it may last (a deadline may have been set meanwhile)."""
IDLE_RENEW_SECONDS = 1.0
"""How often IDLE is ended and started again to look for a report polling could not see (one read
into imaplib's buffer with the "+ idling" line): new mail waits at most about this long for it."""


def _reports_news(responses: object) -> bool:
    """Whether parsed untagged ``responses`` (imapclient's) report new mail (EXISTS or RECENT)."""
    return isinstance(responses, list) and any(
        isinstance(item, tuple) and len(item) >= 2 and item[1] in (b"EXISTS", b"RECENT") for item in responses
    )


@dataclass(frozen=True)
class ImapConfig:
    """Where and how to log in; the password comes from the environment or the config file."""

    host: str
    user: str
    password: str = field(default="", repr=False)
    port: int = 0
    security: str = "tls"
    """``tls`` (implicit, port 993), ``starttls`` (port 143, then STARTTLS) or ``none`` (tests, localhost)."""
    folder: str = "INBOX"
    done_folder: str = "Processed"
    """Where processed mail is moved; empty: flag it instead (also when the server lacks MOVE)."""
    done_flag: str = "$RefereeDone"
    idle: bool = True
    poll_seconds: float = 60.0
    timeout: float = 60.0
    ca_file: str | None = None
    max_backoff: float = 300.0

    def __post_init__(self) -> None:
        if self.security not in ("tls", "starttls", "none"):
            raise ValueError(f"IMAP security must be tls, starttls or none, not {self.security!r}")

    @property
    def resolved_port(self) -> int:
        return self.port or (993 if self.security == "tls" else 143)

    @property
    def account(self) -> str:
        """``user@host/folder`` (hashed when long): names the intake and prefixes its keys."""
        account = f"{self.user}@{self.host}/{self.folder}"
        return hashlib.sha256(account.encode()).hexdigest()[:24] if len(account) > 120 else account

    @property
    def intake_name(self) -> str:
        """The intake's watermark name (``ServiceConfig.intakes``)."""
        return f"imap:{self.account}"


def _tls_context(ca_file: str | None) -> ssl.SSLContext:
    return ssl.create_default_context(cafile=ca_file or None)


class ImapMailbox:
    """One connection with the intake folder selected; implements :class:`bot.email.intake.Mailbox`."""

    def __init__(self, config: ImapConfig) -> None:
        self.config = config
        tls = config.security == "tls"
        context = _tls_context(config.ca_file) if config.security != "none" else None
        self.client = IMAPClient(
            config.host, port=config.resolved_port, ssl=tls, ssl_context=context if tls else None,
            timeout=config.timeout,
        )  # fmt: skip
        try:
            self.client.normalise_times = False
            if not logging.getLogger(PROTOCOL_LOGGER).isEnabledFor(logging.DEBUG):
                # imapclient sets imaplib's debug level to 5 so that every line goes to its logger, and imaplib
                # then formats each line, and the repr of each literal (each message fetched), even when nobody
                # logs at DEBUG: 2000 order mails, 28 -> 23 us of CPU a mail for the bodies' FETCH alone.
                self.client._imap.debug = 0
            if config.security == "starttls":
                self.client.starttls(context)
            self.client.login(config.user, config.password)
            capabilities = set(self.client.capabilities())
            self.can_idle = config.idle and b"IDLE" in capabilities
            self.can_move = bool(config.done_folder) and b"MOVE" in capabilities
            if self.can_move and not self.client.folder_exists(config.done_folder):
                self.client.create_folder(config.done_folder)
            selected = self.client.select_folder(config.folder)
            self.uidvalidity = int(selected[b"UIDVALIDITY"])
        except BaseException:
            self.close()
            raise
        self.name = config.intake_name
        self.key_prefix = f"imap:{config.account}:{self.uidvalidity}:"

    _NEWS = ("EXISTS", "RECENT")

    def begin_pass(self) -> None:
        """Forget the new-mail reports seen so far (see :meth:`arrived_meanwhile`)."""
        for kind in (*self._NEWS, "EXPUNGE", "FETCH"):  # the last two only so the dict does not grow
            self.client._imap.untagged_responses.pop(kind, None)

    def arrived_meanwhile(self) -> bool:
        """NOOP, then: has the server reported new mail since :meth:`begin_pass`?"""
        _, responses = self.client.noop()
        reported = _reports_news(responses)
        untagged = self.client._imap.untagged_responses
        return reported or any(untagged.pop(kind, None) for kind in self._NEWS)

    def unacknowledged(self) -> Sequence[MessageRef]:
        uids = sorted(self.client.search(["UNKEYWORD", self.config.done_flag, "NOT", "DELETED"]))
        refs: list[MessageRef] = []
        for start in range(0, len(uids), 200):
            chunk = uids[start : start + 200]
            data = uid_fetch(self.client, chunk, "(RFC822.SIZE INTERNALDATE)")
            for uid in chunk:
                item = data.get(uid)
                if item is None:  # expunged meanwhile
                    continue
                arrived = item.get(b"INTERNALDATE")
                arrived_at = arrived.astimezone(UTC) if isinstance(arrived, datetime) and arrived.tzinfo else None
                size = int(cast(int, item.get(b"RFC822.SIZE", 0)))
                refs.append(MessageRef(f"{self.key_prefix}{uid}", size, arrived_at, uid))
        return refs

    def read(self, ref: MessageRef, max_bytes: int) -> bytes:
        uid = ref.handle
        assert isinstance(uid, int)
        if ref.size >= max_bytes:
            data = uid_fetch(self.client, [uid], f"(BODY.PEEK[]<0.{max_bytes}>)").get(uid, {})
            raw = data.get(b"BODY[]<0>")
        else:
            data = uid_fetch(self.client, [uid], "(BODY.PEEK[])").get(uid, {})
            raw = data.get(b"BODY[]")
        if not isinstance(raw, bytes):
            raise IMAPClientError(f"message UID {uid} could not be fetched")
        return raw

    def read_many(self, refs: Sequence[MessageRef], max_bytes: int) -> dict[str, bytes]:
        """:meth:`read` for several messages, the small ones in one ``UID FETCH`` (keyed by ``ref.key``)."""
        small = [ref for ref in refs if ref.size < max_bytes]
        found: dict[str, bytes] = {}
        if small:
            uids = [ref.handle for ref in small]
            assert all(isinstance(uid, int) for uid in uids)
            data = uid_fetch(self.client, cast(list[int], uids), "(BODY.PEEK[])")
            for ref, uid in zip(small, uids, strict=True):
                raw = data.get(cast(int, uid), {}).get(b"BODY[]")
                if not isinstance(raw, bytes):
                    raise IMAPClientError(f"message UID {ref.handle} could not be fetched")
                found[ref.key] = raw
        for ref in refs:
            if ref.key not in found:
                found[ref.key] = self.read(ref, max_bytes)
        return found

    def acknowledge(self, refs: Sequence[MessageRef]) -> None:
        uids = [ref.handle for ref in refs]
        if self.can_move:
            self.client.move(uids, self.config.done_folder)
        else:
            self.client.add_flags(uids, [SEEN, self.config.done_flag.encode()])

    def wait(self, timeout: float, stop: threading.Event, recheck: Callable[[], float] | None = None) -> None:
        """Until the server reports a change (IDLE), ``timeout`` passes, or ``stop`` is set.

        ``recheck`` (called every :data:`RECHECK_SECONDS`) gives a fresh timeout from then, so a
        deadline set meanwhile shortens the wait.  A server that closes the connection
        during IDLE raises :class:`ConnectionError` at once (imapclient's ``idle_check`` reports
        end-of-file as "nothing new").
        """
        deadline = time.monotonic() + timeout
        next_check = time.monotonic() + RECHECK_SECONDS
        if not self.can_idle:
            while not stop.is_set() and time.monotonic() < deadline:
                stop.wait(min(deadline, next_check) - time.monotonic())
                if recheck is not None and time.monotonic() >= next_check:
                    deadline = min(deadline, time.monotonic() + recheck())
                    next_check = time.monotonic() + RECHECK_SECONDS
            return
        self.client.idle()
        idling = True
        renew = time.monotonic() + IDLE_RENEW_SECONDS
        try:
            while not stop.is_set():
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                if self.client.idle_check(timeout=min(0.25, remaining)):
                    break
                if self._peer_closed():
                    raise ConnectionError("the IMAP server closed the connection during IDLE")
                if time.monotonic() >= renew:
                    # A report the server sent with IDLE's "+ idling" may sit in imaplib's read
                    # buffer, where polling the socket cannot see it: ending IDLE reads it.
                    idling = False
                    _, responses = self.client.idle_done()
                    if _reports_news(responses) or any(k in self.client._imap.untagged_responses for k in self._NEWS):
                        return
                    self.client.idle()
                    idling = True
                    renew = time.monotonic() + IDLE_RENEW_SECONDS
                if recheck is not None and time.monotonic() >= next_check:
                    deadline = min(deadline, time.monotonic() + recheck())
                    next_check = time.monotonic() + RECHECK_SECONDS
        finally:
            if idling:
                self.client.idle_done()

    def _peer_closed(self) -> bool:
        """Has the server shut its side of the connection (Linux: POLLRDHUP; elsewhere only POLLHUP)?"""
        poller = select.poll()
        poller.register(self.client.socket().fileno(), getattr(select, "POLLRDHUP", 0) | select.POLLHUP)
        return bool(poller.poll(0))

    def close(self) -> None:
        try:
            self.client.logout()
        except Exception:  # the connection may already be gone; closing must not raise
            with contextlib.suppress(Exception):
                self.client.shutdown()


RECOVERABLE = (IMAPClientError, OSError, socket.error, ssl.SSLError, EOFError)


class ImapIntakeLoop:
    """Intake passes forever, with IDLE or polling, reconnecting with back-off (see the module docstring)."""

    def __init__(self, config: ImapConfig, intake: Intake) -> None:
        self.config = config
        self.intake = intake
        self.passes = 0
        self.connections = 0
        self.repeats = 0
        """Passes run at once because mail arrived during the one before."""

    @property
    def name(self) -> str:
        return self.config.intake_name

    def _wait_seconds(self) -> float:
        return self.intake.seconds_to_wait(self.config.poll_seconds, self.config.intake_name)

    def run_once(self) -> IntakeResult:
        """Connect, run one pass, disconnect (``referee serve --once``, cron)."""
        self.intake.reader.spawn()  # the reader process starts while this connects
        mailbox = ImapMailbox(self.config)
        try:
            return self.intake.run_once(mailbox)
        finally:
            mailbox.close()

    def run(self, stop: threading.Event) -> None:
        first_backoff = min(1.0, self.config.max_backoff)
        backoff = first_backoff
        while not stop.is_set():
            mailbox: ImapMailbox | None = None
            self.intake.reader.spawn()  # the reader process starts while this connects
            try:
                mailbox = ImapMailbox(self.config)
                self.connections += 1
                log.info(
                    "IMAP: logged in to %s as %s (%s)", self.config.host, self.config.user,
                    "IDLE" if mailbox.can_idle else f"polling every {self.config.poll_seconds:g} s",
                )  # fmt: skip
                while not stop.is_set():
                    mailbox.begin_pass()
                    result = self.intake.run_once(mailbox)
                    self.passes += 1
                    backoff = first_backoff
                    if result.stored or result.acknowledged:
                        log.info(
                            "IMAP pass: %d stored, %d copies, %d processed, %d failed, %d parked, %d acknowledged",
                            result.stored, result.duplicates, result.processed.done, result.processed.failed,
                            result.processed.parked, result.acknowledged,
                        )  # fmt: skip
                    if mailbox.arrived_meanwhile():
                        self.repeats += 1
                        continue  # mail arrived during the pass: read it now, not after the wait
                    mailbox.wait(self._wait_seconds(), stop, self._wait_seconds)
            except Exception as exc:
                level = logging.WARNING if isinstance(exc, RECOVERABLE) else logging.ERROR
                log.log(level, "IMAP intake interrupted (%s: %s); retrying in %.0f s", type(exc).__name__, exc, backoff,
                        exc_info=level == logging.ERROR)  # fmt: skip
                self.intake.record_error(self.config.intake_name, exc)
                stop.wait(backoff)
                backoff = min(backoff * 2, self.config.max_backoff)
            finally:
                if mailbox is not None:
                    mailbox.close()
