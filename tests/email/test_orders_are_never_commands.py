"""Every game's orders, as its own example orders write them through a whole game, are read by mail as
orders and nothing else: no line of them is taken for a command of the mail vocabulary (the game masters'
and players' words are read before a block of orders, so a verb that is also a word of a game's orders
would steal its line: ``TAKE the discard`` of Strike Gold was once read as a command)."""

from __future__ import annotations

import random

import pytest

from adjudicator import registry
from bot.core.model import commands as c
from bot.email.mail_reading import read_commands

SEATS = ("Ann", "Ben", "Cat", "Dan", "Eve", "Fay")
TURNS = 40


@pytest.mark.parametrize("kind", registry.kinds())
def test_each_line_of_a_whole_games_example_orders_is_read_as_orders(kind: str) -> None:
    rules = registry.get_rules(kind)
    rng = random.Random(7)
    seats = SEATS[: rules.min_seats]
    state = rules.new_game(list(seats), {}, rng)
    lines = 0
    for _ in range(TURNS):
        phase = rules.phase(state)
        if phase is None:
            break
        orders = {}
        for seat in phase.owing:
            text = rules.example_orders(state, seat, rng)
            for variant in (text, text.upper(), text.lower()):
                read = read_commands("", f"ORDERS g1\n{variant}\n").commands
                assert read == (c.SubmitOrders("g1", variant.strip()),), (kind, variant, read)
            lines += len(text.splitlines())
            parsed = rules.parse_orders(state, seat, text)
            assert parsed.orders is not None, (kind, text, parsed.errors)
            orders[seat] = parsed.orders
        state = rules.resolve(state, orders, rng).state
    assert lines >= 5, f"{kind}: too few orders were tried"
