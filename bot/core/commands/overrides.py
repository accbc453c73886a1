"""Game masters' overrides of a running game: deadline, pause and resume, process, preview, orders for a seat,
replace, eject, rollback.

Each runs inside the envelope's transaction after the pipeline has checked
that the sender is a game master of the game (or the host) and before it
writes the audit entry (:mod:`bot.core.commands.pipeline`).  Each says what it did in
the reply, tells the affected player at once, and is announced to everyone
in the game's next report (their declarations' ``announced``).

Guards against repeats: ``ProcessNow`` names the turn it is meant for and is
refused once that turn is resolved, so a duplicated mail or a double click
can never process two turns; ``RollBack`` names the turn it goes back to.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from bot.core.basics.durations import CURRENT_DEADLINE, NOW, TimeInputError, parse_moment
from bot.core.basics.engine_words import reason
from bot.core.commands.context import CommandContext
from bot.core.commands.registry import DONE, REFUSED, SHOWN, Result, handles
from bot.core.games.calendar_entry import deadline_entry
from bot.core.games.filed_orders import commitment_of, file_orders
from bot.core.games.stored import PAUSED, RUNNING, current_orders, phase_of, rules_of, seed_revealed, state_of
from bot.core.model import commands as c
from bot.core.model.outcomes import NOTICE, Message, Outcome, ToPlayer
from bot.core.people.identities import find_or_create_player, find_player, seat_of
from bot.core.people.reliability import EJECTED, leave_seat
from bot.core.turns.draws import resolve_drawn
from bot.core.turns.generations import live_records, roll_back
from bot.core.turns.resolution import announced_action, next_deadline, resolve_current_turn
from bot.core.turns.substitutes import hand_over
from bot.store.models import Game, Seat


def _moment(ctx: CommandContext, game: Game, text: str, line: str, base: datetime | None = None) -> datetime | None:
    """``text`` as a moment, or None after a refusal.

    The rule, the same wherever a GM gives a time: an ISO time is in the game's zone; ``+2d3h``
    moves the current deadline (DEADLINE, EXTEND, REPLACE ... EXTEND), and counts from now where
    the deadline no longer holds (``base``: PAUSE UNTIL, RESUME, ROLLBACK) or there is none.
    """
    counted_from = NOW if base is not None or game.deadline_at is None else CURRENT_DEADLINE
    try:
        moment = parse_moment(text, ZoneInfo(game.time_zone), base or game.deadline_at or ctx.now, counted_from)
    except TimeInputError as exc:
        ctx.reply.problem(line, "bad_time", reason=reason(exc))
        return None
    if moment <= ctx.now:
        ctx.reply.problem(line, "time_in_past", when=moment.isoformat(), time_zone=game.time_zone)
        return None
    return moment


def _running(ctx: CommandContext, game: Game, line: str, *statuses: str) -> bool:
    if game.status in (statuses or (RUNNING,)):
        return True
    ctx.reply.problem(line, "wrong_status", game=game.slug, status=game.status)
    return False


def _tell(ctx: CommandContext, seat: Seat, template: str, data: dict[str, Any]) -> None:
    key = f"{template}:{ctx.envelope.source_id}:{seat.name}"
    ctx.delivery.send(Outcome(ToPlayer(seat.player_id, seat.name), Message(template, data), NOTICE, key,
                               seat.game_id))  # fmt: skip


def _shift(written: str | None) -> str | None:
    """The shift a time was written as (``+2d``), for the reply to repeat; None for a moment."""
    text = (written or "").strip()
    return text if text.startswith("+") else None


def _tell_all(ctx: CommandContext, game: Game, template: str, data: dict[str, Any]) -> None:
    for seat in game.seats:
        _tell(ctx, seat, template, data)


def _with_entry(ctx: CommandContext, game: Game, data: dict[str, Any]) -> dict[str, Any]:
    """``data`` and the calendar entry of the game's deadline as it is now (a mail carries it as
    ``deadline.ics``: :mod:`bot.core.games.calendar_entry`)."""
    return {**data, "calendar": deadline_entry(game, ctx.config, ctx.now)}


@handles(c.SetDeadline)
def set_deadline(ctx: CommandContext, command: c.SetDeadline) -> Result:
    game = ctx.game
    line = f"DEADLINE {game.slug}"
    if not _running(ctx, game, line):
        return REFUSED
    moment = _moment(ctx, game, command.when, line)
    if moment is None:
        return REFUSED
    before = game.deadline_at
    game.deadline_at = moment
    game.grace_until = None
    data = {"game": game.slug, "deadline": moment.isoformat(), "before": before.isoformat() if before else None,
            "time_zone": game.time_zone, "reason": command.reason}  # fmt: skip
    ctx.reply.add("deadline_set", **data, shift=_shift(command.when))
    _tell_all(ctx, game, "deadline_moved", _with_entry(ctx, game, data))
    return DONE


@handles(c.PauseGame)
def pause(ctx: CommandContext, command: c.PauseGame) -> Result:
    game = ctx.game
    line = f"PAUSE {game.slug}"
    if not _running(ctx, game, line):
        return REFUSED
    until = None
    if command.until:
        until = _moment(ctx, game, command.until, line, base=ctx.now)
        if until is None:
            return REFUSED
    game.status = PAUSED
    game.paused_until = until
    game.resolve_at = None
    data = {"game": game.slug, "until": until.isoformat() if until else None, "time_zone": game.time_zone,
            "reason": command.reason}  # fmt: skip
    ctx.reply.add("paused", **data)
    _tell_all(ctx, game, "paused", _with_entry(ctx, game, data))
    return DONE


@handles(c.ResumeGame)
def resume(ctx: CommandContext, command: c.ResumeGame) -> Result:
    game = ctx.game
    line = f"RESUME {game.slug}"
    if not _running(ctx, game, line, PAUSED):
        return REFUSED
    if command.deadline:
        deadline = _moment(ctx, game, command.deadline, line, base=ctx.now)
        if deadline is None:
            return REFUSED
    else:
        deadline = resume_deadline(ctx, game)
    resume_game(game, deadline)
    data = {"game": game.slug, "deadline": deadline.isoformat(), "time_zone": game.time_zone,
            "reason": command.reason}  # fmt: skip
    ctx.reply.add("resumed", **data, shift=_shift(command.deadline))
    _tell_all(ctx, game, "resumed", _with_entry(ctx, game, data))
    return DONE


@handles(c.ProcessNow)
def process(ctx: CommandContext, command: c.ProcessNow) -> Result:
    game = ctx.game
    line = f"PROCESS {game.slug} TURN {command.turn}"
    if not _running(ctx, game, line, RUNNING, PAUSED):
        return REFUSED
    phase = phase_of(game)
    if phase is None or phase.number != command.turn:
        ctx.reply.problem(line, "not_the_open_turn", game=game.slug, turn=command.turn,
                           open=phase.number if phase else None)  # fmt: skip
        return REFUSED
    game.status = RUNNING
    early = announced_action(type(command).__name__, command.reason, ctx.now, {"turn": phase.number}, game.time_zone)
    record = resolve_current_turn(ctx.session, game, ctx.now, ctx.config, ctx.delivery, announce=[early])
    ctx.reply.add("processed", game=game.slug, turn=record.turn_number, reason=command.reason)
    return DONE


@handles(c.PreviewTurn)
def preview(ctx: CommandContext, command: c.PreviewTurn) -> Result:
    """Resolve the open turn on a copy of the state: nothing is stored, nobody else hears of it.

    Refused to a game master who holds a seat of the game: the preview is the turn's outcome, with what
    it draws and the other seats' orders, which a player may not know before the deadline."""
    game = ctx.game
    line = f"PREVIEW {game.slug}"
    phase = phase_of(game)
    if phase is None:
        ctx.reply.problem(line, "wrong_status", game=game.slug, status=game.status)
        return REFUSED
    asking = find_player(ctx.session, ctx.envelope.sender)
    own = seat_of(game, asking) if asking is not None else None
    if own is not None:
        ctx.reply.problem(line, "preview_seated", game=game.slug, seat=own.name)
        return REFUSED
    rules = rules_of(game)
    state = state_of(game)
    orders: dict[str, Any] = {}
    for seat, row in current_orders(ctx.session, game, phase.number).items():
        parsed = rules.parse_orders(state, seat, row.canonical_text)
        if seat in phase.owing and parsed.orders is not None:
            orders[seat] = parsed.orders
    result = resolve_drawn(rules, game, state, orders)
    ctx.reply.add(
        "preview", game=game.slug, kind=game.kind, turn=phase.number, phase=phase.title, report=dict(result.report),
        events=[e.text for e in result.events], seat=None, private=None, missing=list(result.defaulted),
    )  # fmt: skip
    return SHOWN


