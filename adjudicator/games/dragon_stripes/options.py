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
from adjudicator.words import say

STRIPES = 17
"""Stripes 1..17; a knight beyond stripe 17 reaches the dragon's head (seed; ruling D9)."""

DEFAULT_FOOTPRINTS = (10, 10, 10, 8)
DEFAULT_STRIPE_VALUES = tuple(range(1, STRIPES + 1))

OPTION_SPECS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "footprint_counts",
        list(DEFAULT_FOOTPRINTS),
        say(
            "How many footprint cards of each value, F1 first (D1, invented): 10 F1, 10 F2, 10 F3, 8 F4. "
            "The counts must total {cards} (seed).",
            cards=FOOTPRINT_CARDS,
        ),
    ),
    OptionSpec(
        "stripe_values",
        list(DEFAULT_STRIPE_VALUES),
        say("Gems placed for landing on stripes 1..{stripes} (D2, invented: stripe k is worth k).", stripes=STRIPES),
    ),
    OptionSpec(
        "bounty_rule",
        "beside",
        say(
            "What a take-over costs (D5): 'beside' = the gems beside the knight, 'half_floor' = half of them "
            "rounded down, 'fixed' = bounty_fixed gems.  The taker must be able to pay in full."
        ),
        ("beside", "half_floor", "fixed"),
    ),
    OptionSpec("bounty_fixed", 10, say("The bounty when bounty_rule is 'fixed' (D5).")),
    OptionSpec(
        "takeover_selection",
        "seat_order",
        say(
            "Several take-over offers (D6): 'seat_order' = the first accepting player to the holder's left; "
            "'holder_chooses' = the holder picks one of them."
        ),
        ("seat_order", "holder_chooses"),
    ),
    OptionSpec(
        "next_after_taker",
        False,
        say(
            "After a turn with a take-over (D7): false = the next turn goes to the player after the turn's "
            "owner (normal rotation); true = to the player after the last active player."
        ),
    ),
    OptionSpec("hoard_initial", 400, say("Gems in the dragon's hoard at the start (D8, invented).")),
    OptionSpec(
        "deck",
        "",
        say(
            "Stack the deck, top card first: F1-F4, S (stop), D (danger), e.g. 'F2 F3 S'.  The cards not "
            "named are shuffled beneath.  Empty: the whole deck is shuffled with the game's seed."
        ),
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
            raise SetupError(
                say(
                    "{option} must total {cards} cards (seed), not {total}",
                    option="footprint_counts",
                    cards=FOOTPRINT_CARDS,
                    total=sum(footprints),
                )
            )
        if len(footprints) > STRIPES:
            raise SetupError(
                say("{option} may name values 1 to {stripes} only", option="footprint_counts", stripes=STRIPES)
            )
        stripes = _int_list("stripe_values", merged["stripe_values"], minimum=1)
        if len(stripes) != STRIPES:
            raise SetupError(
                say(
                    "{option} must give {stripes} values (seed), not {given}",
                    option="stripe_values",
                    stripes=STRIPES,
                    given=len(stripes),
                )
            )
        for name in ("bounty_fixed", "hoard_initial"):
            _integer(name, merged[name], minimum=0)
        if merged["bounty_rule"] not in ("beside", "half_floor", "fixed"):
            raise SetupError(
                say(
                    "{option} must be {a}, {b} or {c}, not {value}",
                    option="bounty_rule",
                    a="beside",
                    b="half_floor",
                    c="fixed",
                    value=repr(merged["bounty_rule"]),
                )
            )
        if merged["takeover_selection"] not in ("seat_order", "holder_chooses"):
            raise SetupError(
                say(
                    "{option} must be {a} or {b}, not {value}",
                    option="takeover_selection",
                    a="seat_order",
                    b="holder_chooses",
                    value=repr(merged["takeover_selection"]),
                )
            )
        if not isinstance(merged["next_after_taker"], bool):
            raise SetupError(say("{option} must be true or false", option="next_after_taker"))
        deck = merged["deck"]
        if not isinstance(deck, str):
            raise SetupError(
                say("{option} must be a string of card labels, e.g. {example}", option="deck", example="'F2 F3 S'")
            )
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
            raise SetupError(exc.args[0]) from None  # args[0]: said words keep their pattern (str() would not)

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
    """``value`` as an int within bounds; ``name`` is said in the error (an option's name, or words)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != int(value):
        raise SetupError(say("{option} must be a whole number, not {value}", option=name, value=repr(value)))
    if value < minimum or value > 1_000_000:
        raise SetupError(
            say(
                "{option} must be between {minimum} and {maximum}, not {value}",
                option=name,
                minimum=minimum,
                maximum=1000000,
                value=repr(value),
            )
        )
    return int(value)


def _int_list(name: str, value: JSON, minimum: int) -> tuple[int, ...]:
    if not isinstance(value, (list, tuple)):
        raise SetupError(say("{option} must be a list of whole numbers, not {value}", option=name, value=repr(value)))
    return tuple(_integer(say("each of {option}", option=name), item, minimum) for item in value)
