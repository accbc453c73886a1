"""The substitutes' commands: ``STANDBY`` (a player's standby list), a game master's ``SUBSTITUTE`` (put a
seat up, withdraw it, accept or decline who offered) and ``STAND IN``
(take over a seat that is up; not ``TAKE``, a word of Strike Gold's and Dragon Stripes' orders).

What an offer is, who is told and how a seat changes hands: :mod:`bot.core.turns.substitutes`.  Every
refusal is a clear answer that changes nothing: an unknown kind or seat, a seat not up, one spoken for, a
stale button, a sender the game's admission rule refuses (:mod:`bot.core.people.admission`, the rule of
``JOIN`` too: already seated, not invited to a game for invited players, below its minimum reliability),
and, above all, a sender the channel does not vouch for (their permission, ``VOUCHED``, checked by the
pipeline): ``STANDBY`` and ``STAND IN`` change what the referee sends to an address, and a forged From line
must not put a victim on a list or in a seat.  The game masters asked to accept a candidate are told the
channel and address the offer came from, not only the name its sender chose.
"""

from __future__ import annotations

from sqlalchemy import select

from adjudicator import registry
from bot.core.commands.admission import admitted
from bot.core.commands.context import CommandContext
from bot.core.commands.registry import DONE, REFUSED, SHOWN, Result, handles
from bot.core.games.stored import PAUSED, RUNNING
from bot.core.model import commands as c
from bot.core.model.outcomes import NOTICE, Message, Outcome, ToPlayer
from bot.core.people.identities import find_player, seat_of
from bot.core.turns.substitutes import (
    close_offer,
    hand_over,
    offer_data,
    offer_seat,
    set_standby,
    standby_kinds,
    tell_game_masters,
)
from bot.store.models import AuditEntry, Game, Player, Seat


@handles(c.ShowStandby)
def show_standby(ctx: CommandContext, command: c.ShowStandby) -> Result:
    player = find_player(ctx.session, ctx.envelope.sender)
    listed = standby_kinds(ctx.session, player.id) if player is not None else []
    ctx.reply.add("standby_list", kinds=listed, every=c.ANY_KIND in listed, known=list(registry.kinds()))
    return SHOWN


@handles(c.SetStandby)
def standby(ctx: CommandContext, command: c.SetStandby) -> Result:
    kinds = list(registry.kinds())
    shown = "ALL" if command.kind == c.ANY_KIND else command.kind
    line = f"STANDBY {'' if command.on else 'OFF '}{shown}"
    kind = command.kind if command.kind == c.ANY_KIND else command.kind.strip().lower().replace("_", "-")
    if kind != c.ANY_KIND and kind not in kinds:
        ctx.reply.problem(line, "unknown_kind", name=command.kind, kinds=[*kinds, "ALL"])
        return REFUSED
    player = ctx.sender_player()
    changed = set_standby(ctx.session, player.id, kind, command.on, ctx.now)
    ctx.reply.add("standby_set", kind=None if kind == c.ANY_KIND else kind, on=command.on, changed=changed,
                  kinds=standby_kinds(ctx.session, player.id))  # fmt: skip
    return DONE if changed else SHOWN


def _locked(ctx: CommandContext, seat: Seat) -> None:
    """Re-read ``seat`` under its row lock (``FOR UPDATE`` on PostgreSQL; SQLite writes one at a time), so
    two STAND INs, or one and a game master's answer, from two processes are applied one after the other:
    the second sees what the first did ("the first to ask has it")."""
    query = select(Seat).where(Seat.id == seat.id).with_for_update().execution_options(populate_existing=True)
    ctx.session.scalars(query).one()


def _on_offer(ctx: CommandContext, game: Game, seat: Seat, line: str) -> bool:
    _locked(ctx, seat)
    if seat.offered_at is not None:
        return True
    up = [s.name for s in game.seats if s.offered_at is not None]
    ctx.reply.problem(line, "seat_not_offered", game=game.slug, seat=seat.name, offered=up)
    return False


