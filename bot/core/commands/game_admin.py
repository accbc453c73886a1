"""Game masters' administration of a game: joining, ending, options, co-GMs, broadcasts, the log."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import select

from adjudicator.api import GameError
from adjudicator.options import resolve_options
from bot.core.basics.engine_words import reason
from bot.core.basics.free_text import clean_line
from bot.core.commands.context import CommandContext
from bot.core.commands.registry import DONE, REFUSED, SHOWN, Result, handles
from bot.core.games.calendar_entry import deadline_entry
from bot.core.games.stored import ABANDONED, FINISHED, FORMING, PAUSED, RUNNING, rules_of, state_of
from bot.core.model import commands as c
from bot.core.model.outcomes import NOTICE, REPORT, Message, Outcome, ToPlayer, ToPublic
from bot.core.people.identities import find_or_create_player
from bot.core.people.languages import ENGLISH, LANGUAGES, UnknownLanguage, parse_language
from bot.store.models import AuditEntry, GameMaster


@handles(c.SetJoining)
def set_joining(ctx: CommandContext, command: c.SetJoining) -> Result:
    game = ctx.game
    if game.status != FORMING:
        ctx.reply.problem(f"JOINING {game.slug}", "wrong_status", game=game.slug, status=game.status)
        return REFUSED
    game.joining_open = command.open
    ctx.reply.add("joining", game=game.slug, open=command.open)
    return DONE


@handles(c.EndGame)
def end(ctx: CommandContext, command: c.EndGame) -> Result:
    game = ctx.game
    if game.status in (FINISHED, ABANDONED):
        ctx.reply.problem(f"END {game.slug}", "wrong_status", game=game.slug, status=game.status)
        return REFUSED
    standings = []
    if game.state is not None and not command.abandon:
        standings = [{"place": s.place, "seat": s.seat} for s in rules_of(game).standings(state_of(game))]
    game.status = ABANDONED if command.abandon else FINISHED
    game.finished_at = ctx.now
    game.deadline_at = None
    game.resolve_at = None
    game.grace_until = None  # nothing waits any more: no grace, no timed pause to resume
    game.paused_until = None
    data = {"game": game.slug, "abandoned": command.abandon, "reason": command.reason, "standings": standings,
            "seed": game.seed}  # fmt: skip
    ctx.reply.add("ended", **data)
    data["calendar"] = deadline_entry(game, ctx.config, ctx.now)
    key = f"ended:{game.slug}:{game.generation}"  # a game rolled back after its end may end again
    ctx.delivery.send(Outcome(ToPublic(game.id), Message("ended", data), REPORT, key, game.id))
    for seat in game.seats:
        ctx.delivery.send(Outcome(ToPlayer(seat.player_id, seat.name), Message("ended", data), REPORT, key,
                                  game.id))  # fmt: skip
    return DONE


@handles(c.SetOption)
def set_option(ctx: CommandContext, command: c.SetOption) -> Result:
    game = ctx.game
    line = f"OPTION {game.slug} {command.name}"
    if game.status != FORMING:
        ctx.reply.problem(line, "options_fixed", game=game.slug)
        return REFUSED
    try:
        value: Any = json.loads(command.value)
    except json.JSONDecodeError:
        value = command.value
    try:
        options = resolve_options(rules_of(game).options(), {**game.options, command.name: value})
    except (GameError, ValueError) as exc:
        ctx.reply.problem(line, "bad_game_settings", reason=reason(exc))
        return REFUSED
    before = game.options.get(command.name)
    game.options = options
    data = {"game": game.slug, "name": command.name, "before": before, "after": options.get(command.name)}
    ctx.reply.add("option_set", **data)
    told = {**data, "reason": command.reason}
    for seat in game.seats:  # who joined already: the game they joined changed
        ctx.delivery.send(Outcome(ToPlayer(seat.player_id, seat.name), Message("option_changed", told), NOTICE,
                                  f"option:{ctx.envelope.source_id}:{seat.name}", game.id))  # fmt: skip
    return DONE


@handles(c.SetGameLanguage)
def set_game_language(ctx: CommandContext, command: c.SetGameLanguage) -> Result:
    """The game's default language (``games.language``): its players who chose none are told in it."""
    game = ctx.game
    if command.language.strip().upper() == "OFF":
        game.language = None
    else:
        try:
            code = parse_language(command.language)
        except UnknownLanguage as error:
            ctx.reply.problem(f"SET LANGUAGE {game.slug} {command.language}", "unknown_language", reason=reason(error))
            return REFUSED
        game.language = None if code == ENGLISH else code
    code = game.language or ENGLISH
    ctx.reply.add("game_language_set", game=game.slug, language=code, name=LANGUAGES[code])
    return DONE


