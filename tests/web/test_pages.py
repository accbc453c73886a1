"""The web pages, served by the real server on loopback and read with aiohttp's client.

The index lists the club's games by state with how to join; a game's page
shows who owes orders and who has sent some (never what), the deadline in UTC
and the game's zone inside ``<time datetime>``, each public report as the
text the mail carried, the announced actions, and once the game is over its
record (which ``referee verify`` accepts), seed and commitment.  Hostile
names and reasons are escaped everywhere; only GET and HEAD are served, and
every unknown game or path is 404.
"""

from __future__ import annotations

import hashlib
import html
import json
import random
import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import markupsafe
import pytest

from bot.core.messaging.outbox import OutboxDrain
from bot.core.messaging.rendering import render_message
from bot.core.model import commands as c
from bot.host.cli import main
from bot.host.wiring import hints
from bot.pictures import Picture
from bot.pictures import registry as pictures
from bot.settings.loader import Settings
from bot.web import feed
from bot.web import pages as web_pages
from bot.web.server import site_for
from tests.web.world import GM, Club, club, served

ATOM = "{http://www.w3.org/2005/Atom}"
HINTS = hints(Settings.load(None, {"REFEREE_IMAP_HOST": "imap.club.example", "REFEREE_DISCORD_TOKEN": "x",
                                   "REFEREE_BOT_ADDRESS": "referee@club.example"}))  # fmt: skip
"""How to join, take a seat, stand by, by mail and on Discord, as ``referee serve`` says it."""
RUNNERS = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay"]


def text_of(page: str) -> str:
    """The page's text as a reader sees it (tags dropped, entities decoded)."""
    return html.unescape(re.sub(r"<[^>]+>", "", page))


def three_games(directory: Path) -> Club:
    """A forming game, a running one (turn 1 open, Ann's orders in) and a finished one."""
    made = Club(directory)
    made.create("forming1", "golden-strider", RUNNERS)
    made.create("race", "golden-strider", RUNNERS)
    made.start("race")
    made.play("race", 1)
    made.create("done", "strike-gold", ["Zoe", "Yan"])
    made.start("done")
    made.play("done", 10_000)
    return made


async def test_the_index_lists_the_games_by_state_with_how_to_join(tmp_path: Path) -> None:
    made = three_games(tmp_path)
    try:
        async with served(site_for(made.sessions, made.service.config, HINTS)) as reader:
            page = await reader.get("/")
    finally:
        made.close()
    running, forming, finished = (page.index(f'id="h-{key}"') for key in ("running", "forming", "finished"))
    assert running < page.index("games/race") < forming < page.index("games/forming1") < finished
    assert page.index("games/done") > finished
    assert "JOIN forming1 to referee@club.example" in page and "/join game:forming1" in page
    assert "JOIN race" not in page, "only forming games are offered to join"
    shown = text_of(page)
    assert "Golden Strider" in shown and "Strike Gold" in shown
    assert re.search(
        r'<time datetime="2026-03-\d\dT[\d:]+\+00:00">2026-03-\d\d \d\d:\d\d UTC</time><br><small>\(\w{3} [^<]*Europe/London\)</small>',
        page,
    )
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in page
    assert page.count("<th scope=") >= 5 + 3, "column headings and a row heading per game"


async def test_a_running_game_shows_who_ordered_never_what(tmp_path: Path) -> None:
    with club(tmp_path) as made:
        made.create("race", "golden-strider", RUNNERS)
        made.start("race")
        made.play("race", 1)
        secret_orders = made.example_orders("race", "Ann", random.Random(7))
        assert "orders_accepted" in made.order("race", "Ann", secret_orders).results
        async with served(made) as reader:
            page = await reader.get("/games/race")
            feed = await reader.get("/games/race/feed.atom")
            await reader.get("/games/race/record.json", expect=404)  # the seed is secret while it runs
    shown = text_of(page)
    assert "Orders due from: Ann, Ben, Cat, Dan, Eve, Fay." in shown
    assert "Orders received from: Ann." in shown
    assert secret_orders not in page and secret_orders not in feed
    assert re.search(r"Deadline: <time datetime=\"[^\"]+\">\d{4}-\d\d-\d\d \d\d:\d\d UTC \([^)]*Europe/London\)", page)
    assert "Seed revealed" not in shown