@handles(c.EnterOrders)
def enter_orders(ctx: CommandContext, command: c.EnterOrders) -> Result:
    game = ctx.game
    line = f"ORDERS {game.slug} FOR {command.seat}"
    if not _running(ctx, game, line, RUNNING, PAUSED):
        return REFUSED
    seat = ctx.seat_named(game, command.seat, line)
    phase = phase_of(game)
    if seat is None or phase is None:
        return REFUSED
    if seat.name not in phase.owing:
        ctx.reply.problem(line, "owes_nothing", game=game.slug, seat=seat.name, phase=phase.title,
                           owing=list(phase.owing))  # fmt: skip
        return REFUSED
    rules = rules_of(game)
    parsed = rules.parse_orders(state_of(game), seat.name, command.text)
    for error in parsed.errors:
        ctx.reply.problem(error.line or line, "order_error", message=error.message)
    if parsed.orders is None:
        kept = current_orders(ctx.session, game, phase.number).get(seat.name)
        ctx.reply.add("orders_refused", game=game.slug, phase=phase.title, for_seat=seat.name,
                       kept=kept.canonical_text if kept else None)  # fmt: skip
        return REFUSED
    file_orders(ctx.session, game.id, phase.number, seat.name, command.text, parsed.canonical,
                ctx.envelope.source_id, ctx.now)  # fmt: skip
    data = {"game": game.slug, "seat": seat.name, "turn": phase.number, "orders": parsed.canonical.splitlines(),
            "reason": command.reason,
            "commitment": commitment_of(game, phase.number, seat.name, parsed.canonical)}  # fmt: skip
    ctx.reply.add("orders_entered", **data)
    _tell(ctx, seat, "orders_entered", data)
    return DONE if not parsed.errors else Result(False, True)  # a line refused: not audited, as ever


