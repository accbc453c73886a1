"""Who may sit down in a game, by JOIN or by STAND IN: the sender holds no seat of it already, and has
the reliability the game asks (:func:`bot.core.people.reliability.admits`, once they have owed
:data:`~bot.core.people.reliability.TRIAL_TURNS` turns).  A refusal is a problem in the reply that says
the seat they hold, or their figure and the minimum."""

from __future__ import annotations

from bot.core.commands.context import CommandContext
from bot.core.people.identities import find_or_create_player, seat_of
from bot.core.people.reliability import TRIAL_TURNS, Reliability, admits, reliability_of
from bot.store.models import Game, Player


def admitted(ctx: CommandContext, game: Game, line: str) -> tuple[Player, Reliability] | None:
    """The sender as a player of this referee and their record, when they may take a seat of ``game``;
    else None after the refusal (``already_seated``, ``below_min_reliability``)."""
    player = find_or_create_player(ctx.session, ctx.envelope.sender, ctx.now)
    own = seat_of(game, player)
    if own is not None:
        ctx.reply.problem(line, "already_seated", game=game.slug, seat=own.name)
        return None
    record = reliability_of(ctx.session, [player.id])[player.id]
    if not admits(record, game.min_reliability):
        ctx.reply.problem(line, "below_min_reliability", game=game.slug, minimum=game.min_reliability,
                          trial=TRIAL_TURNS, **record.as_data())  # fmt: skip
        return None
    return player, record
