"""What the web channel's pages show: the club's games, and one game as everyone may see it.

Plain frozen values, read in one short transaction each; no store model and
no stored state leaves this module (docs/architecture.md, "How a game plugs in").  A
page is the public view only:

* the board is the rules' ``public_state`` (never a seat's view);
* of the open turn, who owes orders and who has sent some (never what);
* every report is the public copy's data, rebuilt from the stored turn record
  by :func:`bot.core.turns.resolution.public_report` (the builder the channels'
  copies come from), for a page to render with a channel's ``report`` template:
  the text the public place was sent;
* the standings are the rules' ``standings``.  In Strike Gold they read the
  round totals and the columns and rows cleared, in Dragon Stripes the gems:
  every one of them is in ``public_state`` (``tests/web/test_hidden.py``
  checks the standings shown against the public view);
* the seed only once the game is over (it is secret until then: its
  commitment is public from the start);
* of a seat up for a substitute, what its offer made public (the game's
  public place says the same): the seat, since when, the game's minimum
  reliability and whether a game master accepts the taker.  Never who has
  offered to take it (``Seat.candidate_id`` waits for a game master, and is
  nobody else's business) nor anyone's address.

Several ``referee serve`` processes may read the same database: nothing here
writes, nor keeps anything between calls.  What a page is built from changes
when its stamp does (:mod:`bot.core.views.page_stamps`, one small SELECT): a
reader keeps a built page until then.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast
from zoneinfo import ZoneInfo

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload, sessionmaker

from adjudicator.api import JSON
from bot.core.basics.durations import format_moment
from bot.core.games.facts import GameFacts, facts_of
from bot.core.games.filed_orders import remember_current
from bot.core.games.stored import ABANDONED, FINISHED, FORMING, PAUSED, RUNNING, find_game, rules_of, state_for_reading
from bot.core.messaging.rendering import environment
from bot.core.people.reliability import TRIAL_TURNS, seat_figures
from bot.core.turns.game_record import export_record
from bot.core.turns.generations import live_records
from bot.core.turns.press_announcements import public_press_since
from bot.core.turns.record_words import phase_title_of
from bot.core.turns.resolution import gm_actions_since, public_report, report_as_sent
from bot.core.turns.substitutes import offered_seats
from bot.core.views.page_stamps import club_stamp, game_stamp
from bot.store.db import unit_of_work
from bot.store.models import Game

OVER = (FINISHED, ABANDONED)
"""The statuses of a game that is over: its seed is revealed and its record may be downloaded."""
TAKING = (RUNNING, PAUSED)
"""The statuses of a game whose seats may be up for a substitute (taking one is refused in any other)."""


@dataclass(frozen=True)
class Moment:
    """A time: ``at`` in UTC (for ``<time datetime>``) and ``text`` in UTC and the game's zone."""

    at: datetime
    text: str


@dataclass(frozen=True)
class GameLine:
    """One game as the club's index lists it (and the head of its own page)."""

    slug: str
    kind: str
    title: str
    status: str
    time_zone: str
    seats: tuple[str, ...]
    """The seats' names, in order (a seat its player left included)."""
    seat_limit: int | None
    """The seats it starts with (or may take at most); None: as many as the game allows."""
    joining_open: bool
    turn: int | None
    """The number of the turn open now (None: not started, or over)."""
    phase_title: str | None
    deadline: Moment | None
    """When the open turn's orders are due (None while paused, before the start, or over)."""
    joinable: bool = False
    """It takes a JOIN now (a full or closed game offers none)."""
    paused_since: Moment | None = None
    paused_until: Moment | None = None


@dataclass(frozen=True)
class SeatOffer:
    """A seat up for a substitute, as its offer made it public (the game's public place was told the same):
    the game, the seat, since when, and what taking it needs.  Nothing of who has offered to take it."""

    slug: str
    kind: str
    title: str
    seat: str
    since: Moment
    """When it was put up (UTC and the game's zone)."""
    min_reliability: int | None
    """The share of owed turns a taker must have ordered in time, as to join (None: anyone)."""
    auto: bool
    """True: the first to take it has it at once; False: a game master accepts (or declines) them."""


@dataclass(frozen=True)
class ClubPage:
    running: tuple[GameLine, ...]
    forming: tuple[GameLine, ...]
    finished: tuple[GameLine, ...]
    offered: tuple[SeatOffer, ...] = ()
    """The seats up for a substitute in running and paused games, by game and seat."""
    trial_turns: int = TRIAL_TURNS
    """A player who has owed fewer turns meets any game's minimum reliability."""


