"""Substitutes in the core (bot/core/turns/substitutes.py, bot/core/commands/substitutes.py), on SQLite and
PostgreSQL: the standby list, a seat put up by a game master or after missed turns, the first to TAKE it,
a game master's accept or decline, the briefing, and every attack on it (a forged sender, a stale offer, a
seat spoken for, a player below the game's minimum)."""

from __future__ import annotations

import json
import threading
from datetime import timedelta

import pytest
from sqlalchemy import select

from bot.core.basics.display_width import display_width
from bot.core.games.stored import find_game
from bot.core.model import commands as c
from bot.core.people.identities import find_player
from bot.core.turns.generations import live_records
from bot.store.db import make_engine, session_factory, unit_of_work
from bot.store.models import AuditEntry, Seat, Standby
from tests.core.harness import SEATS, Harness
from tests.core.test_reliability import PLAYS, SETUP, figures, start, turn
from tests.support.database import fresh_postgres_database

OFFER_TEMPLATES = ("seat_offer", "seat_offered", "seat_put_up", "substitute_candidate", "substitute_found",
                   "substitute_declined", "seat_given", "seat_taken")  # fmt: skip


@pytest.fixture
def harness(sessions):
    return Harness(sessions)


def rows(harness: Harness, template: str) -> list:
    return [row for row in harness.outbox() if row.template == template]


def seat_state(harness: Harness, name: str, slug: str = "g1") -> tuple[str, bool, int | None]:
    """(the seat's player's address, whether it is up, the candidate's player id)."""
    with unit_of_work(harness.sessions) as session:
        game = find_game(session, slug)
        assert game is not None
        seat = next(s for s in game.seats if s.name == name)
        return seat.player.identities[0].address, seat.offered_at is not None, seat.candidate_id


def standby(harness: Harness, who: str, kind: str | None = "golden-strider", on: bool = True, **kw):
    return harness.send(who, c.ShowStandby() if kind is None else c.SetStandby(kind, on), **kw)


def test_the_standby_list_needs_a_vouched_sender_and_a_known_kind(harness):
    forged = standby(harness, "Zed", trust=c.Trust.CLAIMED)
    assert forged.applied.problems == ("sender_not_verified",)
    assert standby(harness, "Zed", "chess").applied.problems == ("unknown_kind",)
    with unit_of_work(harness.sessions) as session:
        assert session.scalars(select(Standby)).all() == [], "nothing stored for a forged or a mistaken line"
    assert standby(harness, "Zed").applied.results == ("standby_set",)
    again = standby(harness, "Zed")
    assert "on that list already" in " ".join((again.reply or "").split())
    assert standby(harness, "Zed", c.ANY_KIND).applied.results == ("standby_set",)
    listed = standby(harness, "Zed", None)
    assert "any kind of game" in (listed.reply or "")
    standby(harness, "Zed", on=False)  # off one kind: on ALL, every other kind stays
    listed = " ".join((standby(harness, "Zed", None).reply or "").split())
    assert "You stand by for a seat in: dragon-stripes, lautobus, strike-gold, three-races." in listed
    assert standby(harness, "Zed", c.ANY_KIND, on=False).applied.results == ("standby_set",)  # off every list
    assert "You are on no standby list." in (standby(harness, "Zed", None).reply or "")


def test_each_way_to_stop_an_offer_it_names_works_whichever_list_brought_it(harness):
    """The offer tells every recipient the same two ways to stop it; each does what it says for a player
    on ALL and for one on the kind's list (none answers "you were not on that list")."""
    start(harness)
    standby(harness, "Ida", c.ANY_KIND)
    standby(harness, "Zed")
    harness.send("GM", c.OfferSeat("g1", "Ben", reason="Ben has gone quiet"))
    offers = {row.recipient: " ".join(row.body.split()) for row in rows(harness, "seat_offer")}
    assert set(offers) == {"ida@example.org", "zed@example.org"}
    for body in offers.values():
        assert "STANDBY OFF golden-strider stops these offers, STANDBY OFF ALL every offer" in body, body
    off = standby(harness, "Ida", on=False)
    assert off.applied.results == ("standby_set",) and "not on that list" not in " ".join(off.reply.split())
    off = standby(harness, "Zed", c.ANY_KIND, on=False)
    assert "not on that list" not in " ".join(off.reply.split())
    harness.send("GM", c.OfferSeat("g1", "Cat", reason="Cat too"))
    assert len(rows(harness, "seat_offer")) == 2, "neither is offered a golden-strider seat any more"
    assert "dragon-stripes" in " ".join((standby(harness, "Ida", None).reply or "").split())


