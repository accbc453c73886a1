"""The players' help text for the three-race game: order syntax and the rules as refereed.

Rules: docs/rules/three-races.md (the rule text restated; rulings P1-P8).
"""

from __future__ import annotations

from collections.abc import Mapping

from adjudicator.api import JSON
from adjudicator.games.three_races.options import OPTION_SPECS
from adjudicator.options import help_with_options
from adjudicator.words import Said, say

HELP = say(
    """\
THE THREE-RACE GAME (Alan Parr) - four teams, three simultaneous races.

Each team has one runner in each of three races, of 25, 55 and 85 squares.
A race ends when a runner reaches its finish; places are then decided by
square and score 5, 3, 2, 1 (runners level share the points of the places
they occupy).  The team with most points from the three races wins; level
teams are separated by more 1st places, then 2nds, then 3rds.

SETUP (secret): split your cards 1-12 into three hands of four.
    25: 2 4 5 10 / 55: 1 6 9 11 / 85: 3 7 8 12
Name two races and the third gets the four cards left.

EACH DEADLINE plays two moves (moves_per_deadline).  Moves are numbered
across the game, as in the reports: deadline 1 plays moves 1 and 2,
deadline 2 moves 3 and 4, and so on.  In each move every runner plays one
of its cards not yet played in this cycle: moves 1-4, 5-8, ... are cycles,
and at the end of each all four cards come back.
    move 1: 25=10 55=6 85=12; move 2: 25=4 55=9 85=3
    move 3: 25=2 55=1 85=7; move 4: 25=5 55=11 85=8     (deadline 2)
"move 1" and "move 2" at a later deadline are read as its first and second
move, and the reply says which moves they became.
In the 25 race the highest card moves the difference to the 2nd highest; in
the 55 race the two highest move the difference to the 3rd; in the 85 race
the three highest move the difference to the lowest.  Equal cards at the
reference move nothing: 9 7 7 3 in the 55 race moves only the 9, by 2.
A finished race needs no card.  Variants: m1, "1:", 25:10, r25 10, commas.

CONDITIONS (rule 9): a deadline's second move may depend on its first
(move 2 on move 1, move 4 on move 3, ...).  Cases are tried in order; the
first that holds is played, and the plain line is used when none does.  A
case that names no card for a race plays the plain card.
    move 2 if B square in 55 >= 30: 55=11
    move 2 if 25 finished or B played 12 in 85: 55=9 85=3
    move 2: 25=4 55=9 85=3
A condition looks at the squares and places after the move before it and
the cards played in that move:
    55 finished                 B square in 55 >= 30 (also <= > < = !=)
    B place in 55 <= 2          B ahead of C in 85   (B behind C in 85)
    B played 12 in 85           anyone played >= 10 in 25   (anyone but you)
    not ..., and, or            ("and" binds tighter than "or")
Also: me/I/my, B leads 55, B 1st in 55, at least, more than, 30 or more.
The referee echoes how each condition was read.

READJUSTMENT (rule 8), twice a game, before the first move of a cycle
(moves 1, 5, 9, ...; readjust_timing), with the moves that follow it:
    swap 25:10 55:11            10 goes from 25 to 55, 11 from 55 to 25
    rotate 25:10 55:11 85:12    10 goes to 55, 11 to 85, 12 to 25
    swap 10 11                  the same swap: the cards say which runners
Each runner keeps four cards, three of its own.  Finished races take no part.

NO ORDERS (rule 10): each runner plays its lowest card left, move by move.
The same happens to a card that cannot be played (already played this
cycle, or not that runner's) and to a race left without a card.  A team
that sends no setup gets 25: 1 4 7 10 / 55: 2 5 8 11 / 85: 3 6 9 12.

Your split and the cards you have left are sent to you alone.
"""
)
"""The rules and the order syntax, one pattern (translations keep the order examples as they are)."""


def help_text(options: Mapping[str, JSON] | None = None) -> Said:
    """The help text followed by every option: its default, or its setting in ``options``; said, so that a
    reader gets all of it in their language (:func:`adjudicator.options.help_with_options`)."""
    return help_with_options(HELP, OPTION_SPECS, options)
