"""Who a sender is: one player row per person, with one identity row per channel address.

The core never interprets a channel name: an adapter hands over the address
in its canonical form (the email adapter lower-cases addresses; Discord ids
are kept as they are), and the pair (channel, address) finds the person.
A person linked on two channels has two identities and one player, so their
orders count for the same seat and every message reaches both.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import bindparam, inspect, select
from sqlalchemy.orm import Session

from bot.core.basics.batch import forget, memo_of
from bot.core.model.commands import Sender
from bot.store.models import Game, Identity, Player, Seat


def find_player(session: Session, sender: Sender) -> Player | None:
    """The player behind ``sender``, or None on first contact (remembered for the transaction's
    batch, :mod:`bot.core.basics.batch`, until an identity is linked)."""
    memo = memo_of(session)
    key = ("player", sender.channel, sender.address.strip())
    known = memo.get(key)
    if known is not None and inspect(known).persistent:  # not made in a unit rolled back since
        return known  # type: ignore[no-any-return]
    player = session.scalar(_BY_IDENTITY, {"channel": sender.channel, "address": sender.address.strip()})
    if player is not None:
        memo[key] = player
    return player


_BY_IDENTITY = (
    select(Player)
    .join(Identity, Identity.player_id == Player.id)
    .where(Identity.channel == bindparam("channel"), Identity.address == bindparam("address"))
)
"""A player by a (channel, address) of theirs: built once (a statement costs more to build than SQLAlchemy's
cached compilation of it, and every envelope asks)."""


def find_or_create_player(session: Session, sender: Sender, now: datetime) -> Player:
    """The player behind ``sender``, created on first contact (no row is made twice)."""
    player = find_player(session, sender)
    if player is not None:
        return player
    address = sender.address.strip()
    name = (chosen_name(sender) or NO_NAME)[:40]
    player = Player(display_name=name, created_at=now)
    session.add(player)
    session.flush()
    session.add(Identity(player_id=player.id, channel=sender.channel, address=address, linked_at=now))
    session.flush()
    session.refresh(player, ["identities"])
    return player


NO_NAME = "player"
"""A player's name when their channel carried none they chose: never a part of their address."""


def chosen_name(sender: Sender) -> str | None:
    """The name ``sender`` chose to show (a mail's display name, a Discord member's), or None when there is
    none, or when it is an address or the part of the sender's address before ``@`` as written (what a
    mail program puts where its user set no name): a name that is shown, on a public page or to other
    players, is never taken from an address."""
    name = (sender.display_name or "").strip()
    address = sender.address.strip()
    if not name or "@" in name or name in (address, address.split("@")[0]):
        return None
    return name


def link_identity(session: Session, player: Player, channel: str, address: str, now: datetime) -> None:
    """Add (channel, address) to ``player``; an address already linked to someone else is moved."""
    forget(session, "player")
    existing = session.scalar(select(Identity).where(Identity.channel == channel, Identity.address == address))
    if existing is not None:
        existing.player_id = player.id
    else:
        session.add(Identity(player_id=player.id, channel=channel, address=address, linked_at=now))
    session.flush()
    session.refresh(player, ["identities"])


def reach(player: Player) -> list[tuple[str, str]]:
    """Every (channel, address) that reaches ``player``, oldest link first."""
    return [(identity.channel, identity.address) for identity in player.identities]


def seat_of(game: Game, player: Player) -> Seat | None:
    """The player's seat in ``game``, if any."""
    for seat in game.seats:
        if seat.player_id == player.id:
            return seat
    return None
