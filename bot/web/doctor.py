"""The web channel's ``referee doctor`` checks: its base URL is well formed, its port can be bound.

The port check binds and closes at once: while ``referee serve`` runs on the
same port, it fails and says so (the doctor is for before the start).
"""

from __future__ import annotations

import errno
import socket
from typing import TYPE_CHECKING

from bot.channel_contract import Check
from bot.settings_fields import Bad

if TYPE_CHECKING:
    from bot.web.channel import WebSettings


def run(settings: WebSettings) -> list[Check]:
    """The checks, when the pages are served or linked to."""
    from bot.web.channel import is_on

    found: list[Check] = []
    if settings.base_url or is_on(settings):
        found.append(base_url_check(settings))
    if is_on(settings):
        found.append(port_check(settings))
    return found


def base_url_check(settings: WebSettings) -> Check:
    from bot.web.channel import base_url

    if not settings.base_url:
        return Check("web base_url", True, "not set: messages carry no link to the pages", warning=True,
                     fix="set base_url in [referee.web] to where people read the pages")  # fmt: skip
    try:
        base_url(settings.base_url)
    except Bad as bad:
        return Check("web base_url", False, f"{settings.base_url!r} is not {bad.expected}",
                     "correct base_url in [referee.web]")  # fmt: skip
    return Check("web base_url", True, f"games' pages are linked as {settings.base_url}/games/<game>")


def port_check(settings: WebSettings) -> Check:
    where = f"{settings.host}:{settings.port}"
    try:
        infos = socket.getaddrinfo(settings.host, settings.port, type=socket.SOCK_STREAM)
    except OSError as exc:
        return Check("web port", False, f"cannot resolve {settings.host!r}: {exc}", "correct host in [referee.web]")
    family, kind, proto, _, address = infos[0]
    try:
        with socket.socket(family, kind, proto) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(address)
    except OSError as exc:
        busy = exc.errno == errno.EADDRINUSE
        detail = f"cannot listen on {where}: " + (
            "the port is in use (is referee serve running?)" if busy else str(exc)
        )
        return Check("web port", False, detail, "choose a free port (or host) in [referee.web]")
    return Check("web port", True, f"{where} can be bound")
