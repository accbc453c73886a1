"""One person across channels: a code sent to another channel's address, given back, links the two.

The flow, the same whatever the channels:

1. :class:`~bot.core.model.commands.RequestLink` from a sender their channel
   authenticated (``Trust.VERIFIED``): a code is made (:func:`new_code`),
   stored only as a keyed hash (:mod:`bot.core.people.seat_secrets`), and sent to the
   target address on the target channel through the outbox (template
   ``link_code``).  A claim alone never starts a link: the code proves the
   target, the channel proves the sender.
2. :class:`~bot.core.model.commands.ConfirmLink` with that code, from the same
   sender, within :data:`LIFETIME` and :data:`MAX_TRIES` wrong codes: the
   target's identity becomes the sender's (:func:`merge_players` when the
   address already played on its own).  Orders from either count for the
   same seat and every message to the person reaches both
   (:func:`bot.core.people.identities.reach`).

Refused, with what to do: an address that already belongs to another linked
person, a person holding seats in the same game from both sides, a wrong or
expired code, too many tries, too many codes asked for (for one link, or
mailed to one address within a day, :data:`CODES_PER_ADDRESS`).  The host separates
an address linked by mistake (:class:`~bot.core.model.commands.UnlinkIdentity`,
``referee gm unlink``).
"""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta

from sqlalchemy import delete, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from bot.core.commands.context import CommandContext
from bot.core.commands.registry import DONE, REFUSED, SHOWN, Result, handles
from bot.core.model import commands as c
from bot.core.model.outcomes import NOTICE, Message, Outcome, ToAddress, ToPlayer
from bot.core.model.secret_values import Secret
from bot.core.people.identities import find_player
from bot.core.people.seat_secrets import check_secret, hash_secret
from bot.store.models import (
    Game,
    GameMaster,
    Identity,
    LinkCodesMailed,
    Observer,
    PendingLink,
    Player,
    Seat,
    SeatHolder,
)

ALPHABET = "ABCDEFGHJKMNPQRSTVWXYZ23456789"
"""Letters and digits a person cannot misread: no I/L/1, O/0, U/V pairs (U is left out)."""
CODE_LENGTH = 8
LIFETIME = timedelta(hours=24)
MAX_TRIES = 5
"""Wrong codes before a pending link is void (30^8 codes: five guesses are nothing)."""
MAX_CODES = 3
"""Codes sent for one pending link while it lasts: asking again cannot flood an address."""
MAX_ADDRESS = 320
CODES_PER_ADDRESS = 4
"""Codes mailed to one address within any :data:`CODES_WINDOW`, whoever asked and however often a link was
cancelled and asked again: nobody can flood an address with codes."""
CODES_WINDOW = timedelta(hours=24)


def new_code() -> str:
    """``ABCD-EF23``: eight characters from :data:`ALPHABET`, shown in two groups."""
    raw = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))
    return f"{raw[:4]}-{raw[4:]}"


def normalise_code(code: str) -> str:
    """The code as typed, without spaces, dashes and case: ``abcd ef23`` is ``ABCDEF23``."""
    return "".join(ch for ch in code.upper() if ch.isalnum())


@handles(c.RequestLink)
def request(ctx: CommandContext, command: c.RequestLink) -> Result:
    sender = ctx.envelope.sender
    channel, address = command.channel.strip(), command.address.strip()
    line = f"LINK {channel} {address}"
    if ctx.envelope.trust is not c.Trust.VERIFIED:
        ctx.reply.problem(line, "link_needs_sign_in", channel=channel)
        return REFUSED
    if not channel or not address or len(address) > MAX_ADDRESS or any(ch.isspace() for ch in address):
        ctx.reply.problem(line, "link_bad_address", channel=channel, address=address)
        return REFUSED
    if channel == sender.channel:
        ctx.reply.problem(line, "link_same_channel", channel=channel)
        return REFUSED
    player = ctx.sender_player()
    other = find_player(ctx.session, c.Sender(channel, address))
    if other is not None and other.id == player.id:
        ctx.reply.add("link_already", channel=channel, address=address)
        return SHOWN
    if other is not None and not _may_merge(ctx, line, player, other, channel, address):
        return REFUSED
    pending = ctx.session.get(PendingLink, player.id)
    if pending is not None and pending.expires_at <= ctx.now:
        ctx.session.delete(pending)
        ctx.session.flush()
        pending = None
    if pending is not None and pending.codes_sent >= MAX_CODES:
        ctx.reply.problem(line, "link_too_many_codes", expires=pending.expires_at.isoformat(),
                           count=MAX_CODES)  # fmt: skip
        return REFUSED
    next_code_at = take_code_from_quota(ctx.session, channel, address, ctx.now)
    if next_code_at is not None:
        ctx.reply.problem(line, "link_address_too_many_codes", channel=channel, address=address,
                           count=CODES_PER_ADDRESS, after=next_code_at.isoformat())  # fmt: skip
        return REFUSED
    code = new_code()
    code_hash = hash_secret(normalise_code(code), ctx.config.secret_key)
    if pending is None:
        pending = PendingLink(player_id=player.id, requested_at=ctx.now, expires_at=ctx.now + LIFETIME,
                              codes_sent=0)  # fmt: skip
        ctx.session.add(pending)
    pending.channel, pending.address, pending.code_hash = channel, address, code_hash
    pending.attempts = 0
    pending.codes_sent += 1
    data = {
        "code": Secret(code), "from_channel": sender.channel, "from_name": sender.display_name or player.display_name,
        "channel": channel, "address": address, "expires": pending.expires_at.isoformat(), "tries": MAX_TRIES,
    }  # fmt: skip
    ctx.delivery.send(
        Outcome(ToAddress(channel, address), Message("link_code", data), NOTICE, f"link:{ctx.envelope.source_id}")
    )
    ctx.reply.add("link_sent", channel=channel, address=address, expires=data["expires"], tries=MAX_TRIES)
    return DONE


