"""The web channel's server (aiohttp): its routes, in one table, and their handlers.

Read-only and without login: ``GET`` (and ``HEAD``) only, anything else is
405; an unknown path, or a game name that is not one (``[a-z0-9][a-z0-9_-]*``,
at most 40), is 404 before the database is asked, and so is a kind of game that
has no rules page (``/rules/<kind>``, from ``docs/rules/``).  Every page is the public
view (:mod:`bot.core.views.pages`); every response carries a Content Security
Policy that runs no script but the page's own file, loads nothing from
elsewhere, and forbids framing, so a name that slipped an escape would still
run nothing.

A page (HTML) is in the reader's language (:mod:`bot.web.languages`: ``?lang=``, a cookie,
``Accept-Language``): each language is a page of its own in the cache, and the response says
``Vary: Accept-Language, Cookie``.

A page is built once per change of what it shows, not per request: each
request reads its page's stamp (one small SELECT), and while the stamp is the
same the kept bytes are served again, with an ``ETag`` a reader may send back
for ``304 Not Modified`` (:mod:`bot.web.cache`).  A rules page is read from
the package, not the database: it has one stamp for the life of the process.  Builds run in threads, a
few at once, one per page and stamp however many ask; beyond a bound a
request is answered 503 with ``Retry-After``.  Connections are capped and
timed (:mod:`bot.web.limits`).  Nothing is written, and nothing kept is
shared with another process: any number of servers may read one database.

The routes are :data:`ROUTES`: adding one is a line there and its handler.
The calendars (:mod:`bot.core.views.calendars`) are a game's public one and a
player's private one, whose address carries a key derived from the player
(a wrong or revoked key is a plain 404, the same as no such calendar); they
are read per request (they carry the time they were made), within the
bound on builds.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import signal
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass, field
from functools import lru_cache

from aiohttp import web
from sqlalchemy.orm import Session, sessionmaker

from bot.channels.contract import Hints
from bot.core.basics.translation import speaking
from bot.core.model.config import ServiceConfig
from bot.core.views.calendars import MEDIA_TYPE, CalendarViews
from bot.core.views.pages import Pages
from bot.pictures import draw
from bot.resources import TEMPLATES_DIR
from bot.web import feed, languages
from bot.web.cache import Builds, Built, Busy, PageCache
from bot.web.limits import RETRY_AFTER_SECONDS, Connections, GuardedSite, Limits, timed
from bot.web.pages import BUSY, FAILED, NOT_FOUND, game_html, has_rules, index_html, not_found_html, rules_html

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
HTML = "text/html; charset=utf-8"
ATOM = "application/atom+xml; charset=utf-8"
SVG = "image/svg+xml; charset=utf-8"
"""A game's feed: like a page, in the reader's language (its response varies by it)."""
RULES_STAMP = "rules"
"""The stamp of every rules page: the pages ship with the package, so none changes while the process runs."""
REVALIDATE = "no-cache"
"""A page's ``Cache-Control``: a reader's cache keeps it but asks each time (a 304 costs a stamp)."""
SHUTDOWN_SECONDS = 3.0
"""How long a stopping server lets the requests it is answering finish."""


@dataclass(frozen=True)
class Site:
    """What the handlers read: the pages' data, the calendars, the hints, the base URL of links."""

    pages: Pages
    calendars: CalendarViews
    hints: Hints = field(default_factory=Hints)
    """How to join a game, take a seat up for a substitute, stand by, on each channel (Runtime.hints)."""
    base_url: str = ""
    """Where people read the pages (for the feed's links); empty: the request's own address."""


@dataclass(frozen=True)
class Serving:
    """A site as one server serves it: with its built pages and the bound on builds."""

    site: Site
    builds: Builds


BUILDS = web.AppKey("builds", Builds)
"""The application's :class:`Builds` (tests count them)."""

Handler = Callable[[Serving, web.Request], Awaitable[web.StreamResponse]]


async def index(serving: Serving, request: web.Request) -> web.StreamResponse:
    site, language = serving.site, _language(request).language
    stamp = await asyncio.to_thread(site.pages.club_stamp)

    def build() -> Built:
        with speaking(language):  # the moments the views write, in the page's language
            club = site.pages.club()
        return Built.of(index_html(club, site.hints, language).encode(), HTML)

    return await _page(serving, request, ("index", language), stamp, build)


async def game(serving: Serving, request: web.Request) -> web.StreamResponse:
    site, slug, language = serving.site, _slug(request), _language(request).language

    def build() -> Built | None:
        with speaking(language):
            page = site.pages.game(slug)
        if page is None:
            return None
        picture = draw(page.line.kind, page.board, language)  # its caption and alt text in the page's language
        return Built.of(game_html(page, picture, site.hints, language).encode(), HTML)

    return await _game_page(serving, request, ("game", slug, language), slug, build)


