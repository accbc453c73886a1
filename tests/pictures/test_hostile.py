"""What a picture must never do: run a player's markup, overflow with a long name, or show a hidden card.

Seat names are chosen by players: markup, entities, quotes, 80-letter names
and East Asian wide names come out escaped (the SVG parses with xml.etree and
holds no element a name tried to open), clipped (no text crosses another or
leaves the picture), and still labelled.  Strike Gold's face-down cards are
drawn as card backs: their values, taken from the stored state, are in neither
the SVG nor the alt text.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import replace

import pytest

from adjudicator import registry
from bot.pictures import draw
from bot.pictures.svg import ALT_LIMIT
from tests.pictures.boards import MOMENTS, play
from tests.pictures.geometry import SVG, labels, overlaps

HOSTILE = (
    '<script>alert("1")</script>',
    "W" * 80,
    "山田太郎" * 6,
    "&amp;",
    '"><rect onload="x"/>',
    "Ünïcödé\u0308 ok",
    "Zed\nnew line",
    "Tab\there",
    "Amy",
    "Bo",
)


def hostile_seats(kind: str) -> tuple[str, ...]:
    return HOSTILE[: registry.get_rules(kind).max_seats]


@pytest.mark.parametrize("kind", registry.kinds())
@pytest.mark.parametrize("moment", MOMENTS)
def test_hostile_names_are_escaped_clipped_and_labelled(kind: str, moment: str):
    seats = hostile_seats(kind)
    picture = draw(kind, play(kind, seats, seed="hostile").board(moment))
    assert picture is not None
    root = ET.fromstring(picture.svg)  # parseable: every name was escaped
    tags = {element.tag.removeprefix(SVG) for element in root.iter()}
    assert "script" not in tags and "foreignObject" not in tags
    assert not any("onload" in element.attrib for element in root.iter())
    assert "<script>" not in picture.svg and "&amp;amp;" in picture.svg
    assert overlaps(picture.svg) == []
    texts = [label.text for label in labels(picture.svg)]
    assert any(text.startswith("<script>") for text in texts)
    assert any(text.startswith("WWWW") and text.endswith("~") and len(text) < 40 for text in texts)
    assert any(text.startswith("山田") for text in texts)
    assert len(picture.alt) <= ALT_LIMIT and "\n" not in picture.alt and "\t" not in picture.alt
    assert "W" * 30 not in picture.alt


def test_a_long_board_still_has_a_bounded_alt_text():
    seats = tuple(f"{'Q' * 60}{i}" for i in range(8))
    picture = draw("strike-gold", play("strike-gold", seats, seed="long").board("end"))
    assert picture is not None and len(picture.alt) <= ALT_LIMIT


@pytest.mark.parametrize("moment", ["start", "mid"])
def test_strike_gold_never_shows_a_face_down_value(moment: str):
    """docs/rules/strike-gold.md 3.1: face-down values are nobody's.  The attack: give every face-down card of the
    stored state a value no board holds; the picture must not change, nor show it."""
    rules = registry.get_rules("strike-gold")
    state = play("strike-gold", ("Alice", "Bob", "Chidi"), seed="secret").state(moment)
    down = [cell for grid in state.grids for cell in grid if cell is not None and not cell.up]
    assert down, "the board must hold face-down cards"
    marked = replace(
        state,
        grids=tuple(
            tuple(cell if cell is None or cell.up else replace(cell, value=8642) for cell in grid)
            for grid in state.grids
        ),
    )
    before = draw("strike-gold", rules.public_state(state))
    after = draw("strike-gold", rules.public_state(marked))
    assert before is not None and after is not None
    assert after == before
    assert "8642" not in after.svg and "8642" not in after.alt
    backs = after.svg.count('class="face-down"')
    assert backs == len(down)
    up_values = sorted(str(cell.value) for grid in state.grids for cell in grid if cell is not None and cell.up)
    shown = sorted(
        label.text for label in labels(after.svg) if label.text.lstrip("-").isdigit() and label.text in up_values
    )
    assert len(shown) >= len(up_values)


def test_strike_gold_never_shows_the_card_drawn_alone_from_the_deck():
    """docs/rules/strike-gold.md 3.1: a card drawn from the deck is its drawer's until placed; the board says only
    that a card was drawn."""
    from adjudicator.games.strike_gold.state import Pending, Source, Stage

    rules = registry.get_rules("strike-gold")
    state = play("strike-gold", ("Alice", "Bob"), seed="secret").state("mid")
    assert state.stage is Stage.TURN
    drawn = replace(state, stage=Stage.DECIDE, pending=Pending(8642, Source.DECK))
    picture = draw("strike-gold", rules.public_state(drawn))
    assert picture is not None
    assert "8642" not in picture.svg and "8642" not in picture.alt
    assert "drew a card" in picture.svg
    taken = draw("strike-gold", rules.public_state(replace(drawn, pending=Pending(11, Source.DISCARD))))
    assert taken is not None and "took 11" in taken.svg
