"""Resolving one L'autobus turn (docs/rules/lautobus.md 5.1 steps 1-4, seed rules 4-13).

1. Every cyclist with cards plays one (L7); a missing or illegal card is
   replaced by ruling L8.
2. Slipstream: a cyclist keeps a movement card matched by the cyclist directly
   ahead (seed rules 5-6), judged before movement by default (L4); ZERO and a
   full SPRINT never match and are never kept (seed rule 10, L5).
3. Movement in race order, leader first, jumping to the next free space
   (seed rules 7-9).
4. When nobody holds a card the race ends (seed rule 12) and the three leaders
   get their bonuses (seed rule 13).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from adjudicator.api import Event, IllegalOrders
from adjudicator.games.lautobus.cards import (
    SPRINT,
    ZERO,
    Card,
    CardKind,
    fallback_card,
    illegal_reason,
    without,
)
from adjudicator.games.lautobus.options import RIDERS, Options
from adjudicator.games.lautobus.orders import TeamOrders
from adjudicator.games.lautobus.state import Cyclist, State
from adjudicator.words import say

FINISH_BONUSES = (3, 2, 1)
"""Seed rule 13: 1st +3, 2nd +2, 3rd +1, applied 1st first."""

Key = tuple[str, int]


class Outcome(enum.Enum):
    """What became of the card a cyclist played."""

    KEPT = "kept"
    DISCARDED = "discarded"
    SPRINTED = "all used"
    IDLE = "no cards"


@dataclass(frozen=True)
class Effect:
    """What a played card does: spaces to move, the value it matches in the
    slipstream (None: never matches, never kept), and the cards it uses up."""

    value: int
    match: int | None
    spent: tuple[Card, ...]


@dataclass(frozen=True)
class TurnLine:
    """One cyclist's line of the turn report."""

    team: str
    rider: int
    start: int
    end: int
    card: Card | None
    asked: Card | None
    value: int
    outcome: Outcome
    cards: tuple[Card, ...]

    @property
    def card_text(self) -> str:
        """``4``, ``zero``, ``sprint=10`` (a full SPRINT) or ``sprint=1`` (the last card)."""
        if self.card is None:
            return "-"
        if self.card == SPRINT:
            return f"sprint={self.value}"
        return self.card.label


@dataclass(frozen=True)
class Bonus:
    """A finishing bonus (seed rule 13)."""

    team: str
    rider: int
    bonus: int
    start: int
    end: int


@dataclass(frozen=True)
class TurnResult:
    state: State
    lines: tuple[TurnLine, ...]
    bonuses: tuple[Bonus, ...]
    events: tuple[Event, ...]


def effect(card: Card, hand: tuple[Card, ...], options: Options) -> Effect:
    """Seed rules 10-11 with rulings L5 and L6."""
    if card.kind is CardKind.MOVE:
        return Effect(card.value, card.value, (card,))
    if card == ZERO:
        return Effect(0, None, (ZERO,))
    if hand == (SPRINT,):
        return Effect(1, 1 if options.sprint1_retainable else None, (SPRINT,))
    spent = hand if options.sprint_includes_zero else tuple(c for c in hand if c != ZERO)
    return Effect(sum(c.value for c in spent if c.kind is CardKind.MOVE), None, spent)


def move_to(space: int, value: int, occupied: set[int]) -> int:
    """Seed rules 8-9: advance ``value``; an occupied target sends the cyclist
    on to the first empty space beyond it.  ``occupied`` excludes the mover."""
    if value == 0:
        return space
    target = space + value
    while target in occupied:
        target += 1
    return target


def slipstream(effects: Mapping[Key, Effect], spaces: Mapping[Key, int]) -> set[Key]:
    """Seed rules 5-6: who keeps the card, given where everyone stands (L4 picks when)."""
    at = {space: key for key, space in spaces.items()}
    kept = set()
    for key, played in effects.items():
        ahead = at.get(spaces[key] + 1)
        if played.match is not None and ahead is not None and ahead in effects and effects[ahead].match == played.match:
            kept.add(key)
    return kept


def choose_card(state: State, cyclist: Cyclist, orders: TeamOrders, events: list[Event]) -> tuple[Card, Card | None]:
    """The card ``cyclist`` plays and, when ruling L8 replaced it, the card ordered."""
    asked = orders.card_for(cyclist.rider)
    fallback = fallback_card(cyclist.cards, state.first_turn)
    if asked is None:
        events.append(
            Event(
                "default_card",
                say(
                    "{team} rider {rider}: no card ordered; the referee played {card} (ruling L8)",
                    team=cyclist.team,
                    rider=cyclist.rider,
                    card=fallback.label,
                ),
                cyclist.team,
            )
        )
        return fallback, None
    reason = illegal_reason(cyclist.cards, asked, state.first_turn)
    if reason is None:
        return asked, None
    events.append(
        Event(
            "override",
            say(
                "{team} rider {rider} cannot play {card}: {reason}; the referee played {fallback} instead (ruling L8)",
                team=cyclist.team,
                rider=cyclist.rider,
                card=asked.label,
                reason=reason,
                fallback=fallback.label,
            ),
            cyclist.team,
        )
    )
    return fallback, asked


