"""``referee serve`` with the web channel configured, read over HTTP while a game is played.

One ``referee serve`` subprocess (Maildir mail in and out, the web pages on a
free loopback port); the host runs a Golden Strider game on the same database
with ``referee gm`` (players join through the service, as a channel's intake
would apply their joins).  The index, the game's page while it forms, runs
and is over, its Atom feed (parsed back) and its record are read from the
running process; the report mail the referee sends links to the game's page,
and that link answers.  The game's calendar is parsed back with icalendar: its
entry keeps its UID and its SEQUENCE rises when the GM extends the deadline; a
player who mails CALENDAR gets the address of a private calendar that holds
the same entry with the game's reminders as alarms, and a forged key is 404.  ``referee doctor`` checks the web section through the
channel list, and refuses a port that is taken.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import xml.etree.ElementTree as ET
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path

import aiohttp
import pytest
from icalendar import Calendar, Event

from bot.core.model import commands as c
from bot.core.runtime.service import GameService
from bot.email.maildir import deliver
from bot.host.cli import main
from bot.store.db import make_engine, session_factory
from tests.email.pipeline import message
from tests.host.conftest import _restore_logging, write_config  # noqa: F401 (an autouse fixture)
from tests.support.net import free_port

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
ATOM = "{http://www.w3.org/2005/Atom}"
SEATS = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay"]
WAIT = 30.0


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


async def mailed(out: Path, wanted: Callable[[EmailMessage], bool]) -> EmailMessage:
    """The first mail the serve process's sender wrote that is ``wanted`` (waiting for it)."""
    for _ in range(int(WAIT / 0.1)):
        found = [m for m in mails(out) if wanted(m)]
        if found:
            return found[0]
        await asyncio.sleep(0.1)
    raise AssertionError("no such mail was sent")


async def calendar_entry(http: aiohttp.ClientSession, url: str) -> Event:
    """The one entry of the calendar at ``url``, parsed back with icalendar."""
    async with http.get(url) as response:
        assert response.status == 200 and response.content_type == "text/calendar", (url, response.status)
        calendar = Calendar.from_ical(await response.read())
    events = calendar.walk("VEVENT")
    assert len(events) == 1, calendar.to_ical()
    return events[0]


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
        sys.executable, "-m", "bot.host.cli", "--config", str(config), "serve",
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
            assert 'href="cup/calendar.ics"' in running
            before = await calendar_entry(http, f"{base}/games/cup/calendar.ics")
            assert main([*gm, "deadline", "cup", "+1d", "--reason", "two players asked"]) == 0
            after = await calendar_entry(http, f"{base}/games/cup/calendar.ics")
            assert str(after["UID"]) == str(before["UID"]) and after["SEQUENCE"] > before["SEQUENCE"]
            assert after.decoded("DTSTART") - before.decoded("DTSTART") == timedelta(days=1)

            deliver(tmp_path / "in", message("CALENDAR\n", sender="ann@club.example", subject="calendar",
                                             message_id="<calendar@club.example>"))  # fmt: skip
            reply = await mailed(tmp_path / "out", lambda m: m["In-Reply-To"] == "<calendar@club.example>")
            address = next(w for w in body_of(reply).split() if w.startswith(f"{base}/calendars/"))
            private = await calendar_entry(http, address)
            assert str(private["UID"]) == str(after["UID"]) and private.decoded("DTSTART") == after.decoded("DTSTART")
            assert len(private.walk("VALARM")) == 2, "the game's reminders, 24h and 1h before"
            forged = address[:-5] + ("A" if address[-5] != "A" else "B") + ".ics"
            await get(http, forged, expect=404)
            assert main([*gm, "orders", "cup", "Ann", "cards 10 8 6 4 2", "--reason", "by phone"]) == 0
            running = await get(http, f"{base}/games/cup")
            assert "Orders received from: Ann." in running and "cards 10 8 6 4 2" not in running
            assert main([*gm, "process", "cup", "--turn", "0", "--reason", "all in"]) == 0
            running = await get(http, f"{base}/games/cup")
            assert 'id="turn-0"' in running and "the GM processed turn 0 early" in running
            await get(http, f"{base}/games/cup/record.json", expect=404)

            report = await mailed(tmp_path / "out", lambda m: "turn 0 report" in str(m["Subject"]))
            text = body_of(report)
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
            assert f"ok   web port: referee serve answers on 127.0.0.1:{port} (its pages are up)" in checks
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