@dataclass(frozen=True)
class StandingLine:
    seat: str
    place: int
    score: float | int | None


@dataclass(frozen=True)
class PublicReport:
    """One turn's public report: ``data`` is what the channels' public copy carried (the template
    ``report`` of any form renders it), rebuilt from the stored turn record."""

    turn: int
    phase_title: str
    resolved_at: datetime
    data: dict[str, Any]


@dataclass(frozen=True)
class Announcement:
    """One game master's action the reports announce (moved deadlines, early processing ...)."""

    at: Moment
    text: str
    reason: str


@dataclass(frozen=True)
class HolderRecord:
    """A seat of a forming game and its player's reliability record (:mod:`bot.core.people.reliability`):
    of the turns they owed over every game, how many they ordered in time and how many they missed."""

    seat: str
    owed: int
    ordered: int
    missed: int


@dataclass(frozen=True)
class GamePage:
    """One game as everyone may see it."""

    line: GameLine
    owing: tuple[str, ...]
    """Who owes orders in the open turn."""
    ordered: tuple[str, ...]
    """Of those, who has sent orders (what they are stays unseen until the turn resolves)."""
    resigned: tuple[str, ...]
    standings: tuple[StandingLine, ...]
    board: dict[str, JSON] | None
    """The public view of the state now (the rules' ``public_state``), for a picture; None before the start."""
    reports: tuple[PublicReport, ...]
    announcements: tuple[Announcement, ...]
    commitment: str
    seed: str | None
    """Revealed once the game is over (None until then)."""
    created_at: datetime
    holders: tuple[HolderRecord, ...] = ()
    """Before the start: each seat's player's record, for those deciding whether to join (or to start)."""
    min_reliability: int | None = None
    """The share of owed turns a player must have ordered in time to join (None: anyone) ..."""
    trial_turns: int = TRIAL_TURNS
    """... once they have owed this many turns."""
    offered: tuple[SeatOffer, ...] = ()
    """Its seats up for a substitute (running or paused), in seat order."""

    @property
    def over(self) -> bool:
        return self.line.status in OVER


class Pages:
    """The pages' data; each call is its own short read-only transaction."""

    def __init__(self, sessions: sessionmaker[Session]) -> None:
        self._sessions = sessions

    def club(self) -> ClubPage:
        """Every game: running (and paused), forming, and over; each list by slug."""
        with unit_of_work(self._sessions) as session:
            games = list(session.scalars(select(Game).options(selectinload(Game.seats)).order_by(Game.slug)))
            remember_current(session, [(g.id, g.phase_number) for g in games if g.status in TAKING])  # one query
            lines = [_line(game, facts_of(session, game)) for game in games]
            offered = _offered(games)
        return ClubPage(
            running=tuple(line for line in lines if line.status not in (FORMING, *OVER)),
            forming=tuple(line for line in lines if line.status == FORMING),
            finished=tuple(line for line in lines if line.status in OVER),
            offered=offered,
        )

    def game(self, slug: str) -> GamePage | None:
        """The page of ``slug``, or None: no such game."""
        with unit_of_work(self._sessions) as session:
            game = find_game(session, slug)
            return None if game is None else _page(session, game)

    def board(self, slug: str) -> tuple[str, dict[str, JSON] | None] | None:
        """The kind of ``slug`` and its board (the rules' ``public_state``; None before the start), or None:
        no such game.  What a picture is drawn from, without the reports a page reads."""
        with unit_of_work(self._sessions) as session:
            game = find_game(session, slug)
            if game is None:
                return None
            return game.kind, (None if game.state is None else rules_of(game).public_state(state_for_reading(game)))

    def stamp(self, slug: str) -> str | None:
        """What changes whenever ``slug``'s page, board, feed or record does
        (:func:`bot.core.views.page_stamps.game_stamp`); None: no such game."""
        with unit_of_work(self._sessions) as session:
            return game_stamp(session, slug)

    def club_stamp(self) -> str:
        """What changes whenever the club's index does (:func:`bot.core.views.page_stamps.club_stamp`)."""
        with unit_of_work(self._sessions) as session:
            return club_stamp(session)

    def record(self, slug: str) -> dict[str, Any] | None:
        """The sealed record of ``slug`` once it is over (:func:`export_record`), or None: no such
        game, or not over (its seed is still secret)."""
        with unit_of_work(self._sessions) as session:
            game = find_game(session, slug)
            if game is None or game.status not in OVER:
                return None
            return export_record(session, game)


