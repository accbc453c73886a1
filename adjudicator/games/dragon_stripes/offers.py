"""Take-over offers after a hold (seed; rulings D5, D6).

When the active player holds, every other player who can pay the bounty may
take over, in seat order starting left of the holder (D6).  A player with a
standing take-over offer is answered by it (take when at least that many gems
are beside the knight, pass otherwise); the others are asked in an offer
window.  Under ``seat_order`` only the players before the first standing taker
can change the outcome, so only they are asked; under ``holder_chooses`` every
player without a standing offer is asked.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from adjudicator.games.dragon_stripes.options import Options
from adjudicator.games.dragon_stripes.state import State


def bounty(options: Options, beside: int) -> int:
    """The price of a take-over (ruling D5): the gems beside, half of them rounded down, or a fixed number."""
    if options.bounty_rule == "half_floor":
        return beside // 2
    if options.bounty_rule == "fixed":
        return options.bounty_fixed
    return beside


def offer_order(players: int, holder: int) -> tuple[int, ...]:
    """Every seat but the holder, starting at the holder's left (D6)."""
    return tuple((holder + k) % players for k in range(1, players))


@dataclass(frozen=True)
class OfferPlan:
    """Who may take over the current run, and who still has to be asked."""

    bounty: int
    eligible: tuple[int, ...]
    unable: tuple[int, ...]
    standing: Mapping[int, bool]
    owing: tuple[int, ...]


def offer_plan(state: State) -> OfferPlan:
    """The offer window for the current hold: eligible seats in offer order, standing answers, who owes."""
    price = bounty(state.options, state.beside)
    order = offer_order(len(state.players), state.active)
    eligible = tuple(i for i in order if state.players[i].gems >= price)
    unable = tuple(i for i in order if state.players[i].gems < price)
    standing: dict[int, bool] = {}
    for i in eligible:
        threshold = state.players[i].offer
        if threshold is not None:
            standing[i] = state.beside >= threshold
    owing: list[int] = []
    for i in eligible:
        if i in standing:
            if standing[i] and state.options.takeover_selection == "seat_order":
                break
        else:
            owing.append(i)
    return OfferPlan(price, eligible, unable, standing, tuple(owing))


def answers(state: State, plan: OfferPlan, live: Mapping[int, bool]) -> dict[int, bool]:
    """Each eligible seat's answer: its live answer, else its standing offer (seats not asked are absent)."""
    result: dict[int, bool] = {}
    for i in plan.eligible:
        threshold = state.players[i].offer
        if i in live:
            result[i] = live[i]
        elif threshold is not None:
            result[i] = state.beside >= threshold
    return result
