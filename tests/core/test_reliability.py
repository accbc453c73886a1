"""Players' reliability records (bot/core/people/reliability.py), on SQLite and PostgreSQL.

The figures are derived from the turn records and the history of seat holders:
a missed turn (the no-moves-received rule) moves the holder's figure; a player
who takes a seat over by REPLACE is not charged for its past nor for the turn
open when they took it, and the player replaced keeps what they did.  A game's
minimum refuses a JOIN below it once the player has owed TRIAL_TURNS turns.
"""

from __future__ import annotations

import pytest
from sqlalchemy import event, select

from bot.core.basics.display_width import display_width
from bot.core.games.stored import find_game
from bot.core.model import commands as c
from bot.core.people.identities import find_player
from bot.core.people.reliability import TRIAL_TURNS, Reliability, admits, reliability_of
from bot.store.db import unit_of_work
from bot.store.models import SeatHolder
from tests.core.harness import SEATS, Harness

SETUP = "cards 10 8 6 4 2"
PLAYS = ("play 10/0", "play 8/0", "play 6/0", "play 4/0", "play 2/0")
"""Ann's plays after SETUP, one a turn: each card once."""


@pytest.fixture
def harness(sessions):
    return Harness(sessions)


def record(harness: Harness, who: str) -> Reliability:
    with unit_of_work(harness.sessions) as session:
        player = find_player(session, c.Sender("email", f"{who.lower()}@example.org"))
        assert player is not None, who
        return reliability_of(session, [player.id])[player.id]


def figures(harness: Harness, who: str) -> tuple[int, int, int]:
    found = record(harness, who)
    return found.owed, found.ordered, found.missed


def start(harness: Harness, slug: str = "g1", seats: list[str] = SEATS, **settings) -> None:
    created = harness.send("GM", c.CreateGame(slug, "golden-strider", {}, "UTC", 60, False, "address", **settings))
    assert created.applied.results == ("created",), created.reply
    for name in seats:
        assert harness.send(name, c.JoinGame(slug, name)).applied.results == ("joined",)
    assert harness.send("GM", c.StartGame(slug)).applied.results == ("started",)


def turn(harness: Harness, orders: dict[str, str], slug: str = "g1") -> None:
    """The open turn with ``orders`` from those seats only (the others miss it), resolved at its deadline."""
    for name, text in orders.items():
        sent = harness.send(name, c.SubmitOrders(slug, text))
        assert sent.applied.problems == (), sent.reply
    assert [game for game, _ in harness.pass_deadline()] == [slug]


def test_a_missed_turn_moves_the_figure_and_the_substitute_is_not_charged_for_the_seat_past(harness):
    start(harness)
    assert figures(harness, "Ann") == (0, 0, 0)
    turn(harness, {name: SETUP for name in SEATS if name != "Ben"})  # turn 0: Ben sends nothing
    assert figures(harness, "Ann") == (1, 1, 0)
    assert figures(harness, "Ben") == (1, 0, 1)
    # turn 1 is open: Ben is replaced; Ann misses it
    replaced = harness.send("GM", c.ReplacePlayer("g1", "Ben", "email", "sub@example.org", "Ben is away"))
    assert replaced.applied.results == ("replaced",)
    turn(harness, {"Cat": PLAYS[0]})
    assert figures(harness, "Ann") == (2, 1, 1)
    assert figures(harness, "Ben") == (1, 0, 1), "the turn open when Ben left is not his"
    assert figures(harness, "Sub") == (0, 0, 0), "nor the substitute's, who had no whole window for it"
    turn(harness, {"Sub": "play 6/0", "Ann": PLAYS[0]})  # Ben's setup was the default five 6s
    assert figures(harness, "Sub") == (1, 1, 0)
    assert figures(harness, "Ben") == (1, 0, 1), "the replaced player keeps what he did, no more"
    assert figures(harness, "Ann") == (3, 2, 1)
    assert record(harness, "Ben").replaced == 1 and record(harness, "Sub").replaced == 0


