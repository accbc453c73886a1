"""The web channel's server (aiohttp): its routes, in one table, and their handlers.

Read-only and without login: ``GET`` (and ``HEAD``) only, anything else is
405; an unknown path, or a game name that is not one (``[a-z0-9][a-z0-9_-]*``,
at most 40), is 404 before the database is asked.  Every page is the public
view (:mod:`bot.core.views.pages`); every response carries a Content Security
Policy that runs no script but the page's own file, loads nothing from
elsewhere, and forbids framing, so a name that slipped an escape would still
run nothing.  The database is read in a worker thread, one short transaction
per request; nothing is kept between requests, so any number of ``referee
serve`` processes may serve the same database.

The routes are :data:`ROUTES`: adding one is a line there and its handler.
The calendars (:mod:`bot.core.views.calendars`) are a game's public one and a
player's private one, whose address carries a key derived from the player
(a wrong or revoked key is a plain 404, the same as no such calendar).
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from aiohttp import web
from sqlalchemy.orm import Session, sessionmaker

from bot.channel_contract import Hints
from bot.core.model.config import ServiceConfig
from bot.core.views.calendars import MEDIA_TYPE, CalendarViews
from bot.core.views.pages import Pages
from bot.pictures import draw
from bot.resources import TEMPLATES_DIR
from bot.web import feed
from bot.web.pages import game_html, index_html, not_found_html

log = logging.getLogger(__name__)

SLUG = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")
"""A game's name as the core makes them (bot.core.commands.hosting); anything else is no game."""
STATIC = TEMPLATES_DIR / "web"
STATIC_FILES = {"site.css": "text/css", "local-time.js": "text/javascript", "favicon.svg": "image/svg+xml"}
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self'; "
        "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}
SVG_POLICY = "default-src 'none'; style-src 'unsafe-inline'; sandbox"
"""A board picture opened on its own: styles only, no script, no load."""


@dataclass(frozen=True)
class Site:
    """What the handlers read: the pages' data, the calendars, the hints, the base URL of links."""

    pages: Pages
    calendars: CalendarViews
    hints: Hints = field(default_factory=Hints)
    """How to join a game, take a seat up for a substitute, stand by, on each channel (Runtime.hints)."""
    base_url: str = ""
    """Where people read the pages (for the feed's links); empty: the request's own address."""


Handler = Callable[[Site, web.Request], Awaitable[web.StreamResponse]]


async def index(site: Site, request: web.Request) -> web.StreamResponse:
    club = await asyncio.to_thread(site.pages.club)
    return _html(index_html(club, site.hints))


async def game(site: Site, request: web.Request) -> web.StreamResponse:
    page = await asyncio.to_thread(site.pages.game, _slug(request))
    if page is None:
        raise _not_found()
    picture = await asyncio.to_thread(draw, page.line.kind, page.board)
    return _html(game_html(page, picture, site.hints))


async def board(site: Site, request: web.Request) -> web.StreamResponse:
    page = await asyncio.to_thread(site.pages.game, _slug(request))
    picture = None if page is None else await asyncio.to_thread(draw, page.line.kind, page.board)
    if picture is None:
        raise _not_found()
    response = web.Response(text=picture.svg, content_type="image/svg+xml", charset="utf-8")
    response.headers.update({**SECURITY_HEADERS, "Content-Security-Policy": SVG_POLICY})
    return response


async def atom(site: Site, request: web.Request) -> web.StreamResponse:
    page = await asyncio.to_thread(site.pages.game, _slug(request))
    if page is None:
        raise _not_found()
    body = feed.atom_feed(page, _base(site, request))
    response = web.Response(body=body, content_type="application/atom+xml", charset="utf-8")
    response.headers.update(SECURITY_HEADERS)
    return response


async def record(site: Site, request: web.Request) -> web.StreamResponse:
    slug = _slug(request)
    document = await asyncio.to_thread(site.pages.record, slug)
    if document is None:
        raise _not_found()
    response = web.Response(text=json.dumps(document, indent=1) + "\n", content_type="application/json")
    response.headers.update(SECURITY_HEADERS)
    response.headers["Content-Disposition"] = f'attachment; filename="{slug}.json"'
    return response


async def game_calendar(site: Site, request: web.Request) -> web.StreamResponse:
    return _calendar(await asyncio.to_thread(site.calendars.game_calendar, _slug(request)), "deadlines.ics")


async def player_calendar(site: Site, request: web.Request) -> web.StreamResponse:
    return _calendar(await asyncio.to_thread(site.calendars.player_calendar, request.match_info["key"]), None)


def _calendar(ics: bytes | None, filename: str | None) -> web.StreamResponse:
    if ics is None:
        raise _not_found()
    response = web.Response(body=ics, headers={"Content-Type": MEDIA_TYPE})
    response.headers.update(SECURITY_HEADERS)
    response.headers["Cache-Control"] = "no-store" if filename is None else "max-age=60"
    if filename is None:
        response.headers["X-Robots-Tag"] = "noindex"  # a private address: never listed by a search engine
    return response


