"""Players' presence: asking the game to wait for the deadline, observing, declaring an absence."""

from __future__ import annotations

from zoneinfo import ZoneInfo

from sqlalchemy import select

from bot.core.basics.durations import TimeInputError
from bot.core.basics.engine_words import reason
from bot.core.commands.context import CommandContext
from bot.core.commands.registry import DONE, REFUSED, Result, handles
from bot.core.games.calendar_entry import deadline_entry
from bot.core.games.stored import FINISHED, phase_of
from bot.core.model import commands as c
from bot.core.model.outcomes import NOTICE, Message, Outcome, ToGameMasters, ToPlayer
from bot.core.people.identities import seat_of
from bot.core.turns import absences as absence
from bot.store.models import Absence as AbsenceRow
from bot.store.models import Observer


@handles(c.WaitForDeadline)
def wait(ctx: CommandContext, command: c.WaitForDeadline) -> Result:
    """njudge's SET WAIT: this turn is not processed early, whoever has ordered."""
    game, seat = ctx.granted.game, ctx.granted.seat
    assert game is not None and seat is not None
    phase = phase_of(game)
    if phase is None:
        ctx.reply.problem(f"WAIT {game.slug}", "wrong_status", game=game.slug, status=game.status)
        return REFUSED
    seat.wait_turn = phase.number if command.wait else None  # a planned early resolution waits for the deadline
    ctx.reply.add("waiting", game=game.slug, seat=seat.name, turn=phase.number, wait=command.wait)
    return DONE


@handles(c.Observe)
def observe(ctx: CommandContext, command: c.Observe) -> Result:
    line = f"OBSERVE {command.game}"
    game = ctx.game_named(command.game, line)
    if game is None:
        return REFUSED
    player = ctx.sender_player()
    row = ctx.session.get(Observer, (game.id, player.id))
    if command.stop:
        if row is not None:
            ctx.session.delete(row)
        ctx.reply.add("observing", game=game.slug, observing=False)
        return DONE
    if not game.observers_allowed:
        ctx.reply.problem(line, "closed_to_observers", game=game.slug)
        return REFUSED
    if game.status == FINISHED:
        ctx.reply.problem(line, "wrong_status", game=game.slug, status=game.status)
        return REFUSED
    if row is None and seat_of(game, player) is None:
        ctx.session.add(Observer(game_id=game.id, player_id=player.id))
    ctx.reply.add("observing", game=game.slug, observing=True)
    return DONE


@handles(c.DeclareAbsence)
def declare_absence(ctx: CommandContext, command: c.DeclareAbsence) -> Result:
    game, seat = ctx.granted.game, ctx.granted.seat
    assert game is not None and seat is not None
    line = f"ABSENT {game.slug} {command.first} {command.last}"
    zone = ZoneInfo(game.time_zone)
    try:
        wanted = absence.parse_absence(command.first, command.last)
    except TimeInputError as exc:
        ctx.reply.problem(line, "bad_time", reason=reason(exc))
        return REFUSED
    rows = ctx.session.scalars(
        select(AbsenceRow).where(AbsenceRow.game_id == game.id, AbsenceRow.seat_name == seat.name)
    ).all()
    earlier = [absence.Absence(r.first_day, r.last_day) for r in rows]
    phase = phase_of(game)
    owes = phase is not None and seat.name in phase.owing
    outcome = absence.declare_absence(
        wanted, earlier, today=ctx.now.astimezone(zone).date(), zone=zone,
        deadline=game.deadline_at if owes else None, limit_days=game.absence_limit_days,
    )  # fmt: skip
    if isinstance(outcome, absence.AbsenceRefused):
        ctx.reply.problem(line, "absence_refused", reason=outcome.reason)
        return REFUSED
    ctx.session.add(AbsenceRow(game_id=game.id, seat_name=seat.name, first_day=wanted.first_day,
                                last_day=wanted.last_day, declared_at=ctx.now))  # fmt: skip
    before = game.deadline_at
    if outcome.moved and outcome.deadline is not None:
        game.deadline_at = outcome.deadline
    data = {
        "game": game.slug, "seat": seat.name, "first": wanted.first_day.isoformat(),
        "last": wanted.last_day.isoformat(), "days_left": outcome.days_left, "moved": outcome.moved,
        "deadline": game.deadline_at.isoformat() if game.deadline_at else None,
        "before": before.isoformat() if before else None, "time_zone": game.time_zone,
    }  # fmt: skip
    ctx.reply.add("absent", **data)
    if outcome.moved:  # the others' calendars follow the moved deadline (deadline.ics)
        data["calendar"] = deadline_entry(game, ctx.config, ctx.now)
    key = f"absence:{ctx.envelope.source_id}"
    ctx.delivery.send(Outcome(ToGameMasters(game.id), Message("absence", data), NOTICE, key, game.id))
    for other in game.seats:
        if other is not seat:
            ctx.delivery.send(Outcome(ToPlayer(other.player_id, other.name), Message("absence", data), NOTICE,
                                       key, game.id))  # fmt: skip
    return DONE
