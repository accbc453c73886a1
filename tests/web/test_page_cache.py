"""A page is built once per change of its game, not once per request (:mod:`bot.web.cache`).

* many readers of a page, at once or one after another, cost one build, and a
  reader who sends the page's ``ETag`` back gets ``304 Not Modified``;
* a change of the game (a turn resolved, a game master's action) shows at
  once: the next request builds the page anew, and the old ETag gets the new page;
* the stamp is complete: a club's games are played through every kind of
  change (joins, joining closed and opened, a player's record moved by another
  game, the start, orders, a deadline moved, a pause, a public press message,
  a seat put up and taken, a resignation, an ejection, a turn processed early,
  a rollback, the end), and whenever a page (the game's, its board, its feed,
  its record, the index) reads differently after a step, its stamp changed too;
* the kept pages are bounded in bytes, least recently read first out.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Callable
from pathlib import Path

from bot.core.model import commands as c
from bot.core.views.pages import Pages
from bot.pictures import draw
from bot.web import feed
from bot.web.cache import Built, PageCache
from bot.web.pages import game_html, index_html
from tests.web.test_pages import HINTS, RUNNERS
from tests.web.world import GM, Club, club, served

BASE = "https://games.club.example"


async def test_many_readers_cost_one_build_and_an_etag_gets_304(tmp_path: Path) -> None:
    with club(tmp_path) as made:
        made.create("race", "golden-strider", RUNNERS)
        made.start("race")
        made.play("race", 1)
        async with served(made) as reader:
            pages = await asyncio.gather(*(reader.response("GET", "/games/race") for _ in range(40)))
            boards = await asyncio.gather(*(reader.response("GET", "/games/race/board.svg") for _ in range(40)))
            assert {status for status, _, _ in pages + boards} == {200}
            assert len({body for _, _, body in pages}) == 1
            assert reader.builds == 2, "one build of the page and one of its board, for 80 readers"
            _, headers, body = pages[0]
            etag = headers["ETag"]
            assert headers["Cache-Control"] == "no-cache" and etag.startswith('"')
            status, again, empty = await reader.response("GET", "/games/race", {"If-None-Match": etag})
            assert (status, empty, again["ETag"]) == (304, "", etag)
            assert "default-src 'none'" in again["Content-Security-Policy"]
            status, _, _ = await reader.response("HEAD", "/games/race", {"If-None-Match": f'W/"x", {etag}'})
            assert status == 304
            status, _, other = await reader.response("GET", "/games/race", {"If-None-Match": '"something else"'})
            assert status == 200 and other == body
            assert reader.builds == 2


async def test_a_change_of_the_game_shows_at_once(tmp_path: Path) -> None:
    with club(tmp_path) as made:
        made.create("race", "golden-strider", RUNNERS)
        made.start("race")
        made.play("race", 1)
        async with served(made) as reader:
            _, headers, before = await reader.response("GET", "/games/race")
            feed_before = await reader.get("/games/race/feed.atom")
            assert 'id="turn-1"' not in before
            made.play("race", 1)  # the next turn resolves: a new report
            status, _, after = await reader.response("GET", "/games/race", {"If-None-Match": headers["ETag"]})
            assert status == 200 and 'id="turn-1"' in after, "the old ETag gets the new page"
            assert "turn 1 report" in await reader.get("/games/race/feed.atom") != feed_before
            deadline = made.apply(GM, "Game Master", c.SetDeadline("race", "+1d", "a holiday"))
            assert not deadline.problems, deadline
            assert "a holiday" in await reader.get("/games/race")
            index = await reader.get("/")
            made.create("next", "golden-strider", RUNNERS[:2])
            assert "next" in await reader.get("/") != index


def test_the_kept_pages_are_bounded_in_bytes() -> None:
    cache = PageCache(max_bytes=100)
    for key in ("a", "b", "c"):
        cache.put(key, "1", Built.of(b"x" * 40, "text/plain"))
    assert cache.bytes == 80 and len(cache) == 2 and cache.get("a", "1") is None, "the least recently read left"
    assert cache.get("b", "1") is not None and cache.get("b", "2") is None, "another stamp: not this page"
    cache.put("d", "1", Built.of(b"x" * 40, "text/plain"))
    assert cache.get("b", "1") is not None and cache.get("c", "1") is None, "read recently: kept"
    cache.put("huge", "1", Built.of(b"x" * 101, "text/plain"))
    assert cache.get("huge", "1") is None and cache.bytes <= 100, "bigger than the bound: served, not kept"


# -- the stamp is complete -------------------------------------------------------------------------

Views = dict[str, tuple[str | None, bytes | None]]
"""Each view's name -> (its stamp, its bytes built without any cache)."""