@handles(c.ConfirmLink)
def confirm(ctx: CommandContext, command: c.ConfirmLink) -> Result:
    line = "LINK CODE ..."
    if ctx.envelope.trust is not c.Trust.VERIFIED:
        ctx.reply.problem(line, "link_code_elsewhere")  # the code proves this address; the asking side must too
        return REFUSED
    player = find_player(ctx.session, ctx.envelope.sender)
    pending = None if player is None else ctx.session.get(PendingLink, player.id)
    if player is None or pending is None:
        ctx.reply.problem(line, "link_none")
        return REFUSED
    if pending.expires_at <= ctx.now:
        ctx.session.delete(pending)
        ctx.reply.problem(line, "link_expired", channel=pending.channel, address=pending.address)
        return REFUSED
    if not check_secret(normalise_code(command.code), pending.code_hash, ctx.config.secret_key):
        pending.attempts += 1
        if pending.attempts >= MAX_TRIES:
            ctx.session.delete(pending)
            ctx.reply.problem(line, "link_too_many_tries", channel=pending.channel, address=pending.address,
                               tries=MAX_TRIES)  # fmt: skip
        else:
            ctx.reply.problem(line, "link_wrong_code", tries_left=MAX_TRIES - pending.attempts)
        return REFUSED
    channel, address = pending.channel, pending.address
    ctx.session.delete(pending)
    ctx.session.flush()
    other = find_player(ctx.session, c.Sender(channel, address))
    if other is not None and other.id != player.id:
        if not _may_merge(ctx, line, player, other, channel, address):
            return REFUSED
        merge_players(ctx.session, player, other)
    elif other is None:
        ctx.session.add(Identity(player_id=player.id, channel=channel, address=address, linked_at=ctx.now))
    ctx.session.flush()
    ctx.session.refresh(player, ["identities"])
    games = sorted(seat.game.slug for seat in ctx.session.scalars(select(Seat).where(Seat.player_id == player.id)))
    data = {"channel": channel, "address": address, "games": games,
            "channels": sorted({identity.channel for identity in player.identities})}  # fmt: skip
    ctx.reply.add("linked", **data)
    ctx.delivery.send(
        Outcome(ToAddress(channel, address), Message("linked", {**data, "from_channel": ctx.envelope.sender.channel}),
                NOTICE, f"linked:{ctx.envelope.source_id}")
    )  # fmt: skip
    return DONE


@handles(c.UnlinkIdentity)
def unlink(ctx: CommandContext, command: c.UnlinkIdentity) -> Result:
    """The host separates an address from its person (the way out of ``link_taken``); both sides are told."""
    channel, address = command.channel.strip(), command.address.strip()
    line = f"UNLINK {channel} {address}"
    identity = ctx.session.scalar(select(Identity).where(Identity.channel == channel, Identity.address == address))
    if identity is None:
        ctx.reply.problem(line, "link_unknown_address", channel=channel, address=address)
        return REFUSED
    person = identity.player
    if len(person.identities) == 1:
        ctx.reply.problem(line, "link_alone", channel=channel, address=address)
        return REFUSED
    alone = Player(display_name=person.display_name, created_at=ctx.now)
    ctx.session.add(alone)
    ctx.session.flush()
    identity.player_id = alone.id
    ctx.session.flush()
    ctx.session.refresh(person, ["identities"])
    data = {"channel": channel, "address": address, "reason": command.reason,
            "kept": [f"{i.address} ({i.channel})" for i in person.identities]}  # fmt: skip
    ctx.reply.add("unlinked", **data)
    key = f"unlinked:{ctx.envelope.source_id}"
    ctx.delivery.send(Outcome(ToAddress(channel, address), Message("unlinked", data), NOTICE, key))
    ctx.delivery.send(Outcome(ToPlayer(person.id), Message("unlinked", data), NOTICE, key))
    return DONE


