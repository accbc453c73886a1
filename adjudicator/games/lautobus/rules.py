"""L'autobus (Tony Reeves): the :class:`~adjudicator.api.GameRules` implementation.

Rules: docs/rules/lautobus.md (the rule text restated; rulings L1-L10).
A simultaneous game: every turn each team that still has a cyclist with cards
owes one card per such cyclist.
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
    ParsedOrders,
    Phase,
    PhaseKind,
    Resolution,
    Standing,
)
from adjudicator.checks import check_seats, expect_orders, refuse_oversized
from adjudicator.games.lautobus import computer, report
from adjudicator.games.lautobus import help as game_help
from adjudicator.games.lautobus import state as state_io
from adjudicator.games.lautobus.cards import fallback_card, sort_hand, starting_hand
from adjudicator.games.lautobus.layout import start_cyclists
from adjudicator.games.lautobus.options import OPTION_SPECS, RIDERS, TEAMS, Options
from adjudicator.games.lautobus.orders import Play, TeamOrders, format_orders, parse_team_orders
from adjudicator.games.lautobus.report import turn_report
from adjudicator.games.lautobus.resolve import resolve_turn
from adjudicator.games.lautobus.scoring import standings
from adjudicator.games.lautobus.state import State
from adjudicator.words import say


def phase_title(state: State) -> str:
    """What the turn asks for.  It names no number: the turn's number is the
    referee's (the record's, counted from 0, as every report, reminder and GM
    command shows it), and a second count here would contradict it."""
    if state.first_turn:
        return say("a card for each cyclist (the first turn: no ZERO or SPRINT yet)")
    return say("a card for each cyclist")


class Lautobus:
    """L'autobus rules; see the module docstring."""

    kind = "lautobus"
    title = "L'autobus"
    min_seats = TEAMS
    max_seats = TEAMS
    default_orders_public = True

    def options(self) -> Sequence[OptionSpec]:
        return OPTION_SPECS

    def new_game(self, seats: Sequence[str], options: Mapping[str, JSON], rng: random.Random) -> State:
        """Seed rules 1-3 with rulings L1-L3; only ``rng`` decides a seeded_random start."""
        check_seats(
            seats, TEAMS, TEAMS, game="L'autobus", noun=say("teams"), twice=say("two teams have the same seat name")
        )
        resolved = Options.from_mapping(options)
        return State(resolved, tuple(seats), start_cyclists(seats, resolved, rng))

    def phase(self, state: State) -> Phase | None:
        if state.finished:
            return None
        owing = tuple(seat for seat in state.seats if any(c.has_cards for c in state.team(seat)))
        return Phase(state.turn, PhaseKind.TURN, owing, phase_title(state), "turn")

    def parse_orders(self, state: State, seat: str, text: str) -> ParsedOrders[TeamOrders]:
        if (refused := refuse_oversized(text)) is not None:
            return refused
        return parse_team_orders(state.team(seat), text, state.first_turn, state.options)

    def format_orders(self, state: State, seat: str, orders: TeamOrders) -> str:
        return format_orders(orders)

    def default_orders(self, state: State, seat: str) -> TeamOrders:
        """Ruling L8: each cyclist with cards plays its lowest movement card
        (with only specials left, ZERO if allowed, else SPRINT)."""
        return TeamOrders(
            tuple(
                Play(c.rider, fallback_card(c.cards, state.first_turn))
                for c in sorted(state.team(seat), key=lambda c: c.rider)
                if c.has_cards
            )
        )

    def resolve(self, state: State, orders: Mapping[str, Any], rng: random.Random) -> Resolution[State]:
        phase = self.phase(state)
        if phase is None:
            raise IllegalOrders("-", "the race is over")
        checked = {seat: expect_orders(seat, orders, TeamOrders, "TeamOrders") for seat in phase.owing}
        result = resolve_turn(state, checked)
        return Resolution(result.state, result.events, turn_report(state, result.state, result.lines, result.bonuses))

    def redeal(self, state: State, rng: random.Random) -> State:
        """The start is drawn once (its layout is public) and the hands are the rules' own: nothing hidden is left to chance."""
        return state

    def check_invariants(self, state: State) -> None:
        spaces = [c.space for c in state.cyclists]
        if len(set(spaces)) != len(spaces):
            raise InvariantViolation("two cyclists share a space (seed rule 7)")
        if min(spaces) < 1:
            raise InvariantViolation("a cyclist is behind space 1")
        full = Counter(starting_hand(state.options.movement_cards))
        for seat in state.seats:
            riders = sorted(c.rider for c in state.team(seat))
            if riders != list(range(1, RIDERS + 1)):
                raise InvariantViolation(f"team {seat} has riders {riders}")
        for cyclist in state.cyclists:
            if cyclist.team not in state.seats:
                raise InvariantViolation(f"cyclist of unknown team {cyclist.team}")
            if Counter(cyclist.cards) - full or cyclist.cards != sort_hand(cyclist.cards):
                raise InvariantViolation(f"{cyclist.team} rider {cyclist.rider} holds {cyclist.cards}")
        if state.finished == any(c.has_cards for c in state.cyclists):
            raise InvariantViolation("the race is finished exactly when no cyclist holds cards (seed rule 12)")

    def standings(self, state: State) -> tuple[Standing, ...]:
        return standings(state)

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
