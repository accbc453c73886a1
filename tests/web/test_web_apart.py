"""No reader of the web can cost a player an in-time order: the pages' process is attacked, the referee's heart is not.

A real ``referee serve`` subprocess, started as a host's systemd would
without ``LimitNOFILE`` (a limit of 1,024 open files), with a Maildir intake
and outbox and the web pages on loopback.  Its database holds a long finished
Strike Gold game (eight seats, two hundred turns: its page is the costliest
to build) and a running Golden Strider game whose deadline is 25 s away.
While an attacker hits the web, Ann mails her orders 10 s before the deadline:

* **1,100 idle connections**, each sending half a request and holding it for
  as long as the server lets it, reconnecting at once when dropped, across the
  deadline;
* **200 readers at once**, each on a kept-alive connection, reading the long
  game's page and board and the running game's, again and again, across the
  deadline.

Each time: Ann's orders are the ones her seat's turn record used (not the
no-moves-received rule), the reply to her mail comes within 5 s and the turn's
report within 10 s of the deadline (the figures are printed), serve's log stays
small (no line per refused connection), and SIGTERM still stops serve with exit
code 0.  Before the web had a process of its own, both attacks broke this: the
idle connections took every file descriptor of the one process (the intake and
SQLite failed), and the readers filled the thread pool the deadline worker and
the sender share.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import resource
import signal
import sys
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from datetime import UTC, datetime, timedelta
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path

import aiohttp
import pytest
from sqlalchemy import select, update

from bot.core.games.stored import find_game
from bot.email.maildir import deliver
from bot.host.cli import main
from bot.store.db import unit_of_work
from bot.store.models import Game, OutboxMessage, TurnRecord
from tests.email.pipeline import TRUSTED_SERVER, message
from tests.host.conftest import _restore_logging, write_config  # noqa: F401 (an autouse fixture)
from tests.support.net import free_port
from tests.web.world import Club

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
SERVE_FILES = 1024
"""serve's limit on open files: the soft limit a systemd unit without LimitNOFILE gives."""
RUNNERS = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay"]
ANN = "live.p0@club.example"
TO_DEADLINE = 25.0
MAILED_BEFORE = 10.0
REPORT_BOUND, REPLY_BOUND = 10.0, 5.0
WAIT = 120.0
HALF_A_REQUEST = b"GET /games/live HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/html\r\nX-Slow: "

Attack = Callable[[int, asyncio.Event, Counter[str]], Awaitable[None]]


async def idle_connections(port: int, stop: asyncio.Event, seen: Counter[str]) -> None:
    """1,100 connections that each send half a request and hold it open, reconnecting when dropped."""

    async def one() -> None:
        while not stop.is_set():
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
            except OSError:
                seen["connect failed"] += 1
                await asyncio.sleep(0.5)
                continue
            seen["opened"] += 1
            writer.write(HALF_A_REQUEST)
            try:
                answer = await reader.read(1024)
                while answer and not stop.is_set():
                    seen["answered 503" if answer.startswith(b"HTTP/1.1 503") else "answered"] += 1
                    answer = await reader.read(1024)
                seen["dropped by the server"] += 0 if stop.is_set() else 1
            except OSError:
                seen["reset by the server"] += 1
            finally:
                writer.close()
            await asyncio.sleep(0.5)

    await asyncio.gather(*(one() for _ in range(1100)))


async def many_readers(port: int, stop: asyncio.Event, seen: Counter[str]) -> None:
    """200 readers at once on kept-alive connections: the long game's page and board, the running game's."""
    paths = ["/games/long", "/games/long/board.svg", "/games/live", "/games/live/board.svg"]
    connector = aiohttp.TCPConnector(limit=200)
    async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=60)) as http:

        async def one(number: int) -> None:
            index = number
            while not stop.is_set():
                try:
                    async with http.get(f"http://127.0.0.1:{port}{paths[index % len(paths)]}") as response:
                        await response.read()
                        seen[str(response.status)] += 1
                except (aiohttp.ClientError, TimeoutError):
                    seen["failed"] += 1
                    await asyncio.sleep(0.1)
                index += 1

        await asyncio.gather(*(one(number) for number in range(200)))


def mails(directory: Path) -> list[EmailMessage]:
    found = []
    for path in sorted(directory.glob("*/*")):
        if path.is_file():
            mail = message_from_bytes(path.read_bytes(), policy=policy.default)
            if isinstance(mail, EmailMessage):
                found.append(mail)
    return found


async def first_mail(
    directory: Path, wanted: Callable[[EmailMessage], bool], process: asyncio.subprocess.Process
) -> float:
    """When the first mail that is ``wanted`` appeared in serve's Maildir outbox (waiting for it)."""
    for _ in range(int(WAIT / 0.1)):
        if any(wanted(mail) for mail in mails(directory)):
            return time.time()
        assert process.returncode is None, "referee serve exited"
        await asyncio.sleep(0.1)
    raise AssertionError("no such mail was sent")