def _may_merge(ctx: CommandContext, line: str, player: Player, other: Player, channel: str, address: str) -> bool:
    """Whether ``other`` (who holds the target address alone) can become ``player``; else say why not."""
    if len(other.identities) > 1:
        ctx.reply.problem(line, "link_taken", channel=channel, address=address)
        return False
    clashes = seats_in_common(ctx.session, player, other)
    if clashes:
        ctx.reply.problem(line, "link_seat_clash", channel=channel, address=address, games=clashes)
        return False
    return True


def take_code_from_quota(session: Session, channel: str, address: str, now: datetime) -> datetime | None:
    """Count one code mailed to (channel, address) now; or, when its :data:`CODES_PER_ADDRESS` are used up, count
    nothing and return when the next may be mailed.

    The times are kept in ``link_codes_mailed``, apart from the pending links,
    so cancelling a link and asking again does not reset them.  The row is made
    with an insert that does nothing when it exists, then read ``FOR UPDATE``:
    two processes asking at once for the same address count one after the other.
    """
    key = {"channel": channel, "address": address.strip().lower()[:MAX_ADDRESS]}
    insert = postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert
    session.execute(insert(LinkCodesMailed).values(**key, sent_at=[]).on_conflict_do_nothing())
    row = session.scalars(
        select(LinkCodesMailed)
        .where(LinkCodesMailed.channel == key["channel"], LinkCodesMailed.address == key["address"])
        .with_for_update()
        .execution_options(populate_existing=True)
    ).one()
    recent = sorted(moment for moment in map(datetime.fromisoformat, row.sent_at) if moment > now - CODES_WINDOW)
    if len(recent) >= CODES_PER_ADDRESS:
        return recent[-CODES_PER_ADDRESS] + CODES_WINDOW
    row.sent_at = [moment.isoformat() for moment in [*recent, now]]
    return None


def seats_in_common(session: Session, one: Player, two: Player) -> list[str]:
    """The games in which both players hold a seat (one person cannot hold two seats of a game)."""
    games_of_one = set(session.scalars(select(Seat.game_id).where(Seat.player_id == one.id)))
    common = [s.game.slug for s in session.scalars(select(Seat).where(Seat.player_id == two.id))
              if s.game_id in games_of_one]  # fmt: skip
    return sorted(common)


def merge_players(session: Session, keep: Player, gone: Player) -> None:
    """Everything of ``gone`` becomes ``keep``'s: identities, seats (and the seats held before, so one
    person has one reliability record), game-master roles, observing; ``gone`` is removed.

    The caller has checked :func:`seats_in_common` is empty.  A role or an
    observation both held is kept once; observing a game in which ``keep`` now
    holds a seat is dropped (a seat gets every report anyway).
    """
    session.execute(update(Identity).where(Identity.player_id == gone.id).values(player_id=keep.id))
    session.execute(update(Seat).where(Seat.player_id == gone.id).values(player_id=keep.id))
    session.execute(update(SeatHolder).where(SeatHolder.player_id == gone.id).values(player_id=keep.id))  # one record
    session.execute(update(Game).where(Game.gm_player_id == gone.id).values(gm_player_id=keep.id))
    held = set(session.scalars(select(GameMaster.game_id).where(GameMaster.player_id == keep.id)))
    for row in session.scalars(select(GameMaster).where(GameMaster.player_id == gone.id)).all():
        session.delete(row)
        if row.game_id not in held:
            session.add(GameMaster(game_id=row.game_id, player_id=keep.id))
    seated = set(session.scalars(select(Seat.game_id).where(Seat.player_id == keep.id)))
    watched = set(session.scalars(select(Observer.game_id).where(Observer.player_id == keep.id)))
    for watching in session.scalars(select(Observer).where(Observer.player_id == gone.id)).all():
        session.delete(watching)
        if watching.game_id not in watched | seated:
            session.add(Observer(game_id=watching.game_id, player_id=keep.id))
    session.execute(delete(PendingLink).where(PendingLink.player_id == gone.id))
    session.flush()
    session.expire_all()
    session.delete(session.get_one(Player, gone.id))
    session.flush()


def copy_to_other_channels(ctx: CommandContext, player: Player, message: Message, key: str, game_id: int) -> None:
    """``message`` to every address of ``player`` but the one the envelope came from (a confirmation reaches both).

    Nothing when the envelope did not come from ``player`` (orders with a seat
    password from elsewhere: the owner is told otherwise, ``orders_elsewhere``).
    """
    here = (ctx.envelope.sender.channel, ctx.envelope.sender.address.strip())
    addresses = [(identity.channel, identity.address) for identity in player.identities]
    if here not in addresses:
        return
    for channel, address in addresses:
        if (channel, address) != here:
            ctx.delivery.send(Outcome(ToAddress(channel, address), message, NOTICE, key, game_id))