@handles(c.ReplacePlayer)
def replace(ctx: CommandContext, command: c.ReplacePlayer) -> Result:
    """Give a seat to the person the game master names: the game master's own choice, so the admission rule
    for strangers (the invite list, the minimum reliability: :mod:`bot.core.people.admission`) does not
    apply; a player who holds another seat of the game is refused, as everywhere."""
    game = ctx.game
    line = f"REPLACE {game.slug} {command.seat}"
    seat = ctx.seat_named(game, command.seat, line)
    if seat is None or not _running(ctx, game, line, RUNNING, PAUSED, "forming"):
        return REFUSED
    newcomer = find_or_create_player(ctx.session, c.Sender(command.channel, command.address.strip()), ctx.now)
    other = seat_of(game, newcomer)
    if other is not None and other is not seat:
        ctx.reply.problem(line, "already_seated", game=game.slug, seat=other.name)
        return REFUSED
    deadline = None
    if command.extend:
        deadline = _moment(ctx, game, command.extend, line)
        if deadline is None:
            return REFUSED
    before = game.deadline_at
    if deadline is not None:
        game.deadline_at = deadline
    given = hand_over(ctx.session, game, seat, newcomer, ctx.now, ctx.config, reason=command.reason, how="replace",
                      key=ctx.envelope.source_id)  # fmt: skip
    ctx.delivery.send_all(given.outcomes)
    if deadline is not None:  # the other seats still believe the old deadline: tell them the new one
        moved = {"game": game.slug, "deadline": deadline.isoformat(), "before": before.isoformat() if before
                 else None, "time_zone": game.time_zone, "reason": command.reason}  # fmt: skip
        moved = _with_entry(ctx, game, moved)
        for other_seat in game.seats:
            if other_seat is not seat and not other_seat.resigned:
                _tell(ctx, other_seat, "deadline_moved", moved)
    ctx.reply.add("replaced", game=game.slug, seat=seat.name, address=command.address,
                   deadline=game.deadline_at.isoformat() if game.deadline_at else None, time_zone=game.time_zone)  # fmt: skip
    return DONE


