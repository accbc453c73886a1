"""Every line of every mail fits in 78 columns, whatever the seat names.

Each game is played whole through the real core (a migrated SQLite database,
the service every channel uses, the deadline worker), with the most seats the
game allows and long seat names (20 characters, and the 40 the core accepts).
The players also ask for HELP, LIST and STATUS, send a refused order, and the
game master moves a deadline, pauses and resumes the game and broadcasts, so
that replies and notices are in the outbox as well as the reports of every
turn and every seat.  Every outbox row is rendered in the email form and each
line of its subject-less body is checked: at most 78 columns, and plain ASCII
(the mail goes out 7bit) since every input was ASCII.

A golden file per game holds the widest report (the first and the last turn,
one seat's copy), so that the clipped tables and their legends are read by a
person when they change.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from adjudicator import registry
from bot.core import commands as c
from bot.core import host_commands
from bot.core.clock import SimulatedClock
from bot.core.outbox import PendingMessage
from bot.core.service import GameService, ServiceConfig
from bot.core.views import GameViews
from bot.email.compose import MailIdentity, compose
from bot.store.db import make_engine, session_factory, unit_of_work
from bot.store.migrate import upgrade
from bot.store.models import OutboxMessage
from tests.golden import assert_golden
from tests.support.rendering import Row, rendered

HERE = Path(__file__).parent
WIDTH = 78
START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
GM = "gm@example.org"
SLUG = "a-game-with-the-longest-name-allowed-040"
NAMES_20 = (
    "Noureddine Morceli-B", "Sebastian N. Coe-Lee", "Steve Ovett-Brighton", "Steve Cram of Jarrow",
    "Said Aouita of Rabat", "Peter Elliott Rother", "Abdi Hassan Bile Jr.", "Jose Luis Gonzalez-M",
    "Jose Luis Gonzalez-T", "John Walker Auckland",
)  # fmt: skip
"""Twenty characters each; two share their first 19, so a clipped name alone could not tell them apart."""
NAMES_40 = tuple(f"{name} {name[:19]}" for name in NAMES_20)
KINDS = ("golden-strider", "three-races", "strike-gold", "dragon-stripes", "lautobus")
MAX_TURNS = 400


@pytest.fixture(scope="module")
def empty_database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("width") / "empty.sqlite3"
    upgrade(str(path))
    return path


@dataclass
class Game:
    """A whole game played through the core; ``rows`` is its outbox rendered in the email form."""

    kind: str
    names: tuple[str, ...]
    rows: list[Row]


def _address(name: str) -> str:
    return "".join(ch for ch in name.lower() if ch.isalnum())[:30] + "@players.example.org"


def play(database: Path, kind: str, names: tuple[str, ...]) -> Game:
    """Play ``kind`` to its end with a seat for each of ``names`` (the game's most seats), seeded."""
    rules = registry.get_rules(kind)
    seats = list(names[: rules.max_seats])
    if len(seats) < rules.max_seats:  # a game with more seats than names: number the extra ones
        seats += [f"{names[0][:-2]}{i:02d}" for i in range(len(seats), rules.max_seats)]
    engine = make_engine(str(database))
    sessions = session_factory(engine)
    try:
        rows = _play(sessions, kind, seats)
    finally:
        engine.dispose()
    return Game(kind, tuple(seats), rows)


def _play(sessions: sessionmaker[Session], kind: str, seats: list[str]) -> list[Row]:
    rules = registry.get_rules(kind)
    clock = SimulatedClock(START)
    service = GameService(sessions, ServiceConfig(message_domain="example.com", game_masters=frozenset({GM})))
    views = GameViews(sessions)
    rng = random.Random(11)
    sources = itertools.count(1)

    def send(address: str, name: str, *commands: c.Command) -> None:
        envelope = c.Envelope(
            c.Sender("email", address, name), commands, f"width:{next(sources)}", clock.now(),
            {"subject": "orders", "message_id": f"<w{next(sources)}@players.example.org>"}, trust=c.Trust.VERIFIED,
        )  # fmt: skip
        service.apply(envelope)

    gm = (GM, "Game Master")
    send(*gm, c.CreateGame(SLUG, kind, {}, "Pacific/Chatham", 48 * 60, False, "address"))
    for name in seats:
        send(_address(name), name, c.JoinGame(SLUG, name))
    send(*gm, c.StartGame(SLUG))
    first = seats[0]
    send(_address(first), first, c.ShowHelp(), c.ShowHelp(kind), c.ListGames(), c.ShowStatus(SLUG))
    send(_address(first), first, c.SubmitOrders(SLUG, "this is not an order at all, not in any game " * 3))
    send(*gm, c.SetDeadline(SLUG, "+2d3h", "a player with a very long name is travelling to the far end of the world"))
    send(*gm, c.PauseGame(SLUG, "the club is closed for the national holiday and the referee takes a rest"))
    send(*gm, c.ResumeGame(SLUG, "open again after the national holiday, with the deadline given back"))
    send(*gm, c.Broadcast(SLUG, "Welcome to everyone with a long name. " * 6))
    for _ in range(MAX_TURNS):
        view = views.game(SLUG)
        assert view is not None and view.state is not None
        if view.phase is None:
            break
        state = rules.load_state(view.state)
        for seat in view.phase.owing:
            if seat == seats[-1] and view.phase.number % 3 == 1:
                continue  # now and then nothing is received: the referee's own orders are reported
            send(_address(seat), seat, c.SubmitOrders(SLUG, rules.example_orders(state, seat, rng)))
        after = views.game(SLUG)
        assert after is not None
        if after.phase is None or after.phase.number != view.phase.number:
            clock.advance(timedelta(minutes=10))
            continue
        deadline = service.next_deadline()
        assert deadline is not None
        clock.set(max(deadline, clock.now()))
        service.resolve_due(clock.now())
    else:
        raise AssertionError(f"{kind} did not end in {MAX_TURNS} turns")
    send(_address(first), first, c.ShowStatus(SLUG))
    with unit_of_work(sessions) as session:
        return [rendered(row) for row in session.scalars(select(OutboxMessage).order_by(OutboxMessage.id)).all()]


def too_wide(rows: list[Row]) -> Iterator[str]:
    """``template: width: line`` for every line over 78 columns or not ASCII."""
    for row in rows:
        if not row.subject.isascii():
            yield f"{row.template} ({row.kind}): subject not ASCII: {row.subject}"
        for line in row.body.splitlines():
            if len(line) > WIDTH or not line.isascii():
                yield f"{row.template} ({row.kind}): {len(line)}: {line}"


class FixedSeed:
    """``secrets`` for bot.core.host_commands with a fixed game seed, so that a whole game is reproducible."""

    @staticmethod
    def token_hex(nbytes: int) -> str:
        return ("5eed" * nbytes)[: 2 * nbytes]


@pytest.fixture(scope="module")
def games(empty_database: Path, tmp_path_factory: pytest.TempPathFactory) -> Callable[[int], dict[str, Game]]:
    """Every game played once per name length (20 or 40 characters), on demand, with a fixed seed."""
    played: dict[int, dict[str, Game]] = {}

    def of_length(length: int) -> dict[str, Game]:
        if length not in played:
            names = NAMES_20 if length == 20 else NAMES_40
            assert {len(name) for name in names} == {length}
            played[length] = {}
            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(host_commands, "secrets", FixedSeed)
                for kind in KINDS:
                    database = tmp_path_factory.mktemp(kind) / "game.sqlite3"
                    database.write_bytes(empty_database.read_bytes())
                    played[length][kind] = play(database, kind, names)
        return played[length]

    return of_length


@pytest.mark.parametrize("length", [20, 40], ids=lambda n: f"names{n}")
@pytest.mark.parametrize("kind", KINDS)
def test_every_line_of_every_mail_fits_in_78_columns(
    games: Callable[[int], dict[str, Game]], kind: str, length: int
) -> None:
    game = games(length)[kind]
    templates = {row.template for row in game.rows}
    kinds = {row.kind for row in game.rows}
    assert {"reply", "report", "started"} <= templates, templates
    assert kinds == {"reply", "report", "notice"}, kinds
    reports = [row for row in game.rows if row.template == "report"]
    last = max(row.turn_number for row in reports)
    seats = {_address(seat) for seat in game.names}
    for turn in range(last + 1):  # every turn reported, to every seat
        assert seats <= {row.recipient for row in reports if row.turn_number == turn}, turn
    for row in reports:  # a clipped name is always recoverable: every name is in full in every report
        missing = [seat for seat in game.names if seat not in row.body]
        assert not missing, f"turn {row.turn_number} does not name {missing} in full:\n{row.body}"
    bad = list(too_wide(game.rows))
    assert not bad, f"{len(bad)} lines too wide or not ASCII in {len(game.rows)} mails:\n" + "\n".join(bad[:40])
    identity = MailIdentity("referee@example.com")
    encodings = {compose(pending(row), identity, START)["Content-Transfer-Encoding"] for row in game.rows}
    assert encodings == {"7bit"}, encodings


def pending(row: Row) -> PendingMessage:
    """The outbox row as the email sender sees it."""
    return PendingMessage(
        row.id, row.message_id, row.channel, row.recipient, row.kind, row.template, row.data, row.context,
        row.attempts, row.created_at,
    )  # fmt: skip


def first_seat_reports(game: Game) -> list[Row]:
    """The first seat's own copy of every turn report, in turn order."""
    seat = game.names[0]
    address = _address(seat)
    return [
        row for row in game.rows if row.template == "report" and row.recipient == address and row.data["seat"] == seat
    ]


@pytest.mark.parametrize("kind", KINDS)
def test_the_widest_report_of_each_game_is_golden(games: Callable[[int], dict[str, Game]], kind: str) -> None:
    """The first and the last turn's report, the first seat's copy, with the most seats and 20-character names."""
    game = games(20)[kind]
    reports = first_seat_reports(game)
    assert len(reports) >= 2 and reports[0].turn_number < reports[-1].turn_number
    first, last = reports[0], reports[-1]
    assert "GAME OVER" in last.body and "Seed revealed: " in last.body
    text = "".join(f"===== {row.recipient} -- {row.subject}\n{row.body}" for row in (first, last))
    assert_golden(text, HERE / "golden" / f"width_{kind}.txt")
