"""L'autobus options (docs/rules/lautobus.md 5.2; the defaults are the rulings' defaults).

``movement_cards`` (L1), ``start_layout`` (L2), ``start_assignment`` (L3),
``slipstream_timing`` (L4), ``sprint1_retainable`` (L5),
``sprint_includes_zero`` (L6) and ``team_tie`` (L9).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from adjudicator.api import JSON, OptionSpec, SetupError
from adjudicator.options import is_whole, option_fields
from adjudicator.words import say

TEAMS = 5
"""Seed rule 1: five teams per game."""

RIDERS = 5
"""Seed rule 2: five cyclists per team."""

CYCLISTS = TEAMS * RIDERS

DEFAULT_MOVEMENT_CARDS: tuple[int, ...] = (1, 2, 3, 4, 5, 6)
"""Ruling L1: invented and provisional; the seed does not give the set."""

MAX_CARD_VALUE = 20
MAX_HAND = 12
MAX_START_SPACE = 1000

OPTION_SPECS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "movement_cards",
        list(DEFAULT_MOVEMENT_CARDS),
        say(
            "The movement cards each cyclist starts with, besides one ZERO and one SPRINT (ruling L1; the seed "
            "does not give them, so this default is provisional). A list of 1-12 values, each 1-20."
        ),
    ),
    OptionSpec(
        "start_layout",
        None,
        say(
            "Start spaces (ruling L2). None: five groups of five with one empty space between them, "
            "E 1-5, D 7-11, C 13-17, B 19-23, A 25-29 (the leader on 29). Otherwise a list of 25 different "
            "spaces; sorted from the back, each run of five is one group."
        ),
    ),
    OptionSpec(
        "start_assignment",
        "latin",
        say(
            "Which team's cyclist starts where (ruling L3): 'latin' puts the cyclist at offset p (0 = back) of "
            "group g (0 = last group) in team ((g + p) mod 5) + 1; 'seeded_random' shuffles the 25 places with "
            "the game's seed."
        ),
        ("latin", "seeded_random"),
    ),
    OptionSpec(
        "slipstream_timing",
        "before",
        say(
            "When 'directly behind' is judged for keeping a card (ruling L4): 'before' movement (seed wording) "
            "or 'after' movement."
        ),
        ("before", "after"),
    ),
    OptionSpec(
        "sprint1_retainable",
        True,
        say(
            "A SPRINT played as the last card moves 1 (seed rule 11); true: it is a normal 1 that can be kept and "
            "matched (ruling L5); false: like any special it is never kept and never matches."
        ),
    ),
    OptionSpec(
        "sprint_includes_zero",
        True,
        say("Ruling L6: true: a SPRINT also uses up the ZERO (it adds 0); false: the ZERO stays in the hand."),
    ),
    OptionSpec(
        "team_tie",
        "best_cyclist",
        say(
            "Teams with equal penalty totals (ruling L9): 'best_cyclist' ranks them by their best-placed "
            "cyclist, then the next; 'shared' gives them the same place."
        ),
        ("best_cyclist", "shared"),
    ),
)


@dataclass(frozen=True)
class Options:
    """The resolved options of one race."""

    movement_cards: tuple[int, ...] = DEFAULT_MOVEMENT_CARDS
    start_layout: tuple[int, ...] | None = None
    start_assignment: str = "latin"
    slipstream_timing: str = "before"
    sprint1_retainable: bool = True
    sprint_includes_zero: bool = True
    team_tie: str = "best_cyclist"

    @classmethod
    def from_mapping(cls, values: Mapping[str, JSON]) -> Options:
        """Build and check already-resolved option values; raise :class:`SetupError`."""
        known = option_fields(cls, values)
        cards = _movement_cards(known.get("movement_cards", list(DEFAULT_MOVEMENT_CARDS)))
        layout = _start_layout(known.get("start_layout"))
        for name, choices in (
            ("start_assignment", ("latin", "seeded_random")),
            ("slipstream_timing", ("before", "after")),
            ("team_tie", ("best_cyclist", "shared")),
        ):
            if name in known and known[name] not in choices:
                raise SetupError(
                    say(
                        "option {name} must be one of {choices}, not {value}",
                        name=name,
                        choices=", ".join(choices),
                        value=repr(known[name]),
                    )
                )
        for name in ("sprint1_retainable", "sprint_includes_zero"):
            if name in known and not isinstance(known[name], bool):
                raise SetupError(
                    say("option {name} must be true or false, not {value}", name=name, value=repr(known[name]))
                )
        rest = {k: v for k, v in known.items() if k not in ("movement_cards", "start_layout")}
        return cls(movement_cards=cards, start_layout=layout, **rest)

    def as_dict(self) -> dict[str, JSON]:
        return {
            "movement_cards": list(self.movement_cards),
            "start_layout": list(self.start_layout) if self.start_layout is not None else None,
            "start_assignment": self.start_assignment,
            "slipstream_timing": self.slipstream_timing,
            "sprint1_retainable": self.sprint1_retainable,
            "sprint_includes_zero": self.sprint_includes_zero,
            "team_tie": self.team_tie,
        }


def _movement_cards(value: JSON) -> tuple[int, ...]:
    """Ruling L1: a non-empty list of small positive values (duplicates allowed)."""
    if not isinstance(value, (list, tuple)) or not value or not all(is_whole(v) for v in value):
        raise SetupError(
            say("movement_cards must be a non-empty list of whole numbers, not {value}", value=repr(value))
        )
    if len(value) > MAX_HAND:
        raise SetupError(
            say("movement_cards may hold at most {most} cards, not {count}", most=MAX_HAND, count=len(value))
        )
    if not all(1 <= v <= MAX_CARD_VALUE for v in value):
        raise SetupError(
            say(
                "each movement card must be 1-{most} (ZERO is a special card): {value}",
                most=MAX_CARD_VALUE,
                value=repr(value),
            )
        )
    return tuple(sorted(value))


def _start_layout(value: JSON) -> tuple[int, ...] | None:
    """Ruling L2: None (the default layout) or 25 different spaces from 1."""
    if value is None or value == "standard":
        return None
    if not isinstance(value, (list, tuple)) or not all(is_whole(v) for v in value):
        raise SetupError(
            say("start_layout must be None or a list of {count} spaces, not {value}", count=CYCLISTS, value=repr(value))
        )
    if len(value) != CYCLISTS or len(set(value)) != CYCLISTS:
        raise SetupError(
            say("start_layout must list {count} different spaces, not {given}", count=CYCLISTS, given=len(set(value)))
        )
    if not all(1 <= v <= MAX_START_SPACE for v in value):
        raise SetupError(say("start_layout spaces must be 1-{most}", most=MAX_START_SPACE))
    return tuple(sorted(value))
