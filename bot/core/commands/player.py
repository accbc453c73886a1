"""Player commands that change no orders: help, rules, list, join, status, resign.

Mistakes (an unknown game, a full game, a taken name) are problems in the
reply; nothing here raises for them.  Every answer is a phrase code with
plain data (:mod:`bot.core.commands.replies`).
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import selectinload

from adjudicator import registry
from bot.core.basics import linear
from bot.core.basics.display_width import display_width
from bot.core.basics.markdown_text import markdown_text
from bot.core.commands.admission import admitted
from bot.core.commands.context import CommandContext
from bot.core.commands.player_settings import calendar_address
from bot.core.commands.registry import DONE, REFUSED, SHOWN, Result, handles
from bot.core.games.facts import facts_of
from bot.core.games.stored import FINISHED, FORMING, current_orders, find_game, rules_of, seat_limit, state_of
from bot.core.model import commands as c
from bot.core.model.declaration import game_master_help
from bot.core.model.outcomes import NOTICE, Message, Outcome, ToGameMasters
from bot.core.model.secret_values import Secret
from bot.core.people.identities import chosen_name, find_player, seat_of
from bot.core.people.reliability import (
    RESIGNED,
    leave_seat,
    seat_figures,
    take_seat,
)
from bot.core.people.seat_secrets import hash_secret, new_secret
from bot.core.turns.game_record import export_record
from bot.core.turns.ready_checks import begin_ready_check, cancel_ready_check
from bot.resources import rules_page
from bot.store.models import Game, GameMaster, Seat, TurnRecord

_SEAT_NAME = linear.compile(r"^[\w][\w .'-]{0,39}$")
SEAT_NAME_COLUMNS = 40
"""The most columns a seat name may take (:func:`bot.core.basics.display_width.display_width`: a CJK or
fullwidth letter takes two), so that the reports' name columns and legends fit in 78."""


def seat_name_allowed(name: str) -> bool:
    """Letters, digits, spaces, ``_ . ' -``, a letter or digit first, at most :data:`SEAT_NAME_COLUMNS` columns."""
    return _SEAT_NAME.match(name) is not None and display_width(name) <= SEAT_NAME_COLUMNS


def _iso(moment: object) -> str | None:
    return None if moment is None else moment.isoformat()  # type: ignore[attr-defined]


@handles(c.ShowHelp)
def show_help(ctx: CommandContext, command: c.ShowHelp) -> Result:
    name = command.game
    if name is None or (name == "gm" and find_game(ctx.session, name) is None):
        game_master = name == "gm" or _runs_games(ctx)
        listing = {"gm_commands": list(game_master_help())} if game_master else {}
        ctx.reply.add("help", kinds=list(registry.kinds()), game_master=game_master, **listing)
        return SHOWN
    game = find_game(ctx.session, name)
    kind = game.kind if game is not None else name
    try:
        rules = registry.get_rules(kind)
    except registry.UnknownGame:
        ctx.reply.problem(f"HELP {name}", "unknown_kind", name=name, kinds=list(registry.kinds()))
        return REFUSED
    options = game.options if game is not None else None
    shown = game.slug if game is not None else None
    ctx.reply.add("game_help", title=rules.title, game=shown, text=rules.help_text(options))
    return SHOWN


def _runs_games(ctx: CommandContext) -> bool:
    """Whether the sender may create games or is a game master of one (HELP then lists the GM commands)."""
    if ctx.envelope.sender.address in ctx.config.game_masters:
        return True
    player = find_player(ctx.session, ctx.envelope.sender)
    if player is None:
        return False
    if ctx.session.scalar(select(Game.id).where(Game.gm_player_id == player.id).limit(1)) is not None:
        return True
    return ctx.session.scalar(select(GameMaster.game_id).where(GameMaster.player_id == player.id).limit(1)) is not None


@handles(c.ListGames)
def list_games(ctx: CommandContext, command: c.ListGames) -> Result:
    """The games not finished, each with its facts (:func:`bot.core.games.facts.facts_of`): its status, seats,
    deadline, and whether it takes a JOIN (a full or closed game offers none)."""
    query = select(Game).where(Game.status != FINISHED).order_by(Game.slug).options(selectinload(Game.seats))
    games = ctx.session.scalars(query).all()
    figures = seat_figures(ctx.session, [g for g in games if g.status == FORMING])  # who can be counted on
    rows = []
    for g in games:
        facts = facts_of(ctx.session, g)
        rows.append({
            "game": g.slug, "title": facts.title, "status": facts.status, "seats": len(facts.seats),
            "max_seats": facts.seat_limit, "deadline": _iso(facts.deadline), "time_zone": g.time_zone,
            "paused_until": _iso(facts.paused_until), "joinable": facts.joinable,
            "holders": figures.get(g.id, []), "min_reliability": g.min_reliability,
        })  # fmt: skip
    ctx.reply.add("games", games=rows)
    return SHOWN


