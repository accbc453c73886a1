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
from adjudicator.words import say


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
        return ParsedOrders(None, "", (OrderError("", say("no order given; expected {syntax}", syntax=syntax)),))
    first_line = tokens[0].line
    if ctx.stage is Stage.DECIDE:
        assert ctx.pending is not None
        source = ctx.pending.source
        if read.source is not None:
            drawn = say("you have already drawn a card; now send {syntax}", syntax=DECIDE_SYNTAX)
            errors.append(OrderError(read.source_line, drawn))
        if not read.choices and not errors:
            errors.append(OrderError(first_line, say("say what to do with the card: {syntax}", syntax=DECIDE_SYNTAX)))
    else:
        if read.source is None:
            if not errors:
                errors.append(
                    OrderError(first_line, say("say where you draw from first: 'draw deck' or 'draw discard'"))
                )
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
            errors.append(OrderError(line, say("{slot} is named twice", slot=slot_name(slot))))
        else:
            slots.append(slot)
    if not errors and len(slots) != ctx.flips:
        line = read.slots[-1][1] if read.slots else ""
        if ctx.flips == 2:
            wrong = say(
                "{named} slot(s) named; flip exactly 2 cards in round 1: {syntax}",
                named=len(slots),
                syntax=SETUP_SYNTAX,
            )
        else:
            wrong = say(
                "{named} slot(s) named; flip exactly {flips} card(s) this round: {syntax}",
                named=len(slots),
                flips=ctx.flips,
                syntax=SETUP_SYNTAX,
            )
        errors.append(OrderError(line, wrong))
    if errors:
        return ParsedOrders(None, "", tuple(errors))
    order = SetupOrder(tuple(sorted(slots)))
    names = [slot_name(s) for s in order.slots]
    slots_said = names[0] if names else ""
    for name in names[1:]:
        slots_said = say("{earlier} and {later}", earlier=slots_said, later=name)
    note = say("read as: turn face up {slots}", slots=slots_said)
    return ParsedOrders(order, format_order(order), (), (note,))


def _named_value_problems(ctx: Context, read: Read) -> list[OrderError]:
    if read.named_value is None:
        return []
    if read.source is Source.DECK:
        return [OrderError(read.source_line, say("the deck card is not known before it is drawn; write 'draw deck'"))]
    if read.named_value != ctx.discard_top:
        wrong = say("the discard pile's top card is {top}, not {named}", top=ctx.discard_top, named=read.named_value)
        return [OrderError(read.source_line, wrong)]
    return []


def _choice_problems(ctx: Context, source: Source, lines: list[ChoiceLine]) -> list[OrderError]:
    errors: list[OrderError] = []
    for i, line in enumerate(lines):
        problem = action_problem(line.choice.action, ctx.grid, source, ctx.must_keep)
        if problem:
            errors.append(OrderError(line.line, problem))
        if i > 0 and lines[i - 1].choice.always_applies:
            never = say("this choice can never be used: the one before it always applies")
            errors.append(OrderError(line.line, never))
    if lines and not lines[-1].choice.always_applies and not errors:
        hint = say("say what to do with any other card, e.g. 'else {order}'", order=_fallback_hint(ctx, source))
        errors.append(OrderError(lines[-1].line, hint))
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
            start = say("draw from the deck")
        else:
            start = say("take the {value} from the discard pile", value=ctx.discard_top)
        if not order.choices:
            notes.append(
                say(
                    "read as: {start}, then wait: the card is shown to you only, and you then send "
                    "keep SLOT, flip SLOT or discard",
                    start=start,
                )
            )
        else:
            notes.append(say("read as: {start}; {choices}", start=start, choices=_describe_choices(ctx, order.choices)))
    elif isinstance(order, DecisionOrder):
        notes.append(say("read as: with the card you drew, {choices}", choices=_describe_choices(ctx, order.choices)))
    if ctx.final:
        notes.append(say("this is your final turn of the round"))
    return notes


def _describe_choices(ctx: Context, choices: tuple[Choice, ...]) -> str:
    """The choices in words, joined by "; ".  Each after the first is said with the ones before it
    (``earlier``), so that every pattern has words of its own to translate."""
    if len(choices) == 1 and choices[0].always_applies:
        return describe_action(choices[0].action, ctx.grid)
    said = ""
    for i, choice in enumerate(choices):
        said = _choice_words(choice, describe_action(choice.action, ctx.grid), said, i)
    return said


def _choice_words(choice: Choice, what: str, earlier: str, i: int) -> str:
    """One choice in words (``what`` it does, and when), after the ``earlier`` ones when ``i`` > 0."""
    low, high = choice.low, choice.high
    if i == 0:
        if low is None and high is None:
            return what if choice.action.act is Act.KEEP_CLEARING else say("then, {what}", what=what)
        if low is None:
            return say("if the card is {high} or less, {what}", high=high, what=what)
        if high is None:
            return say("if the card is {low} or more, {what}", low=low, what=what)
        if low == high:
            return say("if the card is {low}, {what}", low=low, what=what)
        return say("if the card is {low} to {high}, {what}", low=low, high=high, what=what)
    if low is None and high is None:
        if choice.action.act is Act.KEEP_CLEARING:
            return say("{earlier}; keep it where it clears a line, if it can", earlier=earlier)
        return say("{earlier}; otherwise, {what}", earlier=earlier, what=what)
    if low is None:
        return say("{earlier}; if the card is {high} or less, {what}", earlier=earlier, high=high, what=what)
    if high is None:
        return say("{earlier}; if the card is {low} or more, {what}", earlier=earlier, low=low, what=what)
    if low == high:
        return say("{earlier}; if the card is {low}, {what}", earlier=earlier, low=low, what=what)
    return say("{earlier}; if the card is {low} to {high}, {what}", earlier=earlier, low=low, high=high, what=what)
