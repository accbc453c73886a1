"""Every promise in every combination: a hypothesis state machine drives the service as the channels do.

For each of the five games, random sequences of player commands (orders, the
game's own example orders or rubbish, SET WAIT and NOWAIT, RESIGN, STATUS)
and game master commands (pause, resume, move the deadline, orders for a
seat, process now, roll back, eject, end), clock jumps across deadlines (the
deadline worker runs after every step, as it does under ``referee serve``),
and restarts (a new service on the same database).  After every step the
promises are checked against the store:

* **a complete turn resolves at once**, whatever completed it: a running game
  with early processing at 0 never waits with every seat that owes orders in
  and nobody waiting for the deadline;
* **no order accepted in time is lost or used twice**: a resolved turn used,
  for every seat, the last orders its player or a game master had accepted
  for it (until a rollback reopens the turn);
* **a turn resolves once**: one record per turn and generation;
* **every player gets every report**: each seat's player has one report for
  each turn resolved while they held it;
* **every surface agrees with the store**: STATUS names the open turn and
  whether the game is paused.

``REFEREE_STATE_EXAMPLES`` sets the examples per game (default 200; the fuzz
run, ``scripts/fuzz``, uses more); the PostgreSQL run takes a tenth of them.
The examples are derandomized: the same run tries the same sequences, so a
failure seen once is seen again (and a run with more examples tries more).
``REFEREE_STATE_SHARDS`` (default 1) splits each game's examples into that many
tests of their own, each from its own fixed seed (the first shard's is the
unsharded run's), so that a parallel run (pytest-xdist) spreads one game over
every core; the examples per game stay ``REFEREE_STATE_EXAMPLES`` in all.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import shutil
import tempfile
from collections import Counter
from collections.abc import Callable, Sequence
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, seed, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule
from sqlalchemy import Engine, Row, Text, bindparam, cast, func, select, tuple_
from sqlalchemy.orm import Session, sessionmaker

from adjudicator import registry
from adjudicator.api import Phase
from bot.core.games.filed_orders import current_orders
from bot.core.games.stored import FINISHED, PAUSED, RUNNING, find_game
from bot.core.model import commands as c
from bot.core.runtime.service import GameService
from bot.store.db import make_engine, session_factory, unit_of_work
from bot.store.migrate import upgrade
from bot.store.models import Game, OutboxMessage, Seat, TurnRecord
from tests.core.harness import SEATS, Harness, Sent
from tests.support.database import migrated_sqlite
from tests.support.postgres import PostgresCluster

EXAMPLES = int(os.environ.get("REFEREE_STATE_EXAMPLES", "200"))
SHARDS = max(int(os.environ.get("REFEREE_STATE_SHARDS", "1")), 1)
STEPS = 15
PHASES_KEPT = 5_000
"""The most states whose phase a machine keeps (a state's JSON text is a few kilobytes)."""
SLUG = "g1"
REASON = "as the machine decided"
RUBBISH = ("zzz qqq", "", "ORDERS", "play 99 bank -4", "x" * 300)

# What the machine reads after every step, built once (a statement built anew costs more than running it):
# the columns it checks, never a whole row loaded into the session.
_GAME = select(Game.id, Game.status, Game.generation, cast(Game.state, Text).label("state")).where(
    Game.slug == bindparam("slug")
)
"""The game's row; its state as the stored JSON text (the key of :attr:`_Promises.phases`)."""
_SEATS = select(Seat.name, Seat.player_id, Seat.resigned, Seat.wait_turn).where(Seat.game_id == bindparam("game"))
_RECORDS = select(TurnRecord.generation, TurnRecord.turn_number).where(TurnRecord.game_id == bindparam("game"))
_REPORTS = (
    select(OutboxMessage.recipient, OutboxMessage.turn_number, func.count().label("times"))
    .where(
        OutboxMessage.game_id == bindparam("game"),
        OutboxMessage.kind == "report",
        OutboxMessage.channel == "email",
    )
    .group_by(OutboxMessage.recipient, OutboxMessage.turn_number)
)
_NEW_RECORDS = select(TurnRecord.generation, TurnRecord.turn_number, TurnRecord.orders, TurnRecord.defaulted).where(
    TurnRecord.game_id == bindparam("game"),
    tuple_(TurnRecord.generation, TurnRecord.turn_number).in_(bindparam("keys", expanding=True)),
)

GameRow = Row[int, str, int, str]
"""A row of :data:`_GAME` (its state None before the game starts)."""
SeatRow = Row[str, int, bool, int | None]
"""A row of :data:`_SEATS`."""
Open = tuple[int, int, set[str], str]
"""(generation, turn, owing seats, status) of a game still played."""


class _Promises(RuleBasedStateMachine):
    """The machine for one kind (a subclass per kind sets ``kind`` and ``database``)."""

    kind = ""
    phases: dict[str, Phase | None]
    """The stored state's JSON text -> the phase it waits for: a state is loaded once for the run (every
    example starts from the same game, and most steps leave the state as it was). A subclass per kind."""
    fresh: staticmethod  # () -> an engine on a database just made a copy of the started game, for one example

    def __init__(self) -> None:
        super().__init__()
        self.engine: Engine = type(self).fresh()
        self.sessions: sessionmaker[Session] = session_factory(self.engine)
        self.harness = Harness(self.sessions, counter=itertools.count(10_000))  # after the template's ids
        self.rules = registry.get_rules(self.kind)
        self.seats = SEATS[: self.rules.min_seats]
        self.rng = random.Random(0)
        self.accepted: dict[tuple[int, int, str], str] = {}
        """(generation, turn, seat) -> the orders last accepted for the seat while that turn was open."""
        self.checked: set[tuple[int, int]] = set()
        self.holders: dict[str, set[tuple[int, int]]] = {}
        self.ended = False
        self.targets: dict[int, int] = {}
        """Each generation a rollback started -> the turn it reopened."""
        self.always_held = set(self.seats)
        """The seats whose first player has held them all along (no RESIGN, no EJECT)."""

    def teardown(self) -> None:
        self.engine.dispose()  # every connection closed: the next example's copy replaces the database

    # -- the game ----------------------------------------------------------------------------

    @initialize()
    def started(self) -> None:
        """The game was created and started in the database this example copied (:func:`started_game_at`)."""
        self.settle()

    def settle(self) -> None:
        """What the deadline worker does right after a change: resolve what is due now."""
        self.harness.service.resolve_due(self.harness.clock.now())

    def game_row(self) -> GameRow:
        """The game's row (:data:`_GAME`), read in a transaction of its own."""
        with unit_of_work(self.sessions) as session:
            row = session.connection().execute(_GAME, {"slug": SLUG}).one_or_none()
        assert row is not None
        return row

    def phase(self, status: str, state: str | None) -> Phase | None:
        """What :func:`bot.core.games.stored.phase_of` says of a game with ``status`` and the stored
        ``state`` (JSON text): the phase it waits for, None before it starts or once it is finished."""
        if state is None or status == FINISHED:
            return None
        if state not in self.phases:
            if len(self.phases) >= PHASES_KEPT:
                self.phases.clear()
            self.phases[state] = self.rules.phase(self.load(state))
        return self.phases[state]

    def load(self, state: str) -> object:
        """The engine state stored as ``state`` (JSON text), loaded anew (the caller may change it)."""
        return self.rules.load_state(json.loads(state))

    def open_turn(self, row: GameRow | None = None) -> Open | None:
        """(generation, turn, owing seats, status) of the game (as ``row`` has it, else as stored now),
        or None once it is over."""
        game = row if row is not None else self.game_row()
        if game.status not in (RUNNING, PAUSED):
            return None
        phase = self.phase(game.status, game.state)
        if phase is None:
            return None
        return game.generation, phase.number, set(phase.owing), game.status

    def remember(self, seat: str, text: str, before: Open, state: str, sent: Sent) -> None:
        """The orders a reply accepted (a player's, or a game master's for the seat), in the game's
        canonical form as turn records keep them, read in the state the orders were sent in (``before``,
        stored as ``state``)."""
        if not {"orders_accepted", "orders_entered"} & set(sent.applied.results):
            return
        generation, turn, _, _ = before
        loaded = self.load(state)
        parsed = self.rules.parse_orders(loaded, seat, text)
        assert parsed.orders is not None, f"accepted, yet the game reads errors in {text!r}: {parsed.errors}"
        self.accepted[(generation, turn, seat)] = self.rules.format_orders(loaded, seat, parsed.orders)

    def orders_for(self, seat: str, rubbish: str | None, send: Callable[[str], Sent]) -> bool:
        """Send orders for ``seat`` (``rubbish``, else what the game's example player would send now) with
        ``send``, remembering what a reply accepted; whether they were sent (not once the game is over)."""
        game = self.game_row()
        before = self.open_turn(game)
        if before is None:
            return False
        assert game.state is not None  # a game with an open turn has a state
        text = rubbish if rubbish is not None else self.rules.example_orders(self.load(game.state), seat, self.rng)
        self.remember(seat, text, before, game.state, send(text))
        return True

    # -- player commands ---------------------------------------------------------------------

    @rule(seat=st.integers(0, 5), rubbish=st.sampled_from((None, *RUBBISH)))
    def player_orders(self, seat: int, rubbish: str | None) -> None:
        name = self.seats[seat % len(self.seats)]
        if self.orders_for(name, rubbish, lambda text: self.harness.send(name, c.SubmitOrders(SLUG, text))):
            self.settle()

    @rule(seat=st.integers(0, 5), wait=st.booleans())
    def player_wait(self, seat: int, wait: bool) -> None:
        self.harness.send(self.seats[seat % len(self.seats)], c.WaitForDeadline(SLUG, wait))
        self.settle()

    @rule(seat=st.integers(0, 5))
    def player_status(self, seat: int) -> None:
        name = self.seats[seat % len(self.seats)]
        reply = self.harness.send(name, c.ShowStatus(SLUG)).reply or ""
        now = self.open_turn()
        if now is not None and now[3] == PAUSED:
            assert "paused" in reply.lower(), f"STATUS of a paused game does not say so:\n{reply}"

    @rule(seat=st.integers(0, 5))
    def player_resigns(self, seat: int) -> None:
        self.harness.send(self.seats[seat % len(self.seats)], c.Resign(SLUG))
        self.settle()

    # -- game master commands ----------------------------------------------------------------

    @rule(seat=st.integers(0, 5))
    def gm_eject(self, seat: int) -> None:
        self.harness.send("GM", c.EjectPlayer(SLUG, self.seats[seat % len(self.seats)], REASON))
        self.settle()

    @rule(seat=st.integers(0, 5), rubbish=st.sampled_from((None, None, *RUBBISH)))
    def gm_orders(self, seat: int, rubbish: str | None) -> None:
        name = self.seats[seat % len(self.seats)]
        if self.orders_for(
            name, rubbish, lambda text: self.harness.send("GM", c.EnterOrders(SLUG, name, text, REASON))
        ):
            self.settle()

    @rule()
    def gm_pause(self) -> None:
        self.harness.send("GM", c.PauseGame(SLUG, REASON))
        self.settle()

    @rule()
    def gm_resume(self) -> None:
        self.harness.send("GM", c.ResumeGame(SLUG, REASON))
        self.settle()

    @rule(hours=st.integers(-2, 6))
    def gm_move_deadline(self, hours: int) -> None:
        when = f"+{hours}h" if hours >= 0 else (self.harness.clock.now() + timedelta(hours=hours)).isoformat()
        self.harness.send("GM", c.SetDeadline(SLUG, when, REASON))
        self.settle()

    @rule(ahead=st.integers(-1, 1))
    def gm_process(self, ahead: int) -> None:
        now = self.open_turn()
        turn = (now[1] if now is not None else 0) + ahead
        self.harness.send("GM", c.ProcessNow(SLUG, max(turn, 0), REASON))
        self.settle()

    @rule(back=st.integers(0, 3))
    def gm_rollback(self, back: int) -> None:
        now = self.open_turn()
        if now is None:
            return
        target = max(now[1] - back, 0)
        self.harness.send("GM", c.RollBack(SLUG, target, REASON))
        after = self.open_turn()
        if after is not None and after[0] != now[0]:
            self.targets[after[0]] = target  # the new generation holds copies of the turns before it
        self.settle()

    @precondition(lambda self: not self.ended)
    @rule(abandon=st.booleans())
    def gm_end(self, abandon: bool) -> None:
        reply = self.harness.send("GM", c.EndGame(SLUG, REASON, abandon)).reply
        self.ended = self.open_turn() is None
        del reply

    # -- time and restarts -------------------------------------------------------------------

    @rule(minutes=st.sampled_from((1, 30, 59, 61, 120, 60 * 24)))
    def clock_jump(self, minutes: int) -> None:
        self.harness.clock.advance(timedelta(minutes=minutes))
        self.settle()

    @rule()
    def restart(self) -> None:
        self.harness.service = GameService(self.sessions, self.harness.config)
        self.settle()

    # -- the promises ------------------------------------------------------------------------

    @invariant()
    def the_promises_hold(self) -> None:
        """Both promises read from the store, in one transaction after every step (one read of the game)."""
        with unit_of_work(self.sessions) as session:
            read = session.connection().execute
            game = read(_GAME, {"slug": SLUG}).one_or_none()
            if game is None:
                return
            seats = read(_SEATS, {"game": game.id}).all()
            self.a_complete_turn_is_resolved(session, game, seats)
            self.accepted_orders_are_used_and_every_player_gets_every_report(session, game, seats)

    def a_complete_turn_is_resolved(self, session: Session, game: GameRow,
                                    seats: Sequence[SeatRow]) -> None:  # fmt: skip
        """A running game never waits with every seat that owes orders in and nobody waiting."""
        if game.status != RUNNING:
            return
        phase = self.phase(game.status, game.state)
        if phase is None or not phase.owing:
            return
        # The orders accepted in this line of play (a rollback starts a new one: orders on file from
        # before it do not complete the reopened turn, which waits for every seat to look again).
        on_file = set(current_orders(session, game.id, phase.number))
        orders = {seat for seat in on_file if (game.generation, phase.number, seat) in self.accepted}
        waiting = [s.name for s in seats if s.wait_turn == phase.number and not s.resigned]
        left = {s.name for s in seats if s.resigned}  # a seat its player left owes nothing more
        playing = set(phase.owing) - left
        complete = bool(playing) and all(seat in orders for seat in playing) and not waiting
        assert not complete, (
            f"turn {phase.number} of {self.kind} has every order in ({sorted(phase.owing)}) "
            f"and nobody waits, yet it is not resolved"
        )

    def accepted_orders_are_used_and_every_player_gets_every_report(
        self, session: Session, game: GameRow,
        seated: Sequence[SeatRow],
    ) -> None:  # fmt: skip
        """Each resolved turn used every seat's last accepted orders, once; each holder got each report."""
        # Only the columns read here (a turn record's states and report are large JSON documents,
        # and this runs after every step); a record's orders are read once, when it is first seen.
        read = session.connection().execute
        records = read(_RECORDS, {"game": game.id}).all()
        counted = Counter((r.generation, r.turn_number) for r in records)
        assert all(n == 1 for n in counted.values()), counted
        seats = {s.name: s.player_id for s in seated}
        holding = {s.name for s in seated if not s.resigned}
        reports = {(row.recipient, row.turn_number): row.times for row in read(_REPORTS, {"game": game.id})}
        self.always_held &= holding
        unchecked = {(r.generation, r.turn_number) for r in records} - self.checked
        new_records = read(_NEW_RECORDS, {"game": game.id, "keys": sorted(unchecked)}).all() if unchecked else []
        for record in new_records:
            key = (record.generation, record.turn_number)
            self.checked.add(key)
            for seat in record.orders:
                wanted = self.accepted.get((record.generation, record.turn_number, seat))
                if wanted is not None and seat not in record.defaulted:
                    assert record.orders[seat].strip() == wanted, (
                        f"{self.kind} turn {record.turn_number}: {seat}'s accepted orders {wanted!r} "
                        f"were not used ({record.orders[seat]!r})"
                    )
            for seat, text in self.accepted.items():
                if seat[:2] == key and seat[2] not in record.orders and seat[2] in seats:
                    raise AssertionError(f"{self.kind} turn {key}: {seat[2]}'s accepted orders {text!r} are lost")
        # A rollback copies the records of the turns before its target into the new generation, as they
        # were: a copy is no new resolution, and sends no report.
        resolved = Counter(r.turn_number for r in records if r.turn_number >= self.targets.get(r.generation, 0))
        event(f"turns resolved so far: {min(len(resolved), 3)}{'+' if len(resolved) >= 3 else ''}")
        for name in self.seats:
            if name not in self.always_held:
                continue  # a seat its player left: what they were told after is not counted here
            address = f"{name.lower()}@example.org"
            for turn, times in resolved.items():
                got = reports.get((address, turn), 0)
                assert got == times, f"{self.kind}: {name} got {got} reports of turn {turn}, resolved {times} times"


def started_game_at(kind: str, url: str) -> None:
    """Create and start game ``g1`` of ``kind`` with its least number of seats in the database at ``url``
    (every order due within the hour, processed as soon as every order is in)."""
    engine = make_engine(url)
    try:
        h = Harness(session_factory(engine))
        created = h.send("GM", c.CreateGame(SLUG, kind, {}, "UTC", 60, True, "address", early_delay="0")).reply
        assert created is not None and SLUG in created, created
        for name in SEATS[: registry.get_rules(kind).min_seats]:
            h.send(name, c.JoinGame(SLUG, name))
        started = h.send("GM", c.StartGame(SLUG)).reply
        with unit_of_work(h.sessions) as session:
            game = find_game(session, SLUG)
            seed = None if game is None else game.seed
        # shown with a failure (captured output): each run deals from a new seed, and a failure needs it
        print(f"{kind}: game {SLUG} dealt from seed {seed}")
        assert started is not None and "STARTED" in started, started
    finally:
        engine.dispose()


def _machine(kind: str, fresh: object) -> type[_Promises]:
    name = "Promises_" + kind.replace("-", "_")
    return type(name, (_Promises,), {"kind": kind, "fresh": staticmethod(fresh), "phases": {}})  # type: ignore[arg-type]


def _run(machine: type[_Promises], examples: int, shard: int = 0) -> None:
    """Run ``examples`` sequences on ``machine``: derandomized (shard 0), or from the fixed seed ``shard``."""
    machine.TestCase.settings = settings(
        max_examples=examples, stateful_step_count=STEPS, deadline=None, derandomize=True, database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )  # fmt: skip
    if shard:
        seed(shard)(machine)  # a seed overrides derandomize: another fixed series of sequences
    machine.TestCase().runTest()


def _shard_examples(shard: int) -> int:
    """The examples of ``shard`` of a game's :data:`SHARDS`: ``EXAMPLES`` in all, the first ones take the rest."""
    return EXAMPLES // SHARDS + (1 if shard < EXAMPLES % SHARDS else 0)


if SHARDS > 1:

    @pytest.fixture(params=range(SHARDS), ids=lambda n: f"shard{n + 1}of{SHARDS}")
    def shard(request: pytest.FixtureRequest) -> int:
        """Which of a game's :data:`SHARDS` this test runs."""
        return int(request.param)

else:

    @pytest.fixture
    def shard() -> int:
        """Unsharded: the one run of a game (its test's id is the kind alone)."""
        return 0


@pytest.fixture(scope="module")
def started_games(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    """``started_games(kind)``: a SQLite file holding game ``g1`` of ``kind`` just started
    (:func:`started_game_at`), made once per kind in this process (a game's shards share it)."""
    folder = tmp_path_factory.mktemp("machine")
    made: dict[str, Path] = {}

    def of(kind: str) -> Path:
        if kind not in made:
            path = Path(migrated_sqlite(folder / f"{kind}.sqlite3"))
            started_game_at(kind, str(path))
            made[kind] = path
        return made[kind]

    return of


@pytest.mark.parametrize("kind", registry.kinds())
def test_every_promise_holds_in_every_combination(
    kind: str, shard: int, started_games: Callable[[str], Path], tmp_path: Path
) -> None:
    template = started_games(kind)

    place = Path("/dev/shm") if Path("/dev/shm").is_dir() else tmp_path  # memory: no disk flush a step
    folder = Path(tempfile.mkdtemp(dir=place))
    target = folder / "example.sqlite3"
    # One engine for every example, on one file that each example copies anew: the engine's cache of
    # compiled statements is kept from one example to the next (a new engine would compile them again).
    engine = make_engine(str(target))

    def fresh() -> Engine:
        engine.dispose()  # the last example's connections (teardown closed them; a failed one may not have)
        for log in (folder / "example.sqlite3-wal", folder / "example.sqlite3-shm"):
            log.unlink(missing_ok=True)
        shutil.copyfile(template, folder / "next.sqlite3")
        os.replace(folder / "next.sqlite3", target)  # a new file: a connection left open keeps the old one
        return engine

    try:
        _run(_machine(kind, fresh), _shard_examples(shard), shard)
    finally:
        engine.dispose()
        shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.integration
@pytest.mark.parametrize("kind", registry.kinds())
def test_every_promise_holds_in_every_combination_on_postgresql(kind: str, postgres: PostgresCluster) -> None:
    """The same machine on PostgreSQL (each example a database cloned from a started game), shorter."""
    template = f"machine_{kind.replace('-', '_')}"
    postgres.execute(f"CREATE DATABASE {template}")
    upgrade(postgres.url(template))
    started_game_at(kind, postgres.url(template))
    example = f"{template}_example"
    engine = make_engine(postgres.url(example))  # one engine, as on SQLite: its compiled statements kept

    def fresh() -> Engine:
        engine.dispose()
        postgres.execute(f"DROP DATABASE IF EXISTS {example}")
        postgres.execute(f"CREATE DATABASE {example} TEMPLATE {template}")
        return engine

    try:
        _run(_machine(kind, fresh), max(EXAMPLES // 10, 5))
    finally:
        engine.dispose()
