"""Resolving a game's current phase: orders in, adjudication, turn record, reports out.

One call resolves one phase inside the caller's transaction.  The resolved
turn is stored keyed by (game, generation, turn number) (see
:mod:`bot.core.turn_records`), so a second attempt (a second worker, a retry
after a crash) fails on the primary key and changes nothing.  Seats without
orders get the game's no-moves-received rule through the generic driver
(:func:`adjudicator.turn.advance`).

A turn's report is data kept in its record; :func:`report_outcomes` turns a
record into the messages for every seat, the GMs and the public place, so a
report can be sent again (a new channel, a rollback) without re-adjudicating.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from sqlalchemy.orm import Session

from adjudicator.api import Phase
from adjudicator.rng import rng_for
from adjudicator.turn import advance
from bot.core.delivery import Delivery
from bot.core.games import FINISHED, current_orders, rules_of, state_of
from bot.core.outcomes import REPORT, Message, Outcome, ToGameMasters, ToPlayer, ToPublic
from bot.store.models import Game, TurnRecord

if TYPE_CHECKING:
    from bot.core.service import ServiceConfig


def window_minutes(game: Game, phase: Phase) -> int:
    """The deadline length of ``phase``'s window (see :class:`adjudicator.api.Phase`)."""
    if phase.window == "offer":
        return game.offer_minutes
    if phase.window == "decision":
        return game.decision_minutes
    return game.turn_minutes


def next_deadline(game: Game, phase: Phase, now: datetime) -> datetime:
    """The deadline of ``phase`` opening at ``now``, from the game's schedule."""
    return now + timedelta(minutes=window_minutes(game, phase))


def resolve_current_turn(
    session: Session, game: Game, now: datetime, config: ServiceConfig, delivery: Delivery | None = None
) -> TurnRecord:
    """Resolve the open phase of ``game`` with the orders on file; store it and send reports."""
    rules = rules_of(game)
    state = state_of(game)
    phase = rules.phase(state)
    if phase is None:
        raise ValueError(f"game {game.slug} has no open phase")
    submissions = current_orders(session, game, phase.number)
    orders: dict[str, Any] = {}
    texts: dict[str, str] = {}
    for seat, row in submissions.items():
        if seat not in phase.owing:
            continue
        parsed = rules.parse_orders(state, seat, row.canonical_text)
        if parsed.orders is not None:
            orders[seat] = parsed.orders
            texts[seat] = row.canonical_text
    resolution = advance(rules, state, orders, rng_for(game.seed, phase.number))
    record = TurnRecord(
        game_id=game.id,
        generation=game.generation,
        turn_number=phase.number,
        phase_kind=phase.kind.value,
        phase_title=phase.title,
        state_before=game.state,
        orders=texts,
        defaulted=list(resolution.defaulted),
        events=[{"kind": e.kind, "seat": e.seat, "text": e.text} for e in resolution.events],
        report=dict(resolution.report),
        private={seat: dict(data) for seat, data in resolution.private.items()},
        state_after=rules.dump_state(resolution.state),
        resolved_at=now,
    )
    session.add(record)
    session.flush()  # the (game, generation, turn) primary key refuses a second resolution here
    game.state = record.state_after
    game.phase_number = phase.number + 1
    game.resolve_at = None
    game.turn_failures = 0
    game.turn_error = None
    next_phase = rules.phase(resolution.state)
    if next_phase is None:
        game.status = FINISHED
        game.finished_at = now
        game.deadline_at = None
    else:
        game.deadline_at = next_deadline(game, next_phase, now)
    delivery = delivery or Delivery(session, config, now)
    for outcome in report_outcomes(game, record, next_phase):
        delivery.send(outcome)
    return record


def report_outcomes(game: Game, record: TurnRecord, next_phase: Phase | None) -> list[Outcome]:
    """One public copy, one copy per seat (with that seat's private data), and the GMs' copy.

    A game master who holds no seat gets the public copy (issue 3: the GM gets
    every report too); one who plays gets their seat's copy (the delivery step
    sends each recipient one copy of a key).
    """
    rules = rules_of(game)
    finished = next_phase is None
    common: dict[str, Any] = {
        "game": game.slug,
        "title": rules.title,
        "kind": game.kind,
        "turn": record.turn_number,
        "phase_title": record.phase_title,
        "report": record.report,
        "events": [e["text"] for e in record.events],
        "next_phase": None
        if next_phase is None
        else {"number": next_phase.number, "title": next_phase.title, "owing": list(next_phase.owing)},
        "deadline": game.deadline_at.isoformat() if game.deadline_at else None,
        "time_zone": game.time_zone,
        "commitment": game.commitment if record.turn_number == 0 else None,
        "seed": game.seed if finished else None,
        "final": finished,
        "seat": None,
        "private": None,
    }
    key = f"report:{game.slug}:{record.generation}:{record.turn_number}"
    public = Message("report", common)
    outcomes = [Outcome(ToPublic(game.id), public, REPORT, key, game.id, record.turn_number)]
    for seat in game.seats:
        data = {**common, "seat": seat.name, "private": record.private.get(seat.name)}
        outcomes.append(
            Outcome(ToPlayer(seat.player_id, seat.name), Message("report", data), REPORT, key, game.id,
                    record.turn_number)
        )  # fmt: skip
    outcomes.append(Outcome(ToGameMasters(game.id), public, REPORT, key, game.id, record.turn_number))
    return outcomes
