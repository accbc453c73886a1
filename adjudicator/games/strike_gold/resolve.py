"""Strike Gold resolution: the setup flips and who starts (S9, S11), and one move: draw,
then keep, discard & flip, or just discard (seed "On Your Turn").

Column clears (and row wipes) follow every move (seed "Clearing Columns", S4); a player
left with no face-down card goes out and the others take their final turns (seed
"Ending a Round"; SG-11).  The drawn card is public once placed or discarded; a card
drawn alone ("draw deck") is shown only to its drawer until then (docs/rules/strike-gold.md 3.1).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, replace

from adjudicator.api import Event, IllegalOrders
from adjudicator.games.strike_gold.cards import slot_name
from adjudicator.games.strike_gold.grid import (
    Grid,
    clear_lines,
    clearing_slots,
    face_down_slots,
    flip,
    live_slots,
    place,
    revealed_total,
    value_at,
)
from adjudicator.games.strike_gold.orders import (
    Act,
    Action,
    Choice,
    DecisionOrder,
    SetupOrder,
    TurnOrder,
    action_problem,
    format_choices,
)
from adjudicator.games.strike_gold.state import Pending, Source, Stage, State
from adjudicator.text import a_or_an
from adjudicator.words import say


@dataclass(frozen=True)
class Move:
    """What a resolved move did, for the caller: the new state, events, and whether the round ended."""

    state: State
    events: tuple[Event, ...]
    round_over: bool = False
    drawn_alone: Pending | None = None


def default_action(grid: Grid, source: Source, must_keep: bool) -> Action:
    """Ruling S10 (after a draw): discard & flip the first face-down slot in reading order, or just
    discard with none left.  A card from the discard pile that must be kept (S1) goes into the first
    face-down slot, or in place of the highest face-up card (the referee's extension of S10)."""
    down = face_down_slots(grid)
    if source is Source.DISCARD and must_keep:
        if down:
            return Action(Act.KEEP, down[0])
        live = live_slots(grid)
        highest = max(live, key=lambda s: (value_at(grid, s), -s))
        return Action(Act.KEEP, highest)
    return Action(Act.FLIP, down[0]) if down else Action(Act.DISCARD)


def default_turn(grid: Grid, must_keep: bool) -> TurnOrder:
    """Ruling S10: draw from the deck, then :func:`default_action`."""
    return TurnOrder(Source.DECK, (Choice(default_action(grid, Source.DECK, must_keep)),))


def _draw(state: State, source: Source, rng: random.Random, events: list[Event]) -> tuple[State, int]:
    seat = state.seats[state.current]
    if source is Source.DISCARD:
        if not state.discard:
            raise IllegalOrders(seat, "the discard pile is empty")
        return replace(state, discard=state.discard[:-1]), state.discard[-1]
    deck, discard = state.deck, state.discard
    if not deck:
        # Ruling S8: the discard pile but its top card is shuffled into a new draw pile.
        cards = list(discard[:-1])
        rng.shuffle(cards)
        deck, discard = tuple(cards), discard[-1:]
        events.append(
            Event(
                "reshuffle",
                say("the draw pile ran out: {count} discarded cards were shuffled (S8)", count=len(cards)),
            )
        )
        if not deck:
            raise IllegalOrders(seat, "no card is left to draw")
    return replace(state, deck=deck[1:], discard=discard), deck[0]


def _choose(state: State, value: int, choices: tuple[Choice, ...]) -> tuple[Action, Choice]:
    """The first choice that applies to ``value`` (a "keep where it clears" needs a clearing slot)."""
    grid = state.grids[state.current]
    for choice in choices:
        if not choice.matches(value):
            continue
        if choice.action.act is Act.KEEP_CLEARING:
            slots = clearing_slots(grid, value, state.options.row_mode)
            if slots:
                return Action(Act.KEEP, slots[0]), choice
            continue
        return choice.action, choice
    raise IllegalOrders(state.seats[state.current], "no choice of the order applies (the last must always apply)")


def resolve_turn(state: State, order: TurnOrder, rng: random.Random) -> Move:
    """Draw from the order's source; act now, or wait for a decision when the order is ``draw`` alone."""
    seat = state.seats[state.current]
    events: list[Event] = []
    drawn, value = _draw(state, order.source, rng, events)
    if not order.choices:
        if order.source is Source.DECK:
            text = say("{seat} drew from the deck, and is deciding what to do with it", seat=seat)
        else:
            text = say(
                "{seat} drew from the discard pile: {value}, and is deciding what to do with it", seat=seat, value=value
            )
        events.append(Event("draw", text, seat))
        pending = Pending(value, order.source)
        return Move(
            replace(drawn, stage=Stage.DECIDE, pending=pending, turn=state.turn + 1), tuple(events), False, pending
        )
    return _act(drawn, value, order.source, order.choices, events)


def resolve_decision(state: State, order: DecisionOrder) -> Move:
    """Use the card drawn alone in the previous phase."""
    if state.pending is None:
        raise IllegalOrders(state.seats[state.current], "no card was drawn")
    cleared = replace(state, pending=None, stage=Stage.TURN)
    return _act(cleared, state.pending.value, state.pending.source, order.choices, [])


def _act(state: State, value: int, source: Source, choices: tuple[Choice, ...], events: list[Event]) -> Move:
    seat = state.seats[state.current]
    action, choice = _choose(state, value, choices)
    grid = state.grids[state.current]
    problem = action_problem(action, grid, source, state.options.discard_pick_must_keep)
    if problem:
        raise IllegalOrders(seat, problem)
    origin = say("from the deck") if source is Source.DECK else say("from the discard pile")
    if len(choices) > 1:
        used = format_choices(choices)[choices.index(choice)]
        events.append(
            Event("choice", say("{seat} drew {value} {origin}: '{used}' applies", seat=seat, value=value,
                                origin=origin, used=used), seat)
        )  # fmt: skip
    discard = list(state.discard)
    if action.act in (Act.KEEP, Act.KEEP_CLEARING):
        assert action.slot is not None
        grid, old = place(grid, action.slot, value)
        discard.append(old.value)
        text = _kept(seat, value, origin, slot_name(action.slot), old.value, old.up)
    elif action.act is Act.FLIP:
        assert action.slot is not None
        discard.append(value)
        grid = flip(grid, action.slot)
        text = say(
            "{seat} discarded the {value} {origin} and flipped {slot}: {shown}",
            seat=seat,
            value=value,
            origin=origin,
            slot=slot_name(action.slot),
            shown=value_at(grid, action.slot),
        )
    else:
        discard.append(value)
        text = say("{seat} discarded the {value} {origin}", seat=seat, value=value, origin=origin)
    events.append(Event(action.act.value, text, seat))
    grid, lines, removed = clear_lines(grid, state.options.row_mode)
    discard.extend(removed)
    columns, rows = list(state.columns_cleared), list(state.rows_cleared)
    for line in lines:
        cards = " ".join(str(line.value) for _ in line.slots)
        events.append(
            Event("clear", say("{seat} cleared {line} ({cards})", seat=seat, line=line.label, cards=cards), seat)
        )
        if line.kind == "column":
            columns[state.current] += 1
        else:
            rows[state.current] += 1
    grids = (*state.grids[: state.current], grid, *state.grids[state.current + 1 :])
    moved = replace(
        state, grids=grids, discard=tuple(discard), columns_cleared=tuple(columns), rows_cleared=tuple(rows)
    )
    return _next_player(moved, events)


def _kept(seat: str, value: int, origin: str, slot: str, old: int, was_up: bool) -> str:
    """The event of a card kept in ``slot`` in place of ``old`` (face up before, or face down: named now)."""
    if was_up:
        return say(
            "{seat} kept the {value} {origin} in {slot}; the {old} there goes to the discard pile",
            seat=seat, value=value, origin=origin, slot=slot, old=old,
        )  # fmt: skip
    if a_or_an(old) == "an":
        return say(
            "{seat} kept the {value} {origin} in {slot}; the face-down card there, an {old}, goes to the discard pile",
            seat=seat, value=value, origin=origin, slot=slot, old=old,
        )  # fmt: skip
    return say(
        "{seat} kept the {value} {origin} in {slot}; the face-down card there, a {old}, goes to the discard pile",
        seat=seat, value=value, origin=origin, slot=slot, old=old,
    )  # fmt: skip


def _next_player(state: State, events: list[Event]) -> Move:
    """Pass the move on; going out starts the final turns (seed "Ending a Round", SG-11)."""
    me = state.current
    n = len(state.seats)
    turn = state.turn + 1
    if state.out is None and not face_down_slots(state.grids[me]):
        queue = [(me + k) % n for k in range(1, n)]
        if state.options.out_player_final_turn:
            queue.append(me)
        names = ", ".join(state.seats[i] for i in queue)
        events.append(
            Event(
                "out",
                say(
                    "{seat} has no face-down card left and is out; final turns: {seats}",
                    seat=state.seats[me],
                    seats=names,
                ),
                state.seats[me],
            )
        )
        return Move(replace(state, out=me, current=queue[0], final_turns=tuple(queue[1:]), turn=turn), tuple(events))
    if state.out is not None:
        if not state.final_turns:
            return Move(state, tuple(events), round_over=True)
        return Move(
            replace(state, current=state.final_turns[0], final_turns=state.final_turns[1:], turn=turn), tuple(events)
        )
    return Move(replace(state, current=(me + 1) % n, turn=turn), tuple(events))


def first_player(state: State) -> tuple[int, str]:
    """Who starts the round, and why (S9): the highest total of face-up cards, ties to the earliest
    seat; with ``later_round_starter`` 'previous_out_player', rounds 2+ start with last round's out player."""
    if (
        state.round > 1
        and state.options.later_round_starter == "previous_out_player"
        and state.previous_out is not None
    ):
        return state.previous_out, say("went out last round (later_round_starter option)")
    totals = [revealed_total(g) for g in state.grids]
    best = max(totals)
    index = totals.index(best)
    tied = sum(1 for t in totals if t == best)
    if tied > 1:
        return index, say(
            "highest revealed total, {total} (tied with {others} other(s); the earliest seat starts, ruling S9)",
            total=best,
            others=tied - 1,
        )
    return index, say("highest revealed total, {total}", total=best)


def resolve_setup(state: State, orders: Mapping[str, SetupOrder]) -> tuple[State, tuple[Event, ...]]:
    """Every seat turns its chosen cards face up at once (S11: the player's choice); then the first player."""
    grids = list(state.grids)
    events: list[Event] = []
    for i, seat in enumerate(state.seats):
        for slot in orders[seat].slots:
            grids[i] = flip(grids[i], slot)
        shown = ", ".join(f"{slot_name(s)} {value_at(grids[i], s)}" for s in orders[seat].slots)
        events.append(Event("flip", say("{seat} turned up {cards}", seat=seat, cards=shown), seat))
    flipped = replace(state, grids=tuple(grids))
    starter, reason = first_player(flipped)
    events.append(
        Event(
            "start",
            say("{seat} starts round {round}: {reason}", seat=state.seats[starter], round=state.round, reason=reason),
            state.seats[starter],
        )
    )
    return replace(flipped, stage=Stage.TURN, current=starter, turn=state.turn + 1), tuple(events)