def _moment(at: datetime | None, time_zone: str) -> Moment | None:
    return None if at is None else Moment(at, format_moment(at, ZoneInfo(time_zone)))


def _line(game: Game, facts: GameFacts) -> GameLine:
    """The game's line, from its facts (:func:`bot.core.games.facts.facts_of`: what every surface shows)."""
    zone = facts.time_zone
    return GameLine(
        slug=facts.slug, kind=facts.kind, title=facts.title, status=facts.status, time_zone=zone,
        seats=facts.seats, seat_limit=game.target_seats or game.max_seats,
        joining_open=game.joining_open, turn=facts.turn if facts.phase is not None else None,
        phase_title=facts.phase, deadline=_moment(facts.deadline, zone), joinable=facts.joinable,
        paused_since=_moment(facts.paused_since, zone), paused_until=_moment(facts.paused_until, zone),
    )  # fmt: skip


def _offered(games: list[Game]) -> tuple[SeatOffer, ...]:
    """The seats up for a substitute among ``games`` (those running or paused), as their offers made public."""
    found: list[SeatOffer] = []
    for game, seat in offered_seats(game for game in games if game.status in TAKING):
        since = _moment(seat.offered_at, game.time_zone)
        assert since is not None
        found.append(
            SeatOffer(
                slug=game.slug,
                kind=game.kind,
                title=rules_of(game).title,
                seat=seat.name,
                since=since,
                min_reliability=game.min_reliability,
                auto=game.substitute_auto,
            )
        )
    return tuple(found)  # fmt: skip


def _page(session: Session, game: Game) -> GamePage:
    facts = facts_of(session, game)
    line = _line(game, facts)
    rules = rules_of(game)
    board: dict[str, JSON] | None = None
    standings: tuple[StandingLine, ...] = ()
    if game.state is not None:
        state = state_for_reading(game)
        board = rules.public_state(state)
        standings = tuple(StandingLine(s.seat, s.place, s.score) for s in rules.standings(state))
    actions = gm_actions_since(session, game, None)
    return GamePage(
        line=line,
        owing=facts.owing,
        ordered=facts.ordered,
        resigned=facts.resigned,
        standings=standings,
        board=board,
        reports=_reports(session, game, actions, public_press_since(session, game, None)),
        announcements=tuple(_announcement(action) for action in actions),
        commitment=game.commitment,
        seed=game.seed if game.status in OVER else None,
        created_at=game.created_at,
        holders=_holders(session, game),
        min_reliability=game.min_reliability,
        offered=_offered([game]),
    )


def _holders(session: Session, game: Game) -> tuple[HolderRecord, ...]:
    if game.status != FORMING:
        return ()
    return tuple(HolderRecord(f["seat"], f["owed"], f["ordered"], f["missed"])
                 for f in seat_figures(session, [game])[game.id])  # fmt: skip


def _reports(
    session: Session, game: Game, actions: list[dict[str, Any]], press: list[dict[str, Any]]
) -> tuple[PublicReport, ...]:
    """Every live turn's public report as it was sent, oldest first: from what its record kept of it
    (:func:`bot.core.turns.resolution.report_as_sent`); a turn resolved before that was kept is rebuilt
    with the actions and the public press of its own time (those since the report before, up to it) and
    no deadline (the one it said is not known; today's is not it)."""
    rules = rules_of(game)
    found: list[PublicReport] = []
    since: datetime | None = None
    for record in live_records(session, game):
        until = record.resolved_at
        if record.sent is not None:
            data = report_as_sent(game, record, record.sent)
        else:
            announced = [a for a in actions if (since is None or _at(a) > since) and _at(a) <= until]
            said = [p for p in press if (since is None or _at(p) > since) and _at(p) <= until]
            next_phase = rules.phase(rules.load_state(record.state_after))
            data = public_report(game, record, next_phase, deadline=None, gm_actions=announced, press=said)
        since = until
        found.append(PublicReport(record.turn_number, phase_title_of(game, record), record.resolved_at, data))
    return tuple(found)


def _at(action: dict[str, Any]) -> datetime:
    return datetime.fromisoformat(str(action["at"]))


def _announcement(action: dict[str, Any]) -> Announcement:
    phrase = cast(Callable[[str, dict[str, Any]], str], environment().globals["phrase"])
    at = _moment(_at(action), str(action.get("time_zone") or "UTC"))
    assert at is not None
    return Announcement(at, " ".join(phrase("gm_action", action).split()), str(action.get("reason") or ""))
