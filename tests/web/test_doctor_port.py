"""``referee doctor``'s web port check on a host where ``referee serve`` runs: it asks the server.

A host runs the doctor while serve is up: a port held by referee's own pages is healthy.  The
attacks: a port held by another program (a server that answers without being referee's pages, one
that accepts and says nothing) still fails, with the reason; a free port passes as before.
"""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

from aiohttp import web

from bot.core.model.config import ServiceConfig
from bot.core.views.calendars import CalendarViews
from bot.core.views.pages import Pages
from bot.store.db import make_engine, session_factory
from bot.web.channel import WebSettings
from bot.web.doctor import port_check
from bot.web.server import Site, bound_port, start
from tests.support.database import migrated_sqlite


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_a_free_port_can_be_bound() -> None:
    port = free_port()
    check = port_check(WebSettings(host="127.0.0.1", port=port))
    assert check.ok and check.detail == f"127.0.0.1:{port} can be bound"


async def test_a_port_held_by_referees_own_pages_passes(tmp_path: Path) -> None:
    database = tmp_path / "db.sqlite3"
    migrated_sqlite(str(database))
    sessions = session_factory(make_engine(str(database)))
    config = ServiceConfig()
    runner = await start(Site(Pages(sessions), CalendarViews(sessions, config)), "127.0.0.1", 0)
    try:
        port = bound_port(runner)
        check = await asyncio.to_thread(port_check, WebSettings(host="127.0.0.1", port=port))
        assert check.ok and not check.warning, check
        assert check.detail == f"referee serve answers on 127.0.0.1:{port} (its pages are up)"
    finally:
        await runner.cleanup()


async def test_a_port_held_by_another_server_fails() -> None:
    async def hello(request: web.Request) -> web.Response:
        return web.Response(text="<html>The club's games</html>", content_type="text/html")

    app = web.Application()
    app.router.add_get("/", hello)
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    try:
        port = bound_port_of(runner)
        check = await asyncio.to_thread(port_check, WebSettings(host="127.0.0.1", port=port))
        assert not check.ok
        assert "the port is in use by another program (it answered, but not as referee's pages)" in check.detail
    finally:
        await runner.cleanup()


def test_a_port_held_by_something_silent_fails() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = int(sock.getsockname()[1])
        check = port_check(WebSettings(host="127.0.0.1", port=port))
    assert not check.ok
    assert "the port is in use by another program" in check.detail


def bound_port_of(runner: web.AppRunner) -> int:
    return bound_port(runner)