@handles(c.EjectPlayer)
def eject(ctx: CommandContext, command: c.EjectPlayer) -> Result:
    game = ctx.game
    line = f"EJECT {game.slug} {command.seat}"
    seat = ctx.seat_named(game, command.seat, line)
    if seat is None or not _running(ctx, game, line, RUNNING, PAUSED):
        return REFUSED
    if not seat.resigned:
        leave_seat(ctx.session, game, seat.name, ctx.now, EJECTED)
    seat.resigned = True
    _tell(ctx, seat, "ejected", {"game": game.slug, "seat": seat.name, "reason": command.reason})
    ctx.reply.add("ejected", game=game.slug, seat=seat.name, reason=command.reason)
    return DONE


@handles(c.RollBack)
def rollback(ctx: CommandContext, command: c.RollBack) -> Result:
    game = ctx.game
    line = f"ROLLBACK {game.slug} TO {command.to_turn}"
    if seed_revealed(game):  # its final report or END gave every player the seed: never played on
        ctx.reply.problem(line, "seed_revealed", game=game.slug, status=game.status)
        return REFUSED
    if not _running(ctx, game, line, RUNNING, PAUSED):
        return REFUSED
    resolved = [r.turn_number for r in live_records(ctx.session, game)]
    if command.to_turn not in resolved:
        ctx.reply.problem(line, "not_resolved", game=game.slug, turn=command.to_turn, resolved=resolved)
        return REFUSED
    if command.deadline:
        deadline = _moment(ctx, game, command.deadline, line, base=ctx.now)
        if deadline is None:
            return REFUSED
    else:
        target = next(r for r in live_records(ctx.session, game) if r.turn_number == command.to_turn)
        rules = rules_of(game)
        phase = rules.phase(rules.load_state(target.state_before))
        assert phase is not None
        deadline = next_deadline(ctx.session, game, phase, ctx.now)
    roll_back(ctx.session, game, command.to_turn, deadline, same_draw=command.same_draw)
    on_file = {s: row.canonical_text for s, row in current_orders(ctx.session, game, command.to_turn).items()}
    data = {"game": game.slug, "turn": command.to_turn, "deadline": deadline.isoformat(),
            "time_zone": game.time_zone, "reason": command.reason, "same_draw": command.same_draw}  # fmt: skip
    ctx.reply.add("rolled_back", **data, orders=on_file)
    _tell_all(ctx, game, "rolled_back", _with_entry(ctx, game, data))
    return DONE


def resume_deadline(ctx: CommandContext, game: Game) -> datetime:
    """The deadline a resumed game gets by default: its schedule from now."""
    phase = rules_of(game).phase(state_of(game)) if game.state is not None else None
    assert phase is not None
    return next_deadline(ctx.session, game, phase, ctx.now)


def resume_game(game: Game, deadline: datetime) -> None:
    game.status = RUNNING
    game.paused_until = None
    game.deadline_at = deadline
    game.grace_until = None