@handles(c.JoinGame)
def join(ctx: CommandContext, command: c.JoinGame) -> Result:
    line = f"JOIN {command.game}"
    game = ctx.game_named(command.game, line)
    if game is None:
        return REFUSED
    if game.status != FORMING:
        ctx.reply.problem(line, "not_joinable", game=game.slug, status=game.status)
        return REFUSED
    if not game.joining_open:
        ctx.reply.problem(line, "joining_closed", game=game.slug)
        return REFUSED
    found = admitted(ctx, game, line)  # who may sit down: the one rule of every way to a seat
    if found is None:
        return REFUSED
    player, record = found
    rules = rules_of(game)
    most = seat_limit(game)
    if len(game.seats) >= most:
        ctx.reply.problem(line, "game_full", game=game.slug, max_seats=most)
        return REFUSED
    name = (command.name or chosen_name(ctx.envelope.sender) or _numbered(game)).strip()
    if not seat_name_allowed(name):
        ctx.reply.problem(line, "bad_seat_name", name=name)
        return REFUSED
    if any(s.name.lower() == name.lower() for s in game.seats):
        ctx.reply.problem(line, "seat_name_taken", game=game.slug, name=name)
        return REFUSED
    secret = new_secret()
    seat = Seat(
        game=game, player=player, name=name, position=len(game.seats), secret_hash=hash_secret(secret, ctx.config.secret_key),
        resigned=False, joined_at=ctx.now,
    )  # fmt: skip
    ctx.session.add(seat)
    take_seat(ctx.session, game, name, player.id, ctx.now)
    ctx.session.flush()
    filled = len(game.seats) >= most
    if filled:
        begin_ready_check(game, ctx.now, ctx.delivery)
    ctx.reply.add(
        "joined", game=game.slug, title=rules.title, seat=name, number=len(game.seats),
        max_seats=most, secret=Secret(secret), auth=game.auth_mode, target=game.target_seats,
        min_seats=rules.min_seats, filled=filled, calendar=calendar_address(player, ctx.config),
        ready_until=_iso(game.ready_deadline_at) if filled else None, time_zone=game.time_zone,
    )  # fmt: skip
    joined = {"game": game.slug, "title": rules.title, "seat": name, "number": len(game.seats), "max_seats": most,
              "min_reliability": game.min_reliability, **record.as_data()}  # fmt: skip
    ctx.delivery.send(Outcome(ToGameMasters(game.id), Message("seat_joined", joined), NOTICE,
                               f"joined:{game.slug}:{ctx.envelope.source_id}", game.id))  # fmt: skip
    if filled:  # what happens next is the GM's START (after the ready check, if any): tell them
        data = {"game": game.slug, "title": rules.title, "seats": [s.name for s in game.seats],
                "ready_until": _iso(game.ready_deadline_at), "time_zone": game.time_zone,
                "round": game.ready_round}  # fmt: skip
        ctx.delivery.send(Outcome(ToGameMasters(game.id), Message("game_filled", data), NOTICE,
                                   _filled_key(game), game.id))  # fmt: skip
    return DONE


def _numbered(game: Game) -> str:
    """The name of a seat whose player gave none (no ``AS``, no display name of their own): ``Player``
    and its number (the first free one from the seat's), never anything from an address."""
    taken = {seat.name.casefold() for seat in game.seats}
    number = len(game.seats) + 1
    while f"player {number}" in taken:
        number += 1
    return f"Player {number}"


def _filled_key(game: Game) -> str:
    """One game_filled notice per fill: a game refilled after its ready check freed seats fills again."""
    return f"filled:{game.slug}:{game.generation}" + (f":{game.ready_round}" if game.ready_round else "")


