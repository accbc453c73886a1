"""The setup's report says who got the referee's setup (the no-moves-received rule at the setup
phase), as every later report says who got the referee's orders."""

from __future__ import annotations

import random

import pytest

from adjudicator import registry
from adjudicator.options import resolve_options
from adjudicator.turn import advance
from bot.core.messaging.rendering import render_report_body

SEATS = {
    "golden-strider": ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay"],
    "three-races": ["North", "East", "South", "West"],
}


@pytest.mark.parametrize("kind", sorted(SEATS))
def test_the_setup_report_names_the_seat_given_the_referees_setup(kind: str) -> None:
    rules = registry.get_rules(kind)
    rng = random.Random(5)
    state = rules.new_game(SEATS[kind], resolve_options(rules.options(), {}), rng)
    phase = rules.phase(state)
    assert phase is not None and phase.number == 0
    late, *others = phase.owing
    orders = {}
    for seat in others:
        parsed = rules.parse_orders(state, seat, rules.example_orders(state, seat, rng))
        assert parsed.orders is not None, parsed.errors
        orders[seat] = parsed.orders
    result = advance(rules, state, orders, rng)
    assert result.defaulted == (late,)
    text = render_report_body(kind, result.report, [e.text for e in result.events])
    lines = [line for line in text.splitlines() if line.startswith(f"* {late}: no orders received")]
    assert lines, text
    assert not any(line.startswith(f"* {seat}:") for seat in others for line in text.splitlines())


def test_golden_striders_setup_report_shows_the_five_6s() -> None:
    rules = registry.get_rules("golden-strider")
    state = rules.new_game(SEATS["golden-strider"], resolve_options(rules.options(), {}), random.Random(0))
    orders = {
        seat: rules.parse_orders(state, seat, "cards 10 8 6 4 2").orders for seat in ("Ben", "Cat", "Dan", "Eve", "Fay")
    }
    result = advance(rules, state, orders, random.Random(0))
    text = render_report_body("golden-strider", result.report, [e.text for e in result.events])
    assert "* Ann: no orders received; the referee's orders: cards 6 6 6 6 6" in text, text