@handles(c.OfferSeat)
def offer(ctx: CommandContext, command: c.OfferSeat) -> Result:
    game = ctx.game
    action = command.action.strip().lower()
    line = f"SUBSTITUTE {game.slug} {command.seat}" + ("" if action == "offer" else f" {action.upper()}")
    if action not in c.OFFER_ACTIONS:
        ctx.reply.problem(line, "bad_offer_action", action=command.action, actions=list(c.OFFER_ACTIONS))
        return REFUSED
    seat = ctx.seat_named(game, command.seat, line)
    if seat is None:
        return REFUSED
    if game.status not in (RUNNING, PAUSED):
        ctx.reply.problem(line, "wrong_status", game=game.slug, status=game.status)
        return REFUSED
    if action == "offer":
        _locked(ctx, seat)
        if seat.offered_at is not None:
            ctx.reply.problem(line, "already_offered", game=game.slug, seat=seat.name)
            return REFUSED
        outcomes, told = offer_seat(ctx.session, game, seat, ctx.now, ctx.config, command.reason)
        ctx.delivery.send_all(outcomes)
        ctx.reply.add("seat_put_up", game=game.slug, seat=seat.name, told=told, auto=game.substitute_auto,
                      page=ctx.config.page_of(game.slug))  # fmt: skip
        return DONE
    if not _on_offer(ctx, game, seat, line):
        return REFUSED
    candidate = ctx.session.get(Player, seat.candidate_id) if seat.candidate_id is not None else None
    if action == "withdraw":
        close_offer(seat)
        if candidate is not None:
            _tell(ctx, candidate.id, "substitute_declined", game, seat, command.reason, withdrawn=True)
        ctx.reply.add("offer_withdrawn", game=game.slug, seat=seat.name)
        return DONE
    if candidate is None:
        ctx.reply.problem(line, "no_candidate", game=game.slug, seat=seat.name)
        return REFUSED
    if action == "decline":
        seat.candidate_id = None
        _tell(ctx, candidate.id, "substitute_declined", game, seat, command.reason, withdrawn=False)
        ctx.reply.add("substitute_declined", game=game.slug, seat=seat.name)
        return DONE
    other = seat_of(game, candidate)
    if other is not None and other is not seat:  # they joined otherwise meanwhile (a REPLACE)
        ctx.reply.problem(line, "candidate_seated", game=game.slug, seat=other.name)
        return REFUSED
    given = hand_over(ctx.session, game, seat, candidate, ctx.now, ctx.config, reason=command.reason, how="take",
                      key=f"{ctx.envelope.source_id}:{seat.name}")  # fmt: skip
    ctx.delivery.send_all(given.outcomes)
    ctx.reply.add("substitute_accepted", game=game.slug, seat=seat.name, name=candidate.display_name)
    return DONE


def _tell(ctx: CommandContext, player_id: int, template: str, game: Game, seat: Seat, reason: str,
          **extra: object) -> None:  # fmt: skip
    data = {**offer_data(game, seat, ctx.config.page_of(game.slug)), "reason": reason, **extra}
    key = f"{template}:{ctx.envelope.source_id}:{seat.name}"
    ctx.delivery.send(Outcome(ToPlayer(player_id), Message(template, data), NOTICE, key, game.id))


@handles(c.TakeSeat)
def take(ctx: CommandContext, command: c.TakeSeat) -> Result:
    line = f"STAND IN {command.game} {command.seat}"
    game = ctx.game_named(command.game, line)
    if game is None:
        return REFUSED
    seat = ctx.seat_named(game, command.seat, line)
    if seat is None:
        return REFUSED
    if game.status not in (RUNNING, PAUSED):  # a game that ended with a seat up has nothing to take over
        ctx.reply.problem(line, "wrong_status", game=game.slug, status=game.status)
        return REFUSED
    if not _on_offer(ctx, game, seat, line):
        return REFUSED
    if command.offer_round is not None and command.offer_round != seat.offer_round:
        ctx.reply.problem(line, "offer_stale", game=game.slug, seat=seat.name)
        return REFUSED
    found = admitted(ctx, game, line)
    if found is None:
        return REFUSED
    player, record = found
    if seat.candidate_id is not None:
        code = "take_pending" if seat.candidate_id == player.id else "seat_spoken_for"
        ctx.reply.problem(line, code, game=game.slug, seat=seat.name)
        return REFUSED
    # to the game masters only (never public): the address it came from, beside the name the sender chose
    data = {**offer_data(game, seat, ctx.config.page_of(game.slug)), "name": player.display_name,
            "channel": ctx.envelope.sender.channel, "address": ctx.envelope.sender.address, **record.as_data()}  # fmt: skip
    if not game.substitute_auto:
        seat.candidate_id = player.id
        ctx.delivery.send(tell_game_masters(game, "substitute_candidate", data,
                                            f"candidate:{ctx.envelope.source_id}:{seat.name}"))  # fmt: skip
        ctx.reply.add("take_waiting", game=game.slug, seat=seat.name)
        return DONE
    given = hand_over(ctx.session, game, seat, player, ctx.now, ctx.config, reason="", how="take",
                      key=f"{ctx.envelope.source_id}:{seat.name}")  # fmt: skip
    ctx.delivery.send_all(given.outcomes)
    ctx.delivery.send(tell_game_masters(game, "substitute_found", data, f"found:{ctx.envelope.source_id}:{seat.name}"))
    outcome = {"code": "seat_taken_over", "game": game.slug, "seat": seat.name}
    ctx.session.add(AuditEntry(  # announced in the next report, as a game master's REPLACE is
        game_id=game.id, actor=ctx.envelope.sender.address, channel=ctx.envelope.sender.channel,
        action=c.TakeSeat.__name__, reason="", detail={"command": c.TakeSeat.__name__, "arguments":
        {"game": game.slug, "seat": seat.name}, "outcome": [outcome]}, at=ctx.now,
    ))  # fmt: skip
    ctx.reply.add("seat_taken_over", game=game.slug, seat=seat.name)
    return DONE
