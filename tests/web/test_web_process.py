"""The web pages run in a process of their own, which ``referee serve`` starts, watches and stops.

Against a real ``referee serve`` subprocess (Maildir, the web on a free
loopback port): the pages are answered by another process than serve's; when
that process is killed, serve starts it again (with back-off) and the pages
answer again; SIGHUP replaces it (the settings read again); SIGTERM stops it
with serve (exit 0); and when serve itself is killed, the pages' process
notices (its standard input closes) and exits rather than serve on alone.
Its log lines are serve's, under the worker name ``web``.  The process opens
the database read-only, and its settings reach it as one line of JSON.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
from pathlib import Path

import aiohttp
import pytest
from sqlalchemy import text
from sqlalchemy.exc import OperationalError

from bot.channels.contract import Hints
from bot.core.model.config import ServiceConfig
from bot.host.cli import main
from bot.host.wiring import open_reader
from bot.web.channel import WebSettings
from bot.web.spec import PagesSpec
from tests.host.conftest import _restore_logging, write_config  # noqa: F401 (an autouse fixture)
from tests.support.net import free_port

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
WAIT = 60.0
SERVED = re.compile(r"web pages served on http://127\.0\.0\.1:\d+/ by process (\d+)")


def pages_pids(log: Path) -> list[int]:
    """The pid of each pages' process serve has started, in order (from serve's log)."""
    return [int(pid) for pid in SERVED.findall(log.read_text(errors="replace"))]


async def until(condition: object, process: asyncio.subprocess.Process, log: Path) -> None:
    assert callable(condition)
    for _ in range(int(WAIT / 0.1)):
        if condition():
            return
        assert process.returncode is None, f"referee serve exited:\n{log.read_text()[-3000:]}"
        await asyncio.sleep(0.1)
    raise AssertionError(f"never happened; the log:\n{log.read_text()[-3000:]}")


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting for its parent to read its status is not running)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "\nState:\tZ" not in status


async def answers(url: str) -> bool:
    try:
        async with aiohttp.ClientSession() as http, http.get(url) as response:
            return response.status == 200
    except aiohttp.ClientError:
        return False


async def answered(url: str) -> bool:
    """Whether ``url`` answers 200 within :data:`WAIT` (a pages' process starting)."""
    for _ in range(int(WAIT / 0.2)):
        if await answers(url):
            return True
        await asyncio.sleep(0.2)
    return False


async def test_serve_runs_the_pages_in_a_process_it_restarts_reloads_and_stops(tmp_path: Path) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    config = write_config(tmp_path, "[referee.web]", 'host = "127.0.0.1"', f"port = {port}")
    assert main(["--config", str(config), "db", "upgrade"]) == 0
    log = tmp_path / "serve.log"
    with log.open("wb") as output:
        serve = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot.host.cli", "--config", str(config), "serve",
            cwd=ROOT, env=dict(os.environ), stdout=output, stderr=asyncio.subprocess.STDOUT,
        )  # fmt: skip
    try:
        await until(lambda: pages_pids(log), serve, log)
        [first] = pages_pids(log)
        assert first != serve.pid and alive(first)
        assert await answers(url)
        assert re.search(
            rf"INFO bot.web.process: web pages served on .* by process {first} .*\[worker=web\]", log.read_text()
        )

        os.kill(first, signal.SIGKILL)  # the pages' process dies: serve goes on and starts another
        await until(lambda: len(pages_pids(log)) == 2, serve, log)
        second = pages_pids(log)[1]
        assert second != first and not alive(first)
        assert f"the web pages' process (pid {first}) exited with code -9" in log.read_text()
        assert "web stopped by itself; restarting in" in log.read_text()
        assert await answered(url)

        serve.send_signal(signal.SIGHUP)  # the settings again: a new pages' process, the old one gone
        await until(lambda: len(pages_pids(log)) == 3, serve, log)
        third = pages_pids(log)[2]
        assert not alive(second) and alive(third)
        assert await answered(url)

        serve.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(serve.wait(), WAIT) == 0
        assert not alive(third) and not await answers(url)
        assert "web pages stopped" in log.read_text()
    finally:
        if serve.returncode is None:
            serve.kill()
            await serve.wait()

    with log.open("ab") as output:  # serve killed outright: its pages' process does not serve on alone
        serve = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot.host.cli", "--config", str(config), "serve",
            cwd=ROOT, env=dict(os.environ), stdout=output, stderr=asyncio.subprocess.STDOUT,
        )  # fmt: skip
    try:
        await until(lambda: len(pages_pids(log)) == 4, serve, log)
        orphan = pages_pids(log)[3]
        serve.kill()
        await serve.wait()
        for _ in range(int(WAIT / 0.1)):
            if not alive(orphan):
                break
            await asyncio.sleep(0.1)
        assert not alive(orphan), "the pages' process outlived serve"
    finally:
        if serve.returncode is None:
            serve.kill()
            await serve.wait()


def test_the_pages_process_gets_its_settings_as_one_line_of_json() -> None:
    spec = PagesSpec(
        "postgresql+psycopg://referee:s3cret@db.example/referee",
        WebSettings(host="0.0.0.0", port=8080, base_url="https://games.club.example", max_connections=99,
                    header_timeout_seconds=2.5),
        ServiceConfig(message_domain="club.example", secret_key=b"\x00\xffkey", game_masters=frozenset({"a", "b"}),
                      host_recipients=(("email", "host@club.example"),), intakes=("email",)),
        Hints(join=("By mail: JOIN {game}",), take=(), standby=("x",)),
        20,
    )  # fmt: skip
    line = spec.to_line()
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert PagesSpec.from_line(line) == spec


def test_the_pages_process_can_only_read_the_database(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    assert main(["--config", str(config), "db", "upgrade"]) == 0
    with open_reader(str(tmp_path / "referee.sqlite3"), 2) as sessions, sessions() as session:
        assert session.execute(text("SELECT count(*) FROM games")).scalar() == 0
        with pytest.raises(OperationalError, match=r"readonly|read-only|query_only"):
            session.execute(text("INSERT INTO worker_health (name, error_at, error) VALUES ('x', '2026-01-01', 'y')"))


RAISE = """
import resource
from bot.web.process import raise_file_limit
raised = raise_file_limit()
print(raised, *resource.getrlimit(resource.RLIMIT_NOFILE))
"""


def test_the_pages_process_raises_its_own_file_limit_and_keeps_its_connections_below_it() -> None:
    import resource
    import subprocess

    from bot.web.process import FILE_RESERVE, limits_of

    def started_with(soft: int, hard: int) -> list[int]:
        done = subprocess.run(
            [sys.executable, "-c", RAISE], cwd=ROOT, capture_output=True, text=True, check=True,
            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard)),
        )  # fmt: skip
        return [int(word) for word in done.stdout.split()]

    assert started_with(256, 2048) == [2048, 2048, 2048], "the soft limit raised to the hard one"
    assert started_with(1024, 1024) == [1024, 1024, 1024]
    assert limits_of(WebSettings(max_connections=5000), 1024).max_connections == 1024 - FILE_RESERVE
    assert limits_of(WebSettings(max_connections=100), 1024).max_connections == 100