async def static(site: Site, request: web.Request) -> web.StreamResponse:
    name = request.match_info["name"]
    if name not in STATIC_FILES:
        raise _not_found()
    response = web.Response(body=(STATIC / name).read_bytes(), content_type=STATIC_FILES[name], charset="utf-8")
    response.headers.update(SECURITY_HEADERS)
    return response


ROUTES: tuple[tuple[str, Handler], ...] = (
    ("/", index),
    ("/games/{slug}", game),
    ("/games/{slug}/board.svg", board),
    ("/games/{slug}/feed.atom", atom),
    ("/games/{slug}/record.json", record),
    ("/games/{slug}/calendar.ics", game_calendar),
    ("/calendars/{key}.ics", player_calendar),
    ("/static/{name}", static),
)
"""Every page: path -> handler (GET, and HEAD)."""


def make_app(site: Site) -> web.Application:
    """The application serving :data:`ROUTES` for ``site``; unknown paths 404, other methods 405."""
    app = web.Application(middlewares=[_errors], client_max_size=1024)
    for path, handler in ROUTES:
        app.router.add_get(path, _bound(site, handler))
    return app


def _bound(site: Site, handler: Handler) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
    async def handle(request: web.Request) -> web.StreamResponse:
        return await handler(site, request)

    return handle


@web.middleware
async def _errors(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    """404 and 405 as small pages of their own; a bug is logged and answered 500 without detail."""
    try:
        return await handler(request)
    except web.HTTPException as exc:
        if exc.status == 404:
            return _html(not_found_html(), status=404)
        exc.headers.update(SECURITY_HEADERS)
        raise
    except Exception:
        log.exception("web: %s %s failed", request.method, request.path[:200])
        return _html(not_found_html("Something went wrong on our side."), status=500)


def _slug(request: web.Request) -> str:
    slug = request.match_info["slug"]
    if not SLUG.match(slug):
        raise _not_found()
    return slug


def _not_found() -> web.HTTPNotFound:
    return web.HTTPNotFound()


def _html(text: str, status: int = 200) -> web.Response:
    response = web.Response(text=text, content_type="text/html", charset="utf-8", status=status)
    response.headers.update(SECURITY_HEADERS)
    return response


def _base(site: Site, request: web.Request) -> str:
    """The pages' base URL: the configured one, else this request's scheme and host."""
    if site.base_url:
        return site.base_url
    try:
        return str(request.url.origin())
    except ValueError:  # a Host header no URL can hold
        return "http://localhost"


async def start(site: Site, host: str, port: int) -> web.AppRunner:
    """Serve ``site`` on ``host``:``port`` (0: a free port); stop with ``runner.cleanup()``."""
    runner = web.AppRunner(make_app(site), access_log=None, handle_signals=False)
    await runner.setup()
    await web.TCPSite(runner, host, port).start()
    return runner


def bound_port(runner: web.AppRunner) -> int:
    """The port ``runner`` listens on (the one chosen when 0 was asked)."""
    for address in runner.addresses:
        if isinstance(address, tuple):
            return int(address[1])
    raise RuntimeError("the web server listens on no TCP port")


def site_for(
    sessions: sessionmaker[Session],
    config: ServiceConfig | None = None,
    hints: Hints | None = None,
    base_url: str = "",
) -> Site:
    """The site of the database ``sessions`` reads; ``config`` keys the private calendars (the
    service's secret key) and names their entries (the mail domain, the pages' address)."""
    return Site(Pages(sessions), CalendarViews(sessions, config or ServiceConfig()), hints or Hints(), base_url)


__all__ = ["ROUTES", "Site", "bound_port", "make_app", "site_for", "start"]


def serve_pages(
    sessions: sessionmaker[Session],
    port: int = 0,
    *,
    host: str = "127.0.0.1",
    seconds: float | None = None,
    out: Callable[[str], None] = print,
    game: str | None = None,
) -> int:
    """Serve the pages of the database ``sessions`` reads on ``host``:``port`` (0: a free port), print
    the address (and ``game``'s page), and go on until Ctrl-C (or for ``seconds``); the port used.
    ``referee demo --web``."""

    async def serving() -> int:
        runner = await start(site_for(sessions), host, port)
        used = bound_port(runner)
        try:
            out(f"Web pages: http://{host}:{used}/ (Ctrl-C to stop)")
            if game is not None:
                out(f"The game's page: http://{host}:{used}/games/{game}")
            if seconds is None:
                await asyncio.Event().wait()
            else:
                await asyncio.sleep(seconds)
        finally:
            await runner.cleanup()
        return used

    try:
        return asyncio.run(serving())
    except KeyboardInterrupt:
        out("Web pages: stopped")
        return port