@contextlib.contextmanager
def files_for_the_attacker(count: int) -> Iterator[None]:
    """This test process's own limit raised, so that it can hold ``count`` connections."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < count:
        pytest.skip(f"the test needs {count} open files; the hard limit is {hard}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, count), hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def the_club(directory: Path, port: int) -> tuple[Path, str]:
    """The settings and the database: a long finished game, and a running one; Ann's orders for it."""
    config = write_config(
        directory, "[referee.email]", f'trusted_authserv_ids = "{TRUSTED_SERVER}"',
        "[referee.web]", 'host = "127.0.0.1"', f"port = {port}", f'base_url = "http://127.0.0.1:{port}"',
    )  # fmt: skip
    assert main(["--config", str(config), "db", "upgrade"]) == 0
    made = Club(directory, url=str(directory / "referee.sqlite3"))
    try:
        made.create("long", "strike-gold", ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal"])
        made.start("long")
        assert made.play("long", 10_000) > 150
        with unit_of_work(made.sessions) as session:  # its mail is history, not a backlog for serve's sender
            session.execute(update(OutboxMessage).values(sent_at=made.clock.now()))
        made.clock.set(datetime.now(UTC))
        made.create("live", "golden-strider", RUNNERS, reminders="none")
        made.start("live")
        orders = made.example_orders("live", "Ann", random.Random(1))
    finally:
        made.close()
    return config, orders


async def attacked(tmp_path: Path, attack: Attack) -> dict[str, float]:
    """Serve under ``attack`` across a deadline; the delays measured (see the module docstring)."""
    port = free_port()
    config, orders = the_club(tmp_path, port)
    log = tmp_path / "serve.log"
    with log.open("wb") as output:
        serve = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot.host.cli", "--config", str(config), "serve",
            cwd=ROOT, env=dict(os.environ), stdout=output, stderr=asyncio.subprocess.STDOUT,
            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (SERVE_FILES, SERVE_FILES)),
        )  # fmt: skip
    stop, seen = asyncio.Event(), Counter[str]()
    attacking: asyncio.Task[None] | None = None
    try:
        async with aiohttp.ClientSession() as http:
            for _ in range(int(WAIT / 0.2)):
                with contextlib.suppress(aiohttp.ClientError):
                    async with http.get(f"http://127.0.0.1:{port}/games/live") as response:
                        if response.status == 200:
                            break
                assert serve.returncode is None, log.read_text()[-3000:]
                await asyncio.sleep(0.2)
        attacking = asyncio.create_task(attack(port, stop, seen))
        await asyncio.sleep(5)  # the attack in full swing
        deadline = datetime.now(UTC) + timedelta(seconds=TO_DEADLINE)
        made = Club(tmp_path, url=str(tmp_path / "referee.sqlite3"))
        try:
            with unit_of_work(made.sessions) as session:
                game = find_game(session, "live")
                assert game is not None
                game.deadline_at = deadline
        finally:
            made.close()
        await asyncio.sleep(TO_DEADLINE - MAILED_BEFORE)
        mailed_at = time.time()
        deliver(tmp_path / "in", message(f"ORDERS live\n{orders}\n", sender=ANN, name="Ann", subject="orders",
                                         message_id="<ann-orders@club.example>", vouched_by=TRUSTED_SERVER,
                                         when=datetime.now(UTC)))  # fmt: skip
        out = tmp_path / "out"
        replied_at = await first_mail(out, lambda m: m["In-Reply-To"] == "<ann-orders@club.example>", serve)
        reported_at = await first_mail(
            out, lambda m: str(m["Subject"]).startswith("[live] Golden Strider: turn 0 report"), serve
        )
        stop.set()
        await asyncio.wait_for(attacking, WAIT)
        reply = next(m for m in mails(out) if m["In-Reply-To"] == "<ann-orders@club.example>")
        assert "ORDERS ACCEPTED" in str(reply.get_body(("plain",)).get_content()), "Ann's orders were taken"  # type: ignore[union-attr]
        made = Club(tmp_path, url=str(tmp_path / "referee.sqlite3"))
        try:
            with unit_of_work(made.sessions) as session:
                record = session.scalars(
                    select(TurnRecord).join(Game).where(Game.slug == "live", TurnRecord.turn_number == 0)
                ).one()
                assert record.orders.get("Ann") and "Ann" not in record.defaulted, "Ann's in-time orders were used"
        finally:
            made.close()
        serve.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(serve.wait(), WAIT) == 0
    finally:
        stop.set()
        if attacking is not None and not attacking.done():
            attacking.cancel()
        if serve.returncode is None:
            serve.kill()
            await serve.wait()
    text = log.read_text(errors="replace")
    assert "Traceback" not in text and log.stat().st_size < 1_000_000, "no line per refused connection"
    figures = {"report": reported_at - deadline.timestamp(), "reply": replied_at - mailed_at}
    print(f"\n{attack.__name__}: the report {figures['report']:.1f} s after the deadline, the reply "
          f"{figures['reply']:.1f} s after Ann's mail; the attacker saw {dict(seen)}")  # fmt: skip
    return figures


async def test_1100_idle_connections_cost_no_player_an_in_time_order(tmp_path: Path) -> None:
    with files_for_the_attacker(1100 + 200):
        figures = await attacked(tmp_path, idle_connections)
    assert figures["report"] <= REPORT_BOUND and figures["reply"] <= REPLY_BOUND, figures


async def test_200_readers_at_once_cost_no_player_an_in_time_order(tmp_path: Path) -> None:
    figures = await attacked(tmp_path, many_readers)
    assert figures["report"] <= REPORT_BOUND and figures["reply"] <= REPLY_BOUND, figures
