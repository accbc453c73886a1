"""Resolving one Dragon Stripes phase: store standing orders, apply the answers, play on."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from adjudicator.api import IllegalOrders
from adjudicator.games.dragon_stripes.engine import choose, hold, play_on, settle_offers
from adjudicator.games.dragon_stripes.orders import Answer, Orders
from adjudicator.games.dragon_stripes.state import Line, State, Step


def store_standing(state: State, seat: str, orders: Orders) -> State:
    """Withdrawals first, then the new standing orders replace the old ones (a new run order is unused)."""
    index = state.index(seat)
    player = state.players[index]
    run = None if orders.withdraw_run else player.run
    offer = None if orders.withdraw_offer else player.offer
    if orders.run is not None:
        run = replace(orders.run, used=False)
    if orders.offer is not None:
        offer = orders.offer
    return state.with_player(index, run=run, offer=offer)


def apply_answers(state: State, given: Mapping[str, Orders], log: list[Line]) -> State:
    """The live answers of the phase: the decision, the offers, or the holder's choice."""
    holder = state.active_player.seat
    if state.step is Step.DECIDE:
        answer = given[holder].answer
        if answer is Answer.REVEAL:
            return replace(state, step=Step.REVEAL)
        if answer is Answer.HOLD or (answer is None and state.active_player.run is None):
            return hold(state, log)
        if answer is not None:
            raise IllegalOrders(holder, f"{answer.value} is not a decision; reveal or hold")
        return state
    if state.step is Step.OFFER:
        live: dict[int, bool] = {}
        for seat, orders in given.items():
            if orders.answer in (Answer.TAKE, Answer.PASS):
                live[state.index(seat)] = orders.answer is Answer.TAKE
            elif orders.answer is not None:
                raise IllegalOrders(seat, f"{orders.answer.value} does not answer a take-over offer")
        return settle_offers(state, live, log)
    if state.step is Step.CHOOSE:
        chosen = given[holder].choose
        takers = [state.players[i].seat for i in state.takers]
        if chosen not in takers:
            raise IllegalOrders(holder, f"must choose one of {', '.join(takers)}, not {chosen!r}")
        return choose(state, state.index(chosen), log)
    raise IllegalOrders(holder, "the game waits for nothing")


def resolve_phase(state: State, given: Mapping[str, Orders]) -> tuple[State, tuple[Line, ...]]:
    """Resolve the current phase with every owing seat's orders, then play on as far as standing orders go."""
    log = list(state.unreported)
    state = replace(state, unreported=())
    for seat in (p.seat for p in state.players):
        if seat in given:
            state = store_standing(state, seat, given[seat])
    state = apply_answers(state, given, log)
    state = play_on(state, log)
    return replace(state, turn=state.turn + 1), tuple(log)