def test_eject_and_resign_end_the_charging_and_are_counted(harness):
    start(harness)
    turn(harness, {name: SETUP for name in SEATS})
    assert harness.send("GM", c.EjectPlayer("g1", "Cat", "never answers")).applied.results == ("ejected",)
    assert harness.send("Dan", c.Resign("g1")).applied.results == ("resigned",)
    turn(harness, {})
    turn(harness, {})
    assert figures(harness, "Cat") == (1, 1, 0) and record(harness, "Cat").ejected == 1
    assert figures(harness, "Dan") == (1, 1, 0) and record(harness, "Dan").resigned == 1
    assert figures(harness, "Eve") == (3, 1, 2)
    # a seat given up before the start leaves no trace
    harness.send("GM", c.CreateGame("g2", "golden-strider", {}, "UTC", 60, False, "address"))
    harness.send("Zed", c.JoinGame("g2", "Zed"))
    assert harness.send("Zed", c.Resign("g2")).applied.results == ("left",)
    assert record(harness, "Zed") == Reliability(record(harness, "Zed").player_id)
    with unit_of_work(harness.sessions) as session:
        game = find_game(session, "g2")
        assert game is not None
        assert session.scalars(select(SeatHolder).where(SeatHolder.game_id == game.id)).all() == []


def test_a_rollback_counts_the_live_turns_only(harness):
    start(harness)
    turn(harness, {"Ann": SETUP})
    turn(harness, {})
    assert figures(harness, "Ann") == (2, 1, 1)
    assert harness.send("GM", c.RollBack("g1", 1, "a mistake")).applied.results == ("rolled_back",)
    assert figures(harness, "Ann") == (1, 1, 0)
    turn(harness, {"Ann": PLAYS[0]})
    assert figures(harness, "Ann") == (2, 2, 0)


def test_a_finished_game_counts_for_the_seats_held_to_its_end_an_abandoned_one_does_not(harness):
    start(harness)
    turn(harness, {name: SETUP for name in SEATS})
    assert harness.send("GM", c.EjectPlayer("g1", "Fay", "gone")).applied.results == ("ejected",)
    turn(harness, {})
    assert harness.send("GM", c.EndGame("g1", "the club's season is over")).applied.results == ("ended",)
    start(harness, "g2")
    assert harness.send("GM", c.EndGame("g2", "nobody plays", abandon=True)).applied.results == ("ended",)
    assert record(harness, "Ann").finished == 1
    assert record(harness, "Fay").finished == 0 and record(harness, "Fay").ejected == 1


def test_admits_in_whole_numbers_after_the_trial_turns():
    assert admits(Reliability(1, owed=TRIAL_TURNS - 1, ordered=0, missed=TRIAL_TURNS - 1), 80)
    assert not admits(Reliability(1, owed=TRIAL_TURNS, ordered=3, missed=2), 80)
    assert admits(Reliability(1, owed=5, ordered=4, missed=1), 80)  # 80% exactly
    assert not admits(Reliability(1, owed=1000, ordered=799, missed=201), 80)  # 79.9%
    assert admits(Reliability(1, owed=100, ordered=0, missed=100), None)
    assert admits(Reliability(1, owed=100, ordered=0, missed=100), 0)


