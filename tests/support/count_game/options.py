"""Count to Ten's one option: the total that ends the game."""

from __future__ import annotations

from adjudicator.api import OptionSpec

OPTION_SPECS = (OptionSpec("target", 10, "The total that ends the game."),)
