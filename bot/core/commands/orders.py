"""Submitting orders: parsing with the game, last set wins.

The pipeline has already authenticated the seat (:mod:`bot.core.commands.pipeline`).
Orders are stored as the raw text and the game's canonical form; the reply
echoes the canonical form, its commitment (the report that uses the orders
publishes the same), the game's notes and every line it could not read.
Whether the orders completed the turn, and what follows, is not this
handler's: the pipeline applies the one rule after every command that
changed a game (:mod:`bot.core.commands.turn_completion`).
"""

from __future__ import annotations

from bot.core.commands.context import Authorised, CommandContext
from bot.core.commands.linking import copy_to_other_channels
from bot.core.commands.registry import REFUSED, SHOWN, Result, handles
from bot.core.games.filed_orders import commitment_of, file_orders
from bot.core.games.stored import (
    PAUSED,
    RUNNING,
    current_orders,
    phase_opened_at,
    rules_of,
    state_for_reading,
)
from bot.core.model import commands as c
from bot.core.model.outcomes import NOTICE, Message, Outcome, ToPlayer


def opened_before(arrived_at_second: int, opened_at_second: int) -> bool:
    """Whether orders that arrived at ``arrived`` were sent before a turn that opened at ``opened``.

    Both are compared in whole seconds: a mail server stamps arrival times in
    whole seconds while a turn opens at any fraction of one, so an arrival in
    the same second as the opening cannot be placed before or after it.  It is
    decided in the player's favour: only an arrival in an earlier second is
    "before the turn began".
    """
    return arrived_at_second < opened_at_second


@handles(c.SubmitOrders)
def submit(ctx: CommandContext, command: c.SubmitOrders) -> Result:
    """File the orders (or say why not): done when they were accepted, even with some lines refused (then
    the player is told so in the same reply; the owner of a seat opened from elsewhere hears it was done)."""
    accepted = _submit(ctx, command, ctx.granted)
    return Result(accepted, accepted)


def _submit(ctx: CommandContext, command: c.SubmitOrders, granted: Authorised) -> bool:
    game, seat = granted.game, granted.seat
    assert game is not None and seat is not None  # Permission.SEAT
    line = f"ORDERS {game.slug}"
    if game.status not in (RUNNING, PAUSED):
        ctx.reply.problem(line, "takes_no_orders", game=game.slug, status=game.status)
        return False
    in_grace = game.grace_until is not None and ctx.now <= game.grace_until
    if game.deadline_at is not None and ctx.now > game.deadline_at and not in_grace:
        ctx.reply.problem(line, "too_late", game=game.slug, deadline=game.deadline_at.isoformat(),
                           time_zone=game.time_zone)  # fmt: skip
        return False
    rules = rules_of(game)
    state = state_for_reading(game)  # only read here; resolving loads its own copy
    phase = rules.phase(state)
    opened = phase_opened_at(ctx.session, game, phase.number) if phase is not None else None
    if phase is not None and opened is not None and opened_before(int(ctx.now.timestamp()), int(opened.timestamp())):
        ctx.reply.problem(line, "before_turn", game=game.slug, turn=phase.number, opened=opened.isoformat(),
                           time_zone=game.time_zone)  # fmt: skip
        return False
    if phase is None or seat.name not in phase.owing:
        ctx.reply.problem(
            line, "owes_nothing", game=game.slug, seat=seat.name, phase=phase.title if phase else None,
            owing=list(phase.owing) if phase else [],
        )  # fmt: skip
        return False
    if game.orders_kept_turn == phase.number:  # rolled back with the same draw: bot.core.turns.draws
        ctx.reply.problem(line, "orders_kept", game=game.slug, turn=phase.number)
        return False
    parsed = rules.parse_orders(state, seat.name, command.text)
    for error in parsed.errors:
        ctx.reply.problem(error.line or line, "order_error", message=error.message)
    on_file = current_orders(ctx.session, game, phase.number)
    kept = on_file.get(seat.name)
    if parsed.orders is None:
        ctx.reply.add("orders_refused", game=game.slug, phase=phase.title,
                       kept=kept.canonical_text if kept else None)  # fmt: skip
        return False
    file_orders(ctx.session, game.id, phase.number, seat.name, command.text, parsed.canonical,
                ctx.envelope.source_id, ctx.now, on_file)  # fmt: skip
    accepted = {
        "game": game.slug, "phase": phase.title, "turn": phase.number, "seat": seat.name,
        "orders": parsed.canonical.splitlines(), "notes": list(parsed.notes),
        "deadline": game.deadline_at.isoformat() if game.deadline_at else None, "time_zone": game.time_zone,
        "commitment": commitment_of(game, phase.number, seat.name, parsed.canonical),
    }  # fmt: skip
    ctx.reply.add("orders_accepted", **accepted)
    copy = {**accepted, "receipt": ctx.reply.receipt, "from_channel": ctx.envelope.sender.channel}
    copy_to_other_channels(ctx, seat.player, Message("orders_copy", copy), f"copy:{ctx.envelope.source_id}",
                           game.id)  # fmt: skip
    return True


@handles(c.ShowFiledOrders)
def show_filed(ctx: CommandContext, command: c.ShowFiledOrders) -> Result:
    """What the seat has on file for the open turn (the set that counts: the last one sent) and its
    commitment, the same the confirmation showed and the turn's report will publish; or that it has
    none (then the no-moves-received rule applies unless some arrive)."""
    game, seat = ctx.granted.game, ctx.granted.seat
    assert game is not None and seat is not None  # Permission.SEAT
    line = f"ORDERS? {game.slug}"
    if game.status not in (RUNNING, PAUSED):
        ctx.reply.problem(line, "takes_no_orders", game=game.slug, status=game.status)
        return REFUSED
    phase = rules_of(game).phase(state_for_reading(game))
    if phase is None or seat.name not in phase.owing:
        ctx.reply.problem(
            line, "owes_nothing", game=game.slug, seat=seat.name, phase=phase.title if phase else None,
            owing=list(phase.owing) if phase else [],
        )  # fmt: skip
        return REFUSED
    filed = current_orders(ctx.session, game, phase.number).get(seat.name)
    ctx.reply.add(
        "orders_on_file", game=game.slug, phase=phase.title, turn=phase.number, seat=seat.name,
        orders=filed.canonical_text.splitlines() if filed else None,
        commitment=commitment_of(game, phase.number, seat.name, filed.canonical_text) if filed else None,
        deadline=game.deadline_at.isoformat() if game.deadline_at else None, time_zone=game.time_zone,
    )  # fmt: skip
    return SHOWN


def tell_owner(ctx: CommandContext, granted: Authorised, line: str, done: bool) -> None:
    """A seat's password came from an address that is not its player's: the player is told what it did.

    ``line`` names the command (``ORDERS gs1``); ``done``: whether it was
    carried out (orders accepted) or refused.
    """
    game, seat = granted.game, granted.seat
    assert game is not None and seat is not None
    ctx.delivery.send(
        Outcome(
            ToPlayer(seat.player_id, seat.name),
            Message("orders_elsewhere", {"game": game.slug, "seat": seat.name, "command": line, "done": done,
                                         "sender": ctx.envelope.sender.address, "receipt": ctx.reply.receipt}),
            NOTICE, f"notice:{ctx.envelope.source_id}:{seat.name}", game.id,
        )
    )  # fmt: skip
