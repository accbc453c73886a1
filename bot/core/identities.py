"""Who a sender is: one player row per person, found by channel address."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from bot.core.commands import Sender
from bot.store.models import Game, Player, Seat


def normalise_address(sender: Sender) -> str:
    """Email addresses compare case-insensitively; Discord ids are kept as they are."""
    return sender.address.strip() if sender.channel == "discord" else sender.address.strip().lower()


def find_player(session: Session, sender: Sender) -> Player | None:
    address = normalise_address(sender)
    column = Player.discord_id if sender.channel == "discord" else Player.email
    return session.scalar(select(Player).where(column == address))


def find_or_create_player(session: Session, sender: Sender, now: datetime) -> Player:
    """The player behind ``sender``, created on first contact (no row is made twice)."""
    player = find_player(session, sender)
    if player is not None:
        return player
    address = normalise_address(sender)
    name = (sender.display_name or address.split("@")[0]).strip()[:40] or "player"
    player = Player(display_name=name, created_at=now)
    if sender.channel == "discord":
        player.discord_id = address
    else:
        player.email = address
    session.add(player)
    session.flush()
    return player


def reach(player: Player) -> tuple[str, str] | None:
    """The (channel, address) that reaches ``player``: email when known, else Discord, else None."""
    if player.email is not None:
        return "email", player.email
    if player.discord_id is not None:
        return "discord", player.discord_id
    return None


def seat_of(game: Game, player: Player) -> Seat | None:
    """The player's seat in ``game``, if any."""
    for seat in game.seats:
        if seat.player_id == player.id:
            return seat
    return None
