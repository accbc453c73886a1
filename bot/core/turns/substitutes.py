"""Substitutes: a seat put up for someone to take over, the standby list it is offered to, the briefing.

A seat is put up (:func:`offer_seat`) by a game master (``SUBSTITUTE <game>
<seat>``) or by the referee itself once the seat's holder has missed
``games.substitute_after`` turns in a row (:func:`offers_after_turn`, called
as each turn resolves, so a restart loses nothing: the count is read from the
turn records).  The offer goes, in one pass:

* to every player on the standby list for the game's kind (``STANDBY <kind>``,
  or ``STANDBY ALL``), earliest first, at most :data:`OFFER_LIMIT` of them,
  leaving out whoever the game's admission rule would refuse (already seated,
  not on the list of a game for invited players, below its minimum
  reliability: :mod:`bot.core.people.admission`, the rule ``STAND IN`` reads);
* to the game's public place (its Discord forum post), and it shows on the
  game's web page and the club's index while it is open;
* to the seat's holder, who is told they play on until someone takes it.

The first to ``STAND IN <game> <seat>`` (a sender the channel vouches for, whom
the admission rule admits) either has the seat at once (the game's
``substitute_auto``) or waits for a game master's ``SUBSTITUTE ... ACCEPT``;
while one waits, the seat is spoken for.  Handing a seat over
(:func:`hand_over`) is the one path of ``STAND IN`` and of a game master's
``REPLACE``: the holding history moves (``leave_seat`` as replaced,
``take_seat`` for the newcomer, who answers only for the turns after the one
open: :mod:`bot.core.people.reliability`), a fresh seat password is made, and
the newcomer gets a briefing (:func:`briefing`): every report the seat has had
(its private parts included), its orders on file for the open turn with their
commitment, the deadline, and how to order on their own channel.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.orm import Session, selectinload

from adjudicator import registry
from bot.core.games.filed_orders import commitment_of
from bot.core.games.stored import current_orders, phase_of, rules_of
from bot.core.model import commands as c
from bot.core.model.config import ServiceConfig
from bot.core.model.outcomes import NOTICE, REPORT, Message, Outcome, ToGameMasters, ToPlayer, ToPublic
from bot.core.model.secret_values import Secret
from bot.core.people.admission import judge_all
from bot.core.people.reliability import REPLACED, Reliability, leave_seat, take_seat
from bot.core.people.seat_secrets import hash_secret, new_secret
from bot.core.turns.generations import live_records
from bot.core.turns.record_words import phase_title_of
from bot.store.models import AuditEntry, Game, Player, Seat, SeatHolder, Standby, TurnRecord

OFFER_LIMIT = 200
"""The most standby players one offer is sent to (earliest on the list first): an offer's cost is bounded."""
BRIEFING_REPORTS = 40
"""The most reports a briefing carries (the latest ones); the game's page and STATUS have the rest."""
REFEREE = "referee"
"""The audit log's actor for what the referee did by itself (a seat put up after missed turns)."""


def standby_kinds(session: Session, player_id: int) -> list[str]:
    """The kinds ``player_id`` stands by for (:data:`bot.core.model.commands.ANY_KIND` for every kind)."""
    return list(session.scalars(select(Standby.kind).where(Standby.player_id == player_id).order_by(Standby.kind)))


def set_standby(session: Session, player_id: int, kind: str, on: bool, now: datetime) -> bool:
    """Put ``player_id`` on the standby list for ``kind`` (or off it); returns whether anything changed.

    Off is what a player who says it expects, whichever list put them there (an offer tells every
    recipient the same two ways to stop it): off ``ALL`` (:data:`bot.core.model.commands.ANY_KIND`) is
    off every list; off a kind, for a player on ``ALL``, keeps them on the list of every other kind
    (in their place: since they said ``ALL``)."""
    row = session.get(Standby, (player_id, kind))
    if on:
        if row is not None:
            return False
        session.add(Standby(player_id=player_id, kind=kind, since_at=now))
        return True
    mine = list(session.scalars(select(Standby).where(Standby.player_id == player_id)))
    if kind == c.ANY_KIND:
        for listed in mine:
            session.delete(listed)
        return bool(mine)
    every = next((listed for listed in mine if listed.kind == c.ANY_KIND), None)
    if every is not None:
        held = {listed.kind for listed in mine}
        for other in registry.kinds():
            if other != kind and other not in held:
                session.add(Standby(player_id=player_id, kind=other, since_at=every.since_at))
        session.delete(every)
    if row is not None:
        session.delete(row)
    session.flush()
    return row is not None or every is not None