async def test_the_latest_report_is_the_text_the_mail_carried(tmp_path: Path) -> None:
    """The game master's copy (the public data) rendered in the plain-text form is the page's text: the
    mail's text but for how to answer by mail (templates/email/report.txt.j2 extends text/report.txt.j2)."""
    with club(tmp_path) as made:
        made.create("race", "golden-strider", RUNNERS)
        made.start("race")
        made.play("race", 2)
        rows = [m for m in OutboxDrain(made.sessions).due("email", made.clock.now()) if m.recipient == GM]
        latest = [m for m in rows if m.template == "report"][-1]
        mailed = render_message("email", "report", {**latest.data, "context": {}}).body
        async with served(made) as reader:
            page = await reader.get("/games/race")
    shown = html.unescape(re.search(r'<article id="turn-1".*?<pre class="report"[^>]*>(.*?)</pre>', page, re.S)[1])
    assert latest.data["turn"] == 1
    assert shown == render_message("text", "report", {**latest.data, "context": {}}).body
    lines = mailed.splitlines()
    answer = next(i for i, line in enumerate(lines) if line.startswith("Orders: reply with ORDERS race"))
    assert lines[answer - 1] == "-" * 78 and lines[answer + 1].startswith("STATUS race")
    assert "\n".join(lines[: answer - 1] + lines[answer + 2 :]) == shown.rstrip("\n")
    assert "reply with" not in shown
    assert page.index('id="turn-1"') < page.index('id="turn-0"'), "the newest report first"


async def test_a_finished_game_gives_its_record_seed_and_commitment(tmp_path: Path, capsys: Any) -> None:
    with club(tmp_path) as made:
        made.create("done", "strike-gold", ["Zoe", "Yan"])
        made.start("done")
        made.play("done", 10_000)
        expected = made.views.record("done")
        async with served(made) as reader:
            page = await reader.get("/games/done")
            status, headers, body = await reader.response("GET", "/games/done/record.json")
    assert status == 200 and headers["Content-Type"].startswith("application/json")
    assert 'filename="done.json"' in headers["Content-Disposition"]
    record = json.loads(body)
    assert record == expected
    seed, commitment = record["seed"], record["commitment"]
    assert hashlib.sha256(seed.encode()).hexdigest() == commitment
    shown = text_of(page)
    assert f"Seed revealed: {seed}" in shown and commitment in shown and "referee verify done.json" in shown
    assert "Final standings" in shown
    path = tmp_path / "done.json"
    path.write_text(body)
    assert main(["verify", str(path)]) == 0
    assert "FAIL" not in capsys.readouterr().out


async def test_hostile_names_and_reasons_are_escaped(tmp_path: Path) -> None:
    hostile = "<script>alert(1)</script> \"quoted\" & 'single' <img src=x onerror=alert(2)>"
    names = ["O'Neil", "張偉 李娜", "Ann", "Ben", "Cat", "Dan"]
    with club(tmp_path) as made:
        made.create("race", "golden-strider", names)
        made.start("race")
        moved = made.apply(GM, "Game Master", c.SetDeadline("race", "+1d", hostile))
        assert "deadline_set" in moved.results or not moved.problems, moved.problems
        made.play("race", 2)
        async with served(made) as reader:
            pages = {path: await reader.get(path) for path in ("/", "/games/race", "/games/race/feed.atom")}
    page, feed = pages["/games/race"], pages["/games/race/feed.atom"]
    for path, text in pages.items():
        assert "<script>alert" not in text and "<img src=x" not in text, path
        assert "張偉 李娜" in text or path == "/", path
    assert str(markupsafe.escape(hostile)) in page and hostile in text_of(page)
    assert "O&#39;Neil" in page
    entries = ET.fromstring(feed.encode()).findall(f"{ATOM}entry")
    said = [e.findtext(f"{ATOM}title") or "" for e in entries]
    assert any(hostile in title for title in said), "the feed carries the reason as text, escaped as XML"
    assert any(hostile in html.unescape(e.findtext(f"{ATOM}summary") or "") for e in entries)


