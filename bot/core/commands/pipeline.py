"""The command pipeline: authorise, apply, audit; the same for every channel.

An envelope enters cleaned (:func:`entering`): every text of every command
by its field's kind (:func:`bot.core.model.declaration.cleaned`), the
sender's display name and the adapter's notes, once, before anything reads
them (:mod:`bot.core.basics.free_text`: no control or bidi character is
kept, repeated or shown).  Then, for each command of the envelope, inside
the envelope's transaction:

1. **authorise** by the command's declared :class:`~bot.core.model.commands.Permission`:
   ``ANYONE`` runs; ``VOUCHED`` needs a sender the channel vouches for; ``SEAT`` needs the named game and a seat of it, found by the
   sender's identity when the channel's :class:`~bot.core.model.commands.Trust` is enough
   for the game's authentication, else by the seat password; ``GAME_MASTER``
   needs a game master of the named game (or the host), proven by the GM
   password unless the channel authenticated them; ``CREATOR`` needs someone
   the host allows to create games, VERIFIED or VOUCHED; ``HOST`` the host's
   command line.  Above ``ANYONE``, a CLAIMED sender (a bare From address) is
   never enough on its own: it needs the matching secret, and where there is
   none the refusal says the sender was not verified, and why.
   A refusal is a problem in the reply and a warning in the log, never an exception.
2. **apply** with the command's one handler (:mod:`bot.core.commands.registry`:
   the package refuses to load when a command of the model has none), which
   returns a :class:`~bot.core.commands.registry.Result`.
3. **audit** every command run with a game master's or the host's authority
   that the result says was done: who, from which channel, when, the command
   and its reason (``audit_log``; ``referee gm log``).  A seat opened by its
   password from another address: its player is told what was done or refused.
4. **settle** the game of every command whose result says it changed something:
   the rule "a complete turn resolves at once" (:mod:`bot.core.commands.turn_completion`),
   whatever the command was.
"""

from __future__ import annotations

import logging
from dataclasses import asdict, replace
from typing import Any, assert_never, get_args

from bot.core.basics.free_text import clean_line
from bot.core.commands import (
    game_admin,
    hosting,
    linking,
    orders,
    overrides,
    player,
    player_records,
    player_settings,
    presence,
    press,
    ready,
    substitutes,
)
from bot.core.commands.context import Authorised, CommandContext
from bot.core.commands.orders import tell_owner
from bot.core.commands.password_checks import gm_password_proven, seat_by_password
from bot.core.commands.registry import Result, check_complete, handler_for
from bot.core.commands.turn_completion import game_of, settle_turn
from bot.core.games.stored import find_game
from bot.core.messaging.announcements import check_announced
from bot.core.messaging.delivery import game_masters
from bot.core.model import commands as c
from bot.core.model.declaration import cleaned
from bot.core.people.identities import find_or_create_player, find_player, seat_of
from bot.store.models import AuditEntry, Game, Seat

log = logging.getLogger(__name__)

FAMILIES = (
    player,
    orders,
    hosting,
    game_admin,
    overrides,
    presence,
    linking,
    player_settings,
    press,
    ready,
    player_records,
    substitutes,
)
"""The modules of handlers, one per family of commands (importing them registers their handlers)."""
check_complete(get_args(c.Command))
check_announced(get_args(c.Command))

AUDITED = (c.Permission.GAME_MASTER, c.Permission.CREATOR, c.Permission.HOST)
UNKEPT = frozenset({"gm_secret", "secret", "seed", "orders", "standings", "items"})
"""Reply data the audit entry does not keep: secrets, and what is long or recorded elsewhere."""


def entering(envelope: c.Envelope) -> c.Envelope:
    """``envelope`` as the core takes it: each command's texts cleaned by their kind, the sender's display
    name made one clean line (empty: None), each of the adapter's notes one clean line.  The sender's
    address, the password and the reply context are the adapter's, and stay as they are."""
    sender = envelope.sender
    name = " ".join(clean_line(sender.display_name).split()) if sender.display_name else None
    return replace(
        envelope,
        sender=sender if name == sender.display_name else replace(sender, display_name=name or None),
        commands=tuple(cleaned(command) for command in envelope.commands),
        ignored=tuple(clean_line(note) for note in envelope.ignored),
    )


def handle_command(ctx: CommandContext, command: c.Command) -> None:
    """Authorise, apply and (for GM and host commands) audit one command."""
    granted = authorise(ctx, command)
    if granted is None:
        return
    items_before = len(ctx.reply.items)
    result: Result = handler_for(type(command))(ctx.granting(granted), command)
    if granted.elsewhere:
        tell_owner(ctx, granted, label(command), result.done)
    if command.declaration.permission in AUDITED and result.done:
        _audit(ctx, command, granted, ctx.reply.items[items_before:])
    if result.changed:
        game = game_of(ctx.granting(granted), command)
        if game is not None:
            settle_turn(ctx, game)


def label(command: c.Declared) -> str:
    """How a refusal names the command: its declared label and its game (``ORDERS gs1``)."""
    game = getattr(command, "game", None)
    words = command.declaration.label
    return f"{words} {game}" if game else words


