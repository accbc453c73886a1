"""The web server's bounds, attacked over real sockets on loopback (:mod:`bot.web.limits`).

* past ``max_connections`` open at once, the next connection is answered 503
  and closed before anything of it is read; when one closes, a new one is served;
* a connection that sends half a request (or one byte at a time, or nothing) is
  dropped ``header_timeout`` after it opened; an idle kept-alive one
  ``keepalive_timeout`` after its last answer; a page slower to build than
  either is still answered (the timer stops while a request is answered);
* past ``max_builds`` builds at once and ``build_queue`` waiting, a request for
  another page is answered 503 with ``Retry-After`` at once, while one for the
  page being built waits for that same build;
* asyncio's accept errors when the process runs out of file descriptors are
  logged once a minute with a count (a real ``EMFILE``, in a process of its own
  with a low limit), never a traceback per accept.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.web.server import Limits, connections_of
from tests.web.world import club, served

RUNNERS = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay"]
ROOT = Path(__file__).resolve().parents[2]
HALF_A_REQUEST = b"GET /games/race HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: slow"


async def until(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "never happened"
        await asyncio.sleep(0.02)


async def closed_after(reader: asyncio.StreamReader, timeout: float = 10.0) -> tuple[bytes, float]:
    """What the server sent before it closed the connection, and how long that took."""
    began, got = time.monotonic(), b""
    try:
        while chunk := await asyncio.wait_for(reader.read(4096), timeout):
            got += chunk
    except ConnectionResetError:
        pass
    return got, time.monotonic() - began


async def get_on(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, path: str) -> bytes:
    """One kept-alive GET on a raw connection; the answer's head and body."""
    writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    head = await reader.readuntil(b"\r\n\r\n")
    length = next(
        int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")
    )
    return head + await reader.readexactly(length)


