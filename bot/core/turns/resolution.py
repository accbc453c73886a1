"""Resolving a game's current phase: orders in, adjudication, turn record, reports out.

One call resolves one phase inside the caller's transaction.  The resolved
turn is stored keyed by (game, generation, turn number) (see
:mod:`bot.core.turns.generations`), so a second attempt (a second worker, a retry
after a crash) fails on the primary key and changes nothing.  Seats without
orders get the game's no-moves-received rule through the generic driver
(:func:`adjudicator.turn.advance`).

A turn's report is data kept in its record; :func:`report_outcomes` turns a
record into the messages for every seat, the GMs and the public place, so a
report can be sent again (a new channel, a rollback) without re-adjudicating.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from adjudicator.api import Phase
from bot.core.basics.batch import memo_of
from bot.core.basics.engine_words import kept
from bot.core.basics.free_text import clean_line
from bot.core.games.filed_orders import commitment_of
from bot.core.games.preload import absences_of, remember
from bot.core.games.stored import FINISHED, current_orders, phase_opened_at, rules_of, state_of
from bot.core.messaging.delivery import Delivery
from bot.core.model.declaration import announced, announcement_of
from bot.core.model.outcomes import REPORT, Message, Outcome, ToGameMasters, ToPlayer, ToPublic
from bot.core.turns import draws
from bot.core.turns.absences import Absence, postpone_deadline
from bot.core.turns.press_announcements import public_press_since, remember_public_press
from bot.core.turns.record_words import phase_title_of
from bot.core.turns.schedule import first_deadline, parse_schedule
from bot.core.turns.schedule import next_deadline as schedule_deadline
from bot.core.turns.substitutes import offers_after_turn
from bot.store.models import AuditEntry, Game, TurnRecord

if TYPE_CHECKING:
    from bot.core.model.config import ServiceConfig


GM_ACTIONS = "gm-actions"
"""Memo kind (:mod:`bot.core.basics.batch`): (GM_ACTIONS, game id, since) -> the announced audit entries since then."""
LATE_NOTICE = timedelta(minutes=5)
"""A turn resolved this much after it was due says so in its report (the referee was down)."""


def window_minutes(game: Game, phase: Phase) -> int:
    """The deadline length of ``phase``'s window (see :class:`adjudicator.api.Phase`)."""
    if phase.window == "offer":
        return game.offer_minutes
    if phase.window == "decision":
        return game.decision_minutes
    return game.turn_minutes


def next_deadline(session: Session, game: Game, phase: Phase, now: datetime, *, first: bool = False) -> datetime:
    """The deadline of ``phase`` opening at ``now``.

    An ordinary turn follows the game's schedule (:mod:`bot.core.turns.schedule`: a
    local clock time is kept across daylight-saving changes) with the minimum
    gap after the report; the windows of a game's other phases (Dragon Stripes
    offers, Strike Gold decisions) keep their own lengths.  A deadline that
    falls in an absence of a seat that owes orders moves to its end
    (:func:`bot.core.turns.absences.postpone_deadline`).  ``first``: the game's first turn, which may end on
    the day it starts (:func:`bot.core.turns.schedule.first_deadline`).
    """
    zone = ZoneInfo(game.time_zone)
    minimum = timedelta(minutes=game.min_gap_minutes)
    if phase.window in ("offer", "decision") or not game.schedule:
        deadline = now + max(timedelta(minutes=window_minutes(game, phase)), minimum)
    else:
        deadline = (first_deadline if first else schedule_deadline)(parse_schedule(game.schedule), now, zone, minimum)
    absences = [
        Absence(row.first_day, row.last_day) for row in absences_of(session, game) if row.seat_name in phase.owing
    ]
    return postpone_deadline(deadline, absences, zone) if absences else deadline