def test_a_game_masters_offer_reaches_the_standby_list_the_public_place_and_the_holder(harness):
    start(harness)
    for who in ("Zed", "Yan"):
        standby(harness, who)
    standby(harness, "Xan", c.ANY_KIND)
    standby(harness, "Wes", "strike-gold")  # another kind: not told
    standby(harness, "Ann")  # seated in the game: not told
    offered = harness.send("GM", c.OfferSeat("g1", "ben", reason="Ben has gone quiet"))
    assert offered.applied.results == ("seat_put_up",), offered.reply
    assert "3 players on the standby list were told" in " ".join((offered.reply or "").split())
    told = sorted(row.recipient for row in rows(harness, "seat_offer"))
    assert told == ["xan@example.org", "yan@example.org", "zed@example.org"]
    offer = rows(harness, "seat_offer")[0]
    assert "STAND IN g1 Ben" in offer.body and "Ben has gone quiet" in offer.body
    assert [row.recipient for row in rows(harness, "seat_put_up")] == ["ben@example.org"]
    assert len(rows(harness, "seat_offered")) == 1  # the game's public place
    again = harness.send("GM", c.OfferSeat("g1", "Ben"))
    assert again.applied.problems == ("already_offered",)
    assert len(rows(harness, "seat_offer")) == 3, "a second offer of the same seat sends nothing"


def test_the_first_to_take_waits_for_the_game_master_and_is_briefed_on_acceptance(harness):
    start(harness)
    turn(harness, {name: SETUP for name in SEATS})
    turn(harness, {"Ann": PLAYS[0]})  # turn 1: Ben misses it
    harness.send("Ben", c.SubmitOrders("g1", "play 8/0"))  # on file for turn 2, the turn open now
    standby(harness, "Zed")
    standby(harness, "Yan")
    harness.send("GM", c.OfferSeat("g1", "Ben", reason="Ben asked to leave"))
    first = harness.send("Zed", c.TakeSeat("g1", "Ben"))
    assert first.applied.results == ("take_waiting",), first.reply
    assert [row.recipient for row in rows(harness, "substitute_candidate")] == ["gm@example.org"]
    assert "SUBSTITUTE g1 Ben ACCEPT" in rows(harness, "substitute_candidate")[0].body
    assert harness.send("Yan", c.TakeSeat("g1", "Ben")).applied.problems == ("seat_spoken_for",)
    assert harness.send("Zed", c.TakeSeat("g1", "Ben")).applied.problems == ("take_pending",)
    assert seat_state(harness, "Ben")[0] == "ben@example.org", "nothing changes hands before the GM accepts"
    harness.clock.advance(timedelta(minutes=5))
    accepted = harness.send("GM", c.OfferSeat("g1", "Ben", "accept"))
    assert accepted.applied.results == ("substitute_accepted",), accepted.reply
    assert seat_state(harness, "Ben") == ("zed@example.org", False, None)
    briefing = rows(harness, "seat_given")
    assert [row.recipient for row in briefing] == ["zed@example.org"]
    body = briefing[0].body
    assert "You have taken over the seat Ben" in body
    assert "Now: turn 2" in body and "play 8/0" in body and "Commitment:" in body, "the orders on file"
    assert body.count("Turn 0: ") == 1 and body.count("Turn 1: ") == 1, "every report the seat had"
    assert "counts this seat from turn 3" in " ".join(body.split())
    assert [row.recipient for row in rows(harness, "seat_taken")] == ["ben@example.org"]
    assert "offered to a substitute, who has taken it over" in " ".join(rows(harness, "seat_taken")[0].body.split())
    # Zed plays the open turn; the report announces the change of hands
    assert harness.send("Zed", c.SubmitOrders("g1", "play 6/0")).applied.problems == ()
    assert harness.send("Ben", c.SubmitOrders("g1", "play 6/0")).applied.problems == ("no_seat",)
    turn(harness, {"Ann": PLAYS[1]})
    with unit_of_work(harness.sessions) as session:
        game = find_game(session, "g1")
        assert game is not None
        assert live_records(session, game)[-1].orders["Ben"] == "play 6/0 bank 0", "Zed's orders were used"
    report = next(row for row in rows(harness, "report") if row.recipient == "ann@example.org"
                  and "turn 2 report" in row.subject)  # fmt: skip
    assert "the GM gave seat Ben to a substitute" in " ".join(report.body.split())


