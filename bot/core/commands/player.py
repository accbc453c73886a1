"""Player commands that change no orders: help, list, join, status, resign.

Mistakes (an unknown game, a full game, a taken name) are problems in the
reply; nothing here raises for them.  Every answer is a phrase code with
plain data (:mod:`bot.core.commands.replies`).
"""

from __future__ import annotations

import re

from sqlalchemy import select

from adjudicator import registry
from bot.core.basics.display_width import display_width
from bot.core.commands.context import Authorised, CommandContext
from bot.core.games.stored import FINISHED, FORMING, current_orders, find_game, rules_of, seat_limit, state_of
from bot.core.model import commands as c
from bot.core.model.outcomes import NOTICE, Message, Outcome, ToGameMasters
from bot.core.model.secret_values import Secret
from bot.core.people.identities import find_or_create_player, find_player, seat_of
from bot.core.people.seat_secrets import hash_secret, new_secret
from bot.core.turns.game_record import export_record
from bot.store.models import Game, GameMaster, Seat, TurnRecord

_SEAT_NAME = re.compile(r"^[\w][\w .'-]{0,39}$")
SEAT_NAME_COLUMNS = 40
"""The most columns a seat name may take (:func:`bot.core.basics.display_width.display_width`: a CJK or
fullwidth letter takes two), so that the reports' name columns and legends fit in 78."""


def seat_name_allowed(name: str) -> bool:
    """Letters, digits, spaces, ``_ . ' -``, a letter or digit first, at most :data:`SEAT_NAME_COLUMNS` columns."""
    return _SEAT_NAME.match(name) is not None and display_width(name) <= SEAT_NAME_COLUMNS


def _iso(moment: object) -> str | None:
    return None if moment is None else moment.isoformat()  # type: ignore[attr-defined]


