"""Resolving the setup and one round of Golden Strider (docs/rules/golden-strider.md 1.1, steps 1-7)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from adjudicator.api import Event, IllegalOrders
from adjudicator.games.golden_strider.orders import PlayOrder, SetupOrder
from adjudicator.games.golden_strider.state import MAX_CARD, Card, RoundLine, Runner, State, sort_hand
from adjudicator.games.golden_strider.track import positional_bonus, positions, run
from adjudicator.words import say


def resolve_setup(state: State, orders: Mapping[str, SetupOrder]) -> tuple[State, tuple[Event, ...]]:
    """Deal each runner its chosen five cards, all received at turn 0 (seed rule 2)."""
    runners = tuple(replace(r, hand=sort_hand([Card(0, v) for v in orders[r.seat].values])) for r in state.runners)
    return replace(state, runners=runners, turn=state.turn + 1), ()


def nmr_card(runner: Runner) -> Card:
    """Seed rule 13 / G14: the oldest card; among initial cards the lowest value."""
    return min(runner.hand)


def default_play(runner: Runner) -> PlayOrder:
    """No move received (seed rule 13): the oldest card, movement only after restitution."""
    return PlayOrder(nmr_card(runner), bank=0)


def keeps_seven_turn_rule(hand: tuple[Card, ...], played: Card, round_number: int) -> bool:
    """G3 feasibility: after ``played`` leaves the hand, can every card still be
    played by its deadline, one a round from the next?  Earliest deadline first:
    the k-th earliest deadline must be at least round + k."""
    rest = list(hand)
    rest.remove(played)
    deadlines = sorted(card.deadline for card in rest)
    return all(deadline >= round_number + k for k, deadline in enumerate(deadlines, start=1))


def breaks_deadline(hand: tuple[Card, ...], played: Card, round_number: int) -> bool:
    """``deadline_only`` reading of rule 8: another card is due this round or earlier."""
    return any(card.deadline <= round_number for card in hand if card != played)


def keeps_rule_8(state: State, hand: tuple[Card, ...], played: Card) -> bool:
    """Whether playing ``played`` from ``hand`` keeps the seven-turn rule (rule 8) as the game's
    ``expiry_enforcement`` reads it (G3): the one test of an order, its override and a G4 substitute."""
    if state.options.expiry_enforcement == "feasibility":
        return keeps_seven_turn_rule(hand, played, state.round)
    return not breaks_deadline(hand, played, state.round)


@dataclass(frozen=True)
class _Spend:
    order: PlayOrder
    deducted: int
    moved: int
    banked: int
    carried: int


def _choose_play(state: State, runner: Runner, order: PlayOrder, events: list[Event]) -> PlayOrder:
    """Apply the seven-turn rule (rule 14, G3) and the shortfall option (G4) to an order."""
    if order.card not in runner.hand:
        raise IllegalOrders(runner.seat, f"does not hold card {order.card.label}")
    if not keeps_rule_8(state, runner.hand, order.card):
        forced = default_play(runner)
        events.append(
            Event(
                "override",
                say(
                    "{seat}: playing {card} would break the seven-turn rule (rule 8); "
                    "the referee played {forced} for movement only (rule 14)",
                    seat=runner.seat,
                    card=order.card.label,
                    forced=forced.card.label,
                ),
                runner.seat,
            )
        )
        return forced
    if state.options.shortfall_mode == "substitute_lowest_sufficient" and order.card.value < runner.owed:
        # G4's substitute keeps rule 8 too (G3): a card that pays in full but would let another expire is
        # no substitute; with none left, the ordered card is played and the rest carried forward.
        sufficient = sorted(
            (c for c in runner.hand if c.value >= runner.owed and keeps_rule_8(state, runner.hand, c)),
            key=lambda c: (c.value, c.turn),
        )
        if sufficient:
            events.append(
                Event(
                    "substitute",
                    say(
                        "{seat}: {card} cannot pay restitution {owed}; the referee played {instead} instead (G4 option)",
                        seat=runner.seat,
                        card=order.card.label,
                        owed=runner.owed,
                        instead=sufficient[0].label,
                    ),
                    runner.seat,
                )
            )
            return PlayOrder(sufficient[0], order.bank, None)
    return order


def _spend(order: PlayOrder, owed: int) -> _Spend:
    """Restitution first, then the bank as ordered, the rest is movement (docs/rules/golden-strider.md 1.1, G5)."""
    value = order.card.value
    deducted = min(value, owed)
    banked = min(order.bank, value - deducted)
    return _Spend(order, deducted, value - deducted - banked, banked, owed - deducted)


def resolve_round(
    state: State, orders: Mapping[str, PlayOrder]
) -> tuple[State, tuple[RoundLine, ...], tuple[Event, ...]]:
    """Play one round for every runner simultaneously (seed rules 5-14)."""
    options = state.options
    round_number = state.round
    events: list[Event] = []
    spends = {r.seat: _spend(_choose_play(state, r, orders[r.seat], events), r.owed) for r in state.runners}
    before = positions({r.seat: r.square for r in state.runners})
    strides = {r.seat: run(r.square, spends[r.seat].moved, options.steeplechase) for r in state.runners}
    after = positions({seat: stride.square for seat, stride in strides.items()})
    charged = round_number >= options.first_charged_overtake_round
    runners: list[Runner] = []
    lines: list[RoundLine] = []
    for runner in state.runners:
        spend, stride = spends[runner.seat], strides[runner.seat]
        owed = spend.carried + (max(0, before[runner.seat] - after[runner.seat]) if charged else 0)
        replacement, balance = _replacement(
            spend.banked, after[runner.seat], len(state.runners), stride.penalty, options.trip_penalty
        )
        owed += balance
        if stride.tripped:
            events.append(
                Event(
                    "trip",
                    say(
                        "{seat} tripped on square {square}: penalty {penalty}",
                        seat=runner.seat,
                        square=stride.square,
                        penalty=stride.penalty,
                    ),
                    runner.seat,
                )
            )
        new_card = Card(round_number, replacement)
        hand = list(runner.hand)
        hand.remove(spend.order.card)
        runners.append(replace(runner, square=stride.square, owed=owed, hand=sort_hand([*hand, new_card])))
        lines.append(
            RoundLine(
                runner.seat,
                (*runner.hand, new_card),
                spend.order.card,
                spend.deducted,
                spend.moved,
                spend.banked,
                replacement,
                stride.square,
                after[runner.seat],
                owed,
                spend.carried,
                stride.tripped,
            )
        )
    leader = max(r.square for r in runners)
    finished = leader >= options.race_length or round_number >= options.max_rounds
    if leader >= options.race_length:
        events.append(
            Event(
                "finish",
                say(
                    "the race is over: the leader reached square {square} of {length}",
                    square=leader,
                    length=options.race_length,
                ),
            )
        )
    elif finished:
        events.append(
            Event("finish", say("the race was stopped after {rounds} rounds (max_rounds)", rounds=round_number))
        )
    new_state = replace(
        state, runners=tuple(runners), turn=state.turn + 1, finished=finished, positions_before_last=before
    )
    return new_state, tuple(lines), tuple(events)


def _replacement(banked: int, position: int, runners: int, penalty: int, order: str) -> tuple[int, int]:
    """Seed rules 6-7 and the steeplechase penalty (G8): the card and any unpaid balance."""
    raw = 2 * banked + positional_bonus(position, runners)
    value = min(MAX_CARD, raw) - penalty if order == "after_cap" else min(MAX_CARD, raw - penalty)
    if value < 0:
        return 0, -value
    return value, 0
