"""Turning a player's text into a Strike Gold order for the current phase (see :mod:`.orders_words`).

:func:`read_order` never raises on bad text: it returns :class:`ParsedOrders` whose errors quote
the line and say what was expected, and whose notes echo exactly how the order was read.
"""

from __future__ import annotations

from dataclasses import dataclass

from adjudicator.api import OrderError, ParsedOrders
from adjudicator.games.strike_gold.cards import slot_name
from adjudicator.games.strike_gold.grid import Grid, face_down_slots
from adjudicator.games.strike_gold.orders import (
    Act,
    Choice,
    DecisionOrder,
    Order,
    SetupOrder,
    TurnOrder,
    action_problem,
    describe_action,
    format_condition,
    format_order,
)
from adjudicator.games.strike_gold.orders_reader import (
    DECIDE_SYNTAX,
    SETUP_SYNTAX,
    TURN_SYNTAX,
    ChoiceLine,
    Read,
    Reader,
)
from adjudicator.games.strike_gold.orders_words import tokenize
from adjudicator.games.strike_gold.state import Pending, Source, Stage


@dataclass(frozen=True)
class Context:
    """What the reader needs to know about the seat's situation."""

    stage: Stage
    grid: Grid
    flips: int = 2
    discard_top: int | None = None
    pending: Pending | None = None
    must_keep: bool = True
    final: bool = False


def read_order(ctx: Context, text: str) -> ParsedOrders[Order]:
    """Read ``text`` as the order the current phase asks of this seat."""
    tokens = tokenize(text)
    if ctx.stage is Stage.SETUP:
        return _setup(ctx, Reader(tokens).read_setup())
    read = Reader(tokens).read_turn()
    errors = list(read.errors)
    if not tokens:
        syntax = DECIDE_SYNTAX if ctx.stage is Stage.DECIDE else TURN_SYNTAX
        return ParsedOrders(None, "", (OrderError("", f"no order given; expected {syntax}"),))
    first_line = tokens[0].line
    if ctx.stage is Stage.DECIDE:
        assert ctx.pending is not None
        source = ctx.pending.source
        if read.source is not None:
            errors.append(OrderError(read.source_line, f"you have already drawn a card; now send {DECIDE_SYNTAX}"))
        if not read.choices and not errors:
            errors.append(OrderError(first_line, f"say what to do with the card: {DECIDE_SYNTAX}"))
    else:
        if read.source is None:
            if not errors:
                errors.append(OrderError(first_line, "say where you draw from first: 'draw deck' or 'draw discard'"))
            return ParsedOrders(None, "", tuple(errors))
        source = read.source
        errors.extend(_named_value_problems(ctx, read))
    errors.extend(_choice_problems(ctx, source, read.choices))
    if errors:
        return ParsedOrders(None, "", tuple(errors))
    choices = tuple(line.choice for line in read.choices)
    order: Order = DecisionOrder(choices) if ctx.stage is Stage.DECIDE else TurnOrder(source, choices)
    return ParsedOrders(order, format_order(order), (), tuple(_notes(ctx, order)))


def _setup(ctx: Context, read: Read) -> ParsedOrders[Order]:
    errors = list(read.errors)
    slots: list[int] = []
    for slot, line in read.slots:
        if slot in slots:
            errors.append(OrderError(line, f"{slot_name(slot)} is named twice"))
        else:
            slots.append(slot)
    if not errors and len(slots) != ctx.flips:
        line = read.slots[-1][1] if read.slots else ""
        count = "2 cards in round 1" if ctx.flips == 2 else f"{ctx.flips} card(s) this round"
        errors.append(OrderError(line, f"{len(slots)} slot(s) named; flip exactly {count}: {SETUP_SYNTAX}"))
    if errors:
        return ParsedOrders(None, "", tuple(errors))
    order = SetupOrder(tuple(sorted(slots)))
    note = "read as: turn face up " + " and ".join(slot_name(s) for s in order.slots)
    return ParsedOrders(order, format_order(order), (), (note,))


def _named_value_problems(ctx: Context, read: Read) -> list[OrderError]:
    if read.named_value is None:
        return []
    if read.source is Source.DECK:
        return [OrderError(read.source_line, "the deck card is not known before it is drawn; write 'draw deck'")]
    if read.named_value != ctx.discard_top:
        return [
            OrderError(read.source_line, f"the discard pile's top card is {ctx.discard_top}, not {read.named_value}")
        ]
    return []


def _choice_problems(ctx: Context, source: Source, lines: list[ChoiceLine]) -> list[OrderError]:
    errors: list[OrderError] = []
    for i, line in enumerate(lines):
        problem = action_problem(line.choice.action, ctx.grid, source, ctx.must_keep)
        if problem:
            errors.append(OrderError(line.line, problem))
        if i > 0 and lines[i - 1].choice.always_applies:
            errors.append(OrderError(line.line, "this choice can never be used: the one before it always applies"))
    if lines and not lines[-1].choice.always_applies and not errors:
        errors.append(
            OrderError(lines[-1].line, f"say what to do with any other card, e.g. 'else {_fallback_hint(ctx, source)}'")
        )
    return errors


def _fallback_hint(ctx: Context, source: Source) -> str:
    down = face_down_slots(ctx.grid)
    if source is Source.DISCARD and ctx.must_keep:
        return f"keep {slot_name(down[0])}" if down else "keep SLOT"
    return f"flip {slot_name(down[0])}" if down else "discard"


def _notes(ctx: Context, order: Order) -> list[str]:
    """The echo: exactly how the order was read, in words."""
    notes: list[str] = []
    if isinstance(order, TurnOrder):
        if order.source is Source.DECK:
            start = "draw from the deck"
        else:
            start = f"take the {ctx.discard_top} from the discard pile"
        if not order.choices:
            notes.append(
                f"read as: {start}, then wait: the card is shown to you only, and you then send "
                f"keep SLOT, flip SLOT or discard"
            )
        else:
            notes.append(f"read as: {start}; " + _describe_choices(ctx, order.choices))
    elif isinstance(order, DecisionOrder):
        notes.append("read as: with the card you drew, " + _describe_choices(ctx, order.choices))
    if ctx.final:
        notes.append("this is your final turn of the round")
    return notes


def _describe_choices(ctx: Context, choices: tuple[Choice, ...]) -> str:
    if len(choices) == 1 and choices[0].always_applies:
        return describe_action(choices[0].action, ctx.grid)
    parts = []
    for i, choice in enumerate(choices):
        condition = format_condition(choice.low, choice.high, "the card is ")
        what = describe_action(choice.action, ctx.grid)
        if condition:
            parts.append(f"{condition}, {what}")
        elif choice.action.act is Act.KEEP_CLEARING:
            parts.append(what)
        else:
            parts.append(f"{'otherwise' if i else 'then'}, {what}")
    return "; ".join(parts)
