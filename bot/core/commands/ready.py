"""The ready check's commands: a seat confirms (``READY <game>``), a game master confirms for it
(``READY <game> FOR <seat>``).  The window itself: :mod:`bot.core.turns.ready_checks`.

Every refusal is a clear answer that changes nothing: a game with no check,
one not full yet or already started, a seat already confirmed, a window that
has ended (before the worker freed the seat), a stale button (an earlier
check's) or a button for someone else's seat.
"""

from __future__ import annotations

from bot.core.commands.context import CommandContext
from bot.core.commands.registry import DONE, REFUSED, Result, handles
from bot.core.games.stored import FORMING
from bot.core.model import commands as c
from bot.core.model.outcomes import NOTICE, Message, Outcome, ToPlayer
from bot.core.turns.ready_checks import check_running, has_ready_check, settle_if_all_ready, unconfirmed
from bot.store.models import Game, Seat


def _open(ctx: CommandContext, game: Game, seat: Seat, line: str) -> bool:
    """Whether ``game`` has a check open now that still takes ``seat``'s confirmation; else a problem
    said why (a seat that confirmed stays confirmed: it is told so between checks too)."""
    if not has_ready_check(game):
        ctx.reply.problem(line, "no_ready_check", game=game.slug)
    elif game.status != FORMING:
        ctx.reply.problem(line, "already_started", game=game.slug, status=game.status)
    elif seat.ready_at is not None:
        ctx.reply.problem(line, "already_ready", game=game.slug, seat=seat.name)
    elif not check_running(game):
        ctx.reply.problem(line, "ready_not_yet", game=game.slug, seats=len(game.seats))
    elif game.ready_deadline_at is not None and game.ready_deadline_at <= ctx.now:
        ctx.reply.problem(line, "ready_window_closed", game=game.slug, deadline=game.ready_deadline_at.isoformat(),
                          time_zone=game.time_zone)  # fmt: skip
    else:
        return True
    return False


def _confirm(ctx: CommandContext, game: Game, seat: Seat, by_gm: str | None) -> None:
    seat.ready_at = ctx.now
    waiting = [s.name for s in unconfirmed(game)]
    deadline = game.ready_deadline_at.isoformat() if game.ready_deadline_at else None
    settle_if_all_ready(game, ctx.delivery)
    ctx.reply.add(
        "ready_confirmed", game=game.slug, seat=seat.name, waiting=waiting, deadline=deadline,
        time_zone=game.time_zone, by_gm=by_gm,
    )  # fmt: skip


@handles(c.ConfirmReady)
def confirm_ready(ctx: CommandContext, command: c.ConfirmReady) -> Result:
    game, seat = ctx.granted.game, ctx.granted.seat
    assert game is not None and seat is not None  # Permission.SEAT
    line = f"READY {game.slug}"
    if command.seat is not None and command.seat != seat.name:
        ctx.reply.problem(line, "ready_not_your_seat", game=game.slug, seat=command.seat, own=seat.name)
        return REFUSED
    if command.check_round is not None and command.check_round != game.ready_round:
        ctx.reply.problem(line, "ready_stale", game=game.slug)
        return REFUSED
    if not _open(ctx, game, seat, line):
        return REFUSED
    _confirm(ctx, game, seat, None)
    return DONE


@handles(c.MarkReady)
def mark_ready(ctx: CommandContext, command: c.MarkReady) -> Result:
    """A game master's override: the seat counts as confirmed; its player is told at once, the pipeline
    writes it to the game's log with its reason, and the game's next report announces it."""
    game = ctx.game
    line = f"READY {game.slug} FOR {command.seat}"
    seat = ctx.seat_named(game, command.seat, line)
    if seat is None:
        return REFUSED
    if not _open(ctx, game, seat, line):
        return REFUSED
    _confirm(ctx, game, seat, command.reason)
    data = {"game": game.slug, "seat": seat.name, "reason": command.reason}
    ctx.delivery.send(Outcome(ToPlayer(seat.player_id, seat.name), Message("ready_marked", data), NOTICE,
                              f"ready-marked:{ctx.envelope.source_id}:{seat.name}", game.id))  # fmt: skip
    return DONE
