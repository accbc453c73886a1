"""Strike Gold orders: what they mean, their canonical text, and whether they are legal now.

Canonical forms (what :func:`format_order` writes and the parser reads back):

* setup: ``flip r1c1 r2c3`` (2 slots in round 1, 1 later);
* a turn: ``draw deck, keep r3c1`` / ``draw deck, flip r2c2`` / ``draw discard, keep r1c4`` /
  ``draw deck, discard``; conditional on the drawn card (orders by mail, where the player cannot see it):
  ``draw deck; if 4 or less keep r3c1; if 9 to 10 keep r1c1; else flip r2c2`` and
  ``draw deck; keep where it clears a column; else flip r2c2``;
* ``draw deck`` alone: draw, see the card privately, then decide in a phase of its own
  (Discord): ``keep r3c1`` / ``flip r2c2`` / ``discard`` (the conditional forms are read too).

A turn's choices are tried in order; the first that applies is used, so the last
must always apply (the fallback, written ``else``).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from adjudicator.games.strike_gold.cards import MAX_CARD, MIN_CARD, slot_name
from adjudicator.games.strike_gold.grid import Grid, face_down_slots
from adjudicator.games.strike_gold.state import Source
from adjudicator.words import say


class Act(enum.Enum):
    """What to do with the drawn card (seed "On Your Turn")."""

    KEEP = "keep"
    """Place it in a slot; the card there goes to the discard pile."""
    FLIP = "flip"
    """Discard it and turn a face-down card face up ("discard & flip")."""
    DISCARD = "discard"
    """Just discard it: only with no face-down cards left."""
    KEEP_CLEARING = "keep where it clears a column"
    """Keep it in the first slot (reading order) where it clears a line; applies only if there is one."""


@dataclass(frozen=True)
class Action:
    act: Act
    slot: int | None = None


@dataclass(frozen=True)
class Choice:
    """One choice of a turn: ``action`` when the drawn value is within [low, high] (None: unbounded)."""

    action: Action
    low: int | None = None
    high: int | None = None

    def matches(self, value: int) -> bool:
        return (self.low is None or value >= self.low) and (self.high is None or value <= self.high)

    @property
    def unconditional(self) -> bool:
        return self.low is None and self.high is None

    @property
    def always_applies(self) -> bool:
        return self.unconditional and self.action.act is not Act.KEEP_CLEARING


@dataclass(frozen=True)
class SetupOrder:
    """The slots to turn face up at the start of a round, in reading order."""

    slots: tuple[int, ...]


@dataclass(frozen=True)
class TurnOrder:
    """Draw from ``source`` then follow ``choices``; no choices: draw alone and decide next phase."""

    source: Source
    choices: tuple[Choice, ...] = ()


@dataclass(frozen=True)
class DecisionOrder:
    """What to do with a card already drawn alone."""

    choices: tuple[Choice, ...]


Order = SetupOrder | TurnOrder | DecisionOrder


def normal_bounds(low: int | None, high: int | None) -> tuple[int | None, int | None]:
    """Bounds that every card meets are dropped (-2 is the lowest card, 12 the highest)."""
    return (None if low is None or low <= MIN_CARD else low), (None if high is None or high >= MAX_CARD else high)


def format_condition(low: int | None, high: int | None) -> str:
    """``if 4 or less``, ``if 10 or more``, ``if 3 to 5``, ``if 7`` ("" for no bound): the order's own words
    (the notes echoed to the player say them in words of their own, :mod:`.orders_parse`)."""
    if low is None and high is None:
        return ""
    if low is None:
        return f"if {high} or less"
    if high is None:
        return f"if {low} or more"
    return f"if {low}" if low == high else f"if {low} to {high}"


def format_action(action: Action) -> str:
    if action.act in (Act.KEEP, Act.FLIP):
        assert action.slot is not None
        return f"{action.act.value} {slot_name(action.slot)}"
    return str(action.act.value)


def format_choices(choices: tuple[Choice, ...]) -> list[str]:
    """Each choice in canonical text; the last unconditional one is written ``else``."""
    parts = []
    for i, choice in enumerate(choices):
        condition = format_condition(choice.low, choice.high)
        if condition:
            parts.append(f"{condition} {format_action(choice.action)}")
        elif i == len(choices) - 1 and i > 0 and choice.always_applies:
            parts.append(f"else {format_action(choice.action)}")
        else:
            parts.append(format_action(choice.action))
    return parts


def format_order(order: Order) -> str:
    """The canonical text of an order (the parser reads it back to the same order)."""
    if isinstance(order, SetupOrder):
        return "flip " + " ".join(slot_name(s) for s in order.slots)
    parts = format_choices(order.choices)
    if isinstance(order, DecisionOrder):
        return "; ".join(parts)
    draw = f"draw {order.source.value}"
    if not parts:
        return draw
    if len(parts) == 1 and order.choices[0].always_applies:
        return f"{draw}, {parts[0]}"
    return "; ".join([draw, *parts])


def describe_action(action: Action, grid: Grid) -> str:
    """Plain words for a player's echo (never a face-down value)."""
    if action.act is Act.KEEP:
        assert action.slot is not None
        cell = grid[action.slot]
        if cell is None or not cell.up:
            return say("keep it in {slot} (replacing a face-down card)", slot=slot_name(action.slot))
        return say("keep it in {slot} (replacing your face-up {value})", slot=slot_name(action.slot), value=cell.value)
    if action.act is Act.FLIP:
        assert action.slot is not None
        return say("discard it and flip {slot}", slot=slot_name(action.slot))
    if action.act is Act.DISCARD:
        return say("discard it")
    return say("keep it where it clears a line, if it can")


def action_problem(action: Action, grid: Grid, source: Source, must_keep: bool) -> str | None:
    """Why ``action`` is not legal for this grid after drawing from ``source``, or None."""
    if action.act is Act.KEEP_CLEARING:
        return None
    if action.act is Act.KEEP:
        assert action.slot is not None
        if grid[action.slot] is None:
            return say(
                "{slot} has been cleared; keep the card in a slot that still holds one", slot=slot_name(action.slot)
            )
        return None
    if source is Source.DISCARD and must_keep:
        return say("a card taken from the discard pile must be kept in your grid (ruling S1): keep SLOT")
    if action.act is Act.FLIP:
        assert action.slot is not None
        cell = grid[action.slot]
        if cell is None:
            return say("{slot} has been cleared; flip a face-down card", slot=slot_name(action.slot))
        if cell.up:
            return say("{slot} is already face up; flip a face-down card", slot=slot_name(action.slot))
        return None
    if face_down_slots(grid):
        return say(
            "you may only discard without flipping when you have no face-down cards left; "
            "use 'flip SLOT' (discard and flip) or 'keep SLOT'"
        )
    return None