def views_of(made: Club) -> Views:
    pages = Pages(made.sessions)
    found: Views = {"index": (pages.club_stamp(), index_html(pages.club(), HINTS).encode())}
    for slug in ("race", "other"):
        stamp, page = pages.stamp(slug), pages.game(slug)
        board = pages.board(slug)
        record = pages.record(slug)
        found[slug] = (stamp, None if page is None else game_html(page, None if page.board is None else draw(page.line.kind, page.board), HINTS).encode())  # fmt: skip
        found[f"{slug}/board"] = (stamp, None if board is None or (p := draw(*board)) is None else p.svg.encode())
        found[f"{slug}/feed"] = (stamp, None if page is None else feed.atom_feed(page, BASE))
        found[f"{slug}/record"] = (stamp, None if record is None else json.dumps(record).encode())
    return found


def applied(made: Club, address: str, name: str, command: c.Command) -> None:
    result = made.apply(address, name, command)
    assert result.results and not result.problems, (command, result)


def steps(made: Club) -> list[tuple[str, Callable[[], object]]]:
    """Every kind of change a page shows, in an order that makes each one possible."""
    ann = "race.p0@club.example"
    rng = random.Random(3)

    def orders(slug: str, seat: str) -> None:
        made.order(slug, seat, made.example_orders(slug, seat, rng))

    def gm(command: c.Command) -> Callable[[], None]:
        return lambda: applied(made, GM, "Game Master", command)

    def turn(slug: str) -> Callable[[], bool]:
        return lambda: made.step(slug, rng)

    def open_turn(slug: str) -> int:
        view = made.views.public_view(slug)
        assert view is not None and view.phase is not None
        return view.phase.number

    def lapse(slug: str) -> Callable[[], None]:
        """The deadline passes with nobody's orders in."""

        def passed() -> None:
            deadline = made.service.next_deadline()
            assert deadline is not None
            made.clock.set(max(deadline, made.clock.now()))
            assert made.service.resolve_due(made.clock.now())

        return passed

    return [
        ("another game is created", lambda: made.create("other", "strike-gold", ["Zoe"])),
        ("Ann joins it too", lambda: applied(made, ann, "Ann", c.JoinGame("other", "Ann"))),
        ("it starts", lambda: made.start("other")),
        ("the race is created", lambda: made.create("race", "golden-strider", RUNNERS[:4])),
        ("a player joins", lambda: applied(made, "race.p4@club.example", "Eve", c.JoinGame("race", "Eve"))),
        ("joining is closed", gm(c.SetJoining("race", False, "full enough"))),
        ("joining is opened", gm(c.SetJoining("race", True, "one more"))),
        ("Ann's other game plays a turn: her record moves", lapse("other")),
        ("another turn of it", lapse("other")),
        ("the last player joins", lambda: applied(made, "race.p5@club.example", "Fay", c.JoinGame("race", "Fay"))),
        ("the race starts", lambda: made.start("race")),
        ("Ann orders", lambda: orders("race", "Ann")),
        ("Ben orders", lambda: orders("race", "Ben")),
        ("Ann orders again", lambda: orders("race", "Ann")),
        ("the turn resolves", turn("race")),
        ("the deadline moves", gm(c.SetDeadline("race", "+1d", "a holiday"))),
        ("the game pauses", gm(c.PauseGame("race", "a holiday"))),
        ("the game resumes", gm(c.ResumeGame("race", "back"))),
        (
            "public press",
            lambda: applied(made, "race.p2@club.example", "Cat", c.SendPress("race", ("ALL",), "Hi all.")),
        ),
        ("a seat is put up", gm(c.OfferSeat("race", "Ben", "offer", "away"))),
        ("a newcomer takes it", lambda: made.apply("new@club.example", "Newcomer", c.TakeSeat("race", "Ben"))),
        ("a player resigns", lambda: made.apply("race.p3@club.example", "Dan", c.Resign("race"))),
        ("a player is ejected", gm(c.EjectPlayer("race", "Eve", "rude"))),
        (
            "orders entered by the GM",
            lambda: gm(c.EnterOrders("race", "Fay", made.example_orders("race", "Fay", rng), "by phone"))(),
        ),
        ("a turn plays", turn("race")),
        ("another", turn("race")),
        ("the turn is processed early", lambda: gm(c.ProcessNow("race", open_turn("race"), "all in"))()),
        ("a rollback", gm(c.RollBack("race", 0, "a mistake"))),
        ("a turn plays again", turn("race")),
        ("the other game ends", gm(c.EndGame("other", "enough"))),
        ("the race ends", gm(c.EndGame("race", "the club closes"))),
    ]


def test_whenever_a_page_changes_its_stamp_changes(tmp_path: Path) -> None:
    with club(tmp_path) as made:
        before = views_of(made)
        changed: list[str] = []
        for what, step in steps(made):
            step()
            after = views_of(made)
            for view, (stamp, body) in after.items():
                old_stamp, old_body = before[view]
                if body != old_body:
                    assert stamp != old_stamp, f"{what}: {view} reads differently under the same stamp"
                    changed.append(f"{what}: {view}")
            before = after
        print("\n".join(changed))
        for expected in ("Ann's other game plays a turn: her record moves: race", "the deadline moves: race",
                         "a seat is put up: index", "a rollback: race/board",
                         "the race ends: race/record"):  # fmt: skip
            assert expected in changed, (expected, changed)
