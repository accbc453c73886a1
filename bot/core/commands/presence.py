"""Players' presence: asking the game to wait for the deadline, observing, declaring an absence."""

from __future__ import annotations

from zoneinfo import ZoneInfo

from sqlalchemy import select

from bot.core.basics.durations import TimeInputError
from bot.core.commands.context import Authorised, CommandContext
from bot.core.games.stored import FINISHED, phase_of
from bot.core.model import commands as c
from bot.core.model.outcomes import NOTICE, Message, Outcome, ToGameMasters, ToPlayer
from bot.core.people.identities import find_or_create_player, seat_of
from bot.core.turns import absences as absence
from bot.store.models import Absence as AbsenceRow
from bot.store.models import Observer


class PresenceCommands(CommandContext):
    """SET WAIT, OBSERVE, ABSENT."""

    def wait(self, command: c.WaitForDeadline, granted: Authorised) -> None:
        """njudge's SET WAIT: this turn is not processed early, whoever has ordered."""
        game, seat = granted.game, granted.seat
        assert game is not None and seat is not None
        phase = phase_of(game)
        if phase is None:
            self.reply.problem(f"WAIT {game.slug}", "wrong_status", game=game.slug, status=game.status)
            return
        seat.wait_turn = phase.number if command.wait else None
        if command.wait and game.resolve_at is not None and game.turn_failures == 0:
            game.resolve_at = None  # an early resolution already planned waits for the deadline now
        self.reply.add("waiting", game=game.slug, seat=seat.name, turn=phase.number, wait=command.wait)

    def observe(self, command: c.Observe) -> None:
        line = f"OBSERVE {command.game}"
        game = self.game_named(command.game, line)
        if game is None:
            return
        player = find_or_create_player(self.session, self.envelope.sender, self.now)
        row = self.session.get(Observer, (game.id, player.id))
        if command.stop:
            if row is not None:
                self.session.delete(row)
            self.reply.add("observing", game=game.slug, observing=False)
            return
        if not game.observers_allowed:
            self.reply.problem(line, "closed_to_observers", game=game.slug)
            return
        if game.status == FINISHED:
            self.reply.problem(line, "wrong_status", game=game.slug, status=game.status)
            return
        if row is None and seat_of(game, player) is None:
            self.session.add(Observer(game_id=game.id, player_id=player.id))
        self.reply.add("observing", game=game.slug, observing=True)

    def declare_absence(self, command: c.DeclareAbsence, granted: Authorised) -> None:
        game, seat = granted.game, granted.seat
        assert game is not None and seat is not None
        line = f"ABSENT {game.slug} {command.first} {command.last}"
        zone = ZoneInfo(game.time_zone)
        try:
            wanted = absence.parse_absence(command.first, command.last)
        except TimeInputError as exc:
            self.reply.problem(line, "bad_time", reason=str(exc))
            return
        rows = self.session.scalars(
            select(AbsenceRow).where(AbsenceRow.game_id == game.id, AbsenceRow.seat_name == seat.name)
        ).all()
        earlier = [absence.Absence(r.first_day, r.last_day) for r in rows]
        phase = phase_of(game)
        owes = phase is not None and seat.name in phase.owing
        outcome = absence.declare_absence(
            wanted, earlier, today=self.now.astimezone(zone).date(), zone=zone,
            deadline=game.deadline_at if owes else None, limit_days=game.absence_limit_days,
        )  # fmt: skip
        if isinstance(outcome, absence.AbsenceRefused):
            self.reply.problem(line, "absence_refused", reason=outcome.reason)
            return
        self.session.add(AbsenceRow(game_id=game.id, seat_name=seat.name, first_day=wanted.first_day,
                                    last_day=wanted.last_day, declared_at=self.now))  # fmt: skip
        before = game.deadline_at
        if outcome.moved and outcome.deadline is not None:
            game.deadline_at = outcome.deadline
        data = {
            "game": game.slug, "seat": seat.name, "first": wanted.first_day.isoformat(),
            "last": wanted.last_day.isoformat(), "days_left": outcome.days_left, "moved": outcome.moved,
            "deadline": game.deadline_at.isoformat() if game.deadline_at else None,
            "before": before.isoformat() if before else None, "time_zone": game.time_zone,
        }  # fmt: skip
        self.reply.add("absent", **data)
        key = f"absence:{self.envelope.source_id}"
        self.delivery.send(Outcome(ToGameMasters(game.id), Message("absence", data), NOTICE, key, game.id))
        for other in game.seats:
            if other is not seat:
                self.delivery.send(Outcome(ToPlayer(other.player_id, other.name), Message("absence", data), NOTICE,
                                           key, game.id))  # fmt: skip