def resolve_current_turn(
    session: Session,
    game: Game,
    now: datetime,
    config: ServiceConfig,
    delivery: Delivery | None = None,
    *,
    reports: list[Outcome] | None = None,
    announce: Sequence[dict[str, Any]] = (),
) -> TurnRecord:
    """Resolve the open phase of ``game`` with the orders on file; store it and send reports.

    Without ``reports`` the turn record is flushed at once (a second resolution of the turn
    fails here, on its key) and the reports are queued.  With ``reports`` (a batch of games,
    ``GameService.resolve_due``) nothing is flushed and the report outcomes are appended to
    it: the caller sends them and flushes, in the same transaction, for the whole batch.
    ``announce``: overrides the report announces beside those of the audit log (a GM's early
    processing, whose audit entry is written after this report).
    """
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
    resolution = draws.resolve_drawn(rules, game, state, orders)
    due_at = game.grace_until or game.deadline_at
    late = now - due_at if due_at is not None and now - due_at >= LATE_NOTICE else None
    record = TurnRecord(
        game_id=game.id,
        generation=game.generation,
        turn_number=phase.number,
        phase_kind=phase.kind.value,
        phase_title=str(phase.title),
        state_before=game.state,
        orders=texts,
        defaulted=list(resolution.defaulted),
        events=[{"kind": e.kind, "seat": e.seat, "text": kept(e.text)} for e in resolution.events],
        report=kept(dict(resolution.report)),
        private={seat: kept(dict(data)) for seat, data in resolution.private.items()},
        state_after=rules.dump_state(resolution.state),
        resolved_at=now,
        draw=game.draw,
    )
    session.add(record)
    if reports is None:
        session.flush()  # the (game, generation, turn) primary key refuses a second resolution here
    next_phase = rules.phase(resolution.state)
    # before the game's columns change, so that they are written in one UPDATE (the query would flush them)
    deadline = None if next_phase is None else next_deadline(session, game, next_phase, now)
    game.state = record.state_after
    game.phase_number = phase.number + 1
    draws.after_resolving(game, phase.number)
    game.resolve_at = None
    game.grace_until = None
    game.turn_failures = 0
    game.turn_error = None
    game.deadline_at = deadline
    if next_phase is None:
        game.status = FINISHED
        game.finished_at = now
    offers, offered = offers_after_turn(session, game, record, now, config)  # seats whose holder went missing
    since = previous_report_at(session, game, record.turn_number)
    actions = gm_actions_since(session, game, since) + list(announce) + [announcement(e, game) for e in offered]
    press = public_press_since(session, game, since)
    record.sent = sent_with(game.deadline_at, late, actions, press)
    outcomes = report_outcomes(game, record, next_phase, late=late, gm_actions=actions, page=config.page_of(game.slug),
                               press=press)  # fmt: skip
    outcomes += offers
    if reports is not None:
        reports += outcomes
    else:
        (delivery or Delivery(session, config, now)).send_all(outcomes)
    return record


def remember_for_resolving(session: Session, games: Sequence[Game]) -> None:
    """Load what resolving ``games`` at their open turns reads, for all of them in one query each
    (:func:`bot.core.games.preload.remember`, and the GM actions each report announces)."""
    remember(session, games, audiences=True, absences=True)
    since = {game.id: previous_report_at(session, game, game.phase_number) for game in games}
    if not since:
        return
    found: dict[int, list[AuditEntry]] = {game_id: [] for game_id in since}
    wanted = [
        AuditEntry.game_id == game_id if moment is None else (AuditEntry.game_id == game_id) & (AuditEntry.at > moment)
        for game_id, moment in since.items()
    ]
    query = select(AuditEntry).where(AuditEntry.action.in_(announced()), or_(*wanted)).order_by(AuditEntry.id)
    for entry in session.scalars(query):
        if entry.game_id is not None:
            found[entry.game_id].append(entry)
    memo = memo_of(session)
    for game_id, entries in found.items():
        memo[(GM_ACTIONS, game_id, since[game_id])] = entries
    remember_public_press(session, since)


def previous_report_at(session: Session, game: Game, turn: int) -> datetime | None:
    """When the report before turn ``turn``'s went out (None for the first)."""
    return phase_opened_at(session, game, turn)