class PlayerCommands(CommandContext):
    """HELP, LIST, JOIN, STATUS, RESIGN."""

    def show_help(self, command: c.ShowHelp) -> None:
        name = command.game
        if name is None or (name == "gm" and find_game(self.session, name) is None):
            self.reply.add("help", kinds=list(registry.kinds()), game_master=name == "gm" or self._runs_games())
            return
        game = find_game(self.session, name)
        kind = game.kind if game is not None else name
        try:
            rules = registry.get_rules(kind)
        except registry.UnknownGame:
            self.reply.problem(f"HELP {name}", "unknown_kind", name=name, kinds=list(registry.kinds()))
            return
        options = game.options if game is not None else None
        shown = game.slug if game is not None else None
        self.reply.add("game_help", title=rules.title, game=shown, text=rules.help_text(options))

    def _runs_games(self) -> bool:
        """Whether the sender may create games or is a game master of one (HELP then lists the GM commands)."""
        if self.envelope.sender.address in self.config.game_masters:
            return True
        player = find_player(self.session, self.envelope.sender)
        if player is None:
            return False
        if self.session.scalar(select(Game.id).where(Game.gm_player_id == player.id).limit(1)) is not None:
            return True
        return (
            self.session.scalar(select(GameMaster.game_id).where(GameMaster.player_id == player.id).limit(1))
            is not None
        )

    def list_games(self) -> None:
        games = self.session.scalars(select(Game).where(Game.status != FINISHED).order_by(Game.slug)).all()
        rows = [
            {
                "game": g.slug, "title": rules_of(g).title, "status": g.status, "seats": len(g.seats),
                "max_seats": seat_limit(g), "deadline": _iso(g.deadline_at), "time_zone": g.time_zone,
            }
            for g in games
        ]  # fmt: skip
        self.reply.add("games", games=rows)

    def join(self, command: c.JoinGame) -> None:
        line = f"JOIN {command.game}"
        game = self.game_named(command.game, line)
        if game is None:
            return
        if game.status != FORMING:
            self.reply.problem(line, "not_joinable", game=game.slug, status=game.status)
            return
        if not game.joining_open:
            self.reply.problem(line, "joining_closed", game=game.slug)
            return
        if game.join_policy == "invited" and self.envelope.sender.address.lower() not in game.invited:
            self.reply.problem(line, "not_invited", game=game.slug)
            return
        player = find_or_create_player(self.session, self.envelope.sender, self.now)
        own = seat_of(game, player)
        if own is not None:
            self.reply.problem(line, "already_seated", game=game.slug, seat=own.name)
            return
        rules = rules_of(game)
        most = seat_limit(game)
        if len(game.seats) >= most:
            self.reply.problem(line, "game_full", game=game.slug, max_seats=most)
            return
        name = (command.name or player.display_name).strip()
        if not seat_name_allowed(name):
            self.reply.problem(line, "bad_seat_name", name=name)
            return
        if any(s.name.lower() == name.lower() for s in game.seats):
            self.reply.problem(line, "seat_name_taken", game=game.slug, name=name)
            return
        secret = new_secret()
        seat = Seat(
            game=game, player=player, name=name, position=len(game.seats), secret_hash=hash_secret(secret, self.config.secret_key),
            resigned=False, joined_at=self.now,
        )  # fmt: skip
        self.session.add(seat)
        self.session.flush()
        filled = len(game.seats) >= most
        self.reply.add(
            "joined", game=game.slug, title=rules.title, seat=name, number=len(game.seats),
            max_seats=most, secret=Secret(secret), auth=game.auth_mode, target=game.target_seats,
            min_seats=rules.min_seats, filled=filled,
        )  # fmt: skip
        if filled:  # what happens next is the GM's START: tell them
            data = {"game": game.slug, "title": rules.title, "seats": [s.name for s in game.seats]}
            self.delivery.send(Outcome(ToGameMasters(game.id), Message("game_filled", data), NOTICE,
                                       f"filled:{game.slug}:{game.generation}", game.id))  # fmt: skip

    def status(self, command: c.ShowStatus) -> None:
        game = self.game_named(command.game, f"STATUS {command.game}")
        if game is None:
            return
        rules = rules_of(game)
        data: dict[str, object] = {
            "game": game.slug, "title": rules.title, "status": game.status, "seats": [s.name for s in game.seats],
            "turn": None, "phase": None, "deadline": _iso(game.deadline_at), "time_zone": game.time_zone,
            "ordered": [], "waiting": [], "own_orders": None, "standings": [],
        }  # fmt: skip
        if game.state is not None and game.status != FINISHED:
            phase = rules.phase(state_of(game))
            if phase is not None:
                orders = current_orders(self.session, game, phase.number)
                data.update(
                    turn=phase.number, phase=phase.title,
                    ordered=sorted(set(orders) & set(phase.owing)),
                    waiting=[s for s in phase.owing if s not in orders],
                )  # fmt: skip
                player = find_player(self.session, self.envelope.sender)
                own = seat_of(game, player) if player is not None else None
                if own is not None and own.name in orders:
                    data["own_orders"] = orders[own.name].canonical_text
        if game.status == FINISHED:
            data["standings"] = [{"place": s.place, "seat": s.seat} for s in rules.standings(state_of(game))]
        data["last_report"] = self._last_report(game)
        self.reply.add("status", **data)

    def _last_report(self, game: Game) -> dict[str, object] | None:
        """The public copy of the game's last report (squares, gems, scores), as HELP promises; None before one."""
        last = self.session.scalars(
            select(TurnRecord)
            .where(TurnRecord.game_id == game.id, TurnRecord.generation == game.generation)
            .order_by(TurnRecord.turn_number.desc())
            .limit(1)
        ).first()
        if last is None:
            return None
        return {"kind": game.kind, "turn": last.turn_number, "report": last.report,
                "events": [e["text"] for e in last.events], "seat": None, "private": None}  # fmt: skip

    def record(self, command: c.ShowRecord) -> None:
        """The sealed record of a finished game, as an attachment of the reply.

        Only a finished game has one: until the end its seed is secret.
        """
        line = f"RECORD {command.game}"
        game = self.game_named(command.game, line)
        if game is None:
            return
        if game.status != FINISHED:
            self.reply.problem(line, "record_not_yet", game=game.slug, status=game.status)
            return
        record = export_record(self.session, game)
        self.reply.add("record", game=game.slug, filename=f"{game.slug}-record.json", record=record)

    def resign(self, command: c.Resign, granted: Authorised) -> None:
        game, seat = granted.game, granted.seat
        assert game is not None and seat is not None  # Permission.SEAT
        if game.status == FORMING:
            game.seats.remove(seat)  # the loaded seats stay right for the rest of a batch (bot.core.basics.batch)
            self.session.delete(seat)
            self.reply.add("left", game=game.slug, seat=seat.name)
            return
        seat.resigned = True
        self.reply.add("resigned", game=game.slug, seat=seat.name)