async def test_the_feed_parses_back_with_every_report_and_announcement(tmp_path: Path) -> None:
    with club(tmp_path) as made:
        made.create("race", "golden-strider", RUNNERS)
        made.start("race")
        made.apply(GM, "Game Master", c.SetDeadline("race", "+2h", "a club night"))
        made.play("race", 3)
        async with served(made) as reader:
            status, headers, feed = await reader.response("GET", "/games/race/feed.atom")
    assert status == 200 and headers["Content-Type"].startswith("application/atom+xml")
    root = ET.fromstring(feed.encode())
    assert root.tag == f"{ATOM}feed"
    entries = root.findall(f"{ATOM}entry")
    titles = [e.findtext(f"{ATOM}title") for e in entries]
    assert [t for t in titles if t and "report" in t] == [f"[race] Golden Strider: turn {n} report" for n in range(3)]
    assert any(t and "the GM moved the deadline" in t and "a club night" in t for t in titles)
    ids = [e.findtext(f"{ATOM}id") for e in entries]
    assert len(set(ids)) == len(ids) == 4
    links = [e.find(f"{ATOM}link").get("href") for e in entries]  # type: ignore[union-attr]
    assert all(link.startswith("http://127.0.0.1:") and "/games/race" in link for link in links)


async def test_only_get_and_head_and_unknown_things_are_404(tmp_path: Path) -> None:
    with club(tmp_path) as made:
        made.create("race", "golden-strider", RUNNERS)
        async with served(made) as reader:
            for path in ("/games/nope", "/games/RACE", "/games/" + "a" * 41, "/games/..%2f..%2fetc",
                         "/games/%3Cscript%3E", "/games/race/record.json", "/games/race/board.svg",
                         "/nothing", "/games/", "/static/../pyproject.toml", "/static/x.js"):  # fmt: skip
                status, headers, body = await reader.response("GET", path)
                assert status == 404, (path, status)
                assert "<script>" not in body and "Not found" in body
                assert "default-src 'none'" in headers["Content-Security-Policy"]
            for method in ("POST", "PUT", "DELETE", "PATCH"):
                status, _, _ = await reader.response(method, "/games/race")
                assert status == 405, method
            status, headers, body = await reader.response("HEAD", "/games/race")
            assert status == 200 and body == "" and headers["Content-Type"].startswith("text/html")
            status, _, body = await reader.response("GET", "/games/race")
            assert status == 200 and "forming" in body


def small_drawing(board: Mapping[str, Any]) -> Picture:
    """A test drawing: the board's JSON as the picture's text (another engineer draws the real ones)."""
    shown = html.escape(json.dumps(board, sort_keys=True)[:200])
    svg = f'<svg xmlns="http://www.w3.org/2000/svg" width="200" height="40"><text y="20">{shown}</text></svg>'
    return Picture(svg, "The board <of> the race, in words")