def authorise(ctx: CommandContext, command: c.Command) -> Authorised | None:
    """What the command may act on, or None after the refusal was put in the reply and the log."""
    permission = command.declaration.permission
    if permission is c.Permission.ANYONE:
        return Authorised()
    line = label(command)
    envelope = ctx.envelope
    if permission is c.Permission.HOST:
        return Authorised() if envelope.as_host else _refuse(ctx, command, line, "host_only")
    if permission is c.Permission.VOUCHED:
        if envelope.trust is c.Trust.CLAIMED and not envelope.as_host:
            return _refuse(ctx, command, line, "sender_not_verified", reason=envelope.unverified_reason)
        return Authorised()
    if permission is c.Permission.CREATOR:
        allowed = envelope.as_host or envelope.may_create or envelope.sender.address in ctx.config.game_masters
        if not allowed:
            return _refuse(ctx, command, line, "not_a_creator")
        if envelope.trust is c.Trust.CLAIMED and not envelope.as_host:  # there is no secret that proves a creator
            return _refuse(ctx, command, line, "sender_not_verified", reason=envelope.unverified_reason)
        return Authorised()
    slug = getattr(command, "game", None)
    game = ctx.game_named(slug, line) if isinstance(slug, str) else None
    if game is None:
        return None
    if permission is c.Permission.GAME_MASTER:
        actor = find_player(ctx.session, envelope.sender)
        if envelope.as_host:
            return Authorised(game=game, actor=actor)
        if actor is None or actor.id not in {gm.id for gm in game_masters(ctx.session, game.id)}:
            return _refuse(ctx, command, line, "not_game_master", game=game.slug)
        # By a channel that does not authenticate people (mail), a GM command needs the GM password.
        if envelope.trust is not c.Trust.VERIFIED and game.gm_secret_hash is not None:
            problems = len(ctx.reply.problems)
            if not gm_password_proven(ctx, game):
                if len(ctx.reply.problems) > problems:  # locked out: already refused, unchecked
                    return None
                return _refuse(ctx, command, line, "needs_gm_password", game=game.slug)
        if envelope.trust is c.Trust.CLAIMED and game.gm_secret_hash is None:  # no secret to prove it with
            return _refuse(ctx, command, line, "sender_not_verified", reason=envelope.unverified_reason)
        return Authorised(game=game, actor=actor)
    if permission is c.Permission.SEAT:
        found = _authenticated_seat(ctx, game, line)
        if found is None:
            return None
        seat, elsewhere = found
        return Authorised(game=game, seat=seat, actor=seat.player, elsewhere=elsewhere)
    assert_never(permission)


def _refuse(ctx: CommandContext, command: c.Command, line: str, code: str, **data: Any) -> Authorised | None:
    """Put the refusal in the reply and the log; returns None (nothing is authorised)."""
    log.warning(
        "refused %s from %s:%s (%s)", type(command).__name__, ctx.envelope.sender.channel, ctx.envelope.sender.address,
        code,
    )  # fmt: skip
    ctx.reply.problem(line, code, **data)
    return None


def identity_suffices(game: Game, trust: c.Trust) -> bool:
    """Whether the sender's identity alone authenticates a seat (see :class:`bot.core.model.commands.Trust`).

    A password game takes identity only from a channel that authenticated the
    person (VERIFIED); an address-only game also from one the receiving server
    vouches for (VOUCHED).  Anything less needs the seat password.
    """
    if trust is c.Trust.VERIFIED:
        return True
    return game.auth_mode == "address" and trust is c.Trust.VOUCHED


def _unverified(game: Game, envelope: c.Envelope) -> str:
    """Why an address-only game asks for the password: the adapter's reason the sender was not vouched for."""
    return envelope.unverified_reason if game.auth_mode == "address" and envelope.trust is c.Trust.CLAIMED else ""


def _authenticated_seat(ctx: CommandContext, game: Game, line: str) -> tuple[Seat, bool] | None:
    """The seat the command is for, and whether the sender is not its player (a password from elsewhere).

    By the seat password (:func:`bot.core.commands.password_checks.seat_by_password`),
    else by the sender's identity where that suffices.
    """
    envelope = ctx.envelope
    player = find_or_create_player(ctx.session, envelope.sender, ctx.now)
    own = seat_of(game, player)
    if envelope.password:
        seat = seat_by_password(ctx, game, own, envelope.password)
        return None if seat is None else (seat, seat is not own)
    if own is None:
        ctx.reply.problem(line, "no_seat", game=game.slug)
        return None
    if not identity_suffices(game, envelope.trust):
        ctx.reply.problem(line, "needs_password", game=game.slug, reason=_unverified(game, envelope))
        return None
    return own, False


def _audit(ctx: CommandContext, command: c.Command, granted: Authorised, outcome: list[dict[str, Any]]) -> None:
    """Write the audit entry; ``outcome`` (the reply's items for the command: the moved deadline, the turn
    processed...) is kept with the arguments, for the next report to say what was done."""
    game = granted.game
    slug = getattr(command, "game", None)
    if game is None and isinstance(slug, str):
        game = find_game(ctx.session, slug)  # a game the command created
    kept = [{k: v for k, v in item.items() if k not in UNKEPT} for item in outcome]
    detail = {"command": type(command).__name__, "arguments": _plain(asdict(command)), "outcome": _plain(kept)}
    ctx.session.add(
        AuditEntry(
            game_id=game.id if game is not None else None,
            actor=ctx.envelope.sender.address,
            channel=ctx.envelope.sender.channel,
            action=type(command).__name__,
            reason=str(getattr(command, "reason", "") or ""),
            detail=detail,
            at=ctx.now,
        )
    )


def _plain(value: Any) -> Any:
    """JSON-able copy of command arguments."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    return str(value)
