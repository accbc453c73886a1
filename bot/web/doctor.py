"""The web channel's ``referee doctor`` checks: its base URL is well formed, its port is usable.

The port check binds and closes at once.  A host runs the doctor while ``referee serve`` runs, so a
port in use is asked what holds it: an HTTP ``GET /`` answered as referee's own pages answer (status
200 and the pages' own Content Security Policy, :data:`bot.web.server.SECURITY_HEADERS`) is serve's,
and the check passes; any other answer, or none within :data:`ASK_SECONDS`, is another program's,
and it fails.  It only connects to the port: it does not care which process serves the pages.
"""

from __future__ import annotations

import errno
import http.client
import socket
from typing import TYPE_CHECKING

from bot.channels.contract import Check
from bot.settings.fields import Bad

if TYPE_CHECKING:
    from bot.web.channel import WebSettings

ASK_SECONDS = 3.0
"""How long the doctor waits for the program on a port in use to answer."""


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
        if exc.errno != errno.EADDRINUSE:
            return Check(
                "web port", False, f"cannot listen on {where}: {exc}", "choose a free port (or host) in [referee.web]"
            )
        response = _get_root(settings.host, settings.port)
        if response is not None and is_referees(response):
            return Check("web port", True, f"referee serve answers on {where} (its pages are up)")
        held = (
            "it answered, but not as referee's pages" if response is not None else "it did not answer as a web server"
        )
        return Check("web port", False, f"cannot listen on {where}: the port is in use by another program ({held})",
                     "stop that program, or choose a free port (or host) in [referee.web]")  # fmt: skip
    return Check("web port", True, f"{where} can be bound")


def _client_host(host: str) -> str:
    """Where to connect to reach a server listening on ``host`` (every address: the loopback one)."""
    return {"": "127.0.0.1", "0.0.0.0": "127.0.0.1", "::": "::1"}.get(host, host)


def _get_root(host: str, port: int) -> http.client.HTTPResponse | None:
    connection = http.client.HTTPConnection(_client_host(host), port, timeout=ASK_SECONDS)
    try:
        connection.request("GET", "/", headers={"User-Agent": "referee-doctor"})
        response = connection.getresponse()
        response.read(64 * 1024)
        return response
    except (OSError, http.client.HTTPException):
        return None
    finally:
        connection.close()


def is_referees(response: http.client.HTTPResponse) -> bool:
    """Whether ``response`` to ``GET /`` is the answer of referee's pages (status 200, their own policy)."""
    from bot.web.server import SECURITY_HEADERS

    policy = SECURITY_HEADERS["Content-Security-Policy"]
    return response.status == 200 and response.getheader("Content-Security-Policy") == policy
