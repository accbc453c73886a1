"""Resolving a game's current phase: orders in, adjudication, turn record, reports out.

One call resolves one phase inside the caller's transaction.  The resolved
turn is stored keyed by (game, turn number), so a second attempt (a second
worker, a retry after a crash) fails on the primary key and changes nothing.
Seats without orders get the game's no-moves-received rule through the
generic driver (:func:`adjudicator.turn.advance`).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.orm import Session

from adjudicator.api import Phase
from adjudicator.rng import rng_for
from adjudicator.turn import advance
from bot.core.games import FINISHED, current_orders, rules_of, state_of
from bot.core.identities import reach
from bot.core.outbox import Outgoing, enqueue
from bot.core.reports import render_turn_report
from bot.store.models import Game, Player, TurnRecord

PUBLIC_CHANNEL = "public"
"""Outbox channel of each game's public copy (its Discord forum thread, the demo's screen)."""


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


def resolve_current_turn(session: Session, game: Game, now: datetime, mail_domain: str) -> TurnRecord:
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
    session.flush()  # the (game, turn) primary key refuses a second resolution here
    game.state = record.state_after
    game.phase_number = phase.number + 1
    next_phase = rules.phase(resolution.state)
    if next_phase is None:
        game.status = FINISHED
        game.finished_at = now
        game.deadline_at = None
    else:
        game.deadline_at = next_deadline(game, next_phase, now)
    _send_reports(session, game, record, next_phase, now, mail_domain)
    return record


def _send_reports(
    session: Session, game: Game, record: TurnRecord, next_phase: Phase | None, now: datetime, mail_domain: str
) -> None:
    """One public copy, one copy per seat (with that seat's private data), and the GM's copy.

    A game master who holds no seat gets the public copy (issue 3: the GM gets
    every report too); one who plays gets their seat's copy like anyone else.
    """
    rules = rules_of(game)
    finished = next_phase is None
    common: dict[str, Any] = {
        "game_slug": game.slug,
        "game_title": rules.title,
        "turn_title": f"turn {record.turn_number}: {record.phase_title}",
        "kind": game.kind,
        "report": record.report,
        "events": [e["text"] for e in record.events],
        "next_phase": None if finished else _describe_phase(next_phase),
        "deadline": game.deadline_at,
        "time_zone": game.time_zone,
        "commitment": game.commitment if record.turn_number == 0 else None,
        "revealed_seed": game.seed if finished else None,
    }
    subject = f"[{game.slug}] {rules.title}: turn {record.turn_number} report" + (" (final)" if finished else "")
    key = f"report:{game.slug}:{record.turn_number}"
    public_body = render_turn_report(**common)
    enqueue(
        session,
        Outgoing(
            PUBLIC_CHANNEL,
            game.slug,
            "report",
            subject,
            public_body,
            "report",
            {},
            game.id,
            record.turn_number,
            key,
        ),
        now,
        mail_domain,
    )
    for seat in game.seats:
        target = reach(seat.player)
        if target is None:
            continue
        channel, address = target
        body = render_turn_report(**common, seat=seat.name, private=record.private.get(seat.name))
        enqueue(
            session,
            Outgoing(channel, address, "report", subject, body, "report", {}, game.id, record.turn_number, key),
            now,
            mail_domain,
        )
    gm = session.get(Player, game.gm_player_id) if game.gm_player_id is not None else None
    gm_target = reach(gm) if gm is not None and all(seat.player_id != gm.id for seat in game.seats) else None
    if gm_target is not None:
        channel, address = gm_target
        enqueue(
            session,
            Outgoing(channel, address, "report", subject, public_body, "report", {}, game.id, record.turn_number, key),
            now,
            mail_domain,
        )


def _describe_phase(phase: Phase | None) -> str | None:
    if phase is None:
        return None
    return f"turn {phase.number}: {phase.title} (orders from {', '.join(phase.owing)})"
