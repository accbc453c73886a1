"""The context every command handler works in: one envelope, one transaction, one reply, one delivery."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlalchemy import select
from sqlalchemy.orm import Session

from bot.core.commands.replies import ReplyBuilder
from bot.core.games.stored import FINISHED, find_game, seat_named
from bot.core.messaging.delivery import Delivery
from bot.core.model import commands as c
from bot.core.people.client_language import keep_client_language
from bot.core.people.identities import find_or_create_player
from bot.store.models import Game, Player, Seat

if TYPE_CHECKING:
    from bot.core.model.config import ServiceConfig


@dataclass(frozen=True)
class Authorised:
    """What the pipeline established before a handler runs: the game, the seat, the acting person."""

    game: Game | None = None
    seat: Seat | None = None
    actor: Player | None = None
    elsewhere: bool = False
    """The seat was opened by its password for a sender who is not its player (its player is told)."""


class CommandContext:
    """Shared by the handlers: the session, the envelope, the reply being built, delivery, the config, and
    (per command) what the pipeline's authorisation granted."""

    def __init__(
        self, session: Session, envelope: c.Envelope, reply: ReplyBuilder, config: ServiceConfig, delivery: Delivery
    ) -> None:
        self.session = session
        self.envelope = envelope
        self.reply = reply
        self.config = config
        self.delivery = delivery
        self.now = envelope.received_at
        self.granted = Authorised()
        """What the pipeline's authorisation established for the command being handled."""

    def sender_player(self) -> Player:
        """The player behind the envelope's sender, made on first contact, reading what their client says
        (:mod:`bot.core.people.client_language`)."""
        player = find_or_create_player(self.session, self.envelope.sender, self.now)
        keep_client_language(player, self.envelope)
        return player

    def granting(self, granted: Authorised) -> CommandContext:
        """The same context for one command, with what its authorisation established (``granted``)."""
        context = copy.copy(self)
        context.granted = granted
        return context

    @property
    def game(self) -> Game:
        """The game the pipeline authorised this command for: a handler of a command that names a
        game (permission SEAT or GAME_MASTER) only; an AssertionError elsewhere is a bug."""
        game = self.granted.game
        assert game is not None, "a command that names no game has no authorised game"
        return game

    def game_named(self, slug: str, command_line: str) -> Game | None:
        """The game called ``slug``, or None after telling the sender which games exist."""
        game = find_game(self.session, slug)
        if game is None:
            known = self.session.scalars(select(Game.slug).where(Game.status != FINISHED).order_by(Game.slug)).all()
            self.reply.problem(command_line, "unknown_game", game=slug, known=list(known))
        else:
            self.reply.game_tag = game.slug
        return game

    def seat_named(self, game: Game, name: str, command_line: str) -> Seat | None:
        """The seat of ``game`` called ``name`` (or numbered so, ``#2``: :func:`bot.core.games.stored.seat_named`),
        or None after telling the sender which seats there are."""
        seat = seat_named(game, name)
        if seat is None:
            self.reply.problem(
                command_line, "no_such_seat", game=game.slug, seat=name, seats=[s.name for s in game.seats]
            )
        return seat
