"""Strike Gold options: the seed's four table options and the rulings' options (docs/rules/strike-gold.md 3.2 and "Options").

The seed's "Out player scores 0" (``out_player_scores_zero``) and ruling S3b's
``out_penalty`` describe the same thing: the flag on is ``out_penalty`` "zero".
Setting the flag together with ``out_penalty`` "none" is refused as a contradiction.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from adjudicator.api import JSON, OptionSpec, SetupError
from adjudicator.games.strike_gold.cards import DECK_SIZE, full_deck
from adjudicator.options import is_whole, option_fields, options_dict, resolve_options
from adjudicator.words import say

OPTION_SPECS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "game_to",
        100,
        say("Game to: the game ends after a round in which a total reaches this (seed)."),
        (50, 100, 200),
    ),
    OptionSpec(
        "out_player_final_turn",
        False,
        say("Out player takes final turn (seed): after the others' final turns, the out player takes one more."),
    ),
    OptionSpec(
        "out_player_scores_zero",
        False,
        say(
            "Out player scores 0 (seed): an out player without the lowest score scores 0 instead of double "
            "(the same as out_penalty 'zero', ruling S3b)."
        ),
    ),
    OptionSpec(
        "row_wipe", False, say("Row wipe (seed): matching rows are cleared as well as columns (see row_wipe_mode).")
    ),
    OptionSpec(
        "discard_pick_must_keep",
        True,
        say(
            "S1: a card taken from the discard pile must be kept in the grid; false allows discarding it again "
            "(and flipping), the literal seed reading."
        ),
    ),
    OptionSpec(
        "out_lowest_tie_counts",
        True,
        say(
            "S2: an out player tied for the lowest round score counts as lowest (no penalty); false needs strictly lowest."
        ),
    ),
    OptionSpec(
        "double_only_positive",
        True,
        say("S3: the doubling penalty applies only to a round score above 0."),
    ),
    OptionSpec(
        "out_penalty",
        "double",
        say(
            "S3b: an out player without the lowest score: 'double' the score, 'zero' scores 0 (literal seed option), "
            "'none' scores normally."
        ),
        ("double", "zero", "none"),
    ),
    OptionSpec(
        "row_wipe_mode",
        "full_row",
        say(
            "S4, with row_wipe: 'full_row' clears a row whose remaining cards (at least 3) are all face up and equal; "
            "'any_three' removes any 3 or more equal face-up cards of a row, leaving empty slots that score 0."
        ),
        ("full_row", "any_three"),
    ),
    OptionSpec(
        "clear_on_final_reveal",
        False,
        say(
            "S5: columns (and rows) that match when the remaining cards are revealed at the end of a round also clear."
        ),
    ),
    OptionSpec(
        "target_comparison",
        "reach",
        say("S6: the game ends when a total 'reach'es the target (>=, seed 'Object') or 'exceed's it (>)."),
        ("reach", "exceed"),
    ),
    OptionSpec(
        "later_round_starter",
        "highest_reveal",
        say(
            "S9: who starts rounds 2 and later: 'highest_reveal' (highest total of the flipped cards, ties to the "
            "earliest seat) or 'previous_out_player' (the player who went out last round)."
        ),
        ("highest_reveal", "previous_out_player"),
    ),
    OptionSpec(
        "tiebreak_counts_rows",
        False,
        say("S7: the tie-break (most columns cleared in the game) also counts rows wiped."),
    ),
    OptionSpec(
        "max_rounds",
        100,
        say(
            "Referee's safeguard, not in the seed: the game ends after this many rounds even if no total reached the target."
        ),
    ),
    OptionSpec(
        "deck",
        None,
        say(
            "The order of all 150 cards for round 1, top first (a list, or text of numbers), to replay a game played "
            "at a table. Dealt seat by seat, 12 cards each filling r1c1, r1c2, r1c3, r1c4, r2c1 ... r3c4; then one card "
            "starts the discard pile; the rest is the draw pile. Unset: shuffled. Later rounds are always shuffled."
        ),
    ),
)


@dataclass(frozen=True)
class Options:
    """The resolved options of one game."""

    game_to: int = 100
    out_player_final_turn: bool = False
    out_player_scores_zero: bool = False
    row_wipe: bool = False
    discard_pick_must_keep: bool = True
    out_lowest_tie_counts: bool = True
    double_only_positive: bool = True
    out_penalty: str = "double"
    row_wipe_mode: str = "full_row"
    clear_on_final_reveal: bool = False
    target_comparison: str = "reach"
    later_round_starter: str = "highest_reveal"
    tiebreak_counts_rows: bool = False
    max_rounds: int = 100
    deck: tuple[int, ...] | None = None

    @property
    def penalty(self) -> str:
        """The out-player penalty in force (S3b): the seed flag wins over the default 'double'."""
        return "zero" if self.out_player_scores_zero else self.out_penalty

    @property
    def row_mode(self) -> str | None:
        """None when rows are not wiped; else 'full_row' or 'any_three' (S4)."""
        return self.row_wipe_mode if self.row_wipe else None

    def reached(self, total: int) -> bool:
        """Whether ``total`` ends the game (S6)."""
        return total >= self.game_to if self.target_comparison == "reach" else total > self.game_to

    @classmethod
    def from_mapping(cls, values: Mapping[str, JSON]) -> Options:
        """Build from resolved option values (see :mod:`adjudicator.options`); raise SetupError."""
        checked = resolve_options(OPTION_SPECS, values)
        fields = option_fields(cls, checked)
        fields["deck"] = parse_deck(checked.get("deck"))
        options = cls(**fields)
        if options.out_player_scores_zero and options.out_penalty == "none":
            raise SetupError(say("out_player_scores_zero contradicts out_penalty 'none': choose one"))
        if not 1 <= int(options.max_rounds) <= 1000:
            raise SetupError(say("max_rounds must be between 1 and 1000"))
        return options

    def as_dict(self) -> dict[str, JSON]:
        data = options_dict(self)
        data["deck"] = list(self.deck) if self.deck is not None else None
        return data


def parse_deck(value: JSON) -> tuple[int, ...] | None:
    """The ``deck`` option as a tuple of 150 card values, top first; raise SetupError."""
    if value is None:
        return None
    if isinstance(value, str):
        words = re.sub(r"[,;\[\]]", " ", value.replace("\u2212", "-")).split()
        try:
            value = [int(w) for w in words]
        except ValueError:
            raise SetupError(say("deck must list card values (numbers -2 to 12), top card first")) from None
    if not isinstance(value, (list, tuple)) or not all(is_whole(v) for v in value):
        raise SetupError(say("deck must be a list of card values (numbers -2 to 12), top card first"))
    cards = tuple(value)
    if len(cards) != DECK_SIZE:
        raise SetupError(
            say("deck must list all {size} cards, top first; it lists {count}", size=DECK_SIZE, count=len(cards))
        )
    have, want = Counter(cards), Counter(full_deck())
    for card in sorted(set(have) | set(want)):
        if have[card] != want[card]:
            raise SetupError(
                say(
                    "deck lists {count} cards of value {card}; the deck holds {held}",
                    count=have[card],
                    card=card,
                    held=want[card],
                )
            )
    return cards
