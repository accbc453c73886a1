"""The web server's bounds: how many connections, how long one may sit without a request, how many builds.

aiohttp closes a connection that stays idle past its ``keepalive_timeout``
(recent versions arm that timer at the connection's start too, with a
default of an hour), but it has no timeout of its own for a request's head
and no cap on connections.  So each connection passes through
:class:`Guarded`, a thin protocol in front of aiohttp's own (the transport's
public calls only):

* **a cap**: past ``max_connections`` open at once, a new connection is
  answered ``503`` with ``Retry-After`` and closed at once, before a byte of
  its request is read, so connections can never use up the process's file
  descriptors;
* **a timer**: a connection must complete a request's head (its line and
  headers) within ``header_timeout`` of opening, and the next one within
  ``keepalive_timeout`` of the last answer; otherwise it is dropped.  The
  timer stops while a request is being answered (the middleware
  :func:`timed` tells it), so a slow page is not cut, but a client that sends
  half a request, or sends nothing, or does not read its answer, holds its
  connection only that long.

The number of builds at once and the bytes of built pages kept are here too
(:mod:`bot.web.cache` enforces them); the settings are ``[referee.web]``'s.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from aiohttp import web

log = logging.getLogger(__name__)

RETRY_AFTER_SECONDS = 5
"""What a refused reader is told to wait (``Retry-After``) before asking again."""
_REFUSED = "Too many readers just now: try again in a few seconds.\r\n"
REFUSAL = (
    "HTTP/1.1 503 Service Unavailable\r\n"
    f"Retry-After: {RETRY_AFTER_SECONDS}\r\n"
    "Content-Type: text/plain; charset=utf-8\r\n"
    f"Content-Length: {len(_REFUSED)}\r\n"
    "Connection: close\r\n\r\n" + _REFUSED
).encode()
"""What a connection past the cap is told before it is closed (it is not read)."""


@dataclass(frozen=True)
class Limits:
    """The bounds of one web server (the ``[referee.web]`` settings of the same names)."""

    max_connections: int = 256
    """Connections open at once; more are answered 503 and closed."""
    header_timeout: float = 10.0
    """Seconds a new connection has to send a request's line and headers in full."""
    keepalive_timeout: float = 15.0
    """Seconds a kept-alive connection may wait (or send its next head) after an answer."""
    max_builds: int = 2
    """Pages built at once (each in a thread); requests that need another build wait ..."""
    build_queue: int = 16
    """... this many at most: beyond, 503 with ``Retry-After``."""
    cache_bytes: int = 32 * 1024 * 1024
    """Bytes of built pages kept (least recently used dropped first)."""
    max_line_size: int = 4096
    """The longest request line (a page's address is short; aiohttp answers 400 beyond)."""
    max_field_size: int = 8190
    """The longest header line."""


class Connections:
    """The open connections of one server: counted against the cap, each with its timer."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.open = 0
        self.refused = 0
        """Connections answered 503 at the cap, since the start."""
        self.dropped = 0
        """Connections dropped by their timer (a head not sent in time, idle too long), since the start."""

    def factory(self, inner: Callable[[], asyncio.Protocol]) -> Callable[[], asyncio.Protocol]:
        """A protocol factory for ``loop.create_server``: ``inner``'s protocols, guarded."""
        return lambda: Guarded(inner(), self)


class Guarded(asyncio.Protocol):
    """One connection: refused past the cap; else handed to ``inner`` (aiohttp's), and dropped when
    its timer runs out while no request is being answered."""

    def __init__(self, inner: asyncio.Protocol, connections: Connections) -> None:
        self.inner = inner
        self.connections = connections
        self.transport: asyncio.Transport | None = None
        self.refused = False
        self.answering = 0
        self._timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        connections = self.connections
        if connections.open >= connections.limits.max_connections:
            self.refused = True
            connections.refused += 1
            transport.write(REFUSAL)
            transport.close()
            return
        connections.open += 1
        self._arm(connections.limits.header_timeout)
        self.inner.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        if not self.refused:
            self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        return None if self.refused else self.inner.eof_received()

    def connection_lost(self, exc: Exception | None) -> None:
        if self.refused:
            return
        self.connections.open -= 1
        self._disarm()
        self.inner.connection_lost(exc)

    def pause_writing(self) -> None:
        if not self.refused:
            self.inner.pause_writing()

    def resume_writing(self) -> None:
        if not self.refused:
            self.inner.resume_writing()

    def answering_started(self) -> None:
        self.answering += 1
        self._disarm()

    def answering_ended(self) -> None:
        self.answering -= 1
        if self.answering == 0:
            self._arm(self.connections.limits.keepalive_timeout)

    def _arm(self, seconds: float) -> None:
        self._disarm()
        self._timer = asyncio.get_running_loop().call_later(seconds, self._ran_out)

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _ran_out(self) -> None:
        self._timer = None
        if self.answering or self.transport is None:
            return
        self.connections.dropped += 1
        self.transport.abort()  # not close(): an answer the client does not read would hold it open


def guard_of(request: web.BaseRequest) -> Guarded | None:
    transport = request.transport
    protocol = transport.get_protocol() if transport is not None else None
    return protocol if isinstance(protocol, Guarded) else None


@web.middleware
async def timed(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    """Stops the connection's timer while its request is answered (and starts the keep-alive one after)."""
    guard = guard_of(request)
    if guard is None:
        return await handler(request)
    guard.answering_started()
    try:
        return await handler(request)
    finally:
        guard.answering_ended()


class GuardedSite(web.BaseSite):
    """A TCP site whose connections pass through :class:`Guarded` (aiohttp's ``TCPSite`` otherwise)."""

    def __init__(self, runner: web.BaseRunner, host: str, port: int, connections: Connections) -> None:
        super().__init__(runner, backlog=1024)
        self.host, self.port, self.connections = host, port, connections

    @property
    def name(self) -> str:
        return f"http://{self.host}:{self.port}"

    async def start(self) -> None:
        await super().start()
        server = self._runner.server
        assert server is not None
        self._server = await asyncio.get_running_loop().create_server(
            self.connections.factory(server), self.host, self.port, backlog=self._backlog, reuse_address=True
        )