def gm_actions_since(session: Session, game: Game, since: datetime | None) -> list[dict[str, Any]]:
    """The game masters' overrides since ``since`` (all of them when None), for the next report to announce."""
    entries: list[AuditEntry] | None = memo_of(session).get((GM_ACTIONS, game.id, since))
    if entries is None:
        query = select(AuditEntry).where(AuditEntry.game_id == game.id, AuditEntry.action.in_(announced()))
        if since is not None:
            query = query.where(AuditEntry.at > since)
        entries = list(session.scalars(query.order_by(AuditEntry.id)).all())
    return [announcement(entry, game) for entry in entries]


def announcement(entry: AuditEntry, game: Game) -> dict[str, Any]:
    """The log entry of an override as the game's report announces it (:func:`announced_action`)."""
    return announced_action(entry.action, entry.reason, entry.at, _outcome(entry), game.time_zone)


def announced_action(action: str, reason: str, at: datetime, outcome: dict[str, Any], time_zone: str) -> dict[str, Any]:
    """One override as a report announces it: the phrase its declaration names (``gm_action``,
    :mod:`bot.core.messaging.announcements`) words it from ``action`` (the command's name) and ``outcome``
    (what it did: the new deadline, the turn, the seat...).  A report is public data (its public place's
    copy, the web page): it names nobody's address, neither who acted (the game's log keeps that) nor,
    but where the declaration says so (``Announcement.names_an_address``: the co-GM an ``ADD GM``
    announces), whom it touched.  The
    reason is cleaned again (:func:`bot.core.basics.free_text.clean_line`): one logged before every reason
    was cleaned as it entered reaches no report, page or feed with a control or bidi character."""
    said = announcement_of(action)
    shown = outcome if said and said.names_an_address else {k: v for k, v in outcome.items() if k != "address"}
    return {"action": action, "reason": clean_line(reason), "at": at.isoformat(), "outcome": shown,
            "time_zone": time_zone}  # fmt: skip


def _outcome(entry: AuditEntry) -> dict[str, Any]:
    """What the override did: its reply item (an entry written before the outcome was kept has only
    its arguments: those its declaration's announcement reads, ``Announcement.arguments``)."""
    detail = entry.detail or {}
    items = detail.get("outcome")
    if isinstance(items, list) and items and isinstance(items[0], dict):
        return dict(items[0])
    arguments = detail.get("arguments")
    said = announcement_of(entry.action)
    if not isinstance(arguments, dict) or said is None:
        return {}
    return {k: v for k, v in arguments.items() if k in said.arguments}


def orders_used(game: Game, record: TurnRecord) -> list[dict[str, Any]]:
    """Each seat that owed orders in ``record``'s turn, in seat order, with the commitment of the orders
    the turn used (:func:`bot.core.games.filed_orders.commitment_of`, what its confirmation showed), or
    None when the no-moves-received rule was applied for it.  Seats that owed nothing are not listed."""
    defaulted = set(record.defaulted)
    used: list[dict[str, Any]] = []
    for seat in game.seats:
        text = record.orders.get(seat.name)
        if text is not None:
            used.append({"seat": seat.name, "commitment": commitment_of(game, record.turn_number, seat.name, text)})
        elif seat.name in defaulted:
            used.append({"seat": seat.name, "commitment": None})
    return used


