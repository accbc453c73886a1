"""The context every command handler works in: one envelope, one transaction, one reply."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlalchemy import select
from sqlalchemy.orm import Session

from bot.core import commands as c
from bot.core.games import FINISHED, find_game
from bot.core.replies import ReplyBuilder
from bot.store.models import Game

if TYPE_CHECKING:
    from bot.core.service import ServiceConfig


class CommandContext:
    """Shared by the handlers: the session, the envelope, the reply being built, the config."""

    def __init__(self, session: Session, envelope: c.Envelope, reply: ReplyBuilder, config: ServiceConfig) -> None:
        self.session = session
        self.envelope = envelope
        self.reply = reply
        self.config = config
        self.now = envelope.received_at

    def _game(self, slug: str, command_line: str) -> Game | None:
        """The game called ``slug``, or None after telling the sender which games exist."""
        game = find_game(self.session, slug)
        if game is None:
            known = ", ".join(self.session.scalars(select(Game.slug).where(Game.status != FINISHED)).all()) or "none"
            self.reply.error(command_line, f"there is no game called '{slug}'; games: {known}")
        else:
            self.reply.game_tag = game.slug
        return game
