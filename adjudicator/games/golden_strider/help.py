"""The players' help text for Golden Strider: order syntax, rules in brief, report columns.

Rules: docs/rules/golden-strider.md (the rule text restated; rulings G1-G14).
"""

from __future__ import annotations

from collections.abc import Mapping

from adjudicator.api import JSON
from adjudicator.games.golden_strider.options import OPTION_SPECS
from adjudicator.options import help_with_options
from adjudicator.words import Said, say

HELP = say(
    """\
GOLDEN STRIDER (Alan Parr) - a middle-distance race for 6 to 10 runners.

Setup, once: choose five cards, each 0-10, totalling 30 (seed rule 2).
    cards 10 8 6 4 2
Each round: play one card and split it between movement and banking.
    play 6/0 bank 2       the 6 received at turn 0; bank 2, move the rest
    play 6 bank 2         your oldest 6
    play 6/0 move 4 bank 2
Restitution for overtaking comes off the card first (rules 9-12); the bank is
then honoured and what is left is movement (ruling G5).  "bank 0" may be left
out.  Case, commas and extra spaces do not matter.

Your replacement card is 2 x banked + a positional bonus (1st 0, 2nd-3rd 1,
4th-6th 2; 4th-8th with ten runners), never more than 10 (rules 6-7).
Every card must be played within seven turns of receiving it (rule 8); an
order that would make that impossible is replaced by the referee's play
(rule 14, the seed's "rule 7" means rule 8).  No orders: the referee plays
your oldest card (lowest initial card), for movement only (rule 13).
A setup that never arrives is five 6s.

Steeplechase: 70 squares, barriers at 10, 30, 40, 60 cost 1 extra point,
water jumps at 20 and 50 cost 2; land short and you trip: your next card
loses 1 + the points unpaid.  (Tripping at water with nothing paid is 1 point
cheaper than jumping: a quirk of the rules, refereed as written, G11.)

Report columns: Cards (value/turn received, oldest first; * marks the card
played), D deducted for restitution, M moved, B banked, R replacement card,
S square, P position, O restitution owed next round, cf carried forward.
"""
)
"""The help proper, one pattern (a translation keeps its order examples verbatim, lines within 78 columns)."""


def help_text(options: Mapping[str, JSON] | None = None) -> Said:
    """The help text followed by every option: its default, or its setting in ``options``; said, so that a
    reader gets all of it in their language (:func:`adjudicator.options.help_with_options`)."""
    return help_with_options(HELP, OPTION_SPECS, options)
