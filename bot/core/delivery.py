"""Delivery: each outcome's audience resolved to the channels that reach it, written to the outbox.

This is the one place that decides who gets what on which channel:

* the reply goes back on the channel it came from, with the adapter's reply context;
* a person gets a copy on every channel linked to them (:func:`bot.core.identities.reach`);
* an address is reached as given (a link code goes where it proves the address);
* a game's public copy goes to each channel that has a public place for games
  (``ServiceConfig.public_channels``: a Discord forum post, the demo's screen),
  and to none when none is configured, and to every observer of the game;
* the host's notices go to ``ServiceConfig.host_recipients``;
* nothing goes through the outbox to an inline channel (``ServiceConfig.inline_channels``: the host's
  command line reads its answer from :class:`bot.core.service.Applied` at once).

Rows are written in the caller's transaction, so they exist exactly when the
change that caused them was committed.  Within one :class:`Delivery` the same
message never goes to the same recipient twice (a GM who is also a seat,
two outcomes with the same key).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from sqlalchemy import select
from sqlalchemy.orm import Session

from bot.core.commands import Sender
from bot.core.identities import reach
from bot.core.outbox import Outgoing, enqueue
from bot.core.outcomes import Outcome, ToAddress, ToGameMasters, ToHost, ToPlayer, ToPublic, ToSender
from bot.store.models import Game, GameMaster, Observer, Player

if TYPE_CHECKING:
    from bot.core.service import ServiceConfig

PUBLIC_PREFIX = "public:"
"""Recipient of a game's public copy on a channel: ``public:<game>``; the channel knows the place."""


def public_recipient(slug: str) -> str:
    return f"{PUBLIC_PREFIX}{slug}"


@dataclass
class Delivery:
    """Writes outcomes as outbox rows for one transaction; see the module docstring."""

    session: Session
    config: ServiceConfig
    now: datetime
    sender: Sender | None = None
    written: set[tuple[str, str, str]] = field(default_factory=set)

    def send(self, outcome: Outcome) -> int:
        """Queue ``outcome`` for every recipient its audience resolves to; returns how many rows were written."""
        count = 0
        for channel, recipient in self.recipients(outcome):
            if channel in self.config.inline_channels:
                continue  # answered in the moment (Applied.reply); nothing would ever drain the row
            if (channel, recipient, outcome.key) in self.written:
                continue
            self.written.add((channel, recipient, outcome.key))
            enqueue(
                self.session,
                Outgoing(
                    channel, recipient, outcome.kind, outcome.message.template, outcome.message.data, outcome.key,
                    outcome.context, outcome.game_id, outcome.turn_number,
                ),
                self.now,
                self.config.message_domain,
            )  # fmt: skip
            count += 1
        return count

    def recipients(self, outcome: Outcome) -> list[tuple[str, str]]:
        """(channel, recipient) pairs for the outcome's audience."""
        audience = outcome.audience
        match audience:
            case ToSender():
                return [] if self.sender is None else [(self.sender.channel, self.sender.address)]
            case ToPlayer():
                player = self.session.get(Player, audience.player_id)
                return [] if player is None else reach(player)
            case ToAddress():
                return [(audience.channel, audience.address)]
            case ToGameMasters():
                return [pair for player in game_masters(self.session, audience.game_id) for pair in reach(player)]
            case ToPublic():
                game = self.session.get_one(Game, audience.game_id)
                places = [(channel, public_recipient(game.slug)) for channel in self.config.public_channels]
                watching = observers(self.session, game.id) if game.observers_allowed else []
                return places + [pair for player in watching for pair in reach(player)]
            case ToHost():
                return list(self.config.host_recipients)


def game_masters(session: Session, game_id: int) -> list[Player]:
    """The game masters of a game: its GM (``games.gm_player_id``) first, then its co-GMs."""
    game = session.get_one(Game, game_id)
    ids = [game.gm_player_id] if game.gm_player_id is not None else []
    ids += [row.player_id for row in session.scalars(select(GameMaster).where(GameMaster.game_id == game_id)).all()]
    players = [session.get(Player, pid) for pid in dict.fromkeys(ids)]
    return [p for p in players if p is not None]


def observers(session: Session, game_id: int) -> list[Player]:
    """Who observes a game (its public reports, never a seat's private part)."""
    rows = session.scalars(select(Observer).where(Observer.game_id == game_id)).all()
    players = [session.get(Player, row.player_id) for row in rows]
    return [p for p in players if p is not None]
