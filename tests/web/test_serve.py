"""``referee serve`` with the web channel configured, read over HTTP while a game is played.

One ``referee serve`` subprocess (Maildir mail in and out, the web pages on a
free loopback port); the host runs a Golden Strider game on the same database
with ``referee gm`` (players join through the service, as a channel's intake
would apply their joins).  The index, the game's page while it forms, runs
and is over, its Atom feed (parsed back) and its record are read from the
running process; the report mail the referee sends links to the game's page,
and that link answers.  ``referee doctor`` checks the web section through the
channel list, and refuses a port that is taken.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import signal
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from datetime import UTC, datetime
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path

import aiohttp
import pytest

from bot.cli import main
from bot.core.model import commands as c
from bot.core.runtime.service import GameService
from bot.store.db import make_engine, session_factory
from tests.host.conftest import write_config
from tests.support.net import free_port

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
ATOM = "{http://www.w3.org/2005/Atom}"
SEATS = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay"]
WAIT = 30.0


@pytest.fixture(autouse=True)
def _restore_logging() -> Iterator[None]:
    """``referee`` run in-process may add handlers to the root logger: take them away afterwards."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    for handler in list(root.handlers):
        if handler not in handlers:
            root.removeHandler(handler)
            handler.close()
    root.setLevel(level)


async def until_served(http: aiohttp.ClientSession, url: str, process: asyncio.subprocess.Process) -> None:
    for _ in range(int(WAIT / 0.1)):
        assert process.returncode is None, "referee serve exited"
        try:
            async with http.get(url) as response:
                if response.status == 200:
                    return
        except aiohttp.ClientConnectionError:
            pass
        await asyncio.sleep(0.1)
    raise AssertionError(f"{url} never answered")


async def get(http: aiohttp.ClientSession, url: str, expect: int = 200) -> str:
    async with http.get(url) as response:
        text = await response.text()
        assert response.status == expect, (url, response.status, text[:300])
        return text


def mails(directory: Path) -> list[EmailMessage]:
    found = []
    for path in sorted(directory.glob("*/*")):
        if path.is_file():
            found.append(message_from_bytes(path.read_bytes(), policy=policy.default))
    return [m for m in found if isinstance(m, EmailMessage)]


def body_of(mail: EmailMessage) -> str:
    part = mail.get_body(("plain",))
    assert part is not None
    return str(part.get_content())  # type: ignore[attr-defined]


async def test_referee_serve_serves_the_pages_of_a_game_played_beside_it(tmp_path: Path) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    config = write_config(tmp_path, "[referee.web]", 'host = "127.0.0.1"', f"port = {port}", f'base_url = "{base}"')
    assert main(["--config", str(config), "db", "upgrade"]) == 0
    gm = ["--config", str(config), "gm"]
    assert main([*gm, "create", "golden-strider", "cup", "--seats", "6", "--time-zone", "Europe/London"]) == 0
    log = (tmp_path / "serve.log").open("wb")
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot.cli", "--config", str(config), "serve",
        cwd=ROOT, env=dict(os.environ), stdout=log, stderr=asyncio.subprocess.STDOUT,
    )  # fmt: skip
    try:
        async with aiohttp.ClientSession() as http:
            await until_served(http, f"{base}/", process)
            index = await get(http, f"{base}/")
            assert index.index('href="games/cup"') > index.index('id="h-forming"')
            assert "JOIN cup to referee@example.com" in index, "the mail intake's own join line"
            forming = await get(http, f"{base}/games/cup")
            assert "The game is forming" in forming

            engine = make_engine(str(tmp_path / "referee.sqlite3"))
            service = GameService(session_factory(engine))
            for i, name in enumerate(SEATS):
                sender = c.Sender("email", f"{name.lower()}@club.example", name)
                joined = service.apply(c.Envelope(sender, (c.JoinGame("cup", name),), f"join:{i}",
                                                  datetime.now(UTC), trust=c.Trust.VERIFIED))  # fmt: skip
                assert joined.results == ("joined",)
            engine.dispose()
            assert main([*gm, "start", "cup"]) == 0
            running = await get(http, f"{base}/games/cup")
            assert "Orders due from: Ann, Ben, Cat, Dan, Eve, Fay." in running
            assert main([*gm, "orders", "cup", "Ann", "cards 10 8 6 4 2", "--reason", "by phone"]) == 0
            running = await get(http, f"{base}/games/cup")
            assert "Orders received from: Ann." in running and "cards 10 8 6 4 2" not in running
            assert main([*gm, "process", "cup", "--turn", "0", "--reason", "all in"]) == 0
            running = await get(http, f"{base}/games/cup")
            assert 'id="turn-0"' in running and "the GM processed turn 0 early" in running
            await get(http, f"{base}/games/cup/record.json", expect=404)

            out = tmp_path / "out"
            for _ in range(int(WAIT / 0.1)):  # the serve process's sender writes the report mails
                reports = [m for m in mails(out) if "turn 0 report" in str(m["Subject"])]
                if reports:
                    break
                await asyncio.sleep(0.1)
            assert reports, "the report was mailed"
            text = body_of(reports[0])
            link = f"{base}/games/cup"
            assert link in text.splitlines(), "the link stands on a line of its own"
            assert all(len(line) <= 78 for line in text.splitlines())
            assert "Turn 0" in await get(http, link)

            assert main([*gm, "end", "cup", "--reason", "the club closed"]) == 0
            index = await get(http, f"{base}/")
            assert index.index('href="games/cup"') > index.index('id="h-finished"')
            over = await get(http, link)
            record = json.loads(await get(http, f"{link}/record.json"))
            assert f'Seed revealed: <code class="wrap">{record["seed"]}</code>' in over
            feed = ET.fromstring((await get(http, f"{link}/feed.atom")).encode())
            titles = [e.findtext(f"{ATOM}title") or "" for e in feed.findall(f"{ATOM}entry")]
            assert "[cup] Golden Strider: turn 0 report" in titles
            assert any("the GM ended the game" in t for t in titles)
            assert feed.find(f"{ATOM}link").get("href") == link  # type: ignore[union-attr]
            async with http.post(f"{base}/games/cup") as response:
                assert response.status == 405

            checks = await asyncio.to_thread(doctor_lines, config)
            assert re.search(rf"FAIL web port: cannot listen on 127.0.0.1:{port}: the port is in use", checks)
            assert f"ok   web base_url: games' pages are linked as {base}/games/<game>" in checks
        process.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(process.wait(), WAIT) == 0
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
        log.close()
    assert "web pages served on" in (tmp_path / "serve.log").read_text()


def doctor_lines(config: Path) -> str:
    import contextlib
    import io

    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        main(["--config", str(config), "doctor"])
    return output.getvalue()