@handles(c.ShowStatus)
def status(ctx: CommandContext, command: c.ShowStatus) -> Result:
    """The game's facts (:func:`bot.core.games.facts.facts_of`, what every surface shows), the sender's
    orders on file, the standings once it is over, and its last report."""
    game = ctx.game_named(command.game, f"STATUS {command.game}")
    if game is None:
        return REFUSED
    facts = facts_of(ctx.session, game)
    data: dict[str, object] = {
        "game": game.slug, "title": facts.title, "status": facts.status, "seats": list(facts.seats),
        "turn": facts.turn if facts.phase is not None else None, "phase": facts.phase,
        "deadline": _iso(facts.deadline), "resolves_at": _iso(facts.resolves_at),
        "paused_since": _iso(facts.paused_since), "paused_until": _iso(facts.paused_until),
        "time_zone": game.time_zone, "ordered": list(facts.ordered), "waiting": list(facts.waiting),
        "resigned": list(facts.resigned), "own_orders": None, "standings": [],
        "holders": seat_figures(ctx.session, [game])[game.id], "min_reliability": game.min_reliability,
    }  # fmt: skip
    if facts.phase is not None and facts.turn is not None:
        player = find_player(ctx.session, ctx.envelope.sender)
        own = seat_of(game, player) if player is not None else None
        if own is not None and own.name in facts.ordered:
            data["own_orders"] = current_orders(ctx.session, game, facts.turn)[own.name].canonical_text
    if game.status == FINISHED:
        data["standings"] = [{"place": s.place, "seat": s.seat} for s in rules_of(game).standings(state_of(game))]
    data["last_report"] = _last_report(ctx, game)
    ctx.reply.add("status", **data)
    return SHOWN


def _last_report(ctx: CommandContext, game: Game) -> dict[str, object] | None:
    """The public copy of the game's last report (squares, gems, scores), as HELP promises; None before one."""
    last = ctx.session.scalars(
        select(TurnRecord)
        .where(TurnRecord.game_id == game.id, TurnRecord.generation == game.generation)
        .order_by(TurnRecord.turn_number.desc())
        .limit(1)
    ).first()
    if last is None:
        return None
    return {"kind": game.kind, "turn": last.turn_number, "report": last.report,
            "events": [e["text"] for e in last.events], "seat": None, "private": None}  # fmt: skip


@handles(c.ShowRecord)
def record(ctx: CommandContext, command: c.ShowRecord) -> Result:
    """The sealed record of a finished game, as an attachment of the reply.

    Only a finished game has one: until the end its seed is secret.
    """
    line = f"RECORD {command.game}"
    game = ctx.game_named(command.game, line)
    if game is None:
        return REFUSED
    if game.status != FINISHED:
        ctx.reply.problem(line, "record_not_yet", game=game.slug, status=game.status)
        return REFUSED
    record = export_record(ctx.session, game)
    ctx.reply.add("record", game=game.slug, filename=f"{game.slug}-record.json", record=record)
    return SHOWN


@handles(c.Resign)
def resign(ctx: CommandContext, command: c.Resign) -> Result:
    game, seat = ctx.granted.game, ctx.granted.seat
    assert game is not None and seat is not None  # Permission.SEAT
    leave_seat(ctx.session, game, seat.name, ctx.now, RESIGNED)
    if game.status == FORMING:
        cancel_ready_check(game)
        game.seats.remove(seat)  # the loaded seats stay right for the rest of a batch (bot.core.basics.batch)
        ctx.session.delete(seat)
        ctx.reply.add("left", game=game.slug, seat=seat.name)
        return DONE
    seat.resigned = True
    ctx.reply.add("resigned", game=game.slug, seat=seat.name)
    return DONE


@handles(c.NotUnderstood)
def not_understood(ctx: CommandContext, command: c.NotUnderstood) -> Result:
    """A line the adapter could not read: quoted back with the adapter's reason."""
    ctx.reply.problem(command.line, "as_given", reason=command.reason)
    return REFUSED


@handles(c.ShowRules)
def show_rules(ctx: CommandContext, command: c.ShowRules) -> Result:
    """A kind's whole rules page (``docs/rules/<kind>.md``) as mailed text; a game's name gives its kind's.

    A kind without a page (a game registered for a test) gets its help text instead.  The reply carries
    the English page; it is rendered in the reader's language from the page's translation
    (``docs/rules/<language>/<kind>.md``) where there is one (``rules_in_language``,
    :mod:`bot.core.messaging.rendering`).
    """
    game = find_game(ctx.session, command.kind)
    kind = game.kind if game is not None else command.kind.strip().lower()
    try:
        rules = registry.get_rules(kind)
    except registry.UnknownGame:
        ctx.reply.problem(f"RULES {command.kind}", "unknown_kind", name=command.kind, kinds=list(registry.kinds()))
        return REFUSED
    page = rules_page(rules.kind)
    text = markdown_text(page.read_text(encoding="utf-8")) if page is not None else rules.help_text()
    ctx.reply.add("rules", title=rules.title, kind=rules.kind, text=text)
    return SHOWN
