"""No page or feed shows what a seat's view hides: Strike Gold and Dragon Stripes, turn by turn.

Two attacks, at every step of a game played by computer players:

* the secrets themselves: for each seat, what ``seat_view`` shows beyond
  ``public_state`` (a deck card drawn alone, standing orders) is looked for
  in every page and the feed where it would be text of its own;
* the secrets changed underneath: every hidden value in the stored state and
  in every turn record (face-down cards, the deck's order, a card drawn from
  the deck, each seat's private report part) and the text of the orders on
  file for the open turn are replaced; every page, the feed and the board
  picture must come out byte for byte the same.  A page that showed any of
  them, however disguised (a total, a count, a picture), would change.
"""

from __future__ import annotations

import copy
import json
import random
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from bot.core.views.pages import Pages
from bot.pictures import registry as pictures
from bot.store.db import unit_of_work
from bot.store.models import Game, OrderSubmission, TurnRecord
from tests.web.test_pages import small_drawing
from tests.web.world import Club, Reader, club, served

PATHS = ("/", "/games/g", "/games/g/feed.atom", "/games/g/board.svg")
SEATS = {"strike-gold": ["Zoe", "Yan", "Xia"], "dragon-stripes": ["Wil", "Val", "Uma"]}
STEPS = 40


def other_value(value: int) -> int:
    return 12 if value != 12 else -2


def scramble_strike_gold(state: dict[str, Any]) -> dict[str, Any]:
    """Face-down values, the deck's order and a card drawn from the deck, all changed."""
    changed = copy.deepcopy(state)
    changed["deck"] = [other_value(v) for v in reversed(changed["deck"])]
    for grid in changed["grids"]:
        for cell in grid:
            if cell is not None and not cell[1]:
                cell[0] = other_value(cell[0])
    if changed["pending"] is not None and changed["pending"]["source"] == "deck":
        changed["pending"]["value"] = other_value(changed["pending"]["value"])
    return changed


def scramble_dragon_stripes(state: dict[str, Any]) -> dict[str, Any]:
    """The deck's order changed."""
    changed = copy.deepcopy(state)
    changed["deck"] = list(reversed(changed["deck"]))
    if len(changed["deck"]) > 2:
        changed["deck"][0], changed["deck"][1] = changed["deck"][1], changed["deck"][0]
    return changed


SCRAMBLE: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "strike-gold": scramble_strike_gold,
    "dragon-stripes": scramble_dragon_stripes,
}


@contextmanager
def scrambled(made: Club, kind: str) -> Iterator[None]:
    """Every hidden value of game ``g`` changed for the time of the block, then put back."""
    scramble = SCRAMBLE[kind]
    with unit_of_work(made.sessions) as session:
        game = session.scalar(select(Game).where(Game.slug == "g"))
        assert game is not None and game.state is not None
        kept_state = game.state
        game.state = scramble(game.state)
        records = list(session.scalars(select(TurnRecord).where(TurnRecord.game_id == game.id)))
        kept_records = {r.turn_number: (r.state_before, r.state_after, r.private, r.orders) for r in records}
        for r in records:
            r.state_before, r.state_after = scramble(r.state_before), scramble(r.state_after)
            r.private = {seat: {"scrambled": True} for seat in r.private}
        filed = list(session.scalars(select(OrderSubmission).where(OrderSubmission.game_id == game.id,
                                                                   OrderSubmission.turn_number == game.phase_number)))  # fmt: skip
        kept_filed = {f.id: (f.raw_text, f.canonical_text) for f in filed}
        for f in filed:
            f.raw_text = f.canonical_text = "orders nobody may read"
    try:
        yield
    finally:
        with unit_of_work(made.sessions) as session:
            game = session.scalar(select(Game).where(Game.slug == "g"))
            assert game is not None
            game.state = kept_state
            for r in session.scalars(select(TurnRecord).where(TurnRecord.game_id == game.id)):
                r.state_before, r.state_after, r.private, r.orders = kept_records[r.turn_number]
            for f in session.scalars(select(OrderSubmission).where(OrderSubmission.id.in_(kept_filed))):
                f.raw_text, f.canonical_text = kept_filed[f.id]


