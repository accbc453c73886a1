"""Golden Strider (Alan Parr): the :class:`~adjudicator.api.GameRules` implementation.

Seed: ``shared/seeds/golden-strider.txt``; rulings G1-G14: ``shared/rules/RULINGS.md`` section 1.
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
    SetupError,
    Standing,
)
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
from adjudicator.games.golden_strider.state import CARD_LIFETIME, HAND_SIZE, MAX_CARD, RoundLine, Runner, State
from adjudicator.games.golden_strider.track import positions
from adjudicator.options import describe_options

Orders = SetupOrder | PlayOrder

DEFAULT_SETUP = SetupOrder((6, 6, 6, 6, 6))
"""A runner who sends no setup gets five 6s (the rules are silent; the even split)."""

HELP = """\
GOLDEN STRIDER (Alan Parr) - a middle-distance race for 6 to 10 runners.

Setup, once: choose five cards, each 0-10, totalling 30 (seed rule 2).
    cards 10 8 6 4 2
Each round: play one card and split it between movement and banking.
    play 6/0 bank 2       the 6 received at turn 0; bank 2, move the rest
    play 6 bank 2         your oldest 6
    play 6/0 move 4 bank 2
Restitution for overtaking comes off the card first (rules 9-12); the bank is
then honoured and what is left is movement (ruling G5).  "bank 0" may be left
out.  Case, commas and extra spaces do not matter.

Your replacement card is 2 x banked + a positional bonus (1st 0, 2nd-3rd 1,
4th-6th 2; 4th-8th with ten runners), never more than 10 (rules 6-7).
Every card must be played within seven turns of receiving it (rule 8); an
order that would make that impossible is replaced by the referee's play
(rule 14, the seed's "rule 7" means rule 8).  No orders: the referee plays
your oldest card (lowest initial card), for movement only (rule 13).
A setup that never arrives is five 6s.

Steeplechase: 70 squares, barriers at 10, 30, 40, 60 cost 1 extra point,
water jumps at 20 and 50 cost 2; land short and you trip: your next card
loses 1 + the points unpaid.  (Tripping at water with nothing paid is 1 point
cheaper than jumping: a quirk of the rules, refereed as written, G11.)

Report columns: Cards (value/turn received, oldest first; * marks the card
played), D deducted for restitution, M moved, B banked, R replacement card,
S square, P position, O restitution owed next round, cf carried forward.
"""


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
        if not self.min_seats <= len(seats) <= self.max_seats:
            raise SetupError(f"Golden Strider needs {self.min_seats} to {self.max_seats} runners, not {len(seats)}")
        return State(Options.from_mapping(options), tuple(Runner(seat) for seat in seats))

    def phase(self, state: State) -> Phase | None:
        if state.finished:
            return None
        owing = tuple(r.seat for r in state.runners)
        if state.turn == 0:
            return Phase(0, PhaseKind.SETUP, owing, "setup: choose five cards totalling 30")
        return Phase(state.turn, PhaseKind.TURN, owing, f"round {state.round}")

    def parse_orders(self, state: State, seat: str, text: str) -> ParsedOrders[Any]:
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
            warning = (
                f"WARNING: playing {parsed.orders.card.label} now would leave a card you cannot play "
                f"within seven turns (rule 8); unless you change it, the referee will play "
                f"{forced.label} for movement only (rule 14)"
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
            setups = {seat: _expect(seat, orders, SetupOrder) for seat in phase.owing}
            new_state, events = resolve_setup(state, setups)
            return Resolution(new_state, events, _setup_report(new_state))
        plays = {seat: _expect(seat, orders, PlayOrder) for seat in phase.owing}
        new_state, lines, events = resolve_round(state, plays)
        return Resolution(new_state, events, _round_report(new_state, lines))

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
        places = positions({r.seat: r.square for r in state.runners})
        return {
            "round": state.round,
            "race_length": state.options.race_length,
            "steeplechase": state.options.steeplechase,
            "runners": [
                {
                    "seat": r.seat,
                    "square": r.square,
                    "position": places[r.seat],
                    "owed": r.owed,
                    "hand": [c.label for c in r.hand],
                }
                for r in state.runners
            ],
        }

    def dump_state(self, state: State) -> dict[str, JSON]:
        return state_io.dump(state)

    def load_state(self, data: Mapping[str, JSON]) -> State:
        return state_io.load(data)

    def example_orders(self, state: State, seat: str, rng: random.Random) -> str:
        """A plausible human order: a random legal setup, or a card that keeps rule 8."""
        if state.turn == 0:
            values = _random_setup(rng, state.options.min_initial_card)
            return "Cards: " + ", ".join(str(v) for v in values)
        runner = state.runner(seat)
        legal = [c for c in runner.hand if keeps_seven_turn_rule(runner.hand, c, state.round)]
        card = rng.choice(legal or [default_play(runner).card])
        spare = max(0, card.value - runner.owed)
        bank = rng.randint(0, min(spare, 3))
        style = rng.randrange(3)
        if style == 0:
            return f"play {card.label} bank {bank}"
        if style == 1:
            return f"Play {card.label}, bank {bank}" if bank else f"play {card.label}"
        return f"play {card.label} move {spare - bank} bank {bank}"

    def help_text(self) -> str:
        return HELP + "\nOptions:\n" + describe_options(OPTION_SPECS) + "\n"


def _expect(seat: str, orders: Mapping[str, Any], kind: type) -> Any:
    order = orders.get(seat)
    if not isinstance(order, kind):
        raise IllegalOrders(seat, f"expected a {kind.__name__}, got {order!r}")
    return order


def _played_index(line: RoundLine) -> int:
    """Where the played card stands in the line's cards (the first of equal cards)."""
    return line.cards.index(line.played) if line.played is not None else -1


def _random_setup(rng: random.Random, low: int) -> list[int]:
    while True:
        values = [rng.randint(low, MAX_CARD) for _ in range(HAND_SIZE - 1)]
        last = 30 - sum(values)
        if low <= last <= MAX_CARD:
            return sorted([*values, last], reverse=True)


def _setup_report(state: State) -> dict[str, JSON]:
    return {
        "kind": "setup",
        "round": 0,
        "race_length": state.options.race_length,
        "steeplechase": state.options.steeplechase,
        "runners": [{"seat": r.seat, "cards": [c.label for c in r.hand]} for r in state.runners],
    }


def _round_report(state: State, lines: tuple[RoundLine, ...]) -> dict[str, JSON]:
    standing = sorted(lines, key=lambda line: (line.position, [ln.seat for ln in lines].index(line.seat)))
    return {
        "kind": "round",
        "round": state.round - 1,
        "race_length": state.options.race_length,
        "steeplechase": state.options.steeplechase,
        "finished": state.finished,
        "lines": [
            {
                "seat": line.seat,
                "cards": [{"label": c.label, "played": i == _played_index(line)} for i, c in enumerate(line.cards)],
                "D": line.deducted,
                "M": line.moved,
                "B": line.banked,
                "R": line.replacement,
                "S": line.square,
                "P": line.position,
                "O": line.owed_next,
                "cf": line.carried > 0,
                "tripped": line.tripped,
            }
            for line in lines
        ],
        "positions": [{"place": line.position, "seat": line.seat, "square": line.square} for line in standing],
    }