def test_decline_and_withdraw_tell_the_player_and_keep_or_end_the_offer(harness):
    start(harness)
    standby(harness, "Zed")
    harness.send("GM", c.OfferSeat("g1", "Ben"))
    harness.send("Zed", c.TakeSeat("g1", "Ben"))
    declined = harness.send("GM", c.OfferSeat("g1", "Ben", "decline", "we know Zed"))
    assert declined.applied.results == ("substitute_declined",)
    told = rows(harness, "substitute_declined")
    assert [row.recipient for row in told] == ["zed@example.org"] and "we know Zed" in told[0].body
    assert seat_state(harness, "Ben") == ("ben@example.org", True, None), "the seat stays up for the next"
    assert harness.send("GM", c.OfferSeat("g1", "Ben", "accept")).applied.problems == ("no_candidate",)
    assert harness.send("Yan", c.TakeSeat("g1", "Ben")).applied.results == ("take_waiting",)
    withdrawn = harness.send("GM", c.OfferSeat("g1", "Ben", "withdraw"))
    assert withdrawn.applied.results == ("offer_withdrawn",)
    assert [row.recipient for row in rows(harness, "substitute_declined")][-1] == "yan@example.org"
    assert seat_state(harness, "Ben") == ("ben@example.org", False, None)
    assert harness.send("Zed", c.TakeSeat("g1", "Ben")).applied.problems == ("seat_not_offered",)
    assert harness.send("GM", c.OfferSeat("g1", "Ben", "sideways")).applied.problems == ("bad_offer_action",)
    harness.send("GM", c.OfferSeat("g1", "Ben"))  # up again; Zed asks; the GM gives it to someone else
    assert harness.send("Zed", c.TakeSeat("g1", "Ben")).applied.results == ("take_waiting",)
    replaced = harness.send("GM", c.ReplacePlayer("g1", "Ben", "email", "sub@example.org", "a friend of Ben's"))
    assert replaced.applied.results == ("replaced",)
    assert [row.recipient for row in rows(harness, "substitute_declined")][-1] == "zed@example.org"
    assert seat_state(harness, "Ben") == ("sub@example.org", False, None)


def test_after_missed_turns_the_referee_puts_the_seat_up_and_the_first_taker_has_it(harness):
    start(harness, substitute_after=2, substitute_auto=True)
    standby(harness, "Zed")
    turn(harness, {name: SETUP for name in SEATS if name != "Ben"})  # turn 0: Ben misses
    assert rows(harness, "seat_offer") == []
    others = [name for name in SEATS if name != "Ben"]
    turn(harness, dict.fromkeys(others, PLAYS[0]))  # turn 1: Ben misses again: two in a row
    offers = rows(harness, "seat_offer")
    assert [row.data["seat"] for row in offers] == ["Ben"], offers
    assert "Ben missed 2 turns in a row" in " ".join(offers[0].body.split())
    with unit_of_work(harness.sessions) as session:
        logged = session.scalars(select(AuditEntry).where(AuditEntry.action == "OfferSeat")).all()
        assert [(e.actor, e.reason) for e in logged] == [("referee", "Ben missed 2 turns in a row")]
    report = next(row for row in rows(harness, "report") if row.recipient == "ann@example.org"
                  and "turn 1 report" in row.subject)  # fmt: skip
    assert "the referee put seat Ben up for a substitute" in " ".join(report.body.split())
    turn(harness, dict.fromkeys(others, PLAYS[1]))  # Ben misses a third: not put up again
    assert len(rows(harness, "seat_offer")) == 1
    harness.clock.advance(timedelta(minutes=5))
    taken = harness.send("Zed", c.TakeSeat("g1", "Ben"))
    assert taken.applied.results == ("seat_taken_over",), taken.reply
    assert seat_state(harness, "Ben") == ("zed@example.org", False, None)
    assert [row.recipient for row in rows(harness, "substitute_found")] == ["gm@example.org"]
    assert len(rows(harness, "seat_given")) == 1
    assert figures(harness, "Zed") == (0, 0, 0)
    turn(harness, {"Zed": "play 6/0", **dict.fromkeys(others, PLAYS[2])})  # turn 3 was open when Zed took it
    assert figures(harness, "Zed") == (0, 0, 0)
    assert figures(harness, "Ben")[2] == 3, "Ben keeps his three misses"
    turn(harness, {"Zed": "play 6/0", **dict.fromkeys(others, PLAYS[3])})
    assert figures(harness, "Zed") == (1, 1, 0)
    report = next(row for row in rows(harness, "report") if row.recipient == "ann@example.org"
                  and "turn 3 report" in row.subject)  # fmt: skip
    assert "a substitute took seat Ben" in " ".join(report.body.split())