def seat_secrets(made: Club) -> list[str]:
    """Each seat's secrets as patterns of text: what its view shows beyond the public view (a deck card
    it drew alone, its standing orders), leaves long enough to be told apart from other text."""
    public = made.views.public_view("g")
    assert public is not None and public.shown is not None
    found: list[str] = []
    for seat in public.seats:
        view = made.views.seat_view("g", seat)
        assert view is not None and view.shown is not None
        for key, value in view.shown.items():
            if key in public.shown or key in ("seat", "slots", "seats", "takers", "discard_pick_must_keep"):
                continue
            if key == "drawn" and isinstance(value, dict) and value.get("source") == "deck":
                found.append(rf"drew {value['value']}\b")  # as a report would word it
                found.append(re.escape(json.dumps(value)))
            found += [re.escape(leaf) for leaf in _leaves(value) if isinstance(leaf, str) and len(leaf) >= 5]
    return found


def _leaves(value: Any) -> Iterator[Any]:
    if isinstance(value, dict):
        for item in value.values():
            yield from _leaves(item)
    elif isinstance(value, list):
        for item in value:
            yield from _leaves(item)
    else:
        yield value


def now_shown(pages: dict[str, str]) -> dict[str, str]:
    """What the pages say of the game now: the game page down to its latest report (older reports
    tell of cards since played), the index, the feed's newest entry, the picture."""
    page = pages["/games/g"]
    head, _, reports = page.partition('id="h-reports"')
    feed = pages["/games/g/feed.atom"]
    return {"/": pages["/"], "/games/g": head + reports.partition("</article>")[0],
            "/games/g/feed.atom": feed.rpartition("<entry>")[2], "/games/g/board.svg": pages["/games/g/board.svg"]}  # fmt: skip


async def pages_of(reader: Reader) -> dict[str, str]:
    return {path: await reader.get(path) for path in PATHS}


@pytest.mark.parametrize("drawing", ["real", "whole board"])
@pytest.mark.parametrize("kind", sorted(SCRAMBLE))
async def test_no_page_shows_what_a_seat_view_hides(
    kind: str, drawing: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the game's own drawing, and with one that writes out the whole board it is given (so a
    hidden value in the board would show in the picture whatever the drawing leaves out)."""
    if drawing == "whole board":
        monkeypatch.setitem(pictures.DRAWINGS, kind, small_drawing)
    assert kind in pictures.DRAWINGS
    rng = random.Random(5)
    checked_secrets = 0
    with club(tmp_path) as made:
        made.create("g", kind, SEATS[kind])
        made.start("g")
        async with served(made) as reader:
            for step in range(STEPS):
                before = await pages_of(reader)
                with scrambled(made, kind):
                    after = await pages_of(reader)
                for path in PATHS:
                    assert after[path] == before[path], f"step {step}: {path} shows a hidden value"
                secrets = seat_secrets(made)
                checked_secrets += len(secrets)
                for secret in secrets:
                    for path, text in now_shown(before).items():
                        assert not re.search(secret, text), f"step {step}: {path} shows {secret!r}"
                view = made.views.public_view("g")
                assert view is not None
                if view.phase is None:
                    break
                if step % 3 == 1:  # an order on file, not yet resolved: the page says who, never what
                    seat = view.phase.owing[0]
                    text = made.example_orders("g", seat, rng)
                    made.order("g", seat, text)
                    if made.views.public_view("g").phase == view.phase:  # type: ignore[union-attr]
                        page = await reader.get("/games/g")
                        assert f"Orders received from: {seat}" in page
                made.step("g", rng)
    assert step >= 10, "the game lasted a while"
    assert checked_secrets > 0, "the game showed some seat a secret to look for"


def test_the_standings_shown_are_in_the_public_view(tmp_path: Path) -> None:
    """Strike Gold's standings read the totals, Dragon Stripes' the gems: each score shown is the
    public view's own (so the standings reveal nothing hidden mid-game)."""
    for kind, key in (("strike-gold", "totals"), ("dragon-stripes", "gems")):
        (tmp_path / kind).mkdir()
        with club(tmp_path / kind) as made:
            made.create("g", kind, SEATS[kind])
            made.start("g")
            made.play("g", 12)
            page = Pages(made.sessions).game("g")
            view = made.views.public_view("g")
            assert page is not None and view is not None and view.shown is not None
            scores = view.shown[key]
            assert isinstance(scores, dict)
            assert page.standings and all(s.score == scores[s.seat] for s in page.standings), kind