def test_the_minimum_refuses_a_join_below_it_with_the_figure_and_admits_the_rest(harness):
    start(harness, seats=["Ann", "Ben", "Cat", "Dan", "Eve", "Fay"])
    turn(harness, {name: SETUP for name in ("Ann", "Ben", "Cat")})
    for play in PLAYS[:4]:  # Ann orders every turn; Ben none after the setup; Cat three of five
        turn(harness, {"Ann": play, **({"Cat": play} if play != PLAYS[0] else {})})
    assert figures(harness, "Ann") == (5, 5, 0)
    assert figures(harness, "Ben") == (5, 1, 4)
    assert figures(harness, "Cat") == (5, 4, 1)
    assert figures(harness, "Dan") == (5, 0, 5)
    created = harness.send("GM", c.CreateGame("g2", "golden-strider", {}, "UTC", 60, False, "address",
                                              min_reliability=80))  # fmt: skip
    assert created.applied.results == ("created",)
    refused = harness.send("Ben", c.JoinGame("g2", "Ben"))
    assert refused.applied.problems == ("below_min_reliability",)
    assert refused.reply is not None
    said = " ".join(refused.reply.split())
    assert "at least 80% of the turns they owed; you ordered 1 of 5 (20%), 4 missed" in said, refused.reply
    assert harness.send("Dan", c.JoinGame("g2", "Dan")).applied.problems == ("below_min_reliability",)
    assert harness.send("Ann", c.JoinGame("g2", "Ann")).applied.results == ("joined",)
    assert harness.send("Cat", c.JoinGame("g2", "Cat")).applied.results == ("joined",), "80% exactly is enough"
    assert harness.send("New", c.JoinGame("g2", "New")).applied.results == ("joined",), "no record: admitted"
    with unit_of_work(harness.sessions) as session:
        game = find_game(session, "g2")
        assert game is not None and [s.name for s in game.seats] == ["Ann", "Cat", "New"]


def test_the_minimum_is_checked_at_creation(harness):
    for bad in (-1, 101):
        sent = harness.send("GM", c.CreateGame("g9", "golden-strider", min_reliability=bad))
        assert sent.applied.problems == ("bad_game_settings",)
        assert sent.reply is not None and "min-reliability: a percentage from 0 to 100" in sent.reply
    assert harness.send("GM", c.CreateGame("me", "golden-strider")).applied.problems == ("bad_game_name",)


def test_record_me_list_status_and_the_gm_notice_show_the_figures(harness):
    start(harness, min_reliability=90)  # newcomers all: admitted
    turn(harness, {name: SETUP for name in SEATS if name != "Ben"})
    turn(harness, {name: PLAYS[0] for name in SEATS if name not in ("Ben", "Cat")})
    mine = harness.send("Ben", c.ShowReliability()).reply
    assert mine is not None and "YOUR RECORD" in mine
    assert "Turns owed: 2. Ordered in time: 0 (0%). Missed: 2" in " ".join(mine.split())
    ann = " ".join((harness.send("Ann", c.ShowReliability()).reply or "").split())
    assert "Turns owed: 2. Ordered in time: 2 (100%). Missed: 0" in ann
    nobody = harness.send("Zed", c.ShowReliability()).reply
    assert nobody is not None and "You have owed no turns yet." in nobody

    status = harness.send("Ann", c.ShowStatus("g1")).reply
    assert status is not None
    assert "    Ann: ordered 2 of 2 turns in time, 0 missed" in status.splitlines()
    assert "    Cat: ordered 1 of 2 turns in time, 1 missed" in status.splitlines()
    assert "    Ben: ordered 0 of 2 turns in time, 2 missed" in status.splitlines()

    harness.send("GM", c.CreateGame("g2", "golden-strider", {}, "UTC", 60, False, "address", min_reliability=75))
    harness.send("Cat", c.JoinGame("g2", "Cat"))
    harness.send("Newbie", c.JoinGame("g2"))
    forming = harness.send("Zed", c.ShowStatus("g2")).reply
    assert forming is not None and "  Joining needs 75% of owed turns ordered in time." in forming.splitlines()
    assert "    Cat: ordered 1 of 2 turns in time, 1 missed" in forming.splitlines()
    assert "Joining needs" not in status, "a running game takes no one: its minimum is not shown"
    listing = harness.send("Zed", c.ListGames()).reply
    assert listing is not None
    lines = listing.splitlines()
    g2 = next(i for i, line in enumerate(lines) if line.strip().startswith("g2 "))
    assert lines[g2 + 1 : g2 + 5] == [
        "    open to join",  # whether it can be joined, as every surface says (bot.core.games.facts)
        "    joining needs 75% of owed turns ordered in time",
        "    Cat: ordered 1 of 2 turns in time, 1 missed",
        "    Newbie: no turns owed yet",
    ]
    g1 = next(i for i, line in enumerate(lines) if line.strip().startswith("g1 "))
    assert lines[g1 + 1].startswith("    deadline ") and lines[g1 + 2].startswith("  g2 "), "a running game: no records"

    notices = [
        m for m in harness.outbox("notice") if m.recipient == "gm@example.org" and m.subject == "[g2] Cat joined"
    ]
    assert len(notices) == 1
    body = " ".join(notices[0].body.split())
    assert "ordered 1 of 2 turns in time (50%), 1 missed" in body and "asks 75%" in body
    assert all(len(line) <= 78 for m in harness.outbox() for line in m.body.splitlines())