def test_every_attack_on_a_seat_up_changes_nothing(harness):
    start(harness, "g2", seats=["Lax", "Mo", "Nia", "Oz", "Pip", "Quy"])  # Lax misses five turns: 0%
    for _ in range(5):
        harness.pass_deadline()
    start(harness, min_reliability=80)
    standby(harness, "Zed")
    assert harness.send("Zed", c.TakeSeat("g1", "Ben")).applied.problems == ("seat_not_offered",)
    assert harness.send("Ann", c.OfferSeat("g1", "Ben")).applied.problems == ("not_game_master",)
    harness.send("GM", c.OfferSeat("g1", "Ben"))
    forged = harness.send("Zed", c.TakeSeat("g1", "Ben"), trust=c.Trust.CLAIMED)
    assert forged.applied.problems == ("sender_not_verified",)
    assert harness.send("Ann", c.TakeSeat("g1", "Ben")).applied.problems == ("already_seated",)
    assert harness.send("Ben", c.TakeSeat("g1", "Ben")).applied.problems == ("already_seated",)
    assert harness.send("Lax", c.TakeSeat("g1", "Ben")).applied.problems == ("below_min_reliability",)
    assert harness.send("Zed", c.TakeSeat("g1", "Ben", offer_round=0)).applied.problems == ("offer_stale",)
    assert harness.send("Zed", c.TakeSeat("g1", "Nobody")).applied.problems == ("no_such_seat",)
    assert harness.send("Zed", c.TakeSeat("nogame", "Ben")).applied.problems == ("unknown_game",)
    assert seat_state(harness, "Ben") == ("ben@example.org", True, None)
    assert rows(harness, "substitute_candidate") == []
    with unit_of_work(harness.sessions) as session:
        lax = session.scalars(select(AuditEntry).where(AuditEntry.actor == "lax@example.org")).all()
        assert lax == []


def test_a_forming_or_finished_game_has_no_seat_to_put_up(harness):
    created = harness.send("GM", c.CreateGame("f1", "golden-strider", {}, "UTC", 60, False, "address"))
    assert created.applied.results == ("created",)
    harness.send("Ann", c.JoinGame("f1", "Ann"))
    assert harness.send("GM", c.OfferSeat("f1", "Ann")).applied.problems == ("wrong_status",)
    start(harness)
    standby(harness, "Zed")
    harness.send("GM", c.OfferSeat("g1", "Ben"))
    assert harness.send("GM", c.EndGame("g1", "season over")).applied.problems == ()
    assert harness.send("Zed", c.TakeSeat("g1", "Ben")).applied.problems == ("wrong_status",)
    assert seat_state(harness, "Ben")[0] == "ben@example.org"


@pytest.mark.parametrize("bad", [-1, 21])
def test_substitute_after_is_checked_at_creation(harness, bad):
    sent = harness.send("GM", c.CreateGame("b1", "golden-strider", substitute_after=bad))
    assert sent.applied.problems == ("bad_game_settings",), sent.reply
    assert "substitute after" in (sent.reply or "")


