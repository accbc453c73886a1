"""Strike Gold: the :class:`~adjudicator.api.GameRules` implementation.

Rules: docs/rules/strike-gold.md (the rule text restated; rulings S1-S11).

Phases: each round opens with one simultaneous setup phase in which every seat owes its
starting flips (2 cards in round 1, 1 later; it resolves once all have sent them).  Then
the game is sequential: one phase per move, owed by the player to move alone (window
"decision", resolved as soon as it arrives).  An order ``draw deck`` alone resolves as a
phase of its own and leaves that player a follow-up decision phase.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from adjudicator.api import (
    JSON,
    IllegalOrders,
    InvariantViolation,
    OptionSpec,
    OrderError,
    ParsedOrders,
    Phase,
    PhaseKind,
    Resolution,
    Standing,
)
from adjudicator.checks import check_seats, expect_orders, refuse_oversized
from adjudicator.games.strike_gold import computer, report
from adjudicator.games.strike_gold import help as game_help
from adjudicator.games.strike_gold import state as state_io
from adjudicator.games.strike_gold.cards import SLOTS, full_deck
from adjudicator.games.strike_gold.grid import cards, face_down_slots
from adjudicator.games.strike_gold.options import OPTION_SPECS, Options
from adjudicator.games.strike_gold.orders import Choice, DecisionOrder, Order, SetupOrder, TurnOrder, format_order
from adjudicator.games.strike_gold.orders_parse import Context, read_order
from adjudicator.games.strike_gold.report import build_report
from adjudicator.games.strike_gold.resolve import (
    default_action,
    default_turn,
    resolve_decision,
    resolve_setup,
    resolve_turn,
)
from adjudicator.games.strike_gold.rounds import default_setup, end_round, flips_due, new_state, redeal
from adjudicator.games.strike_gold.state import Stage, State
from adjudicator.words import say


class StrikeGold:
    """Strike Gold rules; see the module docstring."""

    kind = "strike-gold"
    title = "Strike Gold"
    min_seats = 2
    max_seats = 8
    default_orders_public = True

    def options(self) -> Sequence[OptionSpec]:
        return OPTION_SPECS

    def new_game(self, seats: Sequence[str], options: Mapping[str, JSON], rng: random.Random) -> State:
        check_seats(
            seats,
            self.min_seats,
            self.max_seats,
            game="Strike Gold",
            noun=say("players"),
            twice=say("a player is named twice"),
        )
        return new_state(Options.from_mapping(options), tuple(seats), rng)

    def phase(self, state: State) -> Phase | None:
        if state.stage is Stage.OVER:
            return None
        if state.stage is Stage.SETUP:
            flips = flips_due(state.round)
            if flips > 1:
                title = say(
                    "round {round} setup: every player turns {flips} cards face up", round=state.round, flips=flips
                )
            else:
                title = say(
                    "round {round} setup: every player turns {flips} card face up", round=state.round, flips=flips
                )
            return Phase(state.turn, PhaseKind.SETUP, state.seats, title, "turn", resolve_when_complete=True)
        seat = state.seats[state.current]
        if state.stage is Stage.DECIDE:
            title = say("round {round}: {seat} decides what to do with the drawn card", round=state.round, seat=seat)
        elif state.ending:
            title = say("round {round}: {seat} takes a final turn", round=state.round, seat=seat)
        else:
            title = say("round {round}: {seat} to move", round=state.round, seat=seat)
        return Phase(state.turn, PhaseKind.DECISION, (seat,), title, "decision", resolve_when_complete=True)

    def parse_orders(self, state: State, seat: str, text: str) -> ParsedOrders[Any]:
        if (refused := refuse_oversized(text)) is not None:
            return refused
        phase = self.phase(state)
        if phase is None:
            return ParsedOrders(None, "", (OrderError(text.strip(), say("the game is over")),))
        if seat not in phase.owing:
            not_due = say("no order is due from you: {phase}", phase=phase.title)
            return ParsedOrders(None, "", (OrderError(text.strip(), not_due),))
        return read_order(self._context(state, seat), text)

    def _context(self, state: State, seat: str) -> Context:
        return Context(
            stage=state.stage,
            grid=state.grid(seat),
            flips=flips_due(state.round),
            discard_top=state.discard[-1] if state.discard else None,
            pending=state.pending,
            must_keep=state.options.discard_pick_must_keep,
            final=state.ending,
        )

    def format_orders(self, state: State, seat: str, orders: Any) -> str:
        return format_order(orders)

    def default_orders(self, state: State, seat: str) -> Order:
        """Ruling S10 for the current phase."""
        grid = state.grid(seat)
        must_keep = state.options.discard_pick_must_keep
        if state.stage is Stage.SETUP:
            return default_setup(grid, flips_due(state.round))
        if state.stage is Stage.DECIDE:
            assert state.pending is not None
            return DecisionOrder((Choice(default_action(grid, state.pending.source, must_keep)),))
        return default_turn(grid, must_keep)

    def resolve(self, state: State, orders: Mapping[str, Any], rng: random.Random) -> Resolution[State]:
        phase = self.phase(state)
        if phase is None:
            raise IllegalOrders("-", "the game is over")
        if state.stage is Stage.SETUP:
            setups = {seat: expect_orders(seat, orders, SetupOrder) for seat in state.seats}
            for seat, order in setups.items():
                _check_setup(state, seat, order)
            new, events = resolve_setup(state, setups)
            return Resolution(new, events, build_report(new, "setup", self.standings(new)))
        seat = phase.owing[0]
        if state.stage is Stage.DECIDE:
            move = resolve_decision(state, expect_orders(seat, orders, DecisionOrder))
        else:
            move = resolve_turn(state, expect_orders(seat, orders, TurnOrder), rng)
        if move.drawn_alone is not None:
            private = {seat: {"drawn": move.drawn_alone.value, "source": move.drawn_alone.source.value}}
            data = build_report(move.state, "draw", self.standings(move.state))
            return Resolution(move.state, move.events, data, private)
        if not move.round_over:
            return Resolution(move.state, move.events, build_report(move.state, "move", self.standings(move.state)))
        new, result, round_events = end_round(move.state, rng)
        data = build_report(new, "round", self.standings(new), result)
        return Resolution(new, (*move.events, *round_events), data)

    def redeal(self, state: State, rng: random.Random) -> State:
        return redeal(state, rng)

    def check_invariants(self, state: State) -> None:
        held = list(state.deck) + list(state.discard) + [c for g in state.grids for c in cards(g)]
        if state.pending is not None:
            held.append(state.pending.value)
        if Counter(held) != Counter(full_deck()):
            raise InvariantViolation(f"the cards in play ({len(held)}) are not the 150-card deck")
        if len(state.grids) != len(state.seats) or any(len(g) != SLOTS for g in state.grids):
            raise InvariantViolation("every seat must have one 3x4 grid")
        if (state.stage is Stage.DECIDE) != (state.pending is not None):
            raise InvariantViolation("a drawn card is pending exactly while a decision is owed")
        if state.stage in (Stage.TURN, Stage.DECIDE):
            if not 0 <= state.current < len(state.seats):
                raise InvariantViolation("no valid player to move")
            if state.out is None and any(not face_down_slots(g) for g in state.grids):
                raise InvariantViolation("a player has no face-down card but nobody is out")
        if state.stage is Stage.SETUP and any(c is None or c.up for g in state.grids for c in g):
            raise InvariantViolation("a round must start with every card face down")

    def standings(self, state: State) -> tuple[Standing, ...]:
        """Lowest total first; ties broken by more columns cleared (S7; rows too with
        ``tiebreak_counts_rows``); still equal: the place is shared."""

        def key(i: int) -> tuple[int, int]:
            clears = state.columns_cleared[i] + (state.rows_cleared[i] if state.options.tiebreak_counts_rows else 0)
            return state.totals[i], -clears

        keys = [key(i) for i in range(len(state.seats))]
        order = sorted(range(len(state.seats)), key=lambda i: (keys[i], i))
        return tuple(Standing(state.seats[i], 1 + sum(1 for k in keys if k < keys[i]), state.totals[i]) for i in order)

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


def _check_setup(state: State, seat: str, order: SetupOrder) -> None:
    grid = state.grid(seat)
    if len(order.slots) != flips_due(state.round) or len(set(order.slots)) != len(order.slots):
        raise IllegalOrders(seat, f"must turn exactly {flips_due(state.round)} different card(s) face up")
    if any(s not in face_down_slots(grid) for s in order.slots):
        raise IllegalOrders(seat, "can only turn face-down cards face up")
