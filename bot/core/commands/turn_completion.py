"""The pipeline's last step for a command that changed a game: the rule "a complete turn resolves at once".

:func:`settle_turn` evaluates :func:`bot.core.turns.completion.settle` for the game the command
named, whatever the command was (a player's orders, a game master's orders for a seat, RESUME,
EJECT, REPLACE, a seat taken over, RESIGN, a WAIT withdrawn, a deadline moved...), so no handler
has to remember it.  A turn due now is resolved in the same transaction; if the engine raises, the
orders stand and the turn goes to the deadline worker's retry-and-park path (the shunt), so an
engine bug parks the turn, never the message that completed it.  A turn planned to resolve after the
game's early delay is announced once to every seat and the public place; the reply of whoever
planned it, or of a player of the game who changed something meanwhile, says when.
"""

from __future__ import annotations

import logging

from bot.core.commands.context import CommandContext
from bot.core.commands.early_notice import tell_early_resolution
from bot.core.games.stored import find_game
from bot.core.model import commands as c
from bot.core.people.identities import find_player, seat_of
from bot.core.turns.completion import settle
from bot.core.turns.resolution import resolve_current_turn
from bot.store.models import Game

log = logging.getLogger(__name__)


def game_of(ctx: CommandContext, command: c.Command) -> Game | None:
    """The game ``command`` acted on: the one its authorisation found, else the one it names."""
    if ctx.granted.game is not None:
        return ctx.granted.game
    slug = getattr(command, "game", None)
    return find_game(ctx.session, slug) if isinstance(slug, str) else None


def _plays(ctx: CommandContext, game: Game) -> bool:
    """Whether the sender holds a seat of ``game`` (a change of theirs is answered with the plan that stands)."""
    sender = find_player(ctx.session, ctx.envelope.sender)
    return sender is not None and seat_of(game, sender) is not None


def settle_turn(ctx: CommandContext, game: Game) -> None:
    """Apply the rule to ``game`` after a command changed it: resolve a complete turn due now, or plan
    (and announce) its early resolution, or take back a plan it no longer qualifies for."""
    settled = settle(ctx.session, game, ctx.now)
    if settled.early is None or settled.turn is None:
        return
    if settled.early > ctx.now:
        if settled.planned:
            tell_early_resolution(ctx.session, ctx.delivery, game, settled.turn, settled.early, ctx.envelope.source_id,
                                  ctx.envelope.sender)  # fmt: skip
        if settled.planned or _plays(ctx, game):
            ctx.reply.add("early_planned", game=game.slug, turn=settled.turn, at=settled.early.isoformat(),
                          time_zone=game.time_zone)  # fmt: skip
        return
    try:
        with ctx.session.begin_nested():
            record = resolve_current_turn(ctx.session, game, ctx.now, ctx.config, ctx.delivery)
    except Exception:
        # The orders stand; the turn goes to the deadline worker's shunt (retried, then parked).
        log.exception(
            "resolving %s turn %d once complete failed; the deadline worker retries it", game.slug, settled.turn,
            extra={"game": game.slug, "turn": settled.turn},
        )  # fmt: skip
        ctx.session.expire(game)
        game.resolve_at = ctx.now
        ctx.reply.add("turn_deferred", game=game.slug, turn=settled.turn)
        return
    ctx.reply.add("turn_resolved", game=game.slug, turn=record.turn_number)
