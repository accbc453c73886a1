"""Dragon Stripes options (docs/rules/dragon-stripes.md 4.2, D1-D8).

The footprint values, stripe values, bounty and hoard size are *invented*
defaults (no source gives them): they are options so that a GM holding the
physical rules can set them.  ``deck`` stacks the deck (top first) to replay a
table game or to test; without it the deck is shuffled with the game's seed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from adjudicator.api import JSON, OptionSpec, SetupError
from adjudicator.games.dragon_stripes.cards import FOOTPRINT_CARDS, Card, parse_deck

STRIPES = 17
"""Stripes 1..17; a knight beyond stripe 17 reaches the dragon's head (seed; ruling D9)."""

DEFAULT_FOOTPRINTS = (10, 10, 10, 8)
DEFAULT_STRIPE_VALUES = tuple(range(1, STRIPES + 1))

OPTION_SPECS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "footprint_counts",
        list(DEFAULT_FOOTPRINTS),
        "How many footprint cards of each value, F1 first (D1, invented): 10 F1, 10 F2, 10 F3, 8 F4. "
        f"The counts must total {FOOTPRINT_CARDS} (seed).",
    ),
    OptionSpec(
        "stripe_values",
        list(DEFAULT_STRIPE_VALUES),
        f"Gems placed for landing on stripes 1..{STRIPES} (D2, invented: stripe k is worth k).",
    ),
    OptionSpec(
        "bounty_rule",
        "beside",
        "What a take-over costs (D5): 'beside' = the gems beside the knight, 'half_floor' = half of them "
        "rounded down, 'fixed' = bounty_fixed gems.  The taker must be able to pay in full.",
        ("beside", "half_floor", "fixed"),
    ),
    OptionSpec("bounty_fixed", 10, "The bounty when bounty_rule is 'fixed' (D5)."),
    OptionSpec(
        "takeover_selection",
        "seat_order",
        "Several take-over offers (D6): 'seat_order' = the first accepting player to the holder's left; "
        "'holder_chooses' = the holder picks one of them.",
        ("seat_order", "holder_chooses"),
    ),
    OptionSpec(
        "next_after_taker",
        False,
        "After a turn with a take-over (D7): false = the next turn goes to the player after the turn's "
        "owner (normal rotation); true = to the player after the last active player.",
    ),
    OptionSpec("hoard_initial", 400, "Gems in the dragon's hoard at the start (D8, invented)."),
    OptionSpec(
        "deck",
        "",
        "Stack the deck, top card first: F1-F4, S (stop), D (danger), e.g. 'F2 F3 S'.  The cards not "
        "named are shuffled beneath.  Empty: the whole deck is shuffled with the game's seed.",
    ),
)


@dataclass(frozen=True)
class Options:
    """The resolved options of one game."""

    footprint_counts: tuple[int, ...] = DEFAULT_FOOTPRINTS
    stripe_values: tuple[int, ...] = DEFAULT_STRIPE_VALUES
    bounty_rule: str = "beside"
    bounty_fixed: int = 10
    takeover_selection: str = "seat_order"
    next_after_taker: bool = False
    hoard_initial: int = 400
    deck: str = ""

    @classmethod
    def from_mapping(cls, values: Mapping[str, JSON]) -> Options:
        """Build from option values (defaults for those missing); raise SetupError for unusual ones."""
        merged = {spec.name: spec.default for spec in OPTION_SPECS} | dict(values)
        footprints = _int_list("footprint_counts", merged["footprint_counts"], minimum=0)
        if not footprints or sum(footprints) != FOOTPRINT_CARDS:
            raise SetupError(f"footprint_counts must total {FOOTPRINT_CARDS} cards (seed), not {sum(footprints)}")
        if len(footprints) > STRIPES:
            raise SetupError(f"footprint_counts may name values 1 to {STRIPES} only")
        stripes = _int_list("stripe_values", merged["stripe_values"], minimum=1)
        if len(stripes) != STRIPES:
            raise SetupError(f"stripe_values must give {STRIPES} values (seed), not {len(stripes)}")
        for name in ("bounty_fixed", "hoard_initial"):
            _integer(name, merged[name], minimum=0)
        if merged["bounty_rule"] not in ("beside", "half_floor", "fixed"):
            raise SetupError(f"bounty_rule must be beside, half_floor or fixed, not {merged['bounty_rule']!r}")
        if merged["takeover_selection"] not in ("seat_order", "holder_chooses"):
            raise SetupError(
                f"takeover_selection must be seat_order or holder_chooses, not {merged['takeover_selection']!r}"
            )
        if not isinstance(merged["next_after_taker"], bool):
            raise SetupError("next_after_taker must be true or false")
        deck = merged["deck"]
        if not isinstance(deck, str):
            raise SetupError("deck must be a string of card labels, e.g. 'F2 F3 S'")
        options = cls(
            footprint_counts=footprints,
            stripe_values=stripes,
            bounty_rule=str(merged["bounty_rule"]),
            bounty_fixed=int(merged["bounty_fixed"]),
            takeover_selection=str(merged["takeover_selection"]),
            next_after_taker=bool(merged["next_after_taker"]),
            hoard_initial=int(merged["hoard_initial"]),
            deck=" ".join(deck.split()),
        )
        options.stacked_cards()
        return options

    def stacked_cards(self) -> tuple[Card, ...]:
        """The cards named by the ``deck`` option, top first (SetupError when unreadable)."""
        try:
            return parse_deck(self.deck, self.footprint_counts)
        except ValueError as exc:
            raise SetupError(str(exc)) from None

    def as_dict(self) -> dict[str, JSON]:
        return {
            "footprint_counts": list(self.footprint_counts),
            "stripe_values": list(self.stripe_values),
            "bounty_rule": self.bounty_rule,
            "bounty_fixed": self.bounty_fixed,
            "takeover_selection": self.takeover_selection,
            "next_after_taker": self.next_after_taker,
            "hoard_initial": self.hoard_initial,
            "deck": self.deck,
        }


def _integer(name: str, value: JSON, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != int(value):
        raise SetupError(f"{name} must be a whole number, not {value!r}")
    if value < minimum or value > 1_000_000:
        raise SetupError(f"{name} must be between {minimum} and 1000000, not {value!r}")
    return int(value)


def _int_list(name: str, value: JSON, minimum: int) -> tuple[int, ...]:
    if not isinstance(value, (list, tuple)):
        raise SetupError(f"{name} must be a list of whole numbers, not {value!r}")
    return tuple(_integer(f"each of {name}", item, minimum) for item in value)
