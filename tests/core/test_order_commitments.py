"""Orders players can verify, in the core: the confirmation's commitment, ORDERS? and the report's list.

The commitments are recomputed here with ``hashlib``/``hmac``
(:func:`tests.adjudicator.test_order_commitments.independent`) from the game's seed,
read from the store: the core must publish exactly what anyone can recompute.
"""

from __future__ import annotations

import pytest

from bot.core.basics.display_width import display_width
from bot.core.games.stored import find_game
from bot.core.model import commands as c
from bot.store.db import unit_of_work
from tests.adjudicator.test_order_commitments import independent
from tests.core.harness import SEATS, Harness

SETUP = "cards 10 8 6 4 2"


@pytest.fixture
def harness(sessions):
    harness = Harness(sessions)
    harness.golden_strider_game()
    return harness


def seed_of(harness: Harness, slug: str = "gs1") -> str:
    with unit_of_work(harness.sessions) as session:
        game = find_game(session, slug)
        assert game is not None
        return game.seed


def short(full: str) -> str:
    return " ".join(full[i : i + 4] for i in range(0, 32, 4))


def item(sent, code: str) -> dict:
    assert sent.applied.reply is not None
    found = [i for i in sent.applied.reply.data["items"] if i["code"] == code]
    assert len(found) == 1, sent.applied.reply.data
    return found[0]


def test_the_confirmation_carries_the_commitment_of_the_orders(harness):
    sent = harness.send("Ann", c.SubmitOrders("gs1", "cards 10 8 6 4 2  "))
    expected = independent(seed_of(harness), "gs1", 0, "Ann", SETUP)
    assert item(sent, "orders_accepted")["commitment"] == expected
    assert f"  Commitment: {short(expected)}" in sent.reply.splitlines()
    assert all(display_width(line) <= 78 for line in sent.reply.splitlines())


def test_orders_on_file_shows_the_filed_set_and_the_same_commitment(harness):
    confirmed = item(harness.send("Ann", c.SubmitOrders("gs1", SETUP)), "orders_accepted")["commitment"]
    asked = harness.send("Ann", c.ShowFiledOrders("gs1"))
    shown = item(asked, "orders_on_file")
    assert shown["orders"] == [SETUP] and shown["commitment"] == confirmed and shown["turn"] == 0
    lines = asked.reply.splitlines()
    assert any(line.startswith("ORDERS ON FILE for gs1, ") for line in lines) and f"    {SETUP}" in lines
    assert f"  Commitment: {short(confirmed)}" in lines


def test_a_later_set_replaces_the_one_on_file_and_its_commitment(harness):
    first = item(harness.send("Ann", c.SubmitOrders("gs1", SETUP)), "orders_accepted")["commitment"]
    second = item(harness.send("Ann", c.SubmitOrders("gs1", "cards 9 9 8 2 2")), "orders_accepted")["commitment"]
    assert first != second
    assert second == independent(seed_of(harness), "gs1", 0, "Ann", "cards 9 9 8 2 2")
    shown = item(harness.send("Ann", c.ShowFiledOrders("gs1")), "orders_on_file")
    assert shown["orders"] == ["cards 9 9 8 2 2"] and shown["commitment"] == second


def test_orders_on_file_when_none_were_sent_says_so(harness):
    asked = harness.send("Ben", c.ShowFiledOrders("gs1"))
    shown = item(asked, "orders_on_file")
    assert shown["orders"] is None and shown["commitment"] is None
    assert "None: unless some arrive, the game's rule for missing orders applies." in asked.reply


def test_another_player_cannot_see_a_seats_orders_on_file(harness):
    """The attack: reading another seat's orders (and a commitment to test guesses against)."""
    harness.send("Ann", c.SubmitOrders("gs1", SETUP))
    stranger = harness.send("Zed", c.ShowFiledOrders("gs1"))
    assert "orders_on_file" not in stranger.applied.results and stranger.applied.problems
    assert SETUP not in (stranger.reply or "")
    unknown = harness.send("Ann", c.ShowFiledOrders("nosuch"))
    assert "orders_on_file" not in unknown.applied.results and unknown.applied.problems


def test_orders_on_file_after_the_game_is_over_is_refused(harness):
    harness.send("GM", c.EndGame("gs1", "enough", False))
    asked = harness.send("Ann", c.ShowFiledOrders("gs1"))
    assert asked.applied.problems and "orders_on_file" not in asked.applied.results


def test_the_report_lists_each_seats_commitment_and_the_no_moves_received_rule(harness):
    seed = seed_of(harness)
    for name in SEATS[:-1]:
        harness.send(name, c.SubmitOrders("gs1", SETUP))
    harness.send("Ann", c.SubmitOrders("gs1", "cards 9 9 8 2 2"))  # the last set counts
    harness.pass_deadline()
    reports = [row for row in harness.outbox("report") if row.template == "report" and row.data["turn"] == 0]
    assert reports
    expected = [
        {"seat": "Ann", "commitment": independent(seed, "gs1", 0, "Ann", "cards 9 9 8 2 2")},
        *({"seat": n, "commitment": independent(seed, "gs1", 0, n, SETUP)} for n in SEATS[1:-1]),
        {"seat": SEATS[-1], "commitment": None},
    ]
    for row in reports:
        assert row.data["orders_used"] == expected
        lines = row.body.splitlines()
        start = lines.index("Orders used (commitments, as each seat's confirmation showed them):")
        listed = lines[start + 1 : start + 1 + len(SEATS)]
        assert listed[0] == f"  Ann  {short(expected[0]['commitment'])}"
        assert listed[-1] == f"  {SEATS[-1]}  no orders: the no-moves-received rule applied"
        assert all(display_width(line) <= 78 for line in lines)


def test_the_report_lists_long_seat_names_on_lines_that_fit(sessions):
    """Seat names up to 40 columns (CJK letters take two) still give lines of at most 78."""
    harness = Harness(sessions)
    names = ["A" * 40, "漢字" * 10, "Bo", "Cy", "Di", "Ed"]
    harness.send("GM", c.CreateGame("gs2", "golden-strider", {}, "Europe/Paris", 60, False, "address"))
    for name in names:
        harness.send(name.lower()[:8] if name.isascii() else "kanji", c.JoinGame("gs2", name))
    harness.send("GM", c.StartGame("gs2"))
    harness.send(names[0].lower()[:8], c.SubmitOrders("gs2", SETUP))
    harness.pass_deadline()
    body = next(row.body for row in harness.outbox("report") if row.template == "report" and row.data["game"] == "gs2")
    assert all(display_width(line) <= 78 for line in body.splitlines())
    assert f"  {names[0]}" in body.splitlines() and "  漢字漢字" in body