@handles(c.AddGameMaster)
def add_game_master(ctx: CommandContext, command: c.AddGameMaster) -> Result:
    game = ctx.game
    newcomer = find_or_create_player(ctx.session, c.Sender(command.channel, command.address.strip()), ctx.now)
    present = ctx.session.get(GameMaster, (game.id, newcomer.id)) is not None or newcomer.id == game.gm_player_id
    if command.hand_over:
        previous = game.gm_player_id
        game.gm_player_id = newcomer.id
        if present and (row := ctx.session.get(GameMaster, (game.id, newcomer.id))) is not None:
            ctx.session.delete(row)
        if previous is not None and previous != newcomer.id:
            ctx.delivery.send(Outcome(ToPlayer(previous), Message("gm_handed_over", {"game": game.slug,
                                       "to": command.address}), NOTICE, f"handover:{ctx.envelope.source_id}",
                                       game.id))  # fmt: skip
    elif not present:
        ctx.session.add(GameMaster(game_id=game.id, player_id=newcomer.id))
    ctx.session.flush()
    message = Message("gm_added", {"game": game.slug, "hand_over": command.hand_over, "reason": command.reason})
    ctx.delivery.send(Outcome(ToPlayer(newcomer.id), message, NOTICE, f"gm:{ctx.envelope.source_id}", game.id))
    ctx.reply.add("gm_added", game=game.slug, address=command.address, hand_over=command.hand_over)
    return DONE


@handles(c.Broadcast)
def broadcast(ctx: CommandContext, command: c.Broadcast) -> Result:
    game = ctx.game
    data = {"game": game.slug, "text": command.text, "from": ctx.envelope.sender.display_name or "the game master"}
    key = f"broadcast:{ctx.envelope.source_id}"
    ctx.delivery.send(Outcome(ToPublic(game.id), Message("broadcast", data), REPORT, key, game.id))
    for seat in game.seats:
        ctx.delivery.send(Outcome(ToPlayer(seat.player_id, seat.name), Message("broadcast", data), REPORT, key,
                                   game.id))  # fmt: skip
    ctx.reply.add("broadcast_sent", game=game.slug, seats=len(game.seats))
    return DONE


@handles(c.ShowLog)
def show_log(ctx: CommandContext, command: c.ShowLog) -> Result:
    game = ctx.game
    ctx.reply.add("audit_log", game=game.slug, time_zone=game.time_zone, entries=audit_log(ctx, game.id))
    return SHOWN


def audit_log(ctx: CommandContext, game_id: int) -> list[dict[str, Any]]:
    """The game's audit entries, oldest first, as plain data (a reason logged before every reason was
    cleaned as it entered is cleaned here: ``referee gm log`` prints it on the host's terminal)."""
    rows = ctx.session.scalars(select(AuditEntry).where(AuditEntry.game_id == game_id).order_by(AuditEntry.id)).all()
    return [
        {"at": r.at.isoformat(), "actor": r.actor, "channel": r.channel, "action": r.action,
         "reason": clean_line(r.reason),
         "detail": r.detail}
        for r in rows
    ]  # fmt: skip


STATUSES = (FORMING, RUNNING, PAUSED, FINISHED, ABANDONED)