def test_every_new_line_fits_78_columns_with_the_widest_names(harness):
    """Seat names of 40 columns (CJK letters take two) and a game name of 40 letters: every message of an
    offer, a take, a decline and the briefing fits 78 display columns, and so does every reply."""
    wide = ["張偉李娜王芳刘洋陈静杨勇赵磊黄敏周杰吴" + str(i) * 2 for i in range(6)]
    slug = "a-very-long-game-name-of-forty-letters-x"
    assert all(display_width(name) == 40 for name in wide) and len(slug) == 40
    start(harness, slug, seats=wide, min_reliability=50)
    turn(harness, {name: SETUP for name in wide}, slug)
    standby(harness, "Zed")
    standby(harness, "Yan")
    replies = [
        harness.send("GM", c.OfferSeat(slug, wide[1], reason="a long reason " * 8)).reply,
        harness.send("Zed", c.TakeSeat(slug, wide[1])).reply,
        harness.send("Yan", c.TakeSeat(slug, wide[1])).reply,
        harness.send("GM", c.OfferSeat(slug, wide[1], "decline", "no " * 30)).reply,
        harness.send("Yan", c.TakeSeat(slug, wide[1])).reply,
        harness.send("GM", c.OfferSeat(slug, wide[1], "accept")).reply,
        harness.send("GM", c.OfferSeat(slug, wide[2])).reply,
        harness.send("GM", c.OfferSeat(slug, wide[2], "withdraw")).reply,
        standby(harness, "Zed", None).reply,
    ]
    bodies = [row.body for template in OFFER_TEMPLATES for row in rows(harness, template)]
    assert {row.template for row in harness.outbox()} >= set(OFFER_TEMPLATES) - {"substitute_found"}
    for text in [*replies, *bodies]:
        assert text is not None
        assert all(display_width(line) <= 78 for line in text.splitlines()), text


def test_two_takes_at_once_on_postgresql_give_the_seat_to_the_first_only(postgres, postgres_template):
    """Two processes on one PostgreSQL database: while one TAKE holds the seat (its transaction open), a
    second TAKE waits for it and then sees the seat spoken for; without the row lock it would read the seat
    free and write over the first."""
    engine = make_engine(fresh_postgres_database(postgres, postgres_template))
    try:
        harness = Harness(session_factory(engine))
        start(harness)
        standby(harness, "Zed")
        standby(harness, "Yan")
        harness.send("GM", c.OfferSeat("g1", "Ben"))
        with unit_of_work(harness.sessions) as first:  # Yan's TAKE, in the middle of its transaction
            seat = first.scalars(select(Seat).where(Seat.name == "Ben").with_for_update()).one()
            result: list[tuple[str, ...]] = []
            second = threading.Thread(target=lambda: result.append(
                harness.send("Zed", c.TakeSeat("g1", "Ben")).applied.problems))  # fmt: skip
            second.start()
            second.join(timeout=1.0)
            assert second.is_alive(), "Zed's TAKE must wait for the seat's lock"
            yan = find_player(first, c.Sender("email", "yan@example.org"))
            assert yan is not None
            seat.candidate_id = yan.id
        second.join(timeout=30)
        assert result == [("seat_spoken_for",)]
        assert seat_state(harness, "Ben")[2] == yan.id
    finally:
        engine.dispose()


def test_in_a_game_of_one_move_at_a_time_only_the_turns_a_seat_owed_count(harness):
    """Strike Gold moves one seat at a time: the other seats' turns between a seat's own neither count nor
    break its run, so each silent seat is put up once it has missed two of its own turns, and only once."""
    created = harness.send("GM", c.CreateGame("sg", "strike-gold", {}, "UTC", 60, False, "address",
                                              substitute_after=2))  # fmt: skip
    assert created.applied.results == ("created",), created.reply
    for name in SEATS[:3]:
        harness.send(name, c.JoinGame("sg", name))
    assert harness.send("GM", c.StartGame("sg")).applied.results == ("started",)
    put_up: list[str] = []
    for _ in range(12):  # nobody orders
        harness.pass_deadline()
        put_up = [row.data["seat"] for row in rows(harness, "seat_offered")]
    assert sorted(put_up) == sorted(SEATS[:3]), put_up
    with unit_of_work(harness.sessions) as session:
        game = find_game(session, "sg")
        assert game is not None
        for seat in game.seats:
            owed = [r for r in live_records(session, game) if seat.name in r.defaulted]
            assert len(owed) >= 2, (seat.name, len(owed))


def test_a_report_announces_who_took_a_seat_without_any_address(harness):
    """A report is public (its public place's copy, the web page): its announcements of a REPLACE, a seat put
    up and a seat taken name no address, neither the game master's nor the newcomer's."""
    start(harness, substitute_auto=True)
    standby(harness, "Zed")
    harness.clock.advance(timedelta(minutes=5))
    harness.send("GM", c.ReplacePlayer("g1", "Cat", "email", "newcat@example.org", "Cat moved"))
    harness.send("GM", c.OfferSeat("g1", "Ben", reason="Ben is away"))
    harness.send("Zed", c.TakeSeat("g1", "Ben"))
    turn(harness, {name: SETUP for name in SEATS if name not in ("Ben", "Cat")})
    public = [row for row in harness.outbox("report") if row.recipient == "public:g1"]
    assert public, "the turn's report went to the public place"
    text = json.dumps([row.data for row in public])
    assert "gave seat Cat to a new player" in " ".join(public[-1].body.split())
    assert "a substitute took seat Ben" in " ".join(public[-1].body.split())
    assert "@example.org" not in text, "an address in the public report's data"


