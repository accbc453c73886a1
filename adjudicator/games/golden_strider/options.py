"""Golden Strider options (docs/rules/golden-strider.md 1.2; defaults are the seed's reading)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from adjudicator.api import JSON, OptionSpec, SetupError
from adjudicator.options import option_fields, options_dict
from adjudicator.words import say

STEEPLECHASE_LENGTH = 70
"""Steeplechase variant: a 70-square race (seed, steeplechase variant)."""

OPTION_SPECS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "race_length",
        60,
        say("Squares to the finish (seed rule 4: typically 60-65). The steeplechase is always 70."),
    ),
    OptionSpec(
        "steeplechase",
        False,
        say("Barriers at 10, 30, 40, 60 and water jumps at 20, 50 (the steeplechase variant)."),
    ),
    OptionSpec(
        "first_charged_overtake_round",
        3,
        say("First round whose overtaking is charged (G1): 3 is the seed's text, 2 is the Howell reading."),
        (2, 3),
    ),
    OptionSpec(
        "expiry_enforcement",
        "feasibility",
        say(
            "Seven-turn rule (G3): 'feasibility' overrides any play that makes keeping rule 8 impossible; "
            "'deadline_only' overrides only when a card is due this round."
        ),
        ("feasibility", "deadline_only"),
    ),
    OptionSpec(
        "shortfall_mode",
        "carry",
        say(
            "Restitution larger than the card (G4): 'carry' forward (cf); 'substitute_lowest_sufficient' plays "
            "the lowest card that pays it in full instead, when there is one (Howell)."
        ),
        ("carry", "substitute_lowest_sufficient"),
    ),
    OptionSpec(
        "winner_tie",
        "joint",
        say("Runners level in first place (G6): 'joint' winners, or 'position_before' the final round breaks the tie."),
        ("joint", "position_before"),
    ),
    OptionSpec("min_initial_card", 0, say("Lowest value of an initial card (G7): 0 (seed) or 1 (Howell)."), (0, 1)),
    OptionSpec(
        "trip_penalty",
        "after_cap",
        say("Steeplechase trip penalty (G8): taken 'after_cap' (cap at 10, then subtract) or 'before_cap'."),
        ("after_cap", "before_cap"),
    ),
    OptionSpec(
        "max_rounds",
        100,
        say("Referee's safeguard, not in the seed: the race is stopped and ranked by square after this many rounds."),
    ),
)


@dataclass(frozen=True)
class Options:
    """The resolved options of one race."""

    race_length: int = 60
    steeplechase: bool = False
    first_charged_overtake_round: int = 3
    expiry_enforcement: str = "feasibility"
    shortfall_mode: str = "carry"
    winner_tie: str = "joint"
    min_initial_card: int = 0
    trip_penalty: str = "after_cap"
    max_rounds: int = 100

    @classmethod
    def from_mapping(cls, values: Mapping[str, JSON]) -> Options:
        """Build from already-resolved option values (see :mod:`adjudicator.options`)."""
        options = cls(**option_fields(cls, values))
        if options.steeplechase:
            options = cls(**{**options.as_dict(), "race_length": STEEPLECHASE_LENGTH})
        if not 1 <= int(options.race_length) <= 1000:
            raise SetupError(say("race_length must be between 1 and 1000"))
        if not 1 <= int(options.max_rounds) <= 10_000:
            raise SetupError(say("max_rounds must be between 1 and 10000"))
        return options

    def as_dict(self) -> dict[str, JSON]:
        return options_dict(self)
