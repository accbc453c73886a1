"""Press between players, relayed by the referee: ``PRESS``, ``PRESS ... REPLY``, ``PRESS ... MUTE``.

What njudge and DPjudge call white and grey press.  A game's ``press`` setting
says what it allows: ``none``, ``white`` (every message names its sender's
seat) or ``grey`` (a sender may also write anonymously).  The default is
``white``: a player who is named answers for what they write, and a game
master turns grey press on when the game wants intrigue.

* Only a seat of the game that has not resigned sends press, once the game has
  started; after the game ends press stays open (post-game press, for the
  talk after a game), and ``none`` then counts as ``white``: there is nothing
  left for press to change, and players want to compare notes.
* Recipients are seats.  A recipient sees the sender's seat name, or
  "Anonymous"; never an address or a Discord id.  An anonymous message does not
  list its other recipients either (who is missing from ``TO ALL`` is the
  sender): it says how many other seats it was sent to (sent to, not reached: a
  count that fell when one of them muted the sender would tell the others so).
  Whoever replies to it is not told whether its sender's mutes let the reply
  through (a reply refused by the sender of a code, beside press refused by a
  seat by name, would say who the sender is).
* Each message has a short code (``P7K2``, :mod:`bot.core.commands.press_rules`)
  in its subject; ``PRESS <game> REPLY <code>`` from one of its recipients
  reaches its sender, anonymous or not, and the sender is never named to them.
* A recipient mutes a seat's signed press with ``PRESS <game> MUTE <seat>``, and
  the anonymous press of a message's sender with ``PRESS <game> MUTE <code>``;
  muted press does not reach them, and its sender is told that it did not.  The
  two kinds never mix: a mute by code that stopped its sender's signed press
  would let the muter watch whose signed press stops reaching them (and the
  others watch whose copies leave the muter out, the sender be told "Not
  delivered", the next report announce what the muter never got): an oracle of
  who wrote anonymously.  So a mute by code stops anonymous press only, and a
  mute by name signed press only.
* Each player sends at most :data:`~bot.core.commands.press_rules.PRESS_PER_HOUR`
  messages an hour and :data:`~bot.core.commands.press_rules.PRESS_PER_DAY` a
  day in a game; a text over the bounds is refused whole.
* The game masters get a copy naming the sender (``press_gm_copies``, on by
  default): a game master moderates the game.  A game master who also holds a
  seat of the game gets no copy of anonymous press, which would unmask its sender.
* The text is kept (``press_messages.text``, and the exported record,
  :func:`bot.core.turns.press_announcements.press_of_record`) only when the game says so
  (``press_in_record``); otherwise it rests only in the unsent outbox rows, as a
  :class:`~bot.core.model.secret_values.Secret` their sending removes.  Public
  signed press (``TO ALL`` without ``ANON``) is kept until the next report
  announces it (:func:`bot.core.turns.press_announcements.public_press_since`).

Delivery is the core's (:class:`~bot.core.model.outcomes.ToPlayer`): every
channel linked to a recipient gets the message.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import func, select

from bot.core.commands.context import CommandContext
from bot.core.commands.press_rules import (
    MAX_PRESS_CHARS,
    MAX_PRESS_LINES,
    MAX_RECIPIENTS_NAMED,
    PRESS_PER_DAY,
    PRESS_PER_HOUR,
    clean_text,
    new_code,
    read_code,
    too_big,
)
from bot.core.commands.registry import DONE, REFUSED, Result, handles
from bot.core.games.stored import ABANDONED, FINISHED, FORMING
from bot.core.messaging.delivery import game_master_ids
from bot.core.model import commands as c
from bot.core.model.outcomes import NOTICE, Message, Outcome, ToPlayer
from bot.core.model.secret_values import Secret
from bot.store.models import Game, PressMessage, PressMute, Seat

NONE, WHITE, GREY = "none", "white", "grey"


def press_mode(game: Game) -> str:
    """The press the game allows now: its setting, except that a finished game's ``none`` is ``white``."""
    mode = game.press or WHITE
    return WHITE if mode == NONE and game.status in (FINISHED, ABANDONED) else mode


