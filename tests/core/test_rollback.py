"""Rolling a game back (``ROLLBACK``): a revealed seed never drives a game again, and a turn played again draws
afresh unless the game master asks for the same draw.

A game's seed is secret until the game is over: its final report (or the game master's END) reveals it, with
the record every player can replay.  From the seed and the public orders anyone computes every card the game
ever hid: every seat's face-down cards, the order of the draw pile, the salt of every order commitment.  A
rollback of a game that is over would play on with all of that known, so it is refused, with the reason.

The rolled-back reports showed what the turn drew.  Played again with the same generator and the same hidden
cards, it would draw the same (a replacement drawing the card everyone saw), and the players, who may change
their orders, would know the outcome: by default the turn is played with a fresh draw (what no player has seen
dealt again, and a generator of its own), and the record keeps each turn's draw so that ``replay`` and
``verify`` reproduce every report.  ``SAME DRAW`` keeps the draw and the orders on file, and says so.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select

from adjudicator.record import read_record, replay, replay_document, verify
from bot.core.games.stored import ABANDONED, FINISHED, find_game
from bot.core.model import commands as c
from bot.core.turns.game_record import export_record
from bot.core.views import GameViews
from bot.store.db import unit_of_work
from bot.store.models import TurnRecord
from tests.core.harness import GM_ADDRESS, Harness
from tests.support.engine_words import english

SLUG = "sg1"
SEATS = ("Ann", "Ben", "Cat")


@pytest.fixture
def harness(sessions) -> Harness:
    """A Strike Gold game of three seats, its setup resolved at once (turn 0: one seat moves at a time)."""
    harness = Harness(sessions)
    created = harness.send("GM", c.CreateGame(SLUG, "strike-gold", {}, "UTC", 60, False, "address"))
    assert created.applied.results == ("created",), created.reply
    for name in SEATS:
        harness.send(name, c.JoinGame(SLUG, name))
    assert harness.send("GM", c.StartGame(SLUG)).applied.results == ("started",)
    for name in SEATS:
        harness.send(name, c.SubmitOrders(SLUG, "flip r1c1 r1c2"))
    assert status(harness)[2] == 1
    return harness


def status(harness: Harness) -> tuple[str, int, int]:
    with unit_of_work(harness.sessions) as session:
        game = find_game(session, SLUG)
        assert game is not None
        return game.status, game.generation, game.phase_number


@pytest.mark.parametrize("abandon", [False, True])
def test_a_game_whose_seed_was_revealed_is_never_rolled_back(harness: Harness, abandon: bool) -> None:
    """The attack: END sg1 (the seed goes to every player), then ROLLBACK sg1 TO 0 would play the game on
    with that seed.  Refused, saying why; the game stays over, in the same line of records."""
    ended = harness.send("GM", c.EndGame(SLUG, "we stop here", abandon=abandon))
    assert ended.applied.results == ("ended",), ended.reply
    before = status(harness)
    assert before[0] == (ABANDONED if abandon else FINISHED)
    sent = harness.send("GM", c.RollBack(SLUG, 0, "one more go"))
    assert sent.applied.problems == ("seed_revealed",), sent.reply
    assert sent.reply is not None
    said = " ".join(sent.reply.split())
    assert "its seed was revealed" in said and "cannot be rolled back" in said, said
    assert status(harness) == before
    assert not [row for row in harness.outbox("rolled_back")]  # nobody was told of a rollback


def mover(harness: Harness) -> str:
    view = GameViews(harness.sessions).public_view(SLUG)
    assert view is not None and view.phase is not None
    [seat] = view.phase.owing
    return seat


def records(harness: Harness, turn: int) -> list[TurnRecord]:
    """Every record of turn ``turn`` of the game, oldest line first."""
    with unit_of_work(harness.sessions) as session:
        game = find_game(session, SLUG)
        assert game is not None
        query = select(TurnRecord).where(TurnRecord.game_id == game.id, TurnRecord.turn_number == turn)
        return list(session.scalars(query.order_by(TurnRecord.generation)).all())


def hidden(record: TurnRecord) -> tuple[Any, ...]:
    """What no player has seen after ``record``'s turn: the draw pile and the face-down cards, where they lie."""
    state = record.state_after
    face_down = [cell for grid in state["grids"] for cell in grid if cell is not None and not cell[1]]
    return tuple(state["deck"]), tuple(map(tuple, face_down))


def draw_from_the_deck(harness: Harness) -> str:
    """The seat to move draws from the deck alone (turn 1): the card shows in its copy of the report only."""
    seat = mover(harness)
    sent = harness.send(seat, c.SubmitOrders(SLUG, "draw deck"))
    assert sent.applied.problems == (), sent.reply
    assert status(harness)[2] == 2
    harness.clock.advance(
        timedelta(minutes=1)
    )  # the game master acts later (orders sent before a rollback never complete it)
    return seat


