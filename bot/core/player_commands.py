"""Handlers for the commands of one envelope, inside the envelope's transaction.

Mistakes (an unknown game, a full game, an illegal order, a wrong password,
late orders) are answered in the reply; nothing here raises for them.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlalchemy import select
from sqlalchemy.orm import Session

from adjudicator import registry
from adjudicator.api import GameError
from adjudicator.options import resolve_options
from adjudicator.record import start_game
from adjudicator.rng import commitment
from bot.core import commands as c
from bot.core.games import (
    FINISHED,
    FORMING,
    PAUSED,
    RUNNING,
    current_orders,
    find_game,
    normalise_slug,
    rules_of,
    state_of,
)
from bot.core.identities import find_or_create_player, seat_of
from bot.core.outbox import Outgoing, enqueue
from bot.core.rendering import render
from bot.core.replies import ReplyBuilder
from bot.core.reports import format_deadline
from bot.core.seat_secrets import check_secret, hash_secret, new_secret
from bot.core.turns import PUBLIC_CHANNEL, next_deadline, resolve_current_turn
from bot.store.models import Game, OrderSubmission, Seat

if TYPE_CHECKING:
    from bot.core.service import ServiceConfig

_SLUG = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")
_SEAT_NAME = re.compile(r"^[\w][\w .'-]{0,39}$")


class PlayerCommands:
    """Dispatches each command to its handler; see the module docstring."""

    def __init__(self, session: Session, envelope: c.Envelope, reply: ReplyBuilder, config: ServiceConfig) -> None:
        self.session = session
        self.envelope = envelope
        self.reply = reply
        self.config = config
        self.now = envelope.received_at

    def handle(self, command: c.Command) -> None:
        match command:
            case c.ShowHelp():
                self.show_help(command)
            case c.ListGames():
                self.list_games()
            case c.JoinGame():
                self.join(command)
            case c.SubmitOrders():
                self.submit(command)
            case c.ShowStatus():
                self.status(command)
            case c.Resign():
                self.resign(command)
            case c.CreateGame():
                self.create(command)
            case c.StartGame():
                self.start(command)
            case c.NotUnderstood():
                self.reply.error(command.line, command.reason)

    # -- looking things up -------------------------------------------------

    def _game(self, slug: str, command_line: str) -> Game | None:
        game = find_game(self.session, slug)
        if game is None:
            known = ", ".join(self.session.scalars(select(Game.slug).where(Game.status != FINISHED)).all()) or "none"
            self.reply.error(command_line, f"there is no game called '{slug}'; games: {known}")
        else:
            self.reply.game_tag = game.slug
        return game

    # -- commands -------------------------------------------------------------

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

    def submit(self, command: c.SubmitOrders) -> None:
        line = f"ORDERS {command.game}"
        game = self._game(command.game, line)
        if game is None:
            return
        if game.status not in (RUNNING, PAUSED):
            self.reply.error(line, f"game {game.slug} is {game.status}: it takes no orders now")
            return
        seat = self._authenticated_seat(game, line)
        if seat is None:
            return
        if game.deadline_at is not None and self.now > game.deadline_at:
            self.reply.error(line, f"too late: the deadline was {format_deadline(game.deadline_at, game.time_zone)}")
            return
        rules = rules_of(game)
        state = state_of(game)
        phase = rules.phase(state)
        if phase is None or seat.name not in phase.owing:
            owing = ", ".join(phase.owing) if phase else "nobody"
            title = phase.title if phase else "the game"
            self.reply.error(line, f"{seat.name} owes no orders in {title}; orders are due from {owing}")
            return
        parsed = rules.parse_orders(state, seat.name, command.text)
        for error in parsed.errors:
            self.reply.error(error.line or line, error.message)
        if parsed.orders is None:
            kept = current_orders(self.session, game, phase.number).get(seat.name)
            self.reply.section(
                f"ORDERS NOT ACCEPTED for {game.slug}, {phase.title}",
                "Nothing usable was found; see NOT UNDERSTOOD below.",
                f"Your orders on file still stand: {kept.canonical_text}" if kept else "You have no orders on file.",
            )
            return
        for previous in current_orders(self.session, game, phase.number).values():
            if previous.seat_name == seat.name:
                previous.current = False
        self.session.add(
            OrderSubmission(
                game_id=game.id, turn_number=phase.number, seat_name=seat.name, raw_text=command.text,
                canonical_text=parsed.canonical, source_id=self.envelope.source_id, current=True,
                submitted_at=self.now,
            )
        )  # fmt: skip
        self.session.flush()
        self.reply.section(
            f"ORDERS ACCEPTED for {game.slug}, {phase.title}, seat {seat.name}",
            *[f"  {text}" for text in parsed.canonical.splitlines()],
            *[f"note: {note}" for note in parsed.notes],
            f"Deadline: {format_deadline(game.deadline_at, game.time_zone)}. Send again to replace them.",
        )
        self._resolve_if_complete(game, phase.number, phase.owing, phase.resolve_when_complete)

    def _resolve_if_complete(self, game: Game, turn: int, owing: tuple[str, ...], when_complete: bool) -> None:
        if game.status != RUNNING or not (when_complete or game.early_processing):
            return
        if set(owing) <= set(current_orders(self.session, game, turn)):
            record = resolve_current_turn(self.session, game, self.now, self.config.mail_domain)
            self.reply.section("TURN RESOLVED", f"Every order was in: turn {record.turn_number} was resolved at once.")

    def _authenticated_seat(self, game: Game, line: str) -> Seat | None:
        """The seat these orders are for: by the sender's identity, or by the seat password."""
        sender = self.envelope.sender
        player = find_or_create_player(self.session, sender, self.now)
        own = seat_of(game, player)
        password = self.envelope.password
        needs_password = sender.channel == "email" and game.auth_mode == "password"
        if password:
            matching = [s for s in game.seats if check_secret(password, s.secret_hash)]
            if not matching:
                self.reply.error("PASSWORD ...", f"wrong password for game {game.slug}; no orders were accepted")
                return None
            seat = matching[0]
            if seat is not own:
                self._tell_registered_address(game, seat)
            return seat
        if own is None:
            self.reply.error(line, f"you have no seat in {game.slug}; JOIN it first, or give your PASSWORD")
            return None
        if needs_password:
            self.reply.error(line, f"orders for {game.slug} need your seat password: add a line PASSWORD <password>")
            return None
        return own

    def _tell_registered_address(self, game: Game, seat: Seat) -> None:
        """Orders came with the right password from another address: the owner is told (issue 3)."""
        address = seat.player.email or seat.player.discord_id
        if address is None:
            return
        channel = "email" if seat.player.email else "discord"
        enqueue(
            self.session,
            Outgoing(
                channel, address, "notice", f"[{game.slug}] orders for {seat.name} from another address",
                f"Orders for your seat {seat.name} in {game.slug} arrived from {self.envelope.sender.address}\n"
                f"with your seat password, and were accepted (receipt {self.reply.receipt}).\n"
                "If this was not you, tell the game master and change nothing else.\n",
                "notice", {}, game.id, None, f"notice:{self.envelope.source_id}:{seat.name}",
            ),
            self.now,
            self.config.mail_domain,
        )  # fmt: skip

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
        seat.resigned = True
        self.reply.section(f"RESIGNED from {game.slug}", f"{seat.name} now gets the game's no-moves-received orders.")

    def create(self, command: c.CreateGame) -> None:
        line = f"CREATE {command.game} {command.kind}"
        slug = normalise_slug(command.game)
        if not _SLUG.match(slug):
            self.reply.error(line, "a game name is 1-40 letters, digits, - or _, starting with a letter or digit")
            return
        if find_game(self.session, slug) is not None:
            self.reply.error(line, f"a game called {slug} already exists")
            return
        try:
            rules = registry.get_rules(command.kind)
            options = resolve_options(rules.options(), command.options)
            ZoneInfo(command.time_zone)
        except (registry.UnknownGame, GameError, ZoneInfoNotFoundError, ValueError) as exc:
            self.reply.error(line, str(exc))
            return
        import secrets

        seed = secrets.token_hex(16)
        gm = find_or_create_player(self.session, self.envelope.sender, self.now)
        game = Game(
            slug=slug, kind=rules.kind, options=options, seed=seed, commitment=commitment(seed), status=FORMING,
            time_zone=command.time_zone, turn_minutes=command.turn_minutes,
            offer_minutes=min(command.turn_minutes, self.config.default_offer_minutes),
            decision_minutes=min(command.turn_minutes, self.config.default_decision_minutes),
            early_processing=command.early_processing, auth_mode=command.auth, deadline_at=None, phase_number=0,
            state=None, gm_player_id=gm.id, created_at=self.now,
        )  # fmt: skip
        self.session.add(game)
        self.session.flush()
        self.reply.game_tag = slug
        self.reply.section(f"CREATED {slug}", f"{rules.title}, open for joining: JOIN {slug} [AS <name>].")

    def start(self, command: c.StartGame) -> None:
        line = f"START {command.game}"
        game = self._game(command.game, line)
        if game is None:
            return
        gm = find_or_create_player(self.session, self.envelope.sender, self.now)
        if game.gm_player_id != gm.id:
            self.reply.error(line, f"only the game master of {game.slug} can start it")
            return
        if game.status != FORMING:
            self.reply.error(line, f"game {game.slug} is already {game.status}")
            return
        rules = rules_of(game)
        try:
            state = start_game(rules, [s.name for s in game.seats], game.options, game.seed)
        except GameError as exc:
            self.reply.error(line, str(exc))
            return
        phase = rules.phase(state)
        assert phase is not None
        game.state = rules.dump_state(state)
        game.status = RUNNING
        game.deadline_at = next_deadline(game, phase, self.now)
        self._announce_start(game, phase.title)
        self.reply.section(
            f"STARTED {game.slug}",
            f"First phase: {phase.title}",
            f"Deadline: {format_deadline(game.deadline_at, game.time_zone)}",
        )

    def _announce_start(self, game: Game, phase_title: str) -> None:
        rules = rules_of(game)
        data: dict[str, Any] = {
            "game": game.slug, "title": rules.title, "seats": [s.name for s in game.seats], "phase": phase_title,
            "deadline": format_deadline(game.deadline_at, game.time_zone), "commitment": game.commitment,
            "options": game.options,
        }  # fmt: skip
        body = render("common/start.txt.j2", data)
        subject = f"[{game.slug}] {rules.title} has started"
        key = f"start:{game.slug}"
        enqueue(
            self.session,
            Outgoing(PUBLIC_CHANNEL, game.slug, "report", subject, body, "common/start.txt.j2", {}, game.id, None, key),
            self.now,
            self.config.mail_domain,
        )
        for seat in game.seats:
            address = seat.player.email or seat.player.discord_id
            if address is not None:
                channel = "email" if seat.player.email else "discord"
                enqueue(
                    self.session,
                    Outgoing(channel, address, "report", subject, body, "common/start.txt.j2", {}, game.id, None, key),
                    self.now,
                    self.config.mail_domain,
                )