def _line(game: Game, word: str = "") -> str:
    return f"PRESS {game.slug}{' ' + word if word else ''}"


def _may_send(ctx: CommandContext, game: Game, seat: Seat, line: str, anonymous: bool) -> bool:
    """Whether ``seat`` may send press now (anonymously when asked); the refusal is put in the reply."""
    mode = press_mode(game)
    refusal: tuple[str, dict[str, Any]] | None = None
    if game.status == FORMING:
        refusal = "press_not_started", {"game": game.slug}
    elif seat.resigned:
        refusal = "press_resigned", {"game": game.slug}
    elif mode == NONE:
        refusal = "press_off", {"game": game.slug}
    elif anonymous and mode != GREY:
        refusal = "press_not_grey", {"game": game.slug}
    else:
        sent = _sent_since(ctx, game, seat)
        if sent[0] >= PRESS_PER_HOUR:
            refusal = "press_rate", {"game": game.slug, "limit": PRESS_PER_HOUR, "per": "hour"}
        elif sent[1] >= PRESS_PER_DAY:
            refusal = "press_rate", {"game": game.slug, "limit": PRESS_PER_DAY, "per": "24 hours"}
    if refusal is not None:
        ctx.reply.problem(line, refusal[0], **refusal[1])
        return False
    return True


def _sent_since(ctx: CommandContext, game: Game, seat: Seat) -> tuple[int, int]:
    """How many press messages ``seat``'s player sent in ``game`` in the last hour and the last 24 hours."""
    hour, day = ctx.now - timedelta(hours=1), ctx.now - timedelta(days=1)
    query = select(
        func.count().filter(PressMessage.sent_at > hour), func.count()
    ).where(PressMessage.game_id == game.id, PressMessage.sender_player_id == seat.player_id,
            PressMessage.sent_at > day)  # fmt: skip
    in_hour, in_day = ctx.session.execute(query).one()
    return int(in_hour), int(in_day)


def _checked_text(ctx: CommandContext, line: str, text: str) -> str | None:
    cleaned = clean_text(text)
    if not cleaned.strip():
        ctx.reply.problem(line, "press_empty")
        return None
    over = too_big(cleaned)
    if over is not None:
        ctx.reply.problem(line, "press_too_long", what=over[0], found=over[1], max_chars=MAX_PRESS_CHARS,
                          max_lines=MAX_PRESS_LINES)  # fmt: skip
        return None
    return cleaned


def _seat_named(game: Game, name: str) -> Seat | None:
    wanted = " ".join(name.split()).casefold()
    return next((seat for seat in game.seats if seat.name.casefold() == wanted), None)


def _recipients(ctx: CommandContext, game: Game, sender: Seat, to: tuple[str, ...], line: str) -> list[Seat] | None:
    """The seats ``to`` names (every other seat for ``ALL``), or None after the refusal."""
    others = [seat for seat in game.seats if seat.id != sender.id and not seat.resigned]
    if tuple(name.upper() for name in to) == (c.EVERY_SEAT,):
        found = others
    elif not to or len(to) > MAX_RECIPIENTS_NAMED:
        ctx.reply.problem(line, "press_no_recipients", game=game.slug, seats=[s.name for s in others])
        return None
    else:
        found = []
        for name in to:
            seat = _seat_named(game, name)
            if seat is None or seat.id == sender.id or seat.resigned:
                problem = "press_self" if seat is not None and seat.id == sender.id else "press_unknown_seat"
                ctx.reply.problem(line, problem, game=game.slug, seat=name[:40], seats=[s.name for s in others])
                return None
            if seat not in found:
                found.append(seat)
    if not found:
        ctx.reply.problem(line, "press_no_recipients", game=game.slug, seats=[])
        return None
    return found


