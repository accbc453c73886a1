"""Game masters' overrides of a running game: deadline, pause and resume, process, preview, orders for a seat,
replace, eject, rollback.

Each runs inside the envelope's transaction after the pipeline has checked
that the sender is a game master of the game (or the host) and before it
writes the audit entry (:mod:`bot.core.commands.pipeline`).  Each says what it did in
the reply, tells the affected player at once, and is announced to everyone
in the game's next report (:data:`bot.core.turns.resolution.ANNOUNCED`).

Guards against repeats: ``ProcessNow`` names the turn it is meant for and is
refused once that turn is resolved, so a duplicated mail or a double click
can never process two turns; ``RollBack`` names the turn it goes back to.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from adjudicator.rng import rng_for
from adjudicator.turn import advance
from bot.core.basics.durations import TimeInputError, parse_moment
from bot.core.commands.context import Authorised, CommandContext
from bot.core.games.filed_orders import file_orders
from bot.core.games.stored import FINISHED, PAUSED, RUNNING, current_orders, phase_of, rules_of, state_of
from bot.core.model import commands as c
from bot.core.model.outcomes import NOTICE, Message, Outcome, ToPlayer
from bot.core.model.secret_values import Secret
from bot.core.people.identities import find_or_create_player, seat_of
from bot.core.people.seat_secrets import hash_secret, new_secret
from bot.core.turns.generations import live_records, roll_back
from bot.core.turns.resolution import announced_action, next_deadline, resolve_current_turn
from bot.store.models import Game, Seat


class Overrides(CommandContext):
    """The GM's overrides; see the module docstring."""

    def _moment(self, game: Game, text: str, line: str, base: datetime | None = None) -> datetime | None:
        """``text`` as a moment, or None after a refusal.

        The rule, the same wherever a GM gives a time: an ISO time is in the game's zone; ``+2d3h``
        moves the current deadline (DEADLINE, EXTEND, REPLACE ... EXTEND), and counts from now where
        the deadline no longer holds (``base``: PAUSE UNTIL, RESUME, ROLLBACK) or there is none.
        """
        counted_from = "now" if base is not None or game.deadline_at is None else "the current deadline"
        try:
            moment = parse_moment(text, ZoneInfo(game.time_zone), base or game.deadline_at or self.now, counted_from)
        except TimeInputError as exc:
            self.reply.problem(line, "bad_time", reason=str(exc))
            return None
        if moment <= self.now:
            self.reply.problem(line, "time_in_past", when=moment.isoformat(), time_zone=game.time_zone)
            return None
        return moment

    def _running(self, game: Game, line: str, *statuses: str) -> bool:
        if game.status in (statuses or (RUNNING,)):
            return True
        self.reply.problem(line, "wrong_status", game=game.slug, status=game.status)
        return False

    def _seat(self, game: Game, name: str, line: str) -> Seat | None:
        seat = next((s for s in game.seats if s.name.lower() == name.strip().lower()), None)
        if seat is None:
            self.reply.problem(line, "no_such_seat", game=game.slug, seat=name, seats=[s.name for s in game.seats])
        return seat

    def _tell(self, seat: Seat, template: str, data: dict[str, Any]) -> None:
        key = f"{template}:{self.envelope.source_id}:{seat.name}"
        self.delivery.send(Outcome(ToPlayer(seat.player_id, seat.name), Message(template, data), NOTICE, key,
                                   seat.game_id))  # fmt: skip

    def _tell_all(self, game: Game, template: str, data: dict[str, Any]) -> None:
        for seat in game.seats:
            self._tell(seat, template, data)

    def set_deadline(self, command: c.SetDeadline, granted: Authorised) -> None:
        game = granted.game
        assert game is not None
        line = f"DEADLINE {game.slug}"
        if not self._running(game, line):
            return
        moment = self._moment(game, command.when, line)
        if moment is None:
            return
        before = game.deadline_at
        game.deadline_at = moment
        game.grace_until = None
        data = {"game": game.slug, "deadline": moment.isoformat(), "before": before.isoformat() if before else None,
                "time_zone": game.time_zone, "reason": command.reason}  # fmt: skip
        shift = command.when.strip() if command.when.strip().startswith("+") else None
        self.reply.add("deadline_set", **data, shift=shift)
        self._tell_all(game, "deadline_moved", data)

    def pause(self, command: c.PauseGame, granted: Authorised) -> None:
        game = granted.game
        assert game is not None
        line = f"PAUSE {game.slug}"
        if not self._running(game, line):
            return
        until = None
        if command.until:
            until = self._moment(game, command.until, line, base=self.now)
            if until is None:
                return
        game.status = PAUSED
        game.paused_until = until
        game.resolve_at = None
        data = {"game": game.slug, "until": until.isoformat() if until else None, "time_zone": game.time_zone,
                "reason": command.reason}  # fmt: skip
        self.reply.add("paused", **data)
        self._tell_all(game, "paused", data)

    def resume(self, command: c.ResumeGame, granted: Authorised) -> None:
        game = granted.game
        assert game is not None
        line = f"RESUME {game.slug}"
        if not self._running(game, line, PAUSED):
            return
        if command.deadline:
            deadline = self._moment(game, command.deadline, line, base=self.now)
            if deadline is None:
                return
        else:
            deadline = resume_deadline(self, game)
        resume_game(game, deadline)
        data = {"game": game.slug, "deadline": deadline.isoformat(), "time_zone": game.time_zone,
                "reason": command.reason}  # fmt: skip
        shift = command.deadline.strip() if command.deadline and command.deadline.strip().startswith("+") else None
        self.reply.add("resumed", **data, shift=shift)
        self._tell_all(game, "resumed", data)

    def process(self, command: c.ProcessNow, granted: Authorised) -> None:
        game = granted.game
        assert game is not None
        line = f"PROCESS {game.slug} TURN {command.turn}"
        if not self._running(game, line, RUNNING, PAUSED):
            return
        phase = phase_of(game)
        if phase is None or phase.number != command.turn:
            self.reply.problem(line, "not_the_open_turn", game=game.slug, turn=command.turn,
                               open=phase.number if phase else None)  # fmt: skip
            return
        game.status = RUNNING
        early = announced_action("ProcessNow", command.reason, self.now, self.envelope.sender.address,
                                 {"turn": phase.number}, game.time_zone)  # fmt: skip
        record = resolve_current_turn(self.session, game, self.now, self.config, self.delivery, announce=[early])
        self.reply.add("processed", game=game.slug, turn=record.turn_number, reason=command.reason)

    def preview(self, command: c.PreviewTurn, granted: Authorised) -> None:
        """Resolve the open turn on a copy of the state: nothing is stored, nobody else hears of it."""
        game = granted.game
        assert game is not None
        line = f"PREVIEW {game.slug}"
        phase = phase_of(game)
        if phase is None:
            self.reply.problem(line, "wrong_status", game=game.slug, status=game.status)
            return
        rules = rules_of(game)
        state = state_of(game)
        orders: dict[str, Any] = {}
        for seat, row in current_orders(self.session, game, phase.number).items():
            parsed = rules.parse_orders(state, seat, row.canonical_text)
            if seat in phase.owing and parsed.orders is not None:
                orders[seat] = parsed.orders
        result = advance(rules, state, orders, rng_for(game.seed, phase.number))
        self.reply.add(
            "preview", game=game.slug, kind=game.kind, turn=phase.number, phase=phase.title, report=dict(result.report),
            events=[e.text for e in result.events], seat=None, private=None, missing=list(result.defaulted),
        )  # fmt: skip

    def enter_orders(self, command: c.EnterOrders, granted: Authorised) -> None:
        game = granted.game
        assert game is not None
        line = f"ORDERS {game.slug} FOR {command.seat}"
        if not self._running(game, line, RUNNING, PAUSED):
            return
        seat = self._seat(game, command.seat, line)
        phase = phase_of(game)
        if seat is None or phase is None:
            return
        if seat.name not in phase.owing:
            self.reply.problem(line, "owes_nothing", game=game.slug, seat=seat.name, phase=phase.title,
                               owing=list(phase.owing))  # fmt: skip
            return
        rules = rules_of(game)
        parsed = rules.parse_orders(state_of(game), seat.name, command.text)
        for error in parsed.errors:
            self.reply.problem(error.line or line, "order_error", message=error.message)
        if parsed.orders is None:
            kept = current_orders(self.session, game, phase.number).get(seat.name)
            self.reply.add("orders_refused", game=game.slug, phase=phase.title, for_seat=seat.name,
                           kept=kept.canonical_text if kept else None)  # fmt: skip
            return
        file_orders(self.session, game.id, phase.number, seat.name, command.text, parsed.canonical,
                    self.envelope.source_id, self.now)  # fmt: skip
        data = {"game": game.slug, "seat": seat.name, "turn": phase.number, "orders": parsed.canonical.splitlines(),
                "reason": command.reason}  # fmt: skip
        self.reply.add("orders_entered", **data)
        self._tell(seat, "orders_entered", data)

    def replace(self, command: c.ReplacePlayer, granted: Authorised) -> None:
        game = granted.game
        assert game is not None
        line = f"REPLACE {game.slug} {command.seat}"
        seat = self._seat(game, command.seat, line)
        if seat is None or not self._running(game, line, RUNNING, PAUSED, "forming"):
            return
        newcomer = find_or_create_player(self.session, c.Sender(command.channel, command.address.strip()), self.now)
        other = seat_of(game, newcomer)
        if other is not None and other is not seat:
            self.reply.problem(line, "already_seated", game=game.slug, seat=other.name)
            return
        deadline = None
        if command.extend:
            deadline = self._moment(game, command.extend, line)
            if deadline is None:
                return
        old = seat.player_id
        before = game.deadline_at
        secret = new_secret()
        seat.player_id = newcomer.id
        seat.player = (
            newcomer  # the loaded relationship too: a batch's session goes on using it (bot.core.basics.batch)
        )
        seat.secret_hash = hash_secret(secret, self.config.secret_key)
        seat.resigned = False
        if deadline is not None:
            game.deadline_at = deadline
        self.session.flush()
        records = live_records(self.session, game)
        last = records[-1] if records else None
        self._tell(seat, "seat_given", {
            "game": game.slug, "seat": seat.name, "secret": Secret(secret), "auth": game.auth_mode, "kind": game.kind,
            "turn": last.turn_number if last else None, "report": last.report if last else None,
            "events": [e["text"] for e in last.events] if last else [],
            "private": last.private.get(seat.name) if last else None,
            "deadline": game.deadline_at.isoformat() if game.deadline_at else None, "time_zone": game.time_zone,
            "reason": command.reason,
        })  # fmt: skip
        self.delivery.send(Outcome(ToPlayer(old), Message("seat_taken", {"game": game.slug, "seat": seat.name,
                                   "reason": command.reason}), NOTICE, f"taken:{self.envelope.source_id}", game.id))  # fmt: skip
        if deadline is not None:  # the other seats still believe the old deadline: tell them the new one
            moved = {"game": game.slug, "deadline": deadline.isoformat(), "before": before.isoformat() if before
                     else None, "time_zone": game.time_zone, "reason": command.reason}  # fmt: skip
            for other_seat in game.seats:
                if other_seat is not seat and not other_seat.resigned:
                    self._tell(other_seat, "deadline_moved", moved)
        self.reply.add("replaced", game=game.slug, seat=seat.name, address=command.address,
                       deadline=game.deadline_at.isoformat() if game.deadline_at else None, time_zone=game.time_zone)  # fmt: skip

    def eject(self, command: c.EjectPlayer, granted: Authorised) -> None:
        game = granted.game
        assert game is not None
        line = f"EJECT {game.slug} {command.seat}"
        seat = self._seat(game, command.seat, line)
        if seat is None or not self._running(game, line, RUNNING, PAUSED):
            return
        seat.resigned = True
        self._tell(seat, "ejected", {"game": game.slug, "seat": seat.name, "reason": command.reason})
        self.reply.add("ejected", game=game.slug, seat=seat.name, reason=command.reason)

    def rollback(self, command: c.RollBack, granted: Authorised) -> None:
        game = granted.game
        assert game is not None
        line = f"ROLLBACK {game.slug} TO {command.to_turn}"
        if not self._running(game, line, RUNNING, PAUSED, FINISHED):
            return
        resolved = [r.turn_number for r in live_records(self.session, game)]
        if command.to_turn not in resolved:
            self.reply.problem(line, "not_resolved", game=game.slug, turn=command.to_turn, resolved=resolved)
            return
        if command.deadline:
            deadline = self._moment(game, command.deadline, line, base=self.now)
            if deadline is None:
                return
        else:
            target = next(r for r in live_records(self.session, game) if r.turn_number == command.to_turn)
            rules = rules_of(game)
            phase = rules.phase(rules.load_state(target.state_before))
            assert phase is not None
            deadline = next_deadline(self.session, game, phase, self.now)
        roll_back(self.session, game, command.to_turn, deadline)
        on_file = {s: row.canonical_text for s, row in current_orders(self.session, game, command.to_turn).items()}
        data = {"game": game.slug, "turn": command.to_turn, "deadline": deadline.isoformat(),
                "time_zone": game.time_zone, "reason": command.reason}  # fmt: skip
        self.reply.add("rolled_back", **data, orders=on_file)
        self._tell_all(game, "rolled_back", data)


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
