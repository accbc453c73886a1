"""A player's own reliability record: ``RECORD ME`` (Discord ``/reliability``).

The figures are derived from the turn records and the history of who held each
seat (:mod:`bot.core.people.reliability`, which states the rule of charging); a
person the referee has never seen has a record of zeros.
"""

from __future__ import annotations

from bot.core.commands.context import CommandContext
from bot.core.commands.registry import SHOWN, Result, handles
from bot.core.model import commands as c
from bot.core.people.identities import find_player
from bot.core.people.reliability import TRIAL_TURNS, Reliability, reliability_of


@handles(c.ShowReliability)
def show_reliability(ctx: CommandContext, command: c.ShowReliability) -> Result:
    player = find_player(ctx.session, ctx.envelope.sender)
    record = Reliability(0) if player is None else reliability_of(ctx.session, [player.id])[player.id]
    ctx.reply.add("reliability", **record.as_data(), trial=TRIAL_TURNS)
    return SHOWN