def _muted_by(ctx: CommandContext, game: Game, sender: Seat, anonymous: bool) -> set[int]:
    """The seats of ``game`` that muted ``sender``'s anonymous press (``anonymous``), or its signed press."""
    kind = PressMute.anonymous if anonymous else PressMute.signed
    query = select(PressMute.seat_id).where(PressMute.game_id == game.id, PressMute.muted_seat_id == sender.id,
                                            kind.is_(True))  # fmt: skip
    return set(ctx.session.scalars(query))


def _fresh_code(ctx: CommandContext, game: Game) -> str:
    taken = set(ctx.session.scalars(select(PressMessage.code).where(PressMessage.game_id == game.id)))
    code = new_code()
    while code in taken:
        code = new_code()
    return code


def _relay(
    ctx: CommandContext,
    game: Game,
    sender: Seat,
    recipients: list[Seat],
    text: str,
    *,
    anonymous: bool,
    public: bool,
    answering: str | None = None,
) -> tuple[str, list[Seat], list[Seat]]:
    """Send ``text`` from ``sender`` to ``recipients`` (those who muted that kind of the sender's press left
    out), with the GMs' copies; returns the new message's code, the seats reached and the seats that muted it."""
    muted = _muted_by(ctx, game, sender, anonymous)
    reached = [seat for seat in recipients if seat.id not in muted]
    skipped = [seat for seat in recipients if seat.id in muted]
    code = _fresh_code(ctx, game)
    keep = game.press_in_record or (public and not anonymous)
    ctx.session.add(PressMessage(
        game_id=game.id, code=code, sender_seat_id=sender.id, sender_player_id=sender.player_id,
        recipients=[seat.name for seat in reached], anonymous=anonymous, public=public, sent_at=ctx.now,
        text=text if keep else None,
    ))  # fmt: skip
    shown: str = text if game.press_in_record else Secret(text)
    common = {"game": game.slug, "code": code, "text": shown, "at": ctx.now.isoformat(), "time_zone": game.time_zone,
              "answering": answering, "public": public,
              "others": max(len(recipients if anonymous else reached) - 1, 0)}  # fmt: skip
    signed = None if anonymous else {"sender": sender.name, "to": [seat.name for seat in reached]}
    data: dict[str, Any] = {**common, "sender": None, "to": None, **(signed or {})}
    key = f"press:{game.slug}:{code}"
    outcomes = [Outcome(ToPlayer(seat.player_id, seat.name), Message("press", data), NOTICE, key, game.id)
                for seat in reached]  # fmt: skip
    if game.press_gm_copies and reached:
        seated = {seat.player_id for seat in game.seats}
        copy = Message("press_gm_copy", {**common, "sender": sender.name, "to": [s.name for s in reached],
                                         "anonymous": anonymous, "muted": [s.name for s in skipped]})  # fmt: skip
        for gm_id in game_master_ids(ctx.session, game.id):
            if anonymous and gm_id in seated:
                continue  # a GM who plays would learn who wrote anonymously
            outcomes.append(Outcome(ToPlayer(gm_id), copy, NOTICE, f"{key}:gm", game.id))
    ctx.delivery.send_all(outcomes)
    return code, reached, skipped


@handles(c.SendPress)
def send_press(ctx: CommandContext, command: c.SendPress) -> Result:
    game, seat = ctx.game, ctx.granted.seat
    assert seat is not None
    line = _line(game)
    if not _may_send(ctx, game, seat, line, command.anonymous):
        return REFUSED
    text = _checked_text(ctx, line, command.text)
    recipients = None if text is None else _recipients(ctx, game, seat, command.to, line)
    if text is None or recipients is None:
        return REFUSED
    public = tuple(name.upper() for name in command.to) == (c.EVERY_SEAT,)
    code, reached, skipped = _relay(ctx, game, seat, recipients, text, anonymous=command.anonymous, public=public)
    ctx.reply.add("press_sent", game=game.slug, ref=code, to=[s.name for s in reached],
                  muted=[s.name for s in skipped], anonymous=command.anonymous, public=public)  # fmt: skip
    return DONE