async def board(serving: Serving, request: web.Request) -> web.StreamResponse:
    site, slug, language = serving.site, _slug(request), _language(request).language

    def build() -> Built | None:
        found = site.pages.board(slug)
        picture = None if found is None else draw(*found, language)
        if picture is None:
            return None
        return Built.of(picture.svg.encode(), SVG, (("Content-Security-Policy", SVG_POLICY),))

    return await _game_page(serving, request, ("board", slug, language), slug, build)


async def atom(serving: Serving, request: web.Request) -> web.StreamResponse:
    site, slug, base = serving.site, _slug(request), _base(serving.site, request)
    language = _language(request).language

    def build() -> Built | None:
        with speaking(language):  # the announced actions and moments the views write, in the feed's language
            page = site.pages.game(slug)
        return None if page is None else Built.of(feed.atom_feed(page, base, language), ATOM)

    return await _game_page(serving, request, ("feed", slug, base, language), slug, build)


async def record(serving: Serving, request: web.Request) -> web.StreamResponse:
    site, slug = serving.site, _slug(request)

    def build() -> Built | None:
        document = site.pages.record(slug)
        if document is None:
            return None
        body = (json.dumps(document, indent=1) + "\n").encode()
        download = (("Content-Disposition", f'attachment; filename="{slug}.json"'),)
        return Built.of(body, "application/json; charset=utf-8", download)

    return await _game_page(serving, request, ("record", slug), slug, build)


async def game_calendar(serving: Serving, request: web.Request) -> web.StreamResponse:
    slug = _slug(request)
    return _calendar(await serving.builds.run(lambda: serving.site.calendars.game_calendar(slug)), "deadlines.ics")


async def player_calendar(serving: Serving, request: web.Request) -> web.StreamResponse:
    key = request.match_info["key"]
    return _calendar(await serving.builds.run(lambda: serving.site.calendars.player_calendar(key)), None)


def _calendar(ics: bytes | None, filename: str | None) -> web.StreamResponse:
    if ics is None:
        raise _not_found()
    response = web.Response(body=ics, headers={"Content-Type": MEDIA_TYPE})
    response.headers.update(SECURITY_HEADERS)
    response.headers["Cache-Control"] = "no-store" if filename is None else "max-age=60"
    if filename is None:
        response.headers["X-Robots-Tag"] = "noindex"  # a private address: never listed by a search engine
    return response


async def rules(serving: Serving, request: web.Request) -> web.StreamResponse:
    kind, language = request.match_info["kind"], _language(request).language
    if not has_rules(kind):
        raise _not_found()

    def build() -> Built | None:
        page = rules_html(kind, language)
        return None if page is None else Built.of(page.encode(), HTML)

    return await _page(serving, request, ("rules", kind, language), RULES_STAMP, build)


async def static(serving: Serving, request: web.Request) -> web.StreamResponse:
    name = request.match_info["name"]
    if name not in STATIC_FILES:
        raise _not_found()
    return _answer(request, _static_file(name))


@lru_cache(maxsize=len(STATIC_FILES))
def _static_file(name: str) -> Built:
    return Built.of((STATIC / name).read_bytes(), f"{STATIC_FILES[name]}; charset=utf-8")


ROUTES: tuple[tuple[str, Handler], ...] = (
    ("/", index),
    ("/games/{slug}", game),
    ("/games/{slug}/board.svg", board),
    ("/games/{slug}/feed.atom", atom),
    ("/games/{slug}/record.json", record),
    ("/games/{slug}/calendar.ics", game_calendar),
    ("/calendars/{key}.ics", player_calendar),
    ("/rules/{kind}", rules),
    ("/static/{name}", static),
)
"""Every page: path -> handler (GET, and HEAD)."""


async def _game_page(
    serving: Serving, request: web.Request, key: Hashable, slug: str, build: Callable[[], Built | None]
) -> web.StreamResponse:
    """A page of game ``slug``: 404 when there is no such game (its stamp says so, nothing is built)."""
    stamp = await asyncio.to_thread(serving.site.pages.stamp, slug)
    if stamp is None:
        raise _not_found()
    return await _page(serving, request, key, stamp, build)


async def _page(
    serving: Serving, request: web.Request, key: Hashable, stamp: str, build: Callable[[], Built | None]
) -> web.StreamResponse:
    built = await serving.builds.page(key, stamp, build)
    if built is None:
        raise _not_found()
    return _answer(request, built)


def _answer(request: web.Request, built: Built) -> web.StreamResponse:
    """``built``, or 304 when the reader holds it already (its ETag is in ``If-None-Match``); a page (HTML)
    varies by the reader's language, and keeps the language they chose just now (:mod:`bot.web.languages`)."""
    headers = {**SECURITY_HEADERS, "Cache-Control": REVALIDATE, "ETag": f'"{built.etag}"', **dict(built.headers)}
    if built.content_type in (HTML, ATOM, SVG):
        headers["Vary"] = languages.VARY
    held = request.if_none_match or ()
    if any(tag.value in (built.etag, "*") for tag in held):
        response = web.Response(status=304, headers=headers)
    else:
        response = web.Response(body=built.body, headers={**headers, "Content-Type": built.content_type})
    if built.content_type == HTML:
        _remember(request, response)
    return response


