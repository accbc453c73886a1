"""The explicit list of board drawings: kind -> drawing (no package scanning)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from bot.pictures import dragon_stripes, golden_strider, lautobus, strike_gold, three_races
from bot.pictures.picture import Picture

Drawing = Callable[[Mapping[str, Any]], Picture]
"""Draws one kind's board (its public view) as a picture."""

DRAWINGS: dict[str, Drawing] = {
    "dragon-stripes": dragon_stripes.draw,
    "golden-strider": golden_strider.draw,
    "lautobus": lautobus.draw,
    "strike-gold": strike_gold.draw,
    "three-races": three_races.draw,
}
"""Kind -> drawing; a kind without an entry has no picture."""
