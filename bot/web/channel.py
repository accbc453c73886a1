"""The web channel, declared: its settings, its (lack of) addresses, its doctor checks and its worker.

Read-only pages, no login: the club's index, a page per game, an Atom feed
per game (:mod:`bot.web.server`).  It runs when ``port`` is set (``[referee.web]
port = 8080``); ``base_url`` is where people read the pages (a proxy in front,
usually), for the links every channel's messages carry.  Nobody is reached on
the web, so its address syntax reads no address (``web:...`` is refused) and it
has no public place.

The pages are served by a process of their own (:mod:`bot.web.process`), which
``referee serve``'s web worker starts and watches (:mod:`bot.web.runtime`): no
number of readers can take the intake's, the sender's or the deadline
worker's file descriptors, threads or database connections.  Its bounds are
settings here: connections at once, the time to send a request's head, the
idle time of a kept-alive connection, pages built at once, megabytes of built
pages kept (:mod:`bot.web.limits`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from bot.channels.contract import AddressSyntax, Channel, Check, DoctorContext, Runtime
from bot.settings.fields import PORT, Bad, not_empty, setting, whole

if TYPE_CHECKING:
    from bot.core.runtime.supervisor import Worker

log = logging.getLogger(__name__)

NAME = "web"

GAME_PATH = "/games/"
LONGEST_SLUG = 40
LINE = 78
BASE_URL_MAX = LINE - len(GAME_PATH) - LONGEST_SLUG
"""A game's link stands on a mailed line of its own, so the base URL leaves room for the longest slug."""


def base_url(text: str) -> str:
    """``http(s)://host[:port][/path]`` with no query, fragment, user or space, at most
    :data:`BASE_URL_MAX` characters; the trailing slash dropped.  Empty: no links."""
    if not text:
        return ""
    expected = f"an http:// or https:// URL of at most {BASE_URL_MAX} characters, with no query or fragment"
    if len(text) > BASE_URL_MAX or any(ch.isspace() or not ch.isprintable() for ch in text):
        raise Bad(expected)
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018  (a malformed port raises here)
    except ValueError:
        raise Bad(expected) from None
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment:
        raise Bad(expected)
    if parts.username or parts.password or "@" in parts.netloc or not text.isascii():
        raise Bad(expected)
    return text.rstrip("/")


@dataclass(frozen=True)
class WebSettings:
    """The web channel's section: ``[referee.web] port`` is ``port`` here, ``web_port`` in files."""

    host: str = setting("127.0.0.1", not_empty)
    """The address the server listens on (loopback: a proxy in front serves the world)."""
    port: int = setting(0, PORT)
    """The port it listens on; 0: no web pages."""
    base_url: str = setting("", base_url)
    """Where people read the pages (``https://referee.club.org``), for links in messages; empty: no links."""
    max_connections: int = setting(256, whole(1, 1_000_000))
    """Connections open at once; a reader past it is answered 503 and closed (the process's own file
    limit, raised to its hard limit at the start, lowers it if need be)."""
    header_timeout_seconds: float = 10.0
    """The time a connection has to send a request's line and headers, else it is dropped."""
    keepalive_seconds: float = 15.0
    """The time a kept-alive connection may sit idle after an answer, else it is dropped."""
    max_builds: int = setting(2, whole(1, 64))
    """Pages built at once (a page is built once per change of its game, then served as built)."""
    cache_megabytes: int = setting(32, whole(1, 65536))
    """Megabytes of built pages kept (the least recently read dropped first)."""


def is_on(settings: WebSettings) -> bool:
    return settings.port != 0


def workers(settings: WebSettings, runtime: Runtime) -> list[Worker]:
    if not is_on(settings):
        log.info("no web port ([referee.web] port): no web pages are served")
        return []
    from bot.web.runtime import WebWorker

    return [WebWorker(settings, runtime.sessions, runtime.service.config, runtime.hints)]


def doctor(settings: WebSettings, context: DoctorContext) -> list[Check]:
    from bot.web import doctor as checks

    return checks.run(settings)


CHANNEL = Channel(
    name=NAME,
    label="Web",
    settings=WebSettings,
    prefix="web_",
    address=AddressSyntax.none(),
    workers=workers,
    doctor=doctor,
    pages_url=lambda settings: settings.base_url,
)
"""The web pages, as :data:`bot.channels.registry.CHANNELS` lists them."""