def _received(ctx: CommandContext, game: Game, seat: Seat, code_text: str) -> PressMessage | None:
    """The message of ``game`` with that code that ``seat`` received, or None (also for a code it did not get)."""
    code = read_code(code_text)
    if code is None:
        return None
    found = ctx.session.scalar(select(PressMessage).where(PressMessage.game_id == game.id, PressMessage.code == code))
    return found if found is not None and seat.name in (found.recipients or []) else None


@handles(c.ReplyPress)
def reply_press(ctx: CommandContext, command: c.ReplyPress) -> Result:
    game, seat = ctx.game, ctx.granted.seat
    assert seat is not None
    line = _line(game, "REPLY " + command.code[:8])
    if not _may_send(ctx, game, seat, line, command.anonymous):
        return REFUSED
    original = _received(ctx, game, seat, command.code)
    if original is None:
        ctx.reply.problem(line, "press_unknown_code", game=game.slug, ref=command.code[:8])
        return REFUSED
    text = _checked_text(ctx, line, command.text)
    if text is None:
        return REFUSED
    target = ctx.session.get_one(Seat, original.sender_seat_id)
    code, reached, _ = _relay(ctx, game, seat, [target], text, anonymous=command.anonymous, public=False,
                              answering=original.code)  # fmt: skip
    # to an anonymous sender, whether their mutes let the reply through is not told: "not delivered" from the
    # sender of a code, beside "not delivered" from a seat by name, would say who wrote it
    ctx.reply.add("press_replied", game=game.slug, ref=code, answering=original.code,
                  reached=None if original.anonymous else bool(reached), anonymous=command.anonymous)  # fmt: skip
    return DONE


def _set_mute(ctx: CommandContext, game: Game, seat: Seat, muted_id: int, *, anonymous: bool, on: bool) -> None:
    """Mute (``on``) or unmute, for ``seat``, one kind of the press of the seat ``muted_id``: its anonymous
    press (``anonymous``: asked by a message's code) or its signed press (asked by its name).  The answer is
    the same whether anything changed or not: muting a second code of the same sender, or one already muted,
    must not say that both codes are one sender's."""
    row = ctx.session.get(PressMute, (game.id, seat.id, muted_id))
    if row is None:
        if not on:
            return
        row = PressMute(game_id=game.id, seat_id=seat.id, muted_seat_id=muted_id, signed=False, anonymous=False)
        ctx.session.add(row)
    if anonymous:
        row.anonymous = on
    else:
        row.signed = on
    if not row.signed and not row.anonymous:
        ctx.session.delete(row)


@handles(c.MutePress)
def mute_press(ctx: CommandContext, command: c.MutePress) -> Result:
    game, seat = ctx.game, ctx.granted.seat
    assert seat is not None
    line = _line(game, ("MUTE " if command.mute else "UNMUTE ") + command.who[:40])
    named = _seat_named(game, command.who)
    by_code = None if named is not None else _received(ctx, game, seat, command.who)
    if named is not None and named.id == seat.id:
        ctx.reply.problem(line, "press_self", game=game.slug, seat=named.name, seats=[])
        return REFUSED
    if named is None and by_code is None:
        ctx.reply.problem(line, "press_unknown_who", game=game.slug, who=command.who[:40],
                          seats=[s.name for s in game.seats if s.id != seat.id])  # fmt: skip
        return REFUSED
    muted_id = named.id if named is not None else by_code.sender_seat_id  # type: ignore[union-attr]
    _set_mute(ctx, game, seat, muted_id, anonymous=named is None, on=command.mute)
    who = named.name if named is not None else None
    code = None if by_code is None else by_code.code
    ctx.reply.add("press_muted", game=game.slug, seat=who, ref=code, mute=command.mute)
    return DONE
