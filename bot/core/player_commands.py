"""Player commands that change no orders: help, list, join, status, resign.

Mistakes (an unknown game, a full game, a taken name) are answered in the
reply; nothing here raises for them.
"""

from __future__ import annotations

import re

from sqlalchemy import select

from adjudicator import registry
from bot.core import commands as c
from bot.core.context import CommandContext
from bot.core.games import (
    FINISHED,
    FORMING,
    current_orders,
    find_game,
    rules_of,
    state_of,
)
from bot.core.identities import find_or_create_player, seat_of
from bot.core.order_commands import needs_seat_password
from bot.core.rendering import render
from bot.core.reports import format_deadline
from bot.core.seat_secrets import check_secret, hash_secret, new_secret
from bot.store.models import Game, Seat

_SEAT_NAME = re.compile(r"^[\w][\w .'-]{0,39}$")


class PlayerCommands(CommandContext):
    """HELP, LIST, JOIN, STATUS, RESIGN."""

    def show_help(self, command: c.ShowHelp) -> None:
        if command.game is None:
            self.reply.section("HELP", *render("common/help.txt.j2", {"kinds": registry.kinds()}).splitlines())
            return
        name = command.game
        game = find_game(self.session, name)
        kind = game.kind if game is not None else name
        try:
            rules = registry.get_rules(kind)
        except registry.UnknownGame:
            self.reply.error(
                f"HELP {name}", f"no game or game kind called '{name}'; kinds: {', '.join(registry.kinds())}"
            )
            return
        self.reply.section(f"HELP {rules.title.upper()}", *rules.help_text().splitlines())

    def list_games(self) -> None:
        games = self.session.scalars(select(Game).where(Game.status != FINISHED).order_by(Game.slug)).all()
        lines = [
            f"{g.slug:<16} {rules_of(g).title:<18} {g.status:<9} {len(g.seats)}/{rules_of(g).max_seats} seats"
            + (f"  deadline {format_deadline(g.deadline_at, g.time_zone)}" if g.deadline_at else "")
            for g in games
        ]
        self.reply.section("GAMES", *(lines or ["No games are open or running."]))

    def join(self, command: c.JoinGame) -> None:
        line = f"JOIN {command.game}"
        game = self._game(command.game, line)
        if game is None:
            return
        if game.status != FORMING:
            self.reply.error(line, f"game {game.slug} is {game.status}; it can only be joined before it starts")
            return
        player = find_or_create_player(self.session, self.envelope.sender, self.now)
        if seat_of(game, player) is not None:
            self.reply.error(line, f"you already have the seat {seat_of(game, player).name} in {game.slug}")  # type: ignore[union-attr]
            return
        rules = rules_of(game)
        if len(game.seats) >= rules.max_seats:
            self.reply.error(line, f"game {game.slug} is full ({rules.max_seats} seats)")
            return
        name = (command.name or player.display_name).strip()
        if not _SEAT_NAME.match(name):
            self.reply.error(
                line, f"'{name}' cannot be a seat name: letters, digits, spaces, . ' - and up to 40 characters"
            )
            return
        if any(s.name.lower() == name.lower() for s in game.seats):
            self.reply.error(
                line, f"the name '{name}' is taken in {game.slug}; choose another with JOIN {game.slug} AS <name>"
            )
            return
        secret = new_secret()
        seat = Seat(
            game=game, player=player, name=name, position=len(game.seats), secret_hash=hash_secret(secret),
            resigned=False, joined_at=self.now,
        )  # fmt: skip
        self.session.add(seat)
        self.session.flush()
        self.reply.section(
            f"JOINED {game.slug}",
            f"You are {name} in {rules.title} game {game.slug} (seat {len(game.seats)} of at most {rules.max_seats}).",
            f"Your seat password: {secret}",
            "Put it on a line PASSWORD <password> in every message with orders. Keep it private.",
        )

    def status(self, command: c.ShowStatus) -> None:
        game = self._game(command.game, f"STATUS {command.game}")
        if game is None:
            return
        rules = rules_of(game)
        lines = [
            f"{rules.title} game {game.slug}: {game.status}",
            f"Seats: {', '.join(s.name for s in game.seats) or 'none'}",
        ]
        if game.state is not None and game.status != FINISHED:
            phase = rules.phase(state_of(game))
            if phase is not None:
                ordered = set(current_orders(self.session, game, phase.number))
                lines.append(f"Now: turn {phase.number}, {phase.title}")
                lines.append(f"Deadline: {format_deadline(game.deadline_at, game.time_zone)}")
                lines.append(f"Orders in from: {', '.join(sorted(ordered & set(phase.owing))) or 'nobody yet'}")
                lines.append(f"Waiting for: {', '.join(s for s in phase.owing if s not in ordered) or 'nobody'}")
                player = find_or_create_player(self.session, self.envelope.sender, self.now)
                own = seat_of(game, player)
                if own is not None and own.name in ordered:
                    lines.append(
                        f"Your orders on file: {current_orders(self.session, game, phase.number)[own.name].canonical_text}"
                    )
        if game.status == FINISHED:
            standings = rules.standings(state_of(game))
            lines.extend(f"  {s.place}. {s.seat}" for s in standings)
        self.reply.section(f"STATUS {game.slug}", *lines)

    def resign(self, command: c.Resign) -> None:
        line = f"RESIGN {command.game}"
        game = self._game(command.game, line)
        if game is None:
            return
        seat = seat_of(game, find_or_create_player(self.session, self.envelope.sender, self.now))
        if seat is None:
            self.reply.error(line, f"you have no seat in {game.slug}")
            return
        if game.status == FORMING:
            self.session.delete(seat)
            self.reply.section(f"LEFT {game.slug}", f"Your seat {seat.name} was given up before the start.")
            return
        # Issue 11 item 6: the same trust rule as orders (bot.core.order_commands.needs_seat_password).
        password_mode = needs_seat_password(game.auth_mode, self.envelope.trust)
        if password_mode and not (self.envelope.password and check_secret(self.envelope.password, seat.secret_hash)):
            self.reply.error(
                line, f"resigning from {game.slug} needs your seat password: add a line PASSWORD <password>"
            )
            return
        seat.resigned = True
        self.reply.section(f"RESIGNED from {game.slug}", f"{seat.name} now gets the game's no-moves-received orders.")
