"""The players' help text for L'autobus: order syntax and the rules as refereed.

Rules: docs/rules/lautobus.md (the rule text restated; rulings L1-L10).
"""

from __future__ import annotations

from collections.abc import Mapping

from adjudicator.api import JSON
from adjudicator.games.lautobus.options import OPTION_SPECS
from adjudicator.options import help_with_options
from adjudicator.words import Said, say

HELP = say(
    """\
L'AUTOBUS (Tony Reeves) - a bicycle race for exactly 5 teams of 5 cyclists.

Each cyclist holds movement cards (1 2 3 4 5 6 by default, ruling L1) plus
one ZERO and one SPRINT.  Every turn, every cyclist that still holds cards
plays one (ruling L7).  Orders: one card per rider, riders numbered 1-5
(rider 1 is your cyclist that started nearest the front):
    1: 3, 2: 5, 3: zero, 4: sprint, 5: 2
    rider 1 plays 3          (one per line is fine too)
    3 5 zero sprint 2        (a bare list: your riders with cards, in order)
A rider with no cards needs no card.  Case, commas and spaces do not matter;
z = zero, s = sprint.

Slipstream (rules 5-6): if the space directly ahead of your cyclist holds a
cyclist who played the same movement card, you keep your card; otherwise it
is discarded.  Judged before movement (ruling L4).
Movement (rules 7-9): leader first; landing on an occupied space takes you on
to the next free space, so joining a group puts you at its front.
ZERO: no movement.  SPRINT: all your remaining cards at once (the ZERO too,
ruling L6); as your last card it is a 1 (rule 11).  Neither may be played on
the first turn (turn 0), each is used once and never kept (a last-card
SPRINT 1 can be, L5).  A missing or illegal card (not held, used, a special
on the first turn) is replaced by your lowest movement card; with only
specials left, ZERO, else SPRINT (L8).

The race ends when every cyclist has played out.  Bonuses: 1st +3, 2nd +2,
3rd +1.  Each cyclist's penalty is the number of empty spaces between it and
the winner; the team with the lowest total wins (ties: best cyclist, L9).

Report: the road 20 spaces to a line, A3 = team A's rider 3, . = empty.
"""
)


def help_text(options: Mapping[str, JSON] | None = None) -> Said:
    """The help text followed by every option: its default, or its setting in ``options``; said, so that a
    reader gets all of it in their language (:func:`adjudicator.options.help_with_options`)."""
    return help_with_options(HELP, OPTION_SPECS, options)
