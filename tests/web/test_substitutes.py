"""Seats up for a substitute on the pages: the club's index and the game's own page.

A game master's ``SUBSTITUTE`` (applied through the real service, as every
channel applies commands) puts a seat up; the index lists it (its game, the
kind, the seat, since when in UTC and the game's zone, the game's minimum
reliability) with how to take it by mail and on Discord, and how to stand by
for the kind; the game's page says the same beside who owes orders.  A seat
that is no longer up (taken, withdrawn) shows nowhere, nor does one of a game
that is over.  What the offer made public is all a page says: the player
waiting for a game master to accept them (``Seat.candidate_id``) is never
named, however hostile their name, and nobody's address is shown.
"""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

from bot.core.model import commands as c
from bot.web.pages import filled
from bot.web.server import site_for
from tests.web.test_pages import HINTS, RUNNERS, text_of
from tests.web.world import GM, Club, club, served

HEADING = "Seats that need a substitute"
HOSTILE = "<script>alert(1)</script> <img src=x onerror=alert(2)>"
"""The display name of the player who offers to take a seat."""
CANDIDATE = "sneaky.candidate@evil.example"


def words(page: str) -> str:
    """The page's text, its runs of white space as one space."""
    return " ".join(text_of(page).split())


async def pages_of(made: Club) -> dict[str, str]:
    """The index, the game's page and its feed, as the web server serves them (with the mail and Discord hints)."""
    async with served(site_for(made.sessions, made.service.config, HINTS)) as reader:
        return {path: await reader.get(path) for path in ("/", "/games/race", "/games/race/feed.atom")}


def running_race(made: Club, **settings: object) -> None:
    made.create("race", "golden-strider", ["O'Neil", *RUNNERS[1:]], **settings)
    made.start("race")
    made.play("race", 1)


def gm(made: Club, seat: str, action: str = "offer", reason: str = "") -> None:
    applied = made.apply(GM, "Game Master", c.OfferSeat("race", seat, action, reason))
    assert not applied.problems and applied.results, applied


def offered_on(page: str) -> list[str]:
    """The seats a page lists as up for a substitute."""
    return re.findall(r"<strong>Seat ([^<]*)</strong>", page)


async def test_an_offered_seat_shows_on_the_index_and_the_game_page_with_how_to_take_it(tmp_path: Path) -> None:
    with club(tmp_path) as made:
        running_race(made, min_reliability=60)
        made.create("forming1", "golden-strider", ["Zed"])
        before = await pages_of(made)
        made.clock.advance(timedelta(minutes=7))
        since = made.clock.now()
        gm(made, "O'Neil", reason="moved away")
        after = await pages_of(made)
    for path in ("/", "/games/race"):
        assert HEADING not in before[path] and offered_on(before[path]) == [], path
    index, game = after["/"], after["/games/race"]
    assert offered_on(index) == offered_on(game) == ["O&#39;Neil"]
    assert index.index('id="h-offers"') < index.index('id="h-running"'), "the offers come first"
    shown = words(index)
    assert "Seat O'Neil of race (Golden Strider)" in shown
    assert '<a href="games/race">race</a>' in index
    stamp = f'<time datetime="{since.isoformat()}">{since:%Y-%m-%d %H:%M} UTC ('
    assert f"Up since {stamp}" in index and f"Up since {stamp}" in game
    assert re.search(r"Up since <time [^>]*>[^<]*UTC \(\w{3} [\d:]+ GMT, Europe/London\)</time>", index)
    for page in (index, game):
        said = words(page)
        assert "Taking it needs 60% of the turns a player owed" in said and "fewer than 5 turns" in said
        assert "The first to ask has it once a game master agrees." in said
        assert "By mail: send STAND IN race O'Neil to referee@club.example" in said
        assert "On Discord: /take game:race seat:O'Neil" in said
        assert "By mail: send STANDBY golden-strider to referee@club.example" in said
        assert "On Discord: /standby kind:golden-strider" in said
        assert "<code>By mail: send STAND IN race O&#39;Neil to referee@club.example</code>" in page, "escaped"
    now = game[game.index('id="h-now"') : game.index("</section>", game.index('id="h-now"'))]
    assert "Orders due from:" in now and "By mail: send STAND IN race" in now, "beside who owes orders"
    assert "STAND IN forming1" not in index and "STAND IN race Ben" not in index, "only the seat on offer"


async def test_a_paused_game_keeps_its_offer_and_an_automatic_one_says_so(tmp_path: Path) -> None:
    with club(tmp_path) as made:
        running_race(made, substitute_auto=True)
        gm(made, "Ben")
        paused = made.apply(GM, "Game Master", c.PauseGame("race", "a holiday"))
        assert "paused" in " ".join(paused.results), paused
        pages = await pages_of(made)
    for path in ("/", "/games/race"):
        assert offered_on(pages[path]) == ["Ben"], path
        said = words(pages[path])
        assert "The first to ask has it at once." in said and "Taking it needs" not in said


