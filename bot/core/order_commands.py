"""Submitting orders: authenticating the seat, parsing with the game, last set wins.

Orders are stored as the raw text and the game's canonical form; the reply
echoes the canonical form, the game's notes and every line it could not read.
When every owing seat has ordered and the phase resolves on completion (or the
game allows early processing), the turn is resolved in the same transaction.
"""

from __future__ import annotations

from bot.core import commands as c
from bot.core.context import CommandContext
from bot.core.games import (
    PAUSED,
    RUNNING,
    current_orders,
    phase_opened_at,
    rules_of,
    state_of,
)
from bot.core.identities import find_or_create_player, reach, seat_of
from bot.core.outbox import Outgoing, enqueue
from bot.core.reports import format_deadline
from bot.core.seat_secrets import check_secret
from bot.core.turns import resolve_current_turn
from bot.store.models import Game, OrderSubmission, Seat


def needs_seat_password(auth_mode: str, trust: c.Trust) -> bool:
    """Whether a sender of ``trust`` must give the seat password in a game of ``auth_mode`` (issue 11).

    ``password`` games: unless VERIFIED.  ``address`` games: unless VERIFIED or VOUCHED.
    """
    if trust is c.Trust.VERIFIED:
        return False
    if auth_mode == "password":
        return True
    return trust is not c.Trust.VOUCHED


class OrderCommands(CommandContext):
    """ORDERS / GAME with the seat password rules of the game."""

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
        opened = phase_opened_at(self.session, game, phase.number) if phase is not None else None
        # Issue 11 item 2: arrival times may have whole seconds only (IMAP INTERNALDATE) while the
        # opening has microseconds.  An arrival in the same second as the opening cannot be placed
        # before or after it, so it counts as after (the player's favour): orders are "sent before
        # the turn began" only when they arrived before the start of the opening's second.
        if opened is not None and self.now < opened.replace(microsecond=0):
            self.reply.error(
                line,
                f"these orders were sent before turn {phase.number if phase else '-'} began "
                f"({format_deadline(opened, game.time_zone)}): they were meant for a turn already resolved, "
                "and were not used",
            )
            return
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
        # Issue 11 item 6: the rule reads the envelope's trust, never the channel.  A password game
        # needs the password unless the channel authenticated the person (VERIFIED); an address-only
        # game needs it unless the sender is VERIFIED or VOUCHED for by the receiving mail server.
        needs_password = needs_seat_password(game.auth_mode, self.envelope.trust)
        if password:
            # The sender's own seat first: each check is a deliberately slow hash.
            candidates = ([own] if own is not None else []) + [s for s in game.seats if s is not own]
            seat = next((s for s in candidates if check_secret(password, s.secret_hash)), None)
            if seat is None:
                self.reply.error("PASSWORD ...", f"wrong password for game {game.slug}; no orders were accepted")
                return None
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
        target = reach(seat.player)
        if target is None:
            return
        channel, address = target
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