def _check_orders(state: State, orders: Mapping[str, TeamOrders]) -> None:
    for seat, team_orders in orders.items():
        for play in team_orders.plays:
            if not 1 <= play.rider <= RIDERS or not state.cyclist(seat, play.rider).has_cards:
                raise IllegalOrders(seat, f"rider {play.rider} has no cards to play")


def resolve_turn(state: State, orders: Mapping[str, TeamOrders]) -> TurnResult:
    """Play one turn for every cyclist with cards (docs/rules/lautobus.md 5.1)."""
    _check_orders(state, orders)
    events: list[Event] = []
    chosen: dict[Key, tuple[Card, Card | None]] = {}
    effects: dict[Key, Effect] = {}
    for cyclist in state.cyclists:
        if cyclist.has_cards:
            card, asked = choose_card(state, cyclist, orders.get(cyclist.team, TeamOrders(())), events)
            chosen[cyclist.key] = card, asked
            effects[cyclist.key] = effect(card, cyclist.cards, state.options)
    before = {c.key: c.space for c in state.cyclists}
    after = _move_all(state.race_order(), effects)
    kept = slipstream(effects, before if state.options.slipstream_timing == "before" else after)
    cyclists: list[Cyclist] = []
    lines: dict[Key, TurnLine] = {}
    for cyclist in state.cyclists:
        key = cyclist.key
        if key not in effects:
            cyclists.append(replace(cyclist, space=after[key]))
            lines[key] = TurnLine(*key, cyclist.space, after[key], None, None, 0, Outcome.IDLE, ())
            continue
        card, asked = chosen[key]
        played = effects[key]
        hand = cyclist.cards if key in kept else without(cyclist.cards, played.spent)
        if key in kept:
            outcome = Outcome.KEPT
        elif card == SPRINT and cyclist.cards != (SPRINT,):
            outcome = Outcome.SPRINTED
            events.append(
                Event(
                    "sprint",
                    say(
                        "{team} rider {rider} sprints {value}: {start} -> {end}",
                        team=cyclist.team,
                        rider=cyclist.rider,
                        value=played.value,
                        start=cyclist.space,
                        end=after[key],
                    ),
                    cyclist.team,
                )
            )
        else:
            outcome = Outcome.DISCARDED
        cyclists.append(replace(cyclist, space=after[key], cards=hand))
        lines[key] = TurnLine(*key, cyclist.space, after[key], card, asked, played.value, outcome, hand)
    new_state = replace(state, cyclists=tuple(cyclists), turn=state.turn + 1)
    bonuses: tuple[Bonus, ...] = ()
    if not any(c.has_cards for c in new_state.cyclists):
        new_state, bonuses = finish(new_state)
        events.extend(_finish_events(bonuses))
    race_lines = tuple(lines[c.key] for c in sorted(state.cyclists, key=lambda c: -after[c.key]))
    return TurnResult(new_state, race_lines, bonuses, tuple(events))


def _move_all(order: Sequence[Cyclist], effects: Mapping[Key, Effect]) -> dict[Key, int]:
    """Seed rule 7: leader first; cyclists without cards stay put but still fill their space."""
    spaces = {c.key: c.space for c in order}
    occupied = set(spaces.values())
    for cyclist in order:
        if cyclist.key in effects:
            occupied.discard(cyclist.space)
            spaces[cyclist.key] = move_to(cyclist.space, effects[cyclist.key].value, occupied)
            occupied.add(spaces[cyclist.key])
    return spaces


def finish(state: State) -> tuple[State, tuple[Bonus, ...]]:
    """Seed rules 12-13: the race is over; the three leaders move on 3, 2 and 1,
    1st first, by the same movement rule (they can never collide, docs/rules/lautobus.md 5.1)."""
    occupied = {c.space for c in state.cyclists}
    moved: dict[Key, int] = {}
    bonuses = []
    for cyclist, bonus in zip(state.race_order(), FINISH_BONUSES, strict=False):
        occupied.discard(cyclist.space)
        end = move_to(cyclist.space, bonus, occupied)
        occupied.add(end)
        moved[cyclist.key] = end
        bonuses.append(Bonus(cyclist.team, cyclist.rider, bonus, cyclist.space, end))
    cyclists = tuple(replace(c, space=moved.get(c.key, c.space)) for c in state.cyclists)
    return replace(state, cyclists=cyclists, finished=True), tuple(bonuses)


def _finish_events(bonuses: tuple[Bonus, ...]) -> list[Event]:
    events = [Event("finish", say("the race is over: every cyclist has played all his cards (seed rule 12)"))]
    for place, bonus in enumerate(bonuses, start=1):
        events.append(
            Event(
                "bonus",
                say(
                    "finishing bonus for place {place}: {team} rider {rider} +{bonus}, {start} -> {end} (seed rule 13)",
                    place=place,
                    team=bonus.team,
                    rider=bonus.rider,
                    bonus=bonus.bonus,
                    start=bonus.start,
                    end=bonus.end,
                ),
                bonus.team,
            )
        )
    return events
