"""Golden Strider (Alan Parr): the :class:`~adjudicator.api.GameRules` implementation.

Rules: docs/rules/golden-strider.md (the rule text restated; rulings G1-G14).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from adjudicator.api import (
    JSON,
    IllegalOrders,
    InvariantViolation,
    OptionSpec,
    ParsedOrders,
    Phase,
    PhaseKind,
    Resolution,
    Standing,
)
from adjudicator.checks import check_seats, expect_orders, refuse_oversized
from adjudicator.games.golden_strider import computer, report
from adjudicator.games.golden_strider import help as game_help
from adjudicator.games.golden_strider import orders as order_syntax
from adjudicator.games.golden_strider import state as state_io
from adjudicator.games.golden_strider.options import OPTION_SPECS, Options
from adjudicator.games.golden_strider.orders import PlayOrder, SetupOrder
from adjudicator.games.golden_strider.resolve import (
    default_play,
    keeps_seven_turn_rule,
    resolve_round,
    resolve_setup,
)
from adjudicator.games.golden_strider.state import CARD_LIFETIME, HAND_SIZE, MAX_CARD, Runner, State
from adjudicator.games.golden_strider.track import positions
from adjudicator.words import say

Orders = SetupOrder | PlayOrder

DEFAULT_SETUP = SetupOrder((6, 6, 6, 6, 6))
"""A runner who sends no setup gets five 6s (the rules are silent; the even split)."""


class GoldenStrider:
    """Golden Strider rules; see the module docstring."""

    kind = "golden-strider"
    title = "Golden Strider"
    min_seats = 6
    max_seats = 10
    default_orders_public = True

    def options(self) -> Sequence[OptionSpec]:
        return OPTION_SPECS

    def new_game(self, seats: Sequence[str], options: Mapping[str, JSON], rng: random.Random) -> State:
        check_seats(
            seats,
            self.min_seats,
            self.max_seats,
            game="Golden Strider",
            noun=say("runners"),
            twice=say("a runner is named twice"),
        )
        return State(Options.from_mapping(options), tuple(Runner(seat) for seat in seats))

    def phase(self, state: State) -> Phase | None:
        if state.finished:
            return None
        owing = tuple(r.seat for r in state.runners)
        if state.turn == 0:
            return Phase(0, PhaseKind.SETUP, owing, say("setup: choose five cards totalling 30"))
        return Phase(state.turn, PhaseKind.TURN, owing, say("round {round}", round=state.round))

    def parse_orders(self, state: State, seat: str, text: str) -> ParsedOrders[Any]:
        if (refused := refuse_oversized(text)) is not None:
            return refused
        if state.turn == 0:
            return order_syntax.parse_setup(text, state.options.min_initial_card)
        runner = state.runner(seat)
        parsed = order_syntax.parse_play(text, runner)
        if (
            parsed.orders is not None
            and state.options.expiry_enforcement == "feasibility"
            and not keeps_seven_turn_rule(runner.hand, parsed.orders.card, state.round)
        ):
            forced = default_play(runner).card
            warning = say(
                "WARNING: playing {card} now would leave a card you cannot play within seven turns (rule 8); "
                "unless you change it, the referee will play {forced} for movement only (rule 14)",
                card=parsed.orders.card.label,
                forced=forced.label,
            )
            return ParsedOrders(parsed.orders, parsed.canonical, parsed.errors, (*parsed.notes, warning))
        return parsed

    def format_orders(self, state: State, seat: str, orders: Any) -> str:
        if isinstance(orders, SetupOrder):
            return order_syntax.format_setup(orders)
        return order_syntax.format_play(orders)

    def default_orders(self, state: State, seat: str) -> Orders:
        return DEFAULT_SETUP if state.turn == 0 else default_play(state.runner(seat))

    def resolve(self, state: State, orders: Mapping[str, Any], rng: random.Random) -> Resolution[State]:
        phase = self.phase(state)
        if phase is None:
            raise IllegalOrders("-", "the race is over")
        if state.turn == 0:
            setups = {seat: expect_orders(seat, orders, SetupOrder) for seat in phase.owing}
            new_state, events = resolve_setup(state, setups)
            return Resolution(new_state, events, report.setup_report(new_state))
        plays = {seat: expect_orders(seat, orders, PlayOrder) for seat in phase.owing}
        new_state, lines, events = resolve_round(state, plays)
        return Resolution(new_state, events, report.round_report(new_state, lines))

    def redeal(self, state: State, rng: random.Random) -> State:
        """Nothing is left to chance after the start: the hands are dealt by the rules, not shuffled."""
        return state

    def check_invariants(self, state: State) -> None:
        if state.turn == 0:
            return
        for runner in state.runners:
            if len(runner.hand) != HAND_SIZE:
                raise InvariantViolation(f"{runner.seat} holds {len(runner.hand)} cards, not {HAND_SIZE}")
            for card in runner.hand:
                if not 0 <= card.value <= MAX_CARD:
                    raise InvariantViolation(f"{runner.seat} holds card value {card.value}")
                if state.options.expiry_enforcement == "feasibility" and card.deadline < state.round:
                    raise InvariantViolation(f"{runner.seat} holds {card.label} older than {CARD_LIFETIME} turns")
            if runner.owed < 0 or runner.square < 0:
                raise InvariantViolation(f"{runner.seat} has negative square or restitution")

    def standings(self, state: State) -> tuple[Standing, ...]:
        """By square, furthest first; equal squares share a place (G6)."""
        squares = {r.seat: r.square for r in state.runners}
        places = positions(squares)
        if state.options.winner_tie == "position_before" and state.positions_before_last:
            leaders = [seat for seat, place in places.items() if place == 1]
            if len(leaders) > 1:
                before = {seat: state.positions_before_last[seat] for seat in leaders}
                for seat in leaders:
                    places[seat] = 1 + sum(1 for other in leaders if before[other] < before[seat])
        order = sorted(state.runners, key=lambda r: (places[r.seat], state.runners.index(r)))
        return tuple(Standing(r.seat, places[r.seat], r.square) for r in order)

    def public_state(self, state: State) -> dict[str, JSON]:
        return report.public_state(state)

    def seat_view(self, state: State, seat: str) -> dict[str, JSON]:
        return report.seat_view(state, seat)

    def dump_state(self, state: State) -> dict[str, JSON]:
        return state_io.dump(state)

    def load_state(self, data: Mapping[str, JSON]) -> State:
        return state_io.load(data)

    def example_orders(self, state: State, seat: str, rng: random.Random) -> str:
        return computer.example_orders(state, seat, rng)

    def help_text(self, options: Mapping[str, JSON] | None = None) -> str:
        return game_help.help_text(options)
