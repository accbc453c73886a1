"""The players' help text for Dragon Stripes (order syntax and how the referee plays the game)."""

from __future__ import annotations

from collections.abc import Mapping

from adjudicator.api import JSON
from adjudicator.games.dragon_stripes.options import OPTION_SPECS
from adjudicator.options import help_with_options
from adjudicator.words import Said, say

HELP = say(
    """\
DRAGON STRIPES (Alex Randolph, 1989) - press your luck, for 2 to 6 players.

Everyone starts with 40 gems; the dragon's hoard holds the rest.  On your turn
the knight starts at the dragon's tail and the first card is revealed for you.
A footprint moves the knight that many stripes; gems equal to the stripe's
value go from the hoard beside the knight.  Then you decide:
    reveal            reveal the next card
    hold              stop: the others may take over, else you collect
A stop card costs you a quarter of your gems (rounded down) and the gems
beside go back to the hoard.  The first danger card is a stop; after the
second, stops cost half and placements are doubled; the third danger card
costs its revealer every gem and ends the game.  A knight moving past stripe
17 reaches the head: that player takes the gems beside and the whole hoard,
and the game ends.  The most gems wins.

Take-overs: when a player holds, the others (left of the holder first) may
take over by paying the holder the bounty; the taker's first card is revealed
for them.  You are asked only if you can pay.
    take              take over (the first taker to the holder's left wins)
    pass              do not (silence is pass)
    choose B          holder's pick between several takers (holder_chooses)

Standing orders, so the game need not wait for a mail for every card:
    reveal until 30 beside     hold as soon as 30 or more gems are beside
    hold at stripe 12          hold once the knight is on stripe 12 or beyond
    reveal 3 then hold         three more cards, then hold
These lines may be combined (hold as soon as one is met).  A run order answers
your own decisions from now on (or from your next run, if you give it while it
is not your decision) and is used up when that run ends.
    take over if 25 or more beside   answers every take-over window for you
                                     (when you can pay) until you withdraw it
    always take over                 the same, from 0 gems beside
    withdraw / withdraw run / withdraw offer
You may give standing orders in any message you send while you owe orders.
When every decision is covered by standing orders the referee plays on, card
by card, until a live answer is needed.

No answer: an active player holds; a silent player passes (ruling D12).
One order a line; case, punctuation and extra words like "please" do not
matter; "30+ beside" and "at least 30 beside" are read as 30 or more.

The report lists each card as it came: the stripe the knight reached, the
gems beside it, the hoard and the player's own gems after each line.
"""
)


def help_text(options: Mapping[str, JSON] | None = None) -> Said:
    """The help text followed by every option: its default, or its setting in ``options``; said, so that a
    reader gets all of it in their language (:func:`adjudicator.options.help_with_options`)."""
    return help_with_options(HELP, OPTION_SPECS, options)