def _standing_by(session: Session, game: Game, limit: int) -> list[int]:
    """Who stands by for ``game``'s kind and has no seat in it, earliest first (each once), at most ``limit``
    beyond the game's own seats (so that the bound holds after they are left out)."""
    seated = {seat.player_id for seat in game.seats}
    rows = session.execute(
        select(Standby.player_id, Standby.since_at)
        .where(or_(Standby.kind == game.kind, Standby.kind == c.ANY_KIND))
        .order_by(Standby.since_at, Standby.player_id)
        .limit(2 * limit + len(seated))  # a player may be listed twice (the kind and ALL), a seated one left out
    ).all()
    found: list[int] = []
    for player_id, _ in rows:
        if player_id not in seated and player_id not in found:
            found.append(player_id)
    return found[:limit]


def offer_data(game: Game, seat: Seat, page: str | None) -> dict[str, Any]:
    """What every message about the offer of ``seat`` says."""
    phase = phase_of(game)
    return {
        "game": game.slug, "title": rules_of(game).title, "kind": game.kind, "seat": seat.name,
        "number": seat.position + 1, "round": seat.offer_round, "turn": phase.number if phase else None, "phase": phase.title if phase else None,
        "deadline": game.deadline_at.isoformat() if game.deadline_at else None, "time_zone": game.time_zone,
        "min_reliability": game.min_reliability, "auto": game.substitute_auto, "page": page,
    }  # fmt: skip


def offer_seat(
    session: Session, game: Game, seat: Seat, now: datetime, config: ServiceConfig, reason: str
) -> tuple[list[Outcome], int]:
    """Put ``seat`` up for a substitute now; the outcomes that tell the standby list, the public place and
    the seat's holder, and how many standby players are told."""
    seat.offered_at = now
    seat.offer_round += 1
    seat.candidate_id = None
    data = {**offer_data(game, seat, config.page_of(game.slug)), "reason": reason}
    key = f"offer:{game.slug}:{game.generation}:{seat.name}:{seat.offer_round}"
    candidates = _standing_by(session, game, OFFER_LIMIT)
    players = session.scalars(select(Player).where(Player.id.in_(candidates)).options(selectinload(Player.identities)))
    judged = judge_all(session, game, list(players))  # the one admission rule: those it refuses are not told
    told = [player_id for player_id in candidates if isinstance(judged.get(player_id), Reliability)]
    outcomes = [Outcome(ToPlayer(player_id), Message("seat_offer", data), NOTICE, key, game.id) for player_id in told]
    outcomes.append(Outcome(ToPublic(game.id), Message("seat_offered", data), REPORT, key, game.id))
    if not seat.resigned:
        outcomes.append(
            Outcome(ToPlayer(seat.player_id, seat.name), Message("seat_put_up", data), NOTICE, key, game.id)
        )
    return outcomes, len(told)


def close_offer(seat: Seat) -> int | None:
    """The seat is no longer up (taken or withdrawn); returns who was waiting for a game master, if anyone."""
    waiting = seat.candidate_id
    seat.offered_at = None
    seat.candidate_id = None
    return waiting


def offered_seats(games: Iterable[Game]) -> list[tuple[Game, Seat]]:
    """The seats up for a substitute among ``games``, in game and seat order."""
    return [(game, seat) for game in games for seat in game.seats if seat.offered_at is not None]


@dataclass(frozen=True)
class Handover:
    """A seat given to someone: the outcomes to send and the fresh password (in the briefing)."""

    outcomes: list[Outcome]
    secret: str


def hand_over(
    session: Session, game: Game, seat: Seat, newcomer: Player, now: datetime, config: ServiceConfig,
    *, reason: str, how: str, key: str,
) -> Handover:  # fmt: skip
    """Give ``seat`` to ``newcomer`` now (``how``: ``replace`` by a game master, ``take`` from an offer): the
    holding history, a fresh password, the offer closed; the newcomer's briefing and the old holder's notice
    (keyed by ``key``).  The caller has checked the newcomer may have it."""
    old = seat.player_id
    if newcomer.id != old:  # a new holder answers for the seat from here on (bot.core.people.reliability)
        leave_seat(session, game, seat.name, now, REPLACED)
        take_seat(session, game, seat.name, newcomer.id, now)
    secret = new_secret()
    seat.player_id = newcomer.id
    seat.player = newcomer  # the loaded relationship too: a batch's session goes on using it (bot.core.basics.batch)
    seat.secret_hash = hash_secret(secret, config.secret_key)
    seat.resigned = False
    seat.wait_turn = None
    offer = offer_data(game, seat, config.page_of(game.slug))
    waiting = close_offer(seat)
    session.flush()
    data = {**briefing(session, game, seat), "secret": Secret(secret), "reason": reason, "how": how}
    outcomes = [Outcome(ToPlayer(newcomer.id, seat.name), Message("seat_given", data), NOTICE, f"given:{key}", game.id)]
    if waiting is not None and waiting != newcomer.id:  # a game master gave the seat to someone else
        gone = Message("substitute_declined", {**offer, "reason": reason, "withdrawn": True})
        outcomes.append(Outcome(ToPlayer(waiting), gone, NOTICE, f"gone:{key}", game.id))
    if newcomer.id != old:
        taken = {"game": game.slug, "seat": seat.name, "reason": reason, "how": how}
        outcomes.append(Outcome(ToPlayer(old), Message("seat_taken", taken), NOTICE, f"taken:{key}", game.id))
    return Handover(outcomes, secret)


