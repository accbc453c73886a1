"""Checking a seat password or a game master's password, with the brake on guessing (:mod:`bot.core.people.guessing`).

A seat password opens only the seat it is checked against: the sender's own
seat when the sender holds one in the game (another seat's password from a
seat holder is a wrong password, and nothing of that seat is shown), and
only for a sender with no seat of the game (a player writing from another
address) the seats of the game in turn.  A sender locked out of the game
gets its password refused without it being checked; the reply says until
when.  The lock-out that a wrong password begins is told to the game's game
masters, once.  Comparisons are constant-time (:func:`bot.core.people.seat_secrets.check_secret`);
no secret is ever logged.
"""

from __future__ import annotations

import logging

from bot.core.commands.context import CommandContext
from bot.core.model.outcomes import NOTICE, Message, Outcome, ToGameMasters
from bot.core.people.guessing import Locked, count_right, count_wrong, exempt, lock_in_force
from bot.core.people.seat_secrets import check_secret, hash_secret, needs_rehash
from bot.store.models import Game, Seat

log = logging.getLogger(__name__)

SEAT = "seat"
GAME_MASTER = "game master"


def seat_by_password(ctx: CommandContext, game: Game, own: Seat | None, password: str) -> Seat | None:
    """The seat ``password`` opens for the sender, or None after the refusal was put in the reply.

    ``own``: the sender's seat in ``game``, if any; the password is then checked against it alone.
    """
    guarded = not exempt(ctx.envelope.trust, own is not None)
    if guarded and _refused_while_locked(ctx, game, SEAT):
        return None
    key = ctx.config.secret_key
    candidates = [own] if own is not None else list(game.seats)
    seat = next((s for s in candidates if check_secret(password, s.secret_hash, key)), None)
    if seat is None:
        log.warning(
            "wrong seat password for %s from %s", game.slug, ctx.envelope.sender.address, extra={"game": game.slug}
        )
        ctx.reply.problem("", "wrong_password", game=game.slug)  # the form names the password line
        if guarded:
            _count_wrong(ctx, game, SEAT)
        return None
    if guarded:
        count_right(ctx.session, game.id, ctx.envelope.sender)
    if needs_rehash(seat.secret_hash):  # just proven right: store it in the fast keyed form
        seat.secret_hash = hash_secret(password, key)
    return seat


def gm_password_proven(ctx: CommandContext, game: Game) -> bool:
    """Whether the envelope's password is ``game``'s GM password; the caller has found the sender a GM of it.

    False, with the refusal in the reply, when the sender is locked out; a
    wrong password is counted (the caller refuses it).
    """
    password = ctx.envelope.password
    guarded = not exempt(ctx.envelope.trust, True) and bool(password)
    if guarded and _refused_while_locked(ctx, game, GAME_MASTER):
        return False
    proven = bool(password) and check_secret(password or "", game.gm_secret_hash or "", ctx.config.secret_key)
    if guarded and proven:
        count_right(ctx.session, game.id, ctx.envelope.sender)
    elif guarded:
        log.warning(
            "wrong game master password for %s from %s", game.slug, ctx.envelope.sender.address,
            extra={"game": game.slug},
        )  # fmt: skip
        _count_wrong(ctx, game, GAME_MASTER)
    return proven


def _refused_while_locked(ctx: CommandContext, game: Game, which: str) -> bool:
    locked = lock_in_force(ctx.session, game.id, ctx.envelope.sender, ctx.now)
    if locked is None:
        return False
    log.warning(
        "%s password for %s from %s not checked: locked out until %s", which, game.slug,
        ctx.envelope.sender.address, locked.until.isoformat(), extra={"game": game.slug},
    )  # fmt: skip
    ctx.reply.problem("", "password_locked", game=game.slug, until=locked.until.isoformat(), time_zone=game.time_zone)
    return True


def _count_wrong(ctx: CommandContext, game: Game, which: str) -> None:
    locked = count_wrong(ctx.session, game.id, ctx.envelope.sender, ctx.now)
    if locked is not None:
        _tell_game_masters(ctx, game, which, locked)


def _tell_game_masters(ctx: CommandContext, game: Game, which: str, locked: Locked) -> None:
    """The game masters hear of each lock-out once: it is begun by exactly one wrong password."""
    sender = ctx.envelope.sender
    log.warning(
        "%s locked out of %s until %s after wrong %s passwords", sender.address, game.slug, locked.until.isoformat(),
        which, extra={"game": game.slug},
    )  # fmt: skip
    data = {
        "game": game.slug, "which": which, "channel": sender.channel, "sender": sender.address,
        "until": locked.until.isoformat(), "time_zone": game.time_zone, "lockouts": locked.lockouts,
    }  # fmt: skip
    key = f"locked:{ctx.envelope.source_id}:{game.id}"
    ctx.delivery.send(Outcome(ToGameMasters(game.id), Message("password_locked", data), NOTICE, key, game.id))