INVITED = (*(f"{name.lower()}@example.org" for name in SEATS), "yan@example.org")
"""An invite-only game's list: its six players, and Yan (invited, who did not join in time)."""


def test_an_outsider_refused_at_join_cannot_take_a_seat_of_an_invite_only_game(harness):
    """The attack: in an INVITE-only game with SUBSTITUTE AUTO yes, Zed, whose JOIN was refused, stands by and
    takes the seat put up with STAND IN, and with it its password and briefing.  One admission rule (the invite
    list, the reliability minimum, a seat already held) for every way to a seat: refused as at JOIN, and the
    offer does not even reach him; Yan, who is invited, takes it."""
    create = c.CreateGame("g1", "golden-strider", {}, "UTC", 60, False, "address", join="invited", invited=INVITED,
                          substitute_auto=True)  # fmt: skip
    assert harness.send("GM", create).applied.results == ("created",)
    assert harness.send("Zed", c.JoinGame("g1", "Zed")).applied.problems == ("not_invited",)
    for name in SEATS:
        assert harness.send(name, c.JoinGame("g1", name)).applied.results == ("joined",)
    assert harness.send("GM", c.StartGame("g1")).applied.results == ("started",)
    standby(harness, "Zed")
    standby(harness, "Yan")
    offered = harness.send("GM", c.OfferSeat("g1", "Ben", reason="Ben has gone quiet"))
    assert offered.applied.results == ("seat_put_up",), offered.reply
    assert [row.recipient for row in rows(harness, "seat_offer")] == ["yan@example.org"], "the invited only"
    taken = harness.send("Zed", c.TakeSeat("g1", "Ben"))
    assert taken.applied.problems == ("not_invited",), taken.reply
    assert seat_state(harness, "Ben") == ("ben@example.org", True, None), "the seat is still up, still Ben's"
    assert not [row for row in rows(harness, "seat_given") if row.recipient == "zed@example.org"], "no briefing"
    assert harness.send("Yan", c.TakeSeat("g1", "Ben")).applied.results == ("seat_taken_over",)
    assert seat_state(harness, "Ben") == ("yan@example.org", False, None)


def test_join_and_stand_in_read_one_admission_rule(harness):
    """The same sender gets the same answer by JOIN and by STAND IN: a seat already held, not invited."""
    create = c.CreateGame("g2", "golden-strider", {}, "UTC", 60, False, "address", join="invited", invited=INVITED,
                          max_seats=8)  # fmt: skip
    assert harness.send("GM", create).applied.results == ("created",)
    assert harness.send("Zed", c.JoinGame("g2", "Zed")).applied.problems == ("not_invited",)
    start(harness, join="invited", invited=INVITED)
    harness.send("GM", c.OfferSeat("g1", "Ben", reason="Ben left"))
    assert harness.send("Zed", c.TakeSeat("g1", "Ben")).applied.problems == ("not_invited",)
    assert harness.send("Ann", c.TakeSeat("g1", "Ben")).applied.problems == ("already_seated",)


def test_the_game_master_asked_to_accept_a_candidate_sees_their_address(harness):
    """Without AUTO the game masters are asked to accept a name the sender chose: their notice (to the game
    masters only) gives the channel and address it came from; nothing public does."""
    start(harness)
    standby(harness, "Zed")
    harness.send("GM", c.OfferSeat("g1", "Ben", reason="Ben left"))
    sent = harness.send("Zed", c.TakeSeat("g1", "Ben"))
    assert sent.applied.results == ("take_waiting",), sent.reply
    [asked] = rows(harness, "substitute_candidate")
    assert asked.recipient == "gm@example.org"
    assert "zed@example.org (email)" in " ".join(asked.body.split()), asked.body
    public = [row for row in harness.outbox() if row.recipient.startswith("public:")]
    assert public and not any("zed@example.org" in json.dumps(row.data) + row.body for row in public)
