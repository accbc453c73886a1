"""Every line of every mail fits in 78 columns, whatever the seat names.

Each game is played whole through the real core (a migrated SQLite database,
the service every channel uses, the deadline worker), with the most seats the
game allows and long seat names (20 characters, and the 40 the core accepts).
The players also ask for HELP, LIST and STATUS, send a refused order, and the
game master moves a deadline, pauses and resumes the game, broadcasts and
rolls the game back once (the reply lists every seat's orders on file), so
that replies and notices are in the outbox as well as the reports of every
turn and every seat.  The game processes early, an hour after the last
order, so that the replies saying when ("EVERY ORDER IS IN") are read too:
a game without either had let two 80-column lines through.  Every outbox row is rendered in the email form and each
line of its subject-less body is checked: at most 78 columns, and plain ASCII
(the mail goes out 7bit) since every input was ASCII.

Names in CJK, Hangul, fullwidth and halfwidth letters (up to the 40 columns
the core accepts: a wide letter takes two) are played the same way: every
line fits in 78 display columns (``wcwidth``), and every table lines up as
it does for ASCII names of the same widths (each mail rendered again with
each name replaced by such a twin: every word starts at the same column).

A golden file per game holds the widest report (the first and the last turn,
one seat's copy), so that the clipped tables and their legends are read by a
person when they change.  A new game's is written once with ``REFEREE_UPDATE_GOLDEN=1``
(README, "Layout"), read and committed; while it is missing, the test fails.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import wcwidth
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from adjudicator import registry
from adjudicator.record import start_game
from bot.core.basics.clock import SimulatedClock
from bot.core.commands import hosting as host_commands
from bot.core.messaging.outbox import PendingMessage
from bot.core.messaging.rendering import render_message
from bot.core.model import commands as c
from bot.core.model.config import ServiceConfig
from bot.core.runtime.service import GameService
from bot.core.views import GameViews
from bot.email.render import MailIdentity, compose
from bot.store.db import make_engine, session_factory, unit_of_work
from bot.store.models import OutboxMessage
from tests.golden import assert_golden
from tests.support.database import migrated_sqlite
from tests.support.rendering import Row, rendered
from tests.support.stored import example_orders

HERE = Path(__file__).parent
WIDTH = 78
START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
GM = "gm@example.org"
SLUG = "a-game-with-the-longest-name-allowed-040"
WEB = "https://referee.example.org"
"""A base address of 27 characters: the calendar addresses of the replies are read too."""
NAMES_20 = (
    "Noureddine Morceli-B", "Sebastian N. Coe-Lee", "Steve Ovett-Brighton", "Steve Cram of Jarrow",
    "Said Aouita of Rabat", "Peter Elliott Rother", "Abdi Hassan Bile Jr.", "Jose Luis Gonzalez-M",
    "Jose Luis Gonzalez-T", "John Walker Auckland",
)  # fmt: skip
"""Twenty characters each; two share their first 19, so a clipped name alone could not tell them apart."""
NAMES_40 = tuple(f"{name} {name[:19]}" for name in NAMES_20)
NAMES_WIDE = (
    "山田太郎", "ＡＮＮ", "김민준", "田中 花子", "ｻｸﾗ", "鈴木花子鈴木花子鈴 木花子鈴木花子鈴木花ｱ", "Ａｎｎ Ｌｅｅ",
    "Émile Zola", "王小明", "Ｂｅｎ",
)  # fmt: skip
"""Wide (CJK, Hangul, fullwidth), halfwidth and accented names; one of 40 columns, the most allowed.