async def test_a_connection_past_the_cap_is_answered_503_and_closed(tmp_path: Path) -> None:
    with club(tmp_path) as made:
        made.create("race", "golden-strider", RUNNERS)
        async with served(made, Limits(max_connections=3, header_timeout=60)) as reader:
            connections = connections_of(reader.runner)
            held = [await asyncio.open_connection("127.0.0.1", reader.port) for _ in range(3)]
            await until(lambda: connections.open == 3)
            extra_reader, extra_writer = await asyncio.open_connection("127.0.0.1", reader.port)
            extra_writer.write(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            answer, _ = await closed_after(extra_reader)
            assert answer.startswith(b"HTTP/1.1 503 ") and b"Retry-After: 5" in answer, answer
            assert connections.refused == 1 and connections.open == 3
            held[0][1].close()
            await until(lambda: connections.open == 2)
            assert "Golden Strider" in await reader.get("/games/race"), "a place is free again"
            for _, writer in held[1:]:
                writer.close()
            extra_writer.close()


async def test_half_a_request_is_dropped_at_the_header_timeout(tmp_path: Path) -> None:
    with club(tmp_path) as made:
        made.create("race", "golden-strider", RUNNERS)
        async with served(made, Limits(header_timeout=0.5, keepalive_timeout=60)) as reader:
            half_reader, half_writer = await asyncio.open_connection("127.0.0.1", reader.port)
            half_writer.write(HALF_A_REQUEST)
            answer, waited = await closed_after(half_reader)
            assert answer == b"" and 0.4 < waited < 5, (answer, waited)

            slow_reader, slow_writer = await asyncio.open_connection("127.0.0.1", reader.port)

            async def dribble() -> None:
                for byte in HALF_A_REQUEST:
                    slow_writer.write(bytes([byte]))
                    await asyncio.sleep(0.05)

            dribbling = asyncio.create_task(dribble())
            answer, waited = await closed_after(slow_reader)
            dribbling.cancel()
            assert answer == b"" and waited < 5, "sending a byte now and then does not keep it open"

            silent_reader, _ = await asyncio.open_connection("127.0.0.1", reader.port)
            assert (await closed_after(silent_reader))[0] == b""
            assert connections_of(reader.runner).dropped == 3
            assert "Golden Strider" in await reader.get("/games/race"), "a whole request in time is answered"


async def test_an_idle_kept_alive_connection_is_dropped_but_a_slow_page_is_answered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with club(tmp_path) as made:
        made.create("race", "golden-strider", RUNNERS)
        async with served(made, Limits(header_timeout=0.3, keepalive_timeout=0.6)) as reader:
            raw_reader, raw_writer = await asyncio.open_connection("127.0.0.1", reader.port)
            first = await get_on(raw_reader, raw_writer, "/games/race")
            assert first.startswith(b"HTTP/1.1 200") and b"Golden Strider" in first
            second = await get_on(raw_reader, raw_writer, "/static/site.css")
            assert second.startswith(b"HTTP/1.1 200"), "the same connection serves the next request"
            answer, waited = await closed_after(raw_reader)
            assert answer == b"" and 0.5 < waited < 5, waited

            from bot.core.views.pages import Pages

            built = Pages.club

            def slow_club(self: Pages) -> object:
                time.sleep(1.0)  # longer than both timers
                return built(self)

            monkeypatch.setattr(Pages, "club", slow_club)
            raw_reader, raw_writer = await asyncio.open_connection("127.0.0.1", reader.port)
            index = await get_on(raw_reader, raw_writer, "/")
            assert index.startswith(b"HTTP/1.1 200") and b"race" in index
            raw_writer.close()


async def test_past_the_bound_on_builds_another_page_is_503_and_the_same_page_waits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with club(tmp_path) as made:
        made.create("race", "golden-strider", RUNNERS)
        made.create("done", "golden-strider", RUNNERS)
        from bot.core.views.pages import Pages

        release, started = threading.Event(), threading.Event()
        built = Pages.game

        def held_game(self: Pages, slug: str) -> object:
            if slug == "race":
                started.set()
                release.wait(10)
            return built(self, slug)

        monkeypatch.setattr(Pages, "game", held_game)
        async with served(made, Limits(max_builds=1, build_queue=0)) as reader:
            first = asyncio.create_task(reader.response("GET", "/games/race"))
            await until(started.is_set)
            same = asyncio.create_task(reader.response("GET", "/games/race"))
            status, headers, body = await reader.response("GET", "/games/done")
            assert status == 503 and headers["Retry-After"] == "5" and "try again" in body
            assert "default-src 'none'" in headers["Content-Security-Policy"]
            assert not same.done(), "the same page waits for the build under way"
            release.set()
            for task in (first, same):
                status, _, body = await task
                assert status == 200 and "Golden Strider" in body
            assert reader.builds == 1, "one build for both readers"
            assert (await reader.response("GET", "/games/done"))[0] == 200, "free again"


FLOOD = """
import asyncio, json, logging, resource, socket, sys, time
from bot.core.runtime.logging_setup import JsonFormatter, RepeatFilter
from bot.web.process import loop_errors

handler = logging.StreamHandler(sys.stderr)
handler.setFormatter(JsonFormatter())
if sys.argv[1] == "ours":
    handler.addFilter(RepeatFilter())
logging.getLogger().addHandler(handler)

async def main():
    loop = asyncio.get_running_loop()
    if sys.argv[1] == "ours":
        loop.set_exception_handler(loop_errors)
    held = []
    async def keep(reader, writer):
        held.append(writer)
    server = await asyncio.start_server(keep, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    resource.setrlimit(resource.RLIMIT_NOFILE, (48, 48))
    print(port, flush=True)
    await asyncio.sleep(float(sys.argv[2]))

asyncio.run(main())
"""


def flood_log(which: str, seconds: float) -> list[str]:
    """The lines a server logs while 200 connections hit it with 48 file descriptors."""
    import socket

    process = subprocess.Popen(
        [sys.executable, "-c", FLOOD, which, str(seconds)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert process.stdout is not None
    port = int(process.stdout.readline())
    sockets = []
    for _ in range(200):
        with_it = socket.socket()
        with_it.setblocking(False)
        with_it.connect_ex(("127.0.0.1", port))
        sockets.append(with_it)
    _, errors = process.communicate(timeout=seconds + 30)
    for each in sockets:
        each.close()
    return errors.decode().splitlines()


def test_accept_errors_of_a_process_out_of_file_descriptors_are_logged_once_with_a_count() -> None:
    lines = flood_log("ours", 3.5)
    entries = [json.loads(line) for line in lines]
    assert len(entries) == 1, lines
    assert "socket.accept() out of system resource" in entries[0]["message"]
    assert "Too many open files" in entries[0]["message"] and "exception" not in entries[0], "no traceback"
    alone = [json.loads(line) for line in flood_log("asyncio alone", 3.5)]
    assert len(alone) >= 3 and all("exception" in entry for entry in alone), "a traceback at each retry"