async def test_the_board_picture_with_its_alt_text(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(pictures.DRAWINGS, "golden-strider", small_drawing)
    with club(tmp_path) as made:
        made.create("race", "golden-strider", RUNNERS)
        made.start("race")
        made.play("race", 1)
        async with served(made) as reader:
            page = await reader.get("/games/race")
            status, headers, svg = await reader.response("GET", "/games/race/board.svg")
    assert '<img class="board" src="race/board.svg" alt="The board &lt;of&gt; the race, in words">' in page
    assert status == 200 and headers["Content-Type"].startswith("image/svg+xml")
    assert "sandbox" in headers["Content-Security-Policy"]
    assert svg.startswith("<svg") and "&quot;" in svg, "the drawing's own SVG, served as it is"


async def test_a_long_game_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The page shows the newest reports only (and says how many it left out), the feed the newest entries."""
    monkeypatch.setattr(web_pages, "MAX_REPORTS", 2)
    monkeypatch.setattr(feed, "FEED_ENTRIES", 3)
    with club(tmp_path) as made:
        made.create("race", "golden-strider", RUNNERS)
        made.start("race")
        made.play("race", 5)
        async with served(made) as reader:
            page = await reader.get("/games/race")
            atom = await reader.get("/games/race/feed.atom")
    assert 'id="turn-4"' in page and 'id="turn-3"' in page and 'id="turn-2"' not in page
    assert "The 3 oldest reports are left out here" in page
    titles = [e.findtext(f"{ATOM}title") for e in ET.fromstring(atom.encode()).findall(f"{ATOM}entry")]
    assert titles == [f"[race] Golden Strider: turn {n} report" for n in (2, 3, 4)]


async def test_a_forming_game_shows_its_players_records_and_its_minimum(tmp_path: Path) -> None:
    """Each seat of a forming game with its player's record over every game (who can be counted on),
    a seat name that looks like markup escaped, and the game's minimum to join."""
    with club(tmp_path) as made:
        made.create("race", "golden-strider", ["O'Neil", "Ben", "Cat", "Dan", "Eve", "Fay"])
        made.start("race")
        made.play("race", 1)  # every seat sets up
        deadline = made.service.next_deadline()
        assert deadline is not None
        made.clock.set(deadline)
        made.service.resolve_due(made.clock.now())  # turn 1: nobody orders
        created = made.apply(GM, "Game Master", c.CreateGame("next", "golden-strider", {}, "UTC", 60, False,
                                                             "address", min_reliability=60))  # fmt: skip
        assert "created" in created.results, created.problems
        joined = made.apply(made.seat_address("race", "O'Neil"), "O'Neil", c.JoinGame("next", "O'Neil"))
        assert "joined" in joined.results, joined.problems
        assert "joined" in made.apply("new@club.example", "New", c.JoinGame("next", "New")).results
        async with served(made) as reader:
            page = await reader.get("/games/next")
            running = await reader.get("/games/race")
    shown = " ".join(text_of(page).split())
    assert "O'Neil: ordered 1 of 2 turns in time, 1 missed" in shown
    assert "New: no turns owed yet" in shown
    assert "O&#39;Neil: ordered" in page
    assert "Joining needs 60% of the turns a player owed" in shown and "fewer than 5 turns may join" in shown
    assert "ordered 1 of 2" not in text_of(running), "a running game's page lists no records"


async def test_the_feed_is_in_the_language_asked_for_as_the_pages_are(tmp_path: Path) -> None:
    with club(tmp_path) as made:
        made.create("race", "golden-strider", RUNNERS)
        made.start("race")
        made.play("race", 2)
        async with served(made) as reader:
            said = {}
            for language, ask in (("fr", {"Accept-Language": "fr-FR,fr;q=0.9"}), ("de", {}), ("en", {})):
                path = "/games/race/feed.atom" + ("?lang=de" if language == "de" else "")
                status, headers, body = await reader.response("GET", path, ask)
                assert status == 200 and "Accept-Language" in headers["Vary"], headers
                said[language] = ET.fromstring(body.encode())
    titles = {
        code: [e.findtext(f"{ATOM}title") or "" for e in root.findall(f"{ATOM}entry")] for code, root in said.items()
    }
    assert said["fr"].get("{http://www.w3.org/XML/1998/namespace}lang") == "fr"
    assert said["fr"].findtext(f"{ATOM}title") == "Golden Strider : partie race", said["fr"].findtext(f"{ATOM}title")
    assert titles["fr"] == [
        "[race] Golden Strider : compte rendu du tour 0",
        "[race] Golden Strider : compte rendu du tour 1",
    ]
    assert titles["de"] == ["[race] Golden Strider: Bericht zu Zug 0", "[race] Golden Strider: Bericht zu Zug 1"]
    assert titles["en"] == ["[race] Golden Strider: turn 0 report", "[race] Golden Strider: turn 1 report"]
    french = html.unescape(said["fr"].findall(f"{ATOM}entry")[0].findtext(f"{ATOM}summary") or "")
    assert "Joueur" in french and "Player " not in french, french


async def test_the_board_picture_and_its_alt_text_are_in_the_pages_language(tmp_path: Path) -> None:
    with club(tmp_path) as made:
        made.create("race", "golden-strider", RUNNERS)
        made.start("race")
        made.play("race", 2)
        async with served(made) as reader:
            _, _, french = await reader.response("GET", "/games/race?lang=fr")
            _, headers, svg = await reader.response("GET", "/games/race/board.svg", {"Accept-Language": "de"})
            _, _, english = await reader.response("GET", "/games/race/board.svg")
    assert "coureurs sur une piste de" in html.unescape(french) and "runners on a" not in french
    assert "nach Runde" in svg and "Accept-Language" in headers["Vary"], headers
    assert "after round" in english and "nach Runde" not in english
