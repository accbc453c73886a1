"""Options of the three-race game (docs/rules/three-races.md 2.2; defaults are the rulings' defaults)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from adjudicator.api import JSON, OptionSpec, SetupError
from adjudicator.options import option_fields, options_dict
from adjudicator.words import say

MAX_MOVES_PER_DEADLINE = 4
"""At most one whole card cycle per deadline (it also keeps the report within 80 columns)."""

OPTION_SPECS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "moves_per_deadline",
        2,
        say(
            "Moves resolved at each deadline (seed rule 3: two per zine issue); 1 suits a fast game, at most {most}.",
            most=MAX_MOVES_PER_DEADLINE,
        ),
    ),
    OptionSpec(
        "top_tie_mode",
        "literal",
        say(
            "Ties at the top (P1): 'literal' (the reference card is the (k+1)-th highest card, so R25 9,9,3,2 moves "
            "nobody) or 'skip_equal' (when the highest card equals the reference, the reference becomes the next "
            "lower value: both 9s move 6)."
        ),
        ("literal", "skip_equal"),
    ),
    OptionSpec(
        "placing_tie",
        "average",
        say(
            "Runners level at the end of a race (P2): 'average' shares the points of the places they occupy "
            "(2nd/3rd tie: 2.5 each), 'all_higher' gives each the points of the best place they share, "
            "'countback_previous_square' ranks them by their squares before the last move (then 'average')."
        ),
        ("average", "all_higher", "countback_previous_square"),
    ),
    OptionSpec(
        "readjust_timing",
        "cycle_start",
        say(
            "When a readjustment may happen (P4): 'cycle_start' (before moves 1, 5, 9, ...) or 'any_move' "
            "(before the first move of any deadline; a moved card keeps its 'played this cycle' status, so the "
            "cards exchanged must all be played or all unplayed)."
        ),
        ("cycle_start", "any_move"),
    ),
    OptionSpec(
        "overall_tie",
        "countback",
        say(
            "Teams level on points (P3): 'countback' (more 1st places, then 2nds, then 3rds; still level: "
            "shared) or 'shared' at once."
        ),
        ("countback", "shared"),
    ),
    OptionSpec(
        "max_moves",
        100,
        say(
            "Referee's safeguard, not in the seed: identical cards can stall a race, so every race still running "
            "after this many moves is stopped and ranked by square."
        ),
    ),
)


@dataclass(frozen=True)
class Options:
    """The resolved options of one game."""

    moves_per_deadline: int = 2
    top_tie_mode: str = "literal"
    placing_tie: str = "average"
    readjust_timing: str = "cycle_start"
    overall_tie: str = "countback"
    max_moves: int = 100

    @classmethod
    def from_mapping(cls, values: Mapping[str, JSON]) -> Options:
        """Build from already-resolved option values (see :mod:`adjudicator.options`); check the numbers."""
        options = cls(**option_fields(cls, values))
        per_deadline = options.moves_per_deadline
        if isinstance(per_deadline, float) or not 1 <= per_deadline <= MAX_MOVES_PER_DEADLINE:
            raise SetupError(
                say("moves_per_deadline must be a whole number from 1 to {most}", most=MAX_MOVES_PER_DEADLINE)
            )
        if isinstance(options.max_moves, float) or not 1 <= options.max_moves <= 1000:
            raise SetupError(say("max_moves must be a whole number from 1 to 1000"))
        return options

    def as_dict(self) -> dict[str, JSON]:
        return options_dict(self)
