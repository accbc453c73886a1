"""Each game's seat view (``GameRules.seat_view``): what one seat may see, never another's secret.

The attack: build a state where another seat holds a secret (a three-race team's
split, the card a Strike Gold player drew alone, a Dragon Stripes player's standing
orders, the deck order), change only that secret, and the seat's view must not
change; change the seat's own secret and its view must show it.  Golden Strider and
L'autobus keep nothing private in the state (hands are public, docs/rules/golden-strider.md 1.1 and docs/rules/lautobus.md 5.1:
only each turn's order is secret): their views add only the seat's own cards.
"""

from __future__ import annotations

import random
from dataclasses import replace

from adjudicator.api import JSON
from adjudicator.games.dragon_stripes import DragonStripes
from adjudicator.games.dragon_stripes.state import RunOrder
from adjudicator.games.golden_strider import GoldenStrider
from adjudicator.games.lautobus import Lautobus
from adjudicator.games.strike_gold import StrikeGold
from adjudicator.games.strike_gold.state import Pending, Source, Stage
from adjudicator.games.three_races import ThreeRaces
from adjudicator.record import start_game
from adjudicator.turn import advance


def own_keys(view: dict[str, JSON], public: dict[str, JSON]) -> set[str]:
    """The keys a seat view adds to the public state."""
    assert {key: view[key] for key in public} == public
    return set(view) - set(public)


def test_three_races_a_team_never_sees_another_teams_cards():
    """docs/rules/three-races.md 2.1: each team's split of 1-12 and its spent cards are its own secret."""
    rules = ThreeRaces()
    state = start_game(rules, "ABCD", {}, "views")
    splits = {"A": "25: 1 2 3 4 / 55: 5 6 7 8 / 85: 9 10 11 12", "B": "25: 9 10 11 12 / 55: 1 2 3 4 / 85: 5 6 7 8"}
    orders = {seat: rules.parse_orders(state, seat, splits.get(seat, splits["A"])).orders for seat in "ABCD"}
    state = advance(rules, state, orders, random.Random(0)).state
    view = rules.seat_view(state, "A")
    assert view["hands"] == {"25": [1, 2, 3, 4], "55": [5, 6, 7, 8], "85": [9, 10, 11, 12]}
    assert own_keys(view, rules.public_state(state)) >= {"seat", "hands", "spent", "moves", "readjustments_left"}
    b = state.team("B")
    other = replace(b, hands={25: (1, 5, 9, 12), 55: (2, 6, 10, 11), 85: (3, 4, 7, 8)}, spent={25: frozenset({1})})
    changed = replace(state, teams=tuple(other if t.seat == "B" else t for t in state.teams))
    assert rules.seat_view(changed, "A") == view
    assert rules.seat_view(changed, "B") != rules.seat_view(state, "B")
    assert [1, 5, 9, 12] not in rules.seat_view(changed, "A")["hands"].values()


def test_strike_gold_the_card_drawn_alone_is_its_drawers_and_face_down_cards_nobodys():
    """docs/rules/strike-gold.md 3.1: the card drawn from the deck is seen by its drawer first; face-down
    values and the deck order are the referee's only (the owner does not know its own)."""
    rules = StrikeGold()
    state = start_game(rules, "AB", {}, "views")
    orders = {seat: rules.parse_orders(state, seat, rules.example_orders(state, seat, random.Random(1))).orders
              for seat in "AB"}  # fmt: skip
    state = advance(rules, state, orders, random.Random(0)).state
    assert state.stage is Stage.TURN
    drawer = state.seats[state.current]
    other = next(seat for seat in "AB" if seat != drawer)
    drawn = replace(state, stage=Stage.DECIDE, pending=Pending(7, Source.DECK))
    assert rules.seat_view(drawn, drawer)["drawn"] == {"value": 7, "source": "deck"}
    assert rules.seat_view(drawn, other)["drawn"] is None
    other_card = replace(drawn, pending=Pending(12, Source.DECK))
    assert rules.seat_view(other_card, other) == rules.seat_view(drawn, other)
    assert rules.seat_view(other_card, drawer) != rules.seat_view(drawn, drawer)
    assert own_keys(rules.seat_view(drawn, other), rules.public_state(drawn)) == {
        "seat", "slots", "discard_pick_must_keep", "drawn"
    }  # fmt: skip
    for seat in "AB":  # nobody's view changes with a face-down value or the deck order
        index = drawn.seats.index(seat)
        hidden = tuple(None if c is None or c.up else replace(c, value=-2) for c in drawn.grids[index])
        masked = tuple(h if h is not None else c for h, c in zip(hidden, drawn.grids[index], strict=True))
        secret = replace(drawn, grids=tuple(masked if i == index else g for i, g in enumerate(drawn.grids)),
                         deck=tuple(reversed(drawn.deck)))  # fmt: skip
        for viewer in "AB":
            assert rules.seat_view(secret, viewer) == rules.seat_view(drawn, viewer)


def test_dragon_stripes_standing_orders_are_their_seats_and_the_deck_nobodys():
    """docs/rules/dragon-stripes.md 4.1: only the deck order is hidden; a standing order is its player's intention."""
    rules = DragonStripes()
    state = start_game(rules, "ABC", {}, "views")
    b = state.index("B")
    mine = state.with_player(state.index("A"), run=RunOrder(beside=9), offer=20)
    view = rules.seat_view(mine, "A")
    assert view["standing"] and own_keys(view, rules.public_state(mine)) == {"seat", "seats", "takers", "standing"}
    theirs = mine.with_player(b, run=RunOrder(stripe=12), offer=33)
    assert rules.seat_view(theirs, "A") == view
    assert rules.seat_view(theirs, "B") != rules.seat_view(mine, "B")
    shuffled = replace(theirs, deck=tuple(reversed(theirs.deck)))
    assert rules.seat_view(shuffled, "A") == view and "deck" not in view


def test_golden_strider_a_view_adds_only_the_seats_own_hand():
    """docs/rules/golden-strider.md 1.1: hands are public; the view adds the seat's cards with their last round (seed rule 8)."""
    rules = GoldenStrider()
    state = start_game(rules, "ABCDEF", {}, "views")
    orders = {seat: rules.parse_orders(state, seat, "6 6 6 6 6").orders for seat in "ABCDEF"}
    state = advance(rules, state, orders, random.Random(0)).state
    view = rules.seat_view(state, "B")
    assert own_keys(view, rules.public_state(state)) == {"seat", "hand", "max_card"}
    assert [card["card"] for card in view["hand"]] == [c.label for c in state.runner("B").hand]
    assert all(card["play_by"] == card["received"] + 7 for card in view["hand"])


def test_lautobus_a_view_adds_only_the_seats_own_riders():
    """docs/rules/lautobus.md 5.1: hands are public; the view adds the team's riders and the cards they may play
    now (no special on the first turn, seed rule 10)."""
    rules = Lautobus()
    state = start_game(rules, "ABCDE", {}, "views")
    view = rules.seat_view(state, "B")
    assert own_keys(view, rules.public_state(state)) == {"seat", "riders"}
    assert [rider["rider"] for rider in view["riders"]] == [c.rider for c in state.team("B")]
    assert all("zero" in r["cards"] and "zero" not in r["playable"] for r in view["riders"])
    later = replace(state, turn=1)
    assert all("zero" in r["playable"] for r in rules.seat_view(later, "B")["riders"])