def _language(request: web.Request) -> languages.Choice:
    """The language of the page ``request`` asks for (:func:`bot.web.languages.choose`)."""
    return languages.choose(request.query, request.cookies, request.headers.get("Accept-Language"))


def _remember(request: web.Request, response: web.StreamResponse) -> None:
    """Keep the language the reader chose by this request (``?lang=``) in a cookie, for their next pages."""
    chosen = _language(request).remember
    if chosen is not None:
        response.set_cookie(
            languages.COOKIE, chosen, max_age=languages.COOKIE_SECONDS, path="/", samesite="Lax", httponly=True
        )


def make_app(site: Site, limits: Limits | None = None) -> web.Application:
    """The application serving :data:`ROUTES` for ``site``; unknown paths 404, other methods 405."""
    limits = limits or Limits()
    app = web.Application(middlewares=[timed, _errors], client_max_size=1024)
    serving = Serving(site, Builds(limits.max_builds, limits.build_queue, PageCache(limits.cache_bytes)))
    app[BUILDS] = serving.builds
    for path, handler in ROUTES:
        app.router.add_get(path, _bound(serving, handler))
    return app


def _bound(serving: Serving, handler: Handler) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
    async def handle(request: web.Request) -> web.StreamResponse:
        return await handler(serving, request)

    return handle


@web.middleware
async def _errors(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    """404 and 405 as small pages of their own; too busy, 503 with ``Retry-After``; a bug is logged and
    answered 500 without detail."""
    try:
        return await handler(request)
    except web.HTTPException as exc:
        if exc.status == 404:
            return _html(_short_page(NOT_FOUND, _language(request).language), status=404)
        exc.headers.update(SECURITY_HEADERS)
        raise
    except Busy:
        response = _html(_short_page(BUSY, _language(request).language), status=503)
        response.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return response
    except Exception:
        log.exception("web: %s %s failed", request.method, request.path[:200])
        return _html(_short_page(FAILED, _language(request).language), status=500)


@lru_cache(maxsize=16)
def _short_page(reason: str, language: str) -> str:
    """The page of a 404, 503 or 500 in ``language`` (a shipped one: a few pages in all, made once)."""
    return not_found_html(reason, language)


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
    response.headers["Vary"] = languages.VARY
    return response


def _base(site: Site, request: web.Request) -> str:
    """The pages' base URL: the configured one, else this request's scheme and host."""
    if site.base_url:
        return site.base_url
    try:
        return str(request.url.origin())
    except ValueError:  # a Host header no URL can hold
        return "http://localhost"


async def start(site: Site, host: str, port: int, limits: Limits | None = None) -> web.AppRunner:
    """Serve ``site`` on ``host``:``port`` (0: a free port) within ``limits``; stop with ``runner.cleanup()``."""
    limits = limits or Limits()
    runner = web.AppRunner(
        make_app(site, limits), access_log=None, handle_signals=False, handler_cancellation=True,
        keepalive_timeout=limits.keepalive_timeout, max_line_size=limits.max_line_size,
        max_field_size=limits.max_field_size, shutdown_timeout=SHUTDOWN_SECONDS,
    )  # fmt: skip
    await runner.setup()
    await GuardedSite(runner, host, port, Connections(limits)).start()
    return runner


def connections_of(runner: web.AppRunner) -> Connections:
    """The connections of ``runner``'s site (how many are open, refused, dropped)."""
    for site in runner.sites:
        if isinstance(site, GuardedSite):
            return site.connections
    raise RuntimeError("the web server has no guarded site")


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


__all__ = ["ROUTES", "Limits", "Site", "bound_port", "connections_of", "make_app", "site_for", "start"]


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
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        # Ctrl-C and SIGTERM stop it through handlers of its own: a SIGINT its parent left ignored (a
        # disposition that survives exec) would otherwise never reach Python as KeyboardInterrupt.
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        runner = await start(site_for(sessions), host, port)
        used = bound_port(runner)
        try:
            out(f"Web pages: http://{host}:{used}/ (Ctrl-C to stop)")
            if game is not None:
                out(f"The game's page: http://{host}:{used}/games/{game}")
            try:
                await asyncio.wait_for(stop.wait(), seconds)
                out("Web pages: stopped")
            except TimeoutError:
                pass  # served for ``seconds``
        finally:
            await runner.cleanup()
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.remove_signal_handler(sig)
        return used

    try:
        return asyncio.run(serving())
    except KeyboardInterrupt:  # before the handlers were installed
        out("Web pages: stopped")
        return port