async def test_a_seat_no_longer_up_shows_nowhere(tmp_path: Path) -> None:
    """Withdrawn, or taken (the game master accepts the player who offered): neither page lists it."""
    with club(tmp_path) as made:
        running_race(made)
        gm(made, "O'Neil")
        gm(made, "O'Neil", "withdraw")
        withdrawn = await pages_of(made)
        gm(made, "Ben")
        taken = made.apply("new@club.example", "New Player", c.TakeSeat("race", "Ben"))
        assert "take_waiting" in taken.results, taken
        waiting = await pages_of(made)
        gm(made, "Ben", "accept")
        accepted = await pages_of(made)
    for state in (withdrawn, accepted):
        for path in ("/", "/games/race"):
            assert HEADING not in state[path] and "STAND IN race" not in state[path] and "/take" not in state[path], (
                path
            )
    assert offered_on(waiting["/"]) == ["Ben"], "up until a game master accepts who offered"
    assert "the GM gave seat Ben to a substitute" in words(accepted["/games/race"])


async def test_a_game_that_is_over_lists_no_seat(tmp_path: Path) -> None:
    with club(tmp_path) as made:
        running_race(made)
        gm(made, "Ben")
        ended = made.apply(GM, "Game Master", c.EndGame("race", "the club closes"))
        assert not ended.problems, ended
        pages = await pages_of(made)
    for path in ("/", "/games/race"):
        assert HEADING not in pages[path] and "STAND IN race" not in pages[path] and "/take" not in pages[path], path


def nobody_shown(pages: dict[str, str], addresses: list[str]) -> None:
    """No page names the candidate (escaped or not) or carries any of ``addresses``."""
    for path, page in pages.items():
        assert "alert" not in page and "onerror" not in page, path
        assert page.count("<script") == (0 if path.endswith(".atom") else 1), "the page's own script only"
        assert CANDIDATE not in page and "sneaky" not in page, path
        for address in addresses:
            assert address not in page, (path, address)


async def test_the_player_waiting_for_a_game_master_and_every_address_stay_unseen(tmp_path: Path) -> None:
    """A candidate with a hostile display name offers to take the seat: no page names them, before or after
    the game master accepts them; no page carries their address, nor any player's or the game master's."""
    with club(tmp_path) as made:
        running_race(made)
        addresses = [GM, CANDIDATE, *(made.seat_address("race", seat) for seat in ["O'Neil", *RUNNERS[1:]])]
        gm(made, "O'Neil", reason="moved <away> & gone")
        taken = made.apply(CANDIDATE, HOSTILE, c.TakeSeat("race", "O'Neil"))
        assert "take_waiting" in taken.results, taken
        waiting = await pages_of(made)
        gm(made, "O'Neil", "accept")
        accepted = await pages_of(made)
    assert offered_on(waiting["/"]) == offered_on(waiting["/games/race"]) == ["O&#39;Neil"]
    for state in (waiting, accepted):
        nobody_shown(state, addresses)
    page = waiting["/games/race"]
    assert "moved &lt;away&gt; &amp; gone" in page and "<away>" not in page, "the reason is escaped"
    assert "STAND IN race O&#39;Neil" in page, "the seat too"


async def test_who_took_a_seat_at_once_stays_unseen(tmp_path: Path) -> None:
    """With ``substitute_auto`` the candidate has the seat at once (the referee's log names their address):
    the pages say a substitute took it, and nothing of who, through the turn's report that announces it."""
    with club(tmp_path) as made:
        running_race(made, substitute_auto=True)
        addresses = [GM, CANDIDATE, *(made.seat_address("race", seat) for seat in ["O'Neil", *RUNNERS[1:]])]
        gm(made, "Ben")
        taken = made.apply(CANDIDATE, HOSTILE, c.TakeSeat("race", "Ben"))
        assert "seat_taken_over" in taken.results, taken
        deadline = made.service.next_deadline()
        assert deadline is not None
        made.clock.set(deadline)
        made.service.resolve_due(made.clock.now())
        pages = await pages_of(made)
    nobody_shown(pages, addresses)
    assert HEADING not in pages["/"]
    assert "a substitute took seat Ben" in words(pages["/games/race"])


async def test_without_a_channel_that_takes_it_the_page_says_to_ask_the_host(tmp_path: Path) -> None:
    with club(tmp_path) as made:
        running_race(made)
        gm(made, "Ben")
        async with served(made) as reader:  # no channel configured: no hints
            index = await reader.get("/")
    assert offered_on(index) == ["Ben"]
    assert "Ask the club's host how to take it." in words(index)
    assert "standby list" not in index and "<code>" not in index


def test_a_hint_is_filled_in_one_pass() -> None:
    """A seat named like a placeholder stays as it is written."""
    assert filled(HINTS.take, game="race", seat="{game}") == [
        "By mail: send STAND IN race {game} to referee@club.example",
        "On Discord: /take game:race seat:{game}",
    ]
    assert filled(HINTS.standby, kind="strike-gold")[1] == "On Discord: /standby kind:strike-gold"