def sent_with(
    deadline: datetime | None, late: timedelta | None, gm_actions: list[dict[str, Any]], press: list[dict[str, Any]]
) -> dict[str, Any]:
    """What a turn's public report says beside its record, kept with it (``TurnRecord.sent``): the deadline
    it gave, how late it was, the actions and the public press it announced.  With the record, it is all
    :func:`public_report` needs to build the report again as it was sent (:func:`report_as_sent`)."""
    return {
        "deadline": deadline.isoformat() if deadline else None,
        "late_minutes": None if late is None else int(late.total_seconds() // 60),
        "gm_actions": gm_actions,
        "press": press,
    }


def report_as_sent(game: Game, record: TurnRecord, sent: dict[str, Any], page: str | None = None) -> dict[str, Any]:
    """The public copy of ``record``'s report as it was sent, from what was kept with it (``sent``:
    :func:`sent_with`), for the web pages to show every report so."""
    rules = rules_of(game)
    next_phase = rules.phase(rules.load_state(record.state_after))
    deadline = datetime.fromisoformat(sent["deadline"]) if sent.get("deadline") else None
    late = None if sent.get("late_minutes") is None else timedelta(minutes=int(sent["late_minutes"]))
    return public_report(game, record, next_phase, deadline=deadline, late=late, gm_actions=list(sent["gm_actions"]),
                         page=page, press=list(sent["press"]))  # fmt: skip


def public_report(
    game: Game,
    record: TurnRecord,
    next_phase: Phase | None,
    *,
    deadline: datetime | None,
    late: timedelta | None = None,
    gm_actions: list[dict[str, Any]] | None = None,
    page: str | None = None,
    press: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The data of the public copy of ``record``'s report (``templates/<form>/report.txt.j2``).

    The one builder of it: :func:`report_outcomes` sends it when the turn resolves, and the web
    pages (:mod:`bot.core.views.pages`) render it again from the stored record and what was kept
    with it (:func:`report_as_sent`), so a page shows the text the channels sent.  ``board`` is the public view of the state after the turn (the
    rules' ``public_state``, never a seat's secrets), which a channel may draw (:mod:`bot.pictures`);
    ``deadline`` is the next phase's (None when it is not known, as for an old turn re-rendered);
    ``page`` is the game's web page, for a link (None: no web pages); ``press``: the public signed press
    since the last report (:mod:`bot.core.turns.press_announcements`), announced beside the GMs' actions.
    """
    rules = rules_of(game)
    finished = next_phase is None
    return {
        "game": game.slug,
        "title": rules.title,
        "kind": game.kind,
        "turn": record.turn_number,
        "phase_title": phase_title_of(game, record),
        "report": record.report,
        "events": [e["text"] for e in record.events],
        "board": rules.public_state(rules.load_state(record.state_after)),
        "next_phase": None
        if next_phase is None
        else {"number": next_phase.number, "title": next_phase.title, "owing": list(next_phase.owing)},
        "deadline": deadline.isoformat() if deadline else None,
        "time_zone": game.time_zone,
        "commitment": game.commitment if record.turn_number == 0 else None,
        "seed": game.seed if finished else None,
        "final": finished,
        "late_minutes": None if late is None else int(late.total_seconds() // 60),
        "gm_actions": gm_actions or [],
        "press": press or [],
        "orders_used": orders_used(game, record),
        "page": page,
        "seat": None,
        "private": None,
    }


def report_outcomes(
    game: Game,
    record: TurnRecord,
    next_phase: Phase | None,
    *,
    late: timedelta | None = None,
    gm_actions: list[dict[str, Any]] | None = None,
    page: str | None = None,
    press: list[dict[str, Any]] | None = None,
) -> list[Outcome]:
    """One public copy (:func:`public_report`), one copy per seat (with that seat's private data),
    and the GMs' copy.

    Every copy carries ``board``: the public view of the state after the turn (the rules'
    ``public_state``, never a seat's secrets), which a channel may draw (:mod:`bot.pictures`),
    and ``page``: the game's web page, or None.

    The player of a seat they left (resigned, or ejected by a game master)
    gets the public copy: the seat's secrets are no longer theirs to see.

    A game master who holds no seat gets the public copy (the GM gets
    every report too); one who plays gets their seat's copy (the delivery step
    sends each recipient one copy of a key).
    """
    common = public_report(
        game, record, next_phase, deadline=game.deadline_at, late=late, gm_actions=gm_actions, page=page, press=press
    )
    key = f"report:{game.slug}:{record.generation}:{record.turn_number}"
    public = Message("report", common)
    outcomes = [Outcome(ToPublic(game.id), public, REPORT, key, game.id, record.turn_number)]
    shared = public.data  # kept once (engine_words.KeptMapping): each copy below walks only its own keys
    for seat in game.seats:  # a seat its player left (resigned, ejected) no longer shows them its private part
        data = shared if seat.resigned else {**shared, "seat": seat.name, "private": record.private.get(seat.name)}
        outcomes.append(
            Outcome(ToPlayer(seat.player_id, seat.name), Message("report", data), REPORT, key, game.id,
                    record.turn_number)
        )  # fmt: skip
    outcomes.append(Outcome(ToGameMasters(game.id), public, REPORT, key, game.id, record.turn_number))
    return outcomes