No word of a name is wider than the narrowest column of prose (37), so that
the prose wraps at the same spaces as it does for its ASCII twin (a word
wider than a line is cut, and a wide letter cannot be cut in two).
"""
KINDS = registry.kinds()
BY_KIND = [pytest.param(kind, marks=pytest.mark.xdist_group(f"width-{kind}")) for kind in KINDS]
"""The kinds, each a group of its own for a parallel run (pytest-xdist, ``--dist loadgroup``): the tests
that read one game run on the worker that played it."""


def _simultaneous(kind: str) -> bool:
    """Whether ``kind`` waits for the deadline (every seat at once) rather than resolving a phase once it is in."""
    rules = registry.get_rules(kind)
    phase = rules.phase(start_game(rules, [f"S{i}" for i in range(rules.min_seats)], {}, "kind"))
    return phase is not None and not phase.resolve_when_complete


SIMULTANEOUS = tuple(kind for kind in KINDS if _simultaneous(kind))
MAX_TURNS = 400
ROLL_BACK_FROM = 4
"""The game master rolls back from this turn to the one before, once."""


@pytest.fixture(scope="module")
def empty_database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("width") / "empty.sqlite3"
    migrated_sqlite(str(path))
    return path


@dataclass
class Game:
    """A whole game played through the core; ``rows`` is its outbox rendered in the email form."""

    kind: str
    names: tuple[str, ...]
    rows: list[Row]


def _address(name: str) -> str:
    if not name.isascii():
        return "p" + hashlib.sha256(name.encode()).hexdigest()[:12] + "@players.example.org"
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
    clock = SimulatedClock(START)
    config = ServiceConfig(message_domain="example.com", game_masters=frozenset({GM}), web_base_url=WEB)
    service = GameService(sessions, config)
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
    send(*gm, c.CreateGame(SLUG, kind, {}, "Pacific/Chatham", 48 * 60, True, "address", early_delay="1h"))
    for name in seats:
        send(_address(name), name, c.JoinGame(SLUG, name))
    send(*gm, c.StartGame(SLUG))
    first = seats[0]
    send(_address(first), first, c.ShowHelp(), c.ShowHelp(kind), c.ListGames(), c.ShowStatus(SLUG))
    send(_address(first), first, c.ShowCalendar(), c.ShowCalendar(new=True), c.SetPictures(True), c.SetPictures(False))
    send(_address(first), first, c.SubmitOrders(SLUG, "this is not an order at all, not in any game " * 3))
    send(*gm, c.SetDeadline(SLUG, "+2d3h", "a player with a very long name is travelling to the far end of the world"))
    send(*gm, c.PauseGame(SLUG, "the club is closed for the national holiday and the referee takes a rest"))
    send(*gm, c.ResumeGame(SLUG, "open again after the national holiday, with the deadline given back"))
    send(*gm, c.Broadcast(SLUG, "Welcome to everyone with a long name. " * 6))
    rolled_back = False
    for _ in range(MAX_TURNS):
        view = views.game(SLUG)
        assert view is not None and view.shown is not None
        if view.phase is None:
            break
        if view.phase.number == ROLL_BACK_FROM and not rolled_back:  # its listing of the orders on file
            send(*gm, c.RollBack(SLUG, ROLL_BACK_FROM - 1, "the orders of a player were lost in the post " * 2))
            rolled_back = True
            continue
        for seat in view.phase.owing:
            if seat == seats[-1] and view.phase.number % 3 == 1:
                continue  # now and then nothing is received: the referee's own orders are reported
            send(_address(seat), seat, c.SubmitOrders(SLUG, example_orders(sessions, SLUG, seat, rng)))
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


def too_wide_in_columns(rows: list[Row]) -> Iterator[str]:
    """``template: columns: line`` for every line over 78 display columns (or with a character of no width known)."""
    for row in rows:
        for line in row.body.splitlines():
            columns = wcwidth.wcswidth(line)
            if not 0 <= columns <= WIDTH:
                yield f"{row.template} ({row.kind}): {columns}: {line}"


def ascii_twin(name: str, letter: str) -> str:
    """An ASCII name as wide as ``name``, column for column: a wide letter is ``letter`` twice, any other one
    ``letter`` in lower case, ASCII kept (each name's own ``letter``: two twins are never the same)."""
    return "".join(ch if ch.isascii() else letter * 2 if wcwidth.wcwidth(ch) == 2 else letter.lower() for ch in name)


def word_columns(text: str) -> list[list[int]]:
    """For each line, the display column where each word (a run of non-spaces) starts."""
    layout = []
    for line in text.splitlines():
        starts, column, before = [], 0, " "
        for ch in line:
            if ch != " " and before == " ":
                starts.append(column)
            column += max(wcwidth.wcwidth(ch), 0)
            before = ch
        layout.append(starts)
    return layout


def rendered_with_twins(row: Row, names: tuple[str, ...]) -> str:
    """The row's body in the email form, every name in its data replaced by its :func:`ascii_twin`."""
    data = json.dumps({**row.data, "context": row.context}, ensure_ascii=False)
    twins = {name: ascii_twin(name, letter) for name, letter in zip(names, "ABCDEFGHIJKLMNOPQRST", strict=False)}
    assert len(set(twins.values())) == len(names)
    for name in sorted(names, key=len, reverse=True):
        data = data.replace(name, twins[name])
    return render_message("email", row.template, json.loads(data)).body


class FixedSeed:
    """``secrets`` for bot.core.commands.hosting with a fixed game seed, so that a whole game is reproducible."""

    @staticmethod
    def token_hex(nbytes: int) -> str:
        return ("5eed" * nbytes)[: 2 * nbytes]


@pytest.fixture(scope="module")
def games(empty_database: Path, tmp_path_factory: pytest.TempPathFactory) -> Callable[[int, str], Game]:
    """Each game played once per name length (20 or 40 characters; 0: the wide names), on demand, with a
    fixed seed: ``games(length, kind)``.  One game at a time, so that a test (or a worker of a parallel
    run) plays only the games it reads."""
    played: dict[tuple[int, str], Game] = {}

    def of(length: int, kind: str) -> Game:
        if (length, kind) not in played:
            names = {20: NAMES_20, 40: NAMES_40, 0: NAMES_WIDE}[length]
            assert length == 0 or {len(name) for name in names} == {length}
            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(host_commands, "secrets", FixedSeed)
                database = tmp_path_factory.mktemp(kind) / "game.sqlite3"
                database.write_bytes(empty_database.read_bytes())
                played[(length, kind)] = play(database, kind, names)
        return played[(length, kind)]

    return of


@pytest.mark.parametrize("length", [20, 40], ids=lambda n: f"names{n}")
@pytest.mark.parametrize("kind", BY_KIND)
def test_every_line_of_every_mail_fits_in_78_columns(games: Callable[[int, str], Game], kind: str, length: int) -> None:
    game = games(length, kind)
    templates = {row.template for row in game.rows}
    kinds = {row.kind for row in game.rows}
    assert {"reply", "report", "started", "rolled_back"} <= templates, templates
    replies = "".join(row.body for row in game.rows if row.template == "reply")
    assert "ROLLED BACK" in replies
    assert ("EVERY ORDER IS IN" in replies) == (kind in SIMULTANEOUS)  # a sequential turn resolves when it is in
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
    # Every body is ASCII in lines of at most 78 (above), so its text part is 7bit whatever its words: one mail
    # of each template and kind shows the sender's MIME keeps it so (a mail with deadline.ics is multipart).
    identity = MailIdentity("referee@example.com")
    each = {(row.template, row.kind, "calendar" in row.data): row for row in game.rows}.values()
    encodings = {compose(pending(row), identity, START).get_body(("plain",))["Content-Transfer-Encoding"]
                 for row in each}  # fmt: skip
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


@pytest.mark.parametrize("kind", BY_KIND)
def test_the_widest_report_of_each_game_is_golden(games: Callable[[int, str], Game], kind: str) -> None:
    """The first and the last turn's report, the first seat's copy, with the most seats and 20-character names."""
    game = games(20, kind)
    reports = first_seat_reports(game)
    assert len(reports) >= 2 and reports[0].turn_number < reports[-1].turn_number
    first, last = reports[0], reports[-1]
    assert "GAME OVER" in last.body and "Seed revealed: " in last.body
    text = "".join(f"===== {row.recipient} -- {row.subject}\n{row.body}" for row in (first, last))
    assert_golden(text, HERE / "golden" / f"width_{kind}.txt")


@pytest.mark.parametrize("kind", BY_KIND)
def test_wide_names_fit_in_78_columns_and_the_tables_line_up(games: Callable[[int, str], Game], kind: str):
    """CJK, Hangul, fullwidth and halfwidth names: each mailed line fits 78 columns, each table lines up.

    Lining up is checked against the same mail with ASCII names of the same
    widths: every word of every line starts at the same display column, so
    the column after a name starts at the same column on every row.
    """
    game = games(0, kind)
    assert any(wcwidth.wcswidth(seat) > len(seat) for seat in game.names)
    reports = [row for row in game.rows if row.template == "report"]
    assert reports and {"reply", "report", "notice"} == {row.kind for row in game.rows}
    for row in reports:
        missing = [seat for seat in game.names if seat not in row.body]
        assert not missing, f"turn {row.turn_number} does not name {missing} in full:\n{row.body}"
    bad = list(too_wide_in_columns(game.rows))
    assert not bad, f"{len(bad)} lines too wide in {len(game.rows)} mails:\n" + "\n".join(bad[:40])
    for row in game.rows:
        twin = rendered_with_twins(row, game.names)
        # Lists sorted by name may come in another order with the twins' names: compare the lines as a multiset.
        assert sorted(word_columns(row.body)) == sorted(word_columns(twin)), (
            f"{row.template} misaligned:\n{row.body}\n{twin}"
        )
