"""The generic turn driver shared by every game.

It fills in the no-moves-received orders of every owing seat that sent none,
refuses orders from seats that owe none, resolves the phase with the engine,
and checks the engine's invariants on the new state.  The bot and the replayer
both go through here, so the live game and its replay cannot drift apart.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from adjudicator.api import Event, GameRules, IllegalOrders, OrderError, Resolution
from adjudicator.rng import rng_for
from adjudicator.words import say


def parse_turn_orders(
    rules: GameRules[Any, Any], state: Any, texts: Mapping[str, str]
) -> tuple[dict[str, Any], dict[str, tuple[OrderError, ...]]]:
    """Parse each seat's order text for the current phase.

    Returns the usable orders by seat and, for seats whose text had errors,
    those errors (a seat can have both: orders were found, some lines were not
    understood).
    """
    orders: dict[str, Any] = {}
    errors: dict[str, tuple[OrderError, ...]] = {}
    for seat, text in texts.items():
        parsed = rules.parse_orders(state, seat, text)
        if parsed.errors:
            errors[seat] = parsed.errors
        if parsed.orders is not None:
            orders[seat] = parsed.orders
    return orders, errors


def advance(rules: GameRules[Any, Any], state: Any, orders: Mapping[str, Any], rng: random.Random) -> Resolution[Any]:
    """Resolve the current phase of ``state`` with ``orders``.

    Seats that owe orders and have none get ``rules.default_orders`` (the
    game's no-moves-received rule) and are listed in ``Resolution.defaulted``.
    Raises :class:`IllegalOrders` for orders from a seat that owes none, or
    when the game is already finished.
    """
    phase = rules.phase(state)
    if phase is None:
        raise IllegalOrders(next(iter(orders), "-"), "the game is finished; no orders are owed")
    for seat in orders:
        if seat not in phase.owing:
            raise IllegalOrders(seat, f"owes no orders in {phase.title}")
    complete = dict(orders)
    defaulted = []
    nmr_events = []
    for seat in phase.owing:
        if seat not in complete:
            complete[seat] = rules.default_orders(state, seat)
            defaulted.append(seat)
            if rules.default_orders_public:
                played = rules.format_orders(state, seat, complete[seat])
                text = say("{seat}: no orders received; the referee's orders: {orders}", seat=seat, orders=played)
            else:
                text = say("{seat}: no orders received; the no-moves-received rule applies", seat=seat)
            nmr_events.append(Event("nmr", text, seat))
    result = rules.resolve(state, complete, rng)
    rules.check_invariants(result.state)
    return replace(result, events=(*nmr_events, *result.events), defaulted=tuple(defaulted))


def advance_drawn(
    rules: GameRules[Any, Any], state: Any, orders: Mapping[str, Any], seed: str, draw: int, *, redeal: bool
) -> Resolution[Any]:
    """:func:`advance` with the turn's generator, derived from ``seed``, the turn number and its ``draw``
    (:func:`adjudicator.rng.rng_for`); with ``redeal`` (the first turn of a fresh draw after a rollback, the
    draw differs from the previous turn's), what no player has seen is first dealt again from that generator
    (:meth:`adjudicator.api.GameRules.redeal`).  The bot resolving a turn, its preview and the record's
    replay all go through here, so a redrawn turn replays as it was played."""
    phase = rules.phase(state)
    if phase is None:
        raise IllegalOrders(next(iter(orders), "-"), "the game is finished; no orders are owed")
    rng = rng_for(seed, phase.number, draw)
    if redeal:
        state = rules.redeal(state, rng)
        rules.check_invariants(state)
    return advance(rules, state, orders, rng)
