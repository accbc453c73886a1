"""Board pictures: each kind's drawing from boards of real games (tests/pictures/boards.py).

Golden files: the SVG text of every board (tests/pictures/golden/*.svg, compared
exactly) and the PNG of the middle of each game (*.png, decoded with Pillow and
compared pixel by pixel).  A missing golden file fails; they are written only by
a run with ``REFEREE_UPDATE_GOLDEN=1`` (tests/golden.py), to be reviewed before
committing.  The PNG golden files also hold the pictures to the package's own
fonts: a host font taking part would change pixels.
"""

from __future__ import annotations

import io
import json
from functools import cache
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from adjudicator import registry
from bot.pictures import Picture, draw, png
from bot.pictures.registry import DRAWINGS
from bot.pictures.svg import ALT_LIMIT, WIDTH
from tests.golden import assert_golden, updating
from tests.pictures.boards import MOMENTS, NAMES, Played, play, seat_counts
from tests.pictures.geometry import labels, overlaps

GOLDEN = Path(__file__).parent / "golden"

VARIANTS = {"golden-strider": [{}, {"steeplechase": True}]}
"""Options played besides the defaults: the steeplechase has obstacles to draw."""


@cache
def played(kind: str, seats: int, steeple: bool = False) -> Played:
    return play(kind, NAMES[:seats], {"steeplechase": True} if steeple else {})


DRAWN = sorted(DRAWINGS)
"""The kinds with a drawing (bot/pictures/registry.py); a picture is optional, and a game without one has none."""

CASES = [
    (kind, seats, steeple, moment)
    for kind in DRAWN
    for seats in seat_counts(kind)
    for steeple in ((False, True) if kind == "golden-strider" else (False,))
    for moment in MOMENTS
]


def case_id(kind: str, seats: int, steeple: bool, moment: str) -> str:
    return f"{kind}{'-steeplechase' if steeple else ''}-{seats}-{moment}"


def picture(kind: str, seats: int, steeple: bool, moment: str) -> Picture:
    drawn = draw(kind, played(kind, seats, steeple).board(moment))
    assert drawn is not None
    return drawn


def assert_png_golden(data: bytes, path: Path) -> None:
    """The PNG decodes to the same pixels as the golden file (written only in update mode)."""
    if updating():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    assert path.exists(), f"golden PNG {path} is missing; rerun with REFEREE_UPDATE_GOLDEN=1 and review it"
    got = Image.open(io.BytesIO(data)).convert("RGBA")
    want = Image.open(path).convert("RGBA")
    assert got.size == want.size, f"{path.name}: {got.size} != {want.size}"
    assert ImageChops.difference(got, want).getbbox() is None, f"{path.name}: pixels differ from the golden PNG"


def test_every_drawing_is_of_a_registered_kind_and_a_kind_without_one_draws_nothing():
    assert set(DRAWINGS) <= set(registry.kinds())
    for kind in registry.kinds():
        if kind not in DRAWINGS:  # a game with no drawing: its board is drawn as None, which callers expect
            board = played(kind, seat_counts(kind)[-1]).board("mid")
            assert board and draw(kind, board) is None


def test_no_board_or_unknown_kind_draws_nothing():
    assert draw("golden-strider", None) is None
    assert draw("no-such-game", {"round": 1}) is None


@pytest.mark.parametrize(("kind", "seats", "steeple", "moment"), CASES, ids=[case_id(*c) for c in CASES])
def test_the_svg_matches_its_golden_file_and_parses(kind: str, seats: int, steeple: bool, moment: str):
    drawn = picture(kind, seats, steeple, moment)
    assert_golden(drawn.svg, GOLDEN / f"{case_id(kind, seats, steeple, moment)}.svg")
    texts = " ".join(label.text for label in labels(drawn.svg))
    for name in NAMES[:seats]:
        assert name in texts, f"{name} is not labelled"
    assert overlaps(drawn.svg) == []


@pytest.mark.parametrize(("kind", "seats", "steeple", "moment"), CASES, ids=[case_id(*c) for c in CASES])
def test_the_alt_text_says_who_is_where(kind: str, seats: int, steeple: bool, moment: str):
    alt = picture(kind, seats, steeple, moment).alt
    assert 40 < len(alt) <= ALT_LIMIT
    assert "\n" not in alt and "<" not in alt
    for name in NAMES[:seats]:
        assert name in alt, f"the alt text does not name {name}"


PNG_CASES = [c for c in CASES if c[3] == "mid"] + [("strike-gold", 8, False, "end")]


@pytest.mark.parametrize(("kind", "seats", "steeple", "moment"), PNG_CASES, ids=[case_id(*c) for c in PNG_CASES])
def test_the_png_matches_its_golden_pixels_and_is_small(kind: str, seats: int, steeple: bool, moment: str):
    data = png(picture(kind, seats, steeple, moment))
    assert len(data) < 250_000
    image = Image.open(io.BytesIO(data))
    assert image.size[0] == WIDTH and 200 <= image.size[1] <= 900
    assert_png_golden(data, GOLDEN / f"{case_id(kind, seats, steeple, moment)}.png")


@pytest.mark.parametrize("kind", DRAWN)
def test_the_same_board_draws_the_same_bytes(kind: str):
    seats = seat_counts(kind)[-1]
    first = draw(kind, played(kind, seats).board("mid"))
    again = draw(kind, played(kind, seats).board("mid"))
    assert first is not None and again is not None
    assert first == again and first is not again
    assert png(first) == png(again)


@pytest.mark.parametrize("kind", DRAWN)
def test_a_stored_board_draws_as_the_live_one(kind: str):
    """A report's board is stored as JSON (tuples become lists, keys strings): the drawing is the same."""
    board = played(kind, seat_counts(kind)[-1]).board("end")
    assert draw(kind, json.loads(json.dumps(board))) == draw(kind, board)


@pytest.mark.parametrize(("kind", "seats", "key"), [("lautobus", 5, "turn"), ("golden-strider", 6, "round")])
def test_the_picture_after_a_turn_names_the_turn_its_report_names(kind: str, seats: int, key: str) -> None:
    """The board drawn after a resolution (its state's public view, as a report mail's picture) is titled
    after the turn the report of that resolution names: the state's own counter is the next turn's."""
    import random

    from adjudicator.record import start_game
    from adjudicator.rng import rng_for
    from adjudicator.turn import advance

    rules = registry.get_rules(kind)
    state = start_game(rules, [f"S{n}" for n in range(seats)], {}, "caption")
    chooser = random.Random(3)
    titles = [str(DRAWINGS[kind](rules.public_state(state)).alt).splitlines()[0]]
    for _ in range(3):
        phase = rules.phase(state)
        assert phase is not None
        orders = {seat: rules.parse_orders(state, seat, rules.example_orders(state, seat, chooser)).orders
                  for seat in phase.owing}  # fmt: skip
        resolution = advance(rules, state, orders, rng_for("caption", phase.number))
        state = resolution.state
        titles.append(f"{resolution.report[key]}: {DRAWINGS[kind](rules.public_state(state)).alt}")
    assert "the start" in titles[0]
    for title in titles[1:]:
        number, alt = title.split(": ", 1)
        if number != "0" or kind == "lautobus":
            assert f"after {key} {number}" in alt, titles