def briefing(session: Session, game: Game, seat: Seat) -> dict[str, Any]:
    """What a newcomer to ``seat`` is told: every report the seat has had (its private parts too, the latest
    :data:`BRIEFING_REPORTS`), its orders on file for the open turn and their commitment, the open turn and
    its deadline."""
    records = live_records(session, game)
    shown = records[-BRIEFING_REPORTS:]
    reports = [
        {"turn": r.turn_number, "phase": phase_title_of(game, r), "report": r.report, "events": [e["text"] for e in r.events],
         "private": r.private.get(seat.name)}
        for r in shown
    ]  # fmt: skip
    phase = phase_of(game)
    on_file = current_orders(session, game, phase.number).get(seat.name) if phase is not None else None
    last = records[-1] if records else None
    return {
        "game": game.slug, "title": rules_of(game).title, "kind": game.kind, "seat": seat.name, "auth": game.auth_mode,
        "turn": last.turn_number if last else None, "report": last.report if last else None,
        "events": [e["text"] for e in last.events] if last else [], "private": last.private.get(seat.name) if last else None,
        "reports": reports, "left_out": len(records) - len(shown),
        "open_turn": phase.number if phase else None, "phase": phase.title if phase else None,
        "owes": phase is not None and seat.name in phase.owing,
        "on_file": on_file.canonical_text.splitlines() if on_file else None,
        "commitment": commitment_of(game, phase.number, seat.name, on_file.canonical_text) if phase and on_file else None,
        "deadline": game.deadline_at.isoformat() if game.deadline_at else None, "time_zone": game.time_zone,
    }  # fmt: skip


def missed_in_a_row(session: Session, game: Game, seat_name: str, record: TurnRecord, most: int) -> int:
    """How many of the turns ``seat_name`` owed orders in, in a row and ending with ``record`` (not yet
    flushed, maybe), it was given the no-moves-received rule, counting only the turns since its present
    holding began (at most ``most``).  A turn the seat owed nothing in (another seat's move, in a game
    where one seat moves at a time) neither counts nor breaks the run."""
    if seat_name not in record.defaulted:
        return 0
    with session.no_autoflush:
        first = session.scalar(
            select(SeatHolder.first_turn)
            .where(SeatHolder.game_id == game.id, SeatHolder.seat_name == seat_name)
            .order_by(SeatHolder.since_at.desc(), SeatHolder.id.desc())
            .limit(1)
        )
        earlier = session.scalars(
            select(TurnRecord)
            .where(TurnRecord.game_id == game.id, TurnRecord.generation == game.generation,
                   TurnRecord.turn_number < record.turn_number, TurnRecord.turn_number >= (first or 0))
            .order_by(TurnRecord.turn_number.desc())
            .limit(most * 2 * max(len(game.seats), 1))  # room for the other seats' turns between the seat's
        ).all()  # fmt: skip
    count = 1
    for row in earlier:
        if count >= most or seat_name in row.orders:
            break
        if seat_name in row.defaulted:
            count += 1
    return count


def offers_after_turn(
    session: Session, game: Game, record: TurnRecord, now: datetime, config: ServiceConfig
) -> tuple[list[Outcome], list[AuditEntry]]:
    """The game's option ``substitute_after``: each seat whose holder has just missed that many turns in a row
    (exactly: a seat a game master withdrew is not put up again every turn) is put up now.  Returns the
    outcomes to send and the game's log entries of the offers (the turn's report announces them)."""
    after = game.substitute_after
    if after <= 0 or not record.defaulted or phase_of(game) is None:
        return [], []
    outcomes: list[Outcome] = []
    logged: list[AuditEntry] = []
    for seat in game.seats:
        if seat.offered_at is not None or missed_in_a_row(session, game, seat.name, record, after) != after:
            continue
        reason = f"{seat.name} missed a turn" if after == 1 else f"{seat.name} missed {after} turns in a row"
        sent, told = offer_seat(session, game, seat, now, config, reason)
        outcomes += sent
        outcome = {"code": "seat_put_up", "game": game.slug, "seat": seat.name, "told": told, "by_referee": True}
        arguments = {"game": game.slug, "seat": seat.name, "action": "offer"}
        entry = AuditEntry(game_id=game.id, actor=REFEREE, channel=REFEREE, action=c.OfferSeat.__name__, reason=reason,
                           detail={"command": c.OfferSeat.__name__, "arguments": arguments, "outcome": [outcome]},
                           at=now)  # fmt: skip
        session.add(entry)
        logged.append(entry)
    return outcomes, logged


def tell_game_masters(game: Game, template: str, data: dict[str, Any], key: str) -> Outcome:
    """One notice to the game's masters about a substitute."""
    return Outcome(ToGameMasters(game.id), Message(template, data), NOTICE, key, game.id)
