"""Hosting commands: creating a game and starting it (its first phase, deadline and seed commitment)."""

from __future__ import annotations

import secrets
from datetime import timedelta

from adjudicator import registry
from adjudicator.api import GameError
from adjudicator.options import resolve_options
from adjudicator.record import start_game
from adjudicator.rng import commitment
from bot.core.basics import linear
from bot.core.basics.durations import format_duration
from bot.core.basics.engine_words import reason
from bot.core.commands.context import CommandContext
from bot.core.commands.new_game_settings import read_settings
from bot.core.commands.registry import DONE, REFUSED, Result, handles
from bot.core.games.calendar_entry import deadline_entry
from bot.core.games.stored import FINISHED, FORMING, RUNNING, find_game, normalise_slug, rules_of
from bot.core.model import commands as c
from bot.core.model.outcomes import NOTICE, REPORT, Message, Outcome, ToGameMasters, ToPlayer, ToPublic
from bot.core.model.secret_values import Secret
from bot.core.people.identities import find_or_create_player
from bot.core.people.languages import ENGLISH
from bot.core.people.seat_secrets import hash_secret, new_secret
from bot.core.turns.ready_checks import check_running, unconfirmed
from bot.core.turns.reminder_pass import skip_reminders_at_opening
from bot.core.turns.resolution import next_deadline
from bot.store.models import Game, GameMaster

_SLUG = linear.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")
RESERVED_NAMES = frozenset({"me"})
"""Names no game may take: ``RECORD ME`` is a player's own record, never the record of a game ``me``."""


@handles(c.CreateGame)
def create(ctx: CommandContext, command: c.CreateGame) -> Result:
    line = f"CREATE {command.game} {command.kind}"
    slug = normalise_slug(command.game)
    if not _SLUG.match(slug) or slug in RESERVED_NAMES:
        ctx.reply.problem(line, "bad_game_name", game=command.game)
        return REFUSED
    if find_game(ctx.session, slug) is not None:
        ctx.reply.problem(line, "game_exists", game=slug)
        return REFUSED
    try:
        rules = registry.get_rules(command.kind)
        options = resolve_options(rules.options(), command.options)
        settings = read_settings(command, rules.min_seats, rules.max_seats, ctx.config.default_time_zone)
    except (registry.UnknownGame, GameError, ValueError) as exc:
        ctx.reply.problem(line, "bad_game_settings", reason=reason(exc))
        return REFUSED
    seed = secrets.token_hex(16)
    gm = ctx.sender_player()
    turn_minutes = command.turn_minutes or ctx.config.default_turn_minutes
    gm_secret = new_secret()
    game = Game(
        slug=slug, kind=rules.kind, options=options, seed=seed, commitment=commitment(seed), status=FORMING,
        time_zone=settings.zone.key, turn_minutes=turn_minutes,
        offer_minutes=min(turn_minutes, ctx.config.default_offer_minutes),
        decision_minutes=min(turn_minutes, ctx.config.default_decision_minutes),
        early_processing=settings.early_delay is not None, auth_mode=command.auth, deadline_at=None,
        phase_number=0, state=None, gm_player_id=gm.id, created_at=ctx.now, generation=0, turn_failures=0,
        schedule=settings.schedule, min_gap_minutes=settings.min_gap_minutes,
        early_delay_minutes=settings.early_delay or 0, grace_minutes=settings.grace_minutes,
        reminders=settings.reminders, ready_check_minutes=settings.ready_minutes, max_seats=command.max_seats, target_seats=command.seats,
        joining_open=True, join_policy=command.join, invited=[a.strip().lower() for a in command.invited],
        observers_allowed=command.observers, absence_limit_days=command.absence_limit_days,
        min_reliability=command.min_reliability, substitute_after=command.substitute_after,
        substitute_auto=command.substitute_auto,
        gm_secret_hash=hash_secret(gm_secret, ctx.config.secret_key), press=command.press,
        press_gm_copies=command.press_gm_copies, press_in_record=command.press_in_record,
        language=None if command.language in (None, ENGLISH) else command.language,
    )  # fmt: skip
    ctx.session.add(game)
    ctx.session.flush()
    _name_game_masters(ctx, game, command, gm_secret)
    by_mail = _host_by_mail(ctx, game) if ctx.envelope.as_host and not command.game_masters else None
    ctx.reply.game_tag = slug
    shown = settings.schedule or format_duration(timedelta(minutes=turn_minutes))
    ctx.reply.add(
        "created", game=slug, title=rules.title, gm_secret=Secret(gm_secret), schedule=shown, time_zone=game.time_zone,
        seats=command.seats, max_seats=command.max_seats or rules.max_seats, host_by_mail=by_mail,
        ready_check=format_duration(timedelta(minutes=settings.ready_minutes)) if settings.ready_minutes else None,
    )  # fmt: skip
    ctx.delivery.send(
        Outcome(ToPublic(game.id), Message("created", {"game": slug, "title": rules.title}), REPORT,
                f"created:{slug}", game.id)
    )  # fmt: skip
    return DONE