def test_a_rollback_plays_the_turn_again_with_a_fresh_draw(harness: Harness) -> None:
    """The attack: turn 1's mover drew from the deck, and the card it drew is in its report.  Rolled back to
    turn 1, the same draw pile would give the same card again.  By default the cards no player has seen are
    dealt again, and the turn draws from a generator of its own: the pile and the face-down cards are not
    where the rolled-back turn showed them, and the players are told it is a fresh draw."""
    seat = draw_from_the_deck(harness)
    [before] = records(harness, 1)
    rolled = harness.send("GM", c.RollBack(SLUG, 1, "the wrong seat moved"))
    assert rolled.applied.results == ("rolled_back",), rolled.reply
    assert "A fresh draw" in " ".join((rolled.reply or "").split())
    told = [row for row in harness.outbox() if row.row.template == "rolled_back"]
    assert {row.recipient for row in told} == {f"{name.lower()}@example.org" for name in SEATS}
    assert all("fresh draw" in " ".join(row.body.split()) for row in told)
    again = harness.send(seat, c.SubmitOrders(SLUG, "draw deck"))
    assert again.applied.problems == (), again.reply
    old, new = records(harness, 1)
    assert (old.generation, old.draw, new.draw) == (before.generation, 0, 1)
    assert old.state_before == new.state_before, "the turn starts from the same state, dealt again"
    assert hidden(new) != hidden(old), "the draw pile and the face-down cards were dealt again"
    assert sorted(hidden(new)[0] + tuple(v for v, _ in hidden(new)[1]) + (new.private[seat]["drawn"],)) == sorted(
        hidden(old)[0] + tuple(v for v, _ in hidden(old)[1]) + (old.private[seat]["drawn"],)
    ), "the same cards, dealt again: nothing added, nothing lost"


def test_the_same_draw_keeps_what_was_drawn_and_the_orders_on_file(harness: Harness) -> None:
    """``SAME DRAW`` (to correct a game master's mistake): the turn draws what it drew; the orders on file stand
    as they were (a player who saw the outcome may not change them; the game master may enter a seat's), and
    every player is told so."""
    seat = draw_from_the_deck(harness)
    rolled = harness.send("GM", c.RollBack(SLUG, 1, "resolved too early", same_draw=True))
    assert rolled.applied.results == ("rolled_back",), rolled.reply
    said = " ".join((rolled.reply or "").split())
    assert "The same draw" in said and "draw deck" in said, said
    told = [row for row in harness.outbox() if row.row.template == "rolled_back"]
    assert len(told) == len(SEATS) and all("same draw" in " ".join(row.body.split()) for row in told)
    refused = harness.send(seat, c.SubmitOrders(SLUG, "draw discard"))
    assert refused.applied.problems == ("orders_kept",), refused.reply
    assert "stand as they were" in " ".join((refused.reply or "").split())
    assert harness.send("GM", c.ProcessNow(SLUG, 1, "as it was")).applied.results == ("processed",)
    old, new = records(harness, 1)
    assert (old.draw, new.draw) == (0, 0)
    assert (new.state_after, new.private, new.report) == (old.state_after, old.private, old.report)
    later = harness.send(mover(harness), c.SubmitOrders(SLUG, "keep r2c1"))
    assert later.applied.problems == (), "the next turn takes orders as ever"


def test_the_record_keeps_each_turns_draw_and_replays_every_report(harness: Harness) -> None:
    """Export and verify a game played on after a fresh rollback: the record (version 3) names each turn's draw,
    its replay gives every report the players were sent (the engines' words in English, as a replay says them),
    and a record with a draw changed does not verify."""
    draw_from_the_deck(harness)
    harness.send("GM", c.RollBack(SLUG, 1, "again"))
    for _ in range(4):
        for text in ("draw deck", "keep r2c1"):
            sent = harness.send(mover(harness), c.SubmitOrders(SLUG, text))
            assert sent.applied.problems == (), sent.reply
    harness.send("GM", c.EndGame(SLUG, "enough"))
    with unit_of_work(harness.sessions) as session:
        game = find_game(session, SLUG)
        assert game is not None
        document = export_record(session, game)
        live = session.scalars(
            select(TurnRecord).where(TurnRecord.game_id == game.id, TurnRecord.generation == game.generation)
            .order_by(TurnRecord.turn_number)
        ).all()  # fmt: skip
        sent = [(r.turn_number, english(r.report), [english(e["text"]) for e in r.events]) for r in live]
    assert document["version"] == 3 and document["draws"] == [0] + [1] * (len(sent) - 1)
    record = read_record(document)
    assert verify(record).ok, verify(record).checks
    replayed = replay_document(replay(record))
    assert [(t["number"], t["report"], [e["text"] for e in t["events"]]) for t in replayed["turns"]] == sent
    tampered = read_record({**document, "draws": [0] * len(sent)})
    assert not verify(tampered).ok, "the draws are part of what the result seals"


def test_a_game_never_redrawn_exports_a_version_2_record(harness: Harness) -> None:
    draw_from_the_deck(harness)
    harness.send("GM", c.EndGame(SLUG, "enough"))
    with unit_of_work(harness.sessions) as session:
        document = export_record(session, find_game(session, SLUG))
    assert document["version"] == 2 and "draws" not in document
    assert verify(read_record(document)).ok


def test_preview_shows_nothing_to_a_game_master_who_holds_a_seat(harness: Harness) -> None:
    """A game master who plays would see the turn's draw and the others' orders before the deadline: refused.
    A game master who does not play sees the turn as it will resolve, with its draw."""
    seat = draw_from_the_deck(harness)
    harness.send("GM", c.RollBack(SLUG, 1, "again"))
    added = harness.send("GM", c.AddGameMaster(SLUG, "email", f"{seat.lower()}@example.org", "helps"))
    assert added.applied.problems == (), added.reply
    refused = harness.send(seat, c.PreviewTurn(SLUG), trust=c.Trust.VERIFIED)
    assert refused.applied.problems == ("preview_seated",), refused.reply
    assert "drawn" not in str(refused.applied.reply.data)
    shown = harness.send("GM", c.PreviewTurn(SLUG))
    assert shown.applied.problems == (), shown.reply
    harness.send(seat, c.SubmitOrders(SLUG, "draw deck"))
    [*_, played] = records(harness, 1)
    assert shown.applied.reply.data["items"][0]["report"] == played.report
    assert GM_ADDRESS not in {f"{name.lower()}@example.org" for name in SEATS}