def test_a_list_reads_every_figure_in_a_bounded_number_of_queries(harness, sessions):
    """Twelve forming games of six seats: the LIST costs as many queries as one such game does (the
    seats of every game in one, the figures of every holder in two)."""

    def queries_of_list() -> int:
        engine = sessions.kw["bind"]
        seen: list[str] = []

        def count(conn, cursor, statement, parameters, context, executemany):
            seen.append(statement)

        event.listen(engine, "before_cursor_execute", count)
        try:
            harness.send("Zed", c.ListGames())
        finally:
            event.remove(engine, "before_cursor_execute", count)
        return len(seen)

    harness.send("GM", c.CreateGame("f0", "golden-strider"))
    for name in SEATS:
        harness.send(name, c.JoinGame("f0", name))
    one = queries_of_list()
    for number in range(1, 12):
        harness.send("GM", c.CreateGame(f"f{number}", "golden-strider"))
        for name in SEATS:
            harness.send(f"{name}{number}", c.JoinGame(f"f{number}", name))
    assert queries_of_list() == one


def test_every_new_line_fits_78_columns_with_the_widest_names(harness):
    """Seat names of 40 columns (CJK letters take two), a game name of 40 letters: LIST, STATUS, RECORD ME,
    the game master's notice of a JOIN and the refusal below the minimum fit 78 display columns."""
    wide = [
        "張偉李娜王芳刘洋陈静杨勇赵磊黄敏周杰吴霞"[i:] + "张伟李娜王芳刘洋陈静杨勇赵磊黄敏周杰吴霞"[:i]
        for i in range(6)
    ]
    long_game = "a-very-long-game-name-of-forty-letters-x"
    assert len(long_game) == 40 and all(display_width(name) == 40 for name in wide)
    start(harness, seats=wide)
    for _ in range(5):  # nobody orders: 0 of 5 each
        harness.pass_deadline()
    created = harness.send("GM", c.CreateGame(long_game, "golden-strider", {}, "UTC", 60, False, "address",
                                              min_reliability=100))  # fmt: skip
    assert created.applied.results == ("created",)
    refused = harness.send(wide[0], c.JoinGame(long_game, wide[0]))
    assert refused.applied.problems == ("below_min_reliability",)
    created = harness.send("GM", c.CreateGame("open", "golden-strider"))
    assert harness.send(wide[1], c.JoinGame("open", wide[1])).applied.results == ("joined",)
    replies = [
        refused.reply,
        harness.send(wide[2], c.ListGames()).reply,
        harness.send(wide[2], c.ShowStatus("g1")).reply,
        harness.send(wide[2], c.ShowStatus("open")).reply,
        harness.send(wide[2], c.ShowReliability()).reply,
    ]
    notices = [m.body for m in harness.outbox("notice") if m.subject.endswith(" joined")]
    assert len(notices) == 7
    for text in [*replies, *notices]:
        assert text is not None
        assert all(display_width(line) <= 78 for line in text.splitlines()), text
    assert f"{wide[1]}: ordered 0 of 5 turns in time, 5 missed" in " ".join((replies[1] or "").split()), "wrapped"


def test_the_help_of_create_says_the_trial_turns_the_core_applies():
    shown = " ".join(" ".join(c.CreateGame.declaration.help_lines()).split())
    assert (
        f"RELIABILITY 80 JOIN needs 80% of owed turns ordered in time (once a player has owed {TRIAL_TURNS} turns)"
        in shown
    )
