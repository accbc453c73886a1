"""The players' help text for Strike Gold (order syntax and the referee's rulings)."""

from __future__ import annotations

from collections.abc import Mapping

from adjudicator.api import JSON
from adjudicator.games.strike_gold.options import OPTION_SPECS
from adjudicator.options import help_with_options
from adjudicator.words import Said, say

HELP = say(
    """\
STRIKE GOLD - a press-your-luck grid card game for 2 to 8 players.

Each player has a 3x4 grid of face-down cards and tries to keep its total low.
Slots are named r<row>c<col>: rows 1-3 from the top, columns 1-4 from the left
(r3c1 is bottom left).  "R3C1", "r3 c1" and "row 3 col 1" are read too.

Start of each round (everyone at once): turn 2 cards face up (1 in
later rounds).
    flip r1c1 r2c3
The highest total of turned-up cards starts (ties: the earliest seat).

Your turn: draw from the deck (blind) or take the discard pile's top card,
then keep it in a slot (the card there, even face down, goes to the discard
pile), or discard it and turn a face-down card up ("flip"), or - only when
none of your cards is face down - just discard it.
    draw deck, keep r3c1
    draw deck, flip r2c2
    draw discard, keep r1c4       (a card from the discard pile must be kept)
    draw deck, discard            (only with no face-down card left)

By mail you cannot see the deck card before deciding, so say what to do for
each value; the first choice that fits is used, and the last must always fit:
    draw deck; if 4 or less keep r3c1; else flip r2c2
    draw deck; if 0 or less keep r1c1; if 1 to 3 keep r3c1; else flip r2c2
    draw deck; keep where it clears a column; if 3 or less keep r3c1;
      else flip r2c2
"keep where it clears a column" keeps the card in the first slot (r1c1 ...
r3c4) where it completes a column (or, with row wipe, a row); if there is
none, the next choice applies.  Also read: "if <= 4", "if under 5", "if 10
or more", "if 3 to 5", "keep r3c1 if 4 or less", "otherwise".

On Discord you may draw first and decide after seeing the card:
    draw deck                     (the card is shown to you only)
    keep r3c1  /  flip r2c2  /  discard

Three equal face-up cards in a column are cleared off your grid and score
nothing.  When your last face-down card is turned up you are out: every other
player takes one final turn, then all cards are revealed and scored.  If the
out player does not have the lowest round score (a tie counts as lowest), a
score above 0 is doubled.  The game ends after the round in which a total
reaches the target; the lowest total wins, ties go to more columns cleared.

No orders: the referee draws from the deck and turns up your first face-down
card (r1c1 onwards), or just discards with none left; at the start of a round
it turns up your first face-down card(s).

Reports show face-down cards as ?, cleared slots as x.
"""
)


def help_text(options: Mapping[str, JSON] | None = None) -> Said:
    """The help text followed by every option: its default, or its setting in ``options``; said, so that a
    reader gets all of it in their language (:func:`adjudicator.options.help_with_options`)."""
    return help_with_options(HELP, OPTION_SPECS, options)
