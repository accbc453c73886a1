"""An aiosmtpd server that keeps what it receives.

It runs in its own thread and event loop (aiosmtpd's Controller).  It can be
stopped and started again on the same port (to take the mail server away
during a test), speak implicit TLS or STARTTLS with a throwaway self-signed
certificate, and require AUTH.
"""

from __future__ import annotations

import email
import functools
import shutil
import ssl
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from email import policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

from tests.support.net import free_port, self_signed_certificate


@dataclass(frozen=True)
class Received:
    mail_from: str
    recipients: tuple[str, ...]
    raw: bytes
    at: float = field(default_factory=time.perf_counter)
    """When the sink accepted it (``time.perf_counter``: a benchmark's replies' latency)."""

    @functools.cached_property
    def message(self) -> EmailMessage:
        """The mail parsed once (the harnesses poll the sink's mails many times a second)."""
        parsed = email.message_from_bytes(self.raw, policy=policy.default)
        assert isinstance(parsed, EmailMessage)
        return parsed

    @functools.cached_property
    def text(self) -> str:
        """The plain body, decoded once."""
        return str(self.message.get_body(("plain",)).get_content())


class _Collect:
    def __init__(self, sink: SmtpSink) -> None:
        self.sink = sink

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str, options: Any) -> str:
        if address.lower() in self.sink.reject:
            return "550 5.1.1 no such user here"
        if address.lower() in self.sink.defer:
            return "450 4.2.1 mailbox busy, try again later"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        with self.sink.lock:
            if self.sink.accept_limit is not None and len(self.sink.received) >= self.sink.accept_limit:
                return "421 4.3.2 service shutting down, try again later"
            self.sink.received.append(
                Received(envelope.mail_from, tuple(envelope.rcpt_tos), bytes(envelope.original_content))
            )
        return "250 OK"


class SmtpSink:
    """See the module docstring.  ``tls``: None, "starttls" or "tls"; ``login``: (user, password) or None.

    ``reject`` lists recipients refused with 550, ``defer`` those refused for now with 450; once ``accept_limit`` messages have been received, further
    ones are refused with 421 (a server going away mid-session) until the limit is lifted.
    """

    def __init__(self, tls: str | None = None, login: tuple[str, str] | None = None) -> None:
        self.reject: set[str] = set()
        self.defer: set[str] = set()
        self.accept_limit: int | None = None
        self.port = free_port()
        self.host = "127.0.0.1"
        self.tls = tls
        self.login = login
        self.received: list[Received] = []
        self.lock = threading.Lock()
        self.controller: Controller | None = None
        self.directory = Path(tempfile.mkdtemp(prefix="smtp", dir="/tmp"))
        self.cert: Path | None = None
        self.context: ssl.SSLContext | None = None
        if tls:
            self.cert, key = self_signed_certificate(self.directory)
            self.context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            self.context.load_cert_chain(self.cert, key)

    def _authenticate(self, server: Any, session: Any, envelope: Any, mechanism: str, data: Any) -> AuthResult:
        if isinstance(data, LoginPassword) and (data.login.decode(), data.password.decode()) == self.login:
            return AuthResult(success=True)
        return AuthResult(success=False, handled=False)

    def start(self) -> None:
        kwargs: dict[str, Any] = {}
        if self.login is not None:
            # With implicit TLS aiosmtpd does not know the session is encrypted: it must not insist on STARTTLS.
            kwargs.update(authenticator=self._authenticate, auth_require_tls=self.tls == "starttls", auth_required=True)
        if self.tls == "starttls":
            kwargs.update(tls_context=self.context, require_starttls=True)
        elif self.tls == "tls":
            kwargs.update(ssl_context=self.context)
        self.controller = Controller(_Collect(self), hostname=self.host, port=self.port, **kwargs)
        deadline = time.monotonic() + 5
        while True:
            try:
                self.controller.start()
                return
            except OSError:  # the port from a moment ago may still be closing
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def stop(self) -> None:
        if self.controller is not None:
            self.controller.stop()
            self.controller = None

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.directory, ignore_errors=True)

    def messages(self) -> list[Received]:
        with self.lock:
            return list(self.received)

    def count(self) -> int:
        """How many messages have arrived (without copying them: a benchmark polls this every few ms)."""
        with self.lock:
            return len(self.received)

    def wait_for(self, count: int, timeout: float = 10.0) -> list[Received]:
        """Wait until at least ``count`` messages have arrived; returns them all."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = self.messages()
            if len(found) >= count:
                return found
            time.sleep(0.02)
        raise AssertionError(f"expected {count} messages, got {len(self.messages())} in {timeout} s")


@pytest.fixture
def smtp() -> Iterator[SmtpSink]:
    """A running aiosmtpd sink for one test (every package's: tests/conftest.py names this plugin)."""
    sink = SmtpSink()
    sink.start()
    try:
        yield sink
    finally:
        sink.close()
