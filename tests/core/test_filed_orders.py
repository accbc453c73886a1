"""Orders on file written as Core rows (bot/core/games/filed_orders.py): last set wins, inside one batch too.

An optimistic batch defers its INSERTs and the UPDATE that retires a seat's
earlier set to the batch's end; these tests file several sets for one seat
in one batch (after a set committed earlier) and check that exactly the last
one counts, for an optimistic batch, a careful one, and outside any batch.
"""

from __future__ import annotations

import pytest
from sqlalchemy import select

from bot.core.basics.batch import open_batch
from bot.core.games.filed_orders import current_orders, file_orders, load_current
from bot.core.games.stored import find_game
from bot.core.model import commands as c
from bot.store.db import unit_of_work
from bot.store.models import OrderSubmission
from tests.core.harness import Harness


@pytest.fixture
def harness(sessions):
    harness = Harness(sessions)
    harness.golden_strider_game()
    harness.send("Ann", c.SubmitOrders("gs1", "cards 10 8 6 4 2"))  # committed before the batch
    return harness


def _rows(harness: Harness, seat: str) -> list[tuple[str, bool]]:
    with unit_of_work(harness.sessions) as session:
        return [
            (row.canonical_text, row.current)
            for row in session.scalars(
                select(OrderSubmission).where(OrderSubmission.seat_name == seat).order_by(OrderSubmission.id)
            )
        ]


@pytest.mark.parametrize("careful", [False, True], ids=["optimistic", "careful"])
def test_the_last_set_filed_in_a_batch_is_the_one_that_counts(harness, careful):
    now = harness.clock.now()
    with open_batch(harness.sessions, careful=careful) as batch:
        session = batch.session
        game_id = find_game(session, "gs1").id
        assert current_orders(session, game_id, 0)["Ann"].canonical_text == "cards 10 8 6 4 2"
        for n, text in enumerate(["cards 9 9 8 2 2", "cards 10 10 10 0 0", "cards 6 6 6 6 6"]):
            file_orders(session, game_id, 0, "Ann", text, text, f"src:{n}", now)
        file_orders(session, game_id, 0, "Bob", "cards 10 8 6 4 2", "cards 10 8 6 4 2", "src:bob", now)
        assert current_orders(session, game_id, 0)["Ann"].canonical_text == "cards 6 6 6 6 6"
        read = load_current(session, [(game_id, 0)])[(game_id, 0)]  # from the table: what waits is written first
        assert {seat: row.canonical_text for seat, row in read.items()} == {
            "Ann": "cards 6 6 6 6 6", "Bob": "cards 10 8 6 4 2",
        }  # fmt: skip
        file_orders(session, game_id, 0, "Ann", "cards 10 8 6 4 2", "cards 10 8 6 4 2", "src:last", now)
    assert _rows(harness, "Ann") == [
        ("cards 10 8 6 4 2", False), ("cards 9 9 8 2 2", False), ("cards 10 10 10 0 0", False),
        ("cards 6 6 6 6 6", False), ("cards 10 8 6 4 2", True),
    ]  # fmt: skip
    assert _rows(harness, "Bob") == [("cards 10 8 6 4 2", True)]


def test_a_unit_rolled_back_leaves_the_earlier_set_counting(harness):
    now = harness.clock.now()
    with open_batch(harness.sessions, careful=True) as batch:
        session = batch.session
        game_id = find_game(session, "gs1").id
        with pytest.raises(RuntimeError), batch.unit():
            file_orders(session, game_id, 0, "Ann", "cards 9 9 8 2 2", "cards 9 9 8 2 2", "src:gone", now)
            raise RuntimeError("the message's handling failed")
        assert current_orders(session, game_id, 0)["Ann"].canonical_text == "cards 10 8 6 4 2"
    assert _rows(harness, "Ann") == [("cards 10 8 6 4 2", True)]


def test_orders_sent_one_by_one_outside_a_batch_keep_one_current_set(harness):
    for text in ["cards 9 9 8 2 2", "cards 10 10 10 0 0"]:
        reply = harness.send("Ann", c.SubmitOrders("gs1", text)).reply
        assert reply is not None and "ORDERS ACCEPTED" in reply
    assert _rows(harness, "Ann") == [
        ("cards 10 8 6 4 2", False), ("cards 9 9 8 2 2", False), ("cards 10 10 10 0 0", True),
    ]  # fmt: skip