def _name_game_masters(ctx: CommandContext, game: Game, command: c.CreateGame, gm_secret: str) -> None:
    """The GMs named at creation: the first runs the game, the others are co-GMs; each gets the GM password."""
    for number, (channel, address) in enumerate(command.game_masters):
        player = find_or_create_player(ctx.session, c.Sender(channel, address.strip()), ctx.now)
        if number == 0:
            game.gm_player_id = player.id
        elif ctx.session.get(GameMaster, (game.id, player.id)) is None:
            ctx.session.add(GameMaster(game_id=game.id, player_id=player.id))
        message = Message("gm_named", {"game": game.slug, "title": rules_of(game).title, "gm_secret": Secret(gm_secret),
                                       "co_gm": number > 0})  # fmt: skip
        ctx.delivery.send(Outcome(ToPlayer(player.id), message, NOTICE, f"gm-named:{game.slug}:{address}", game.id))
    ctx.session.flush()


def _host_by_mail(ctx: CommandContext, game: Game) -> list[str]:
    """A game the host runs (created on the command line, no --gm): the host's own addresses
    (``host_addresses``) are its game masters by mail, with the GM password; returns them."""
    addresses = []
    for channel, address in ctx.config.host_recipients:
        player = find_or_create_player(ctx.session, c.Sender(channel, address), ctx.now)
        if player.id != game.gm_player_id and ctx.session.get(GameMaster, (game.id, player.id)) is None:
            ctx.session.add(GameMaster(game_id=game.id, player_id=player.id))
        addresses.append(address)
    ctx.session.flush()
    return addresses


@handles(c.StartGame)
def start(ctx: CommandContext, command: c.StartGame) -> Result:
    game = ctx.granted.game
    assert game is not None  # Permission.GAME_MASTER
    line = f"START {game.slug}"
    if game.status != FORMING:
        ctx.reply.problem(line, "already_started", game=game.slug, status=game.status)
        return REFUSED
    rules = rules_of(game)
    if game.target_seats is not None and len(game.seats) < game.target_seats:
        ctx.reply.problem(line, "seats_not_filled", game=game.slug, seats=len(game.seats),
                           target=game.target_seats)  # fmt: skip
        return REFUSED
    waiting = unconfirmed(game) if check_running(game) else []  # a game started before it fills had no check
    if waiting:
        ctx.reply.problem(line, "ready_check_pending", game=game.slug, waiting=[s.name for s in waiting])
        return REFUSED
    try:
        state = start_game(rules, [s.name for s in game.seats], game.options, game.seed)
    except GameError as exc:
        ctx.reply.problem(line, "cannot_start", game=game.slug, reason=reason(exc))
        return REFUSED
    phase = rules.phase(state)
    if phase is None:  # the game ended as it was dealt (Dragon Stripes: its compulsory first cards)
        return _over_as_dealt(ctx, game, state)
    game.state = rules.dump_state(state)
    game.status = RUNNING
    game.deadline_at = next_deadline(ctx.session, game, phase, ctx.now, first=True)
    skip_reminders_at_opening(ctx.session, game, ctx.now)
    _announce_start(ctx, game, phase.title)
    ctx.reply.add(
        "started", game=game.slug, phase=phase.title, deadline=game.deadline_at.isoformat(),
        time_zone=game.time_zone,
    )  # fmt: skip
    return DONE


def _over_as_dealt(ctx: CommandContext, game: Game, state: object) -> Result:
    """A game whose deal already ends it: a game's own rules may play cards as it is dealt
    (docs/rules/dragon-stripes.md 4.1: each turn's first card is compulsory, and the third danger card
    ends the game), so START finds no turn to open.  The game is over as dealt: it is kept finished with
    the state its seed deals (so its record replays and verifies), and every seat, the game masters and
    its public place are told the result and the seed, as at any end."""
    rules = rules_of(game)
    game.state = rules.dump_state(state)
    game.status = FINISHED
    game.finished_at = ctx.now
    game.deadline_at = None
    standings = [{"place": s.place, "seat": s.seat} for s in rules.standings(state)]
    data = {"game": game.slug, "title": rules.title, "seats": [s.name for s in game.seats], "standings": standings,
            "seed": game.seed, "commitment": game.commitment, "page": ctx.config.page_of(game.slug)}  # fmt: skip
    message = Message("over_as_dealt", data)
    key = f"dealt:{game.slug}:{game.generation}"
    ctx.delivery.send(Outcome(ToPublic(game.id), message, REPORT, key, game.id))
    for seat in game.seats:
        ctx.delivery.send(Outcome(ToPlayer(seat.player_id, seat.name), message, REPORT, key, game.id))
    ctx.delivery.send(Outcome(ToGameMasters(game.id), message, REPORT, key, game.id))
    ctx.reply.add("over_as_dealt", game=game.slug, title=rules.title, standings=standings)
    return DONE


def _announce_start(ctx: CommandContext, game: Game, phase_title: str) -> None:
    """Every seat, the GM (seated or not) and the public place are told the game has started."""
    rules = rules_of(game)
    data = {
        "game": game.slug, "title": rules.title, "seats": [s.name for s in game.seats], "phase": phase_title,
        "deadline": game.deadline_at.isoformat() if game.deadline_at else None, "time_zone": game.time_zone,
        "commitment": game.commitment, "options": dict(game.options), "page": ctx.config.page_of(game.slug),
        "calendar": deadline_entry(game, ctx.config, ctx.now),
    }  # fmt: skip
    message = Message("started", data)
    key = f"start:{game.slug}:{game.generation}"
    ctx.delivery.send(Outcome(ToPublic(game.id), message, REPORT, key, game.id))
    for seat in game.seats:
        ctx.delivery.send(Outcome(ToPlayer(seat.player_id, seat.name), message, REPORT, key, game.id))
    ctx.delivery.send(Outcome(ToGameMasters(game.id), message, REPORT, key, game.id))
