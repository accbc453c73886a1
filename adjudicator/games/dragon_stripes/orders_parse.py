"""Reading a Dragon Stripes message for the current phase, leniently (the game's order syntax).

One order a line (or separated by semicolons); case, punctuation, filler
words and number words do not matter (see :mod:`phrases`).  Every problem is
reported against its line; ``notes`` echo back exactly how each order was read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from adjudicator.api import OrderError, ParsedOrders
from adjudicator.games.dragon_stripes.orders import Answer, Context, Orders, format_orders
from adjudicator.games.dragon_stripes.orders_notes import answer_note, standing_notes
from adjudicator.games.dragon_stripes.orders_phrases import (
    HOLD_PHRASES,
    PASS_PHRASES,
    REVEAL_PHRASES,
    TAKE_PHRASES,
    Conditions,
    normalise,
    read_offer,
    read_run_order,
    read_withdrawal,
)
from adjudicator.games.dragon_stripes.state import RunOrder, Step
from adjudicator.text import order_parts
from adjudicator.words import Said, say

DECIDE_SYNTAX = say(
    "reveal, hold, or a standing order such as {until}, {at}, {count}",
    until="'reveal until 30 beside'",
    at="'hold at stripe 12'",
    count="'reveal 3 then hold'",
)
OFFER_SYNTAX = say("take, pass, or a standing offer such as {offer}", offer="'take over if 25 or more beside'")


@dataclass
class _Reading:
    """Mutable collector used while reading the lines of one message."""

    answer: Answer | None = None
    choose: str | None = None
    conditions: Conditions = field(default_factory=Conditions)
    run_given: bool = False
    offer: int | None = None
    withdraw_run: bool = False
    withdraw_offer: bool = False


def parse(text: str, ctx: Context) -> ParsedOrders[Orders]:
    """Read a message for the current phase; every problem is reported against its line."""
    reading = _Reading()
    errors: list[OrderError] = []
    notes: list[str] = []  # each a Said
    for line in order_parts(text):
        words = normalise(line)
        if not words:
            continue
        problem = _read_line(line, words, ctx, reading, notes)
        if problem:
            errors.append(OrderError(line, problem))
    orders = _finish(reading, ctx, errors, notes)
    return ParsedOrders(orders, format_orders(orders) if orders else "", tuple(errors), tuple(notes))


def _read_line(line: str, words: str, ctx: Context, reading: _Reading, notes: list[str]) -> Said | None:
    """Read one line into ``reading``; the problem with it, or None."""
    if ctx.step is Step.CHOOSE:
        chosen = _chosen_seat(line, ctx)
        if chosen is not None:
            return _set_choice(chosen, ctx, reading, notes)
        if _CHOOSE.match(line):
            return say("only {takers} offered to take over: choose one of them", takers=", ".join(ctx.takers))
    withdrawal = read_withdrawal(words)
    if withdrawal is not None:
        reading.withdraw_run |= withdrawal[0]
        reading.withdraw_offer |= withdrawal[1]
        return None
    answer = _answer(words)
    if answer is not None:
        if words in ("stop", "stop here"):
            notes.append(say("{stop} read as hold", stop="'stop'"))
        return _set_answer(answer, ctx, reading, notes)
    offer = read_offer(words)
    if isinstance(offer, Said):
        return offer
    if offer is not None:
        if reading.offer is not None:
            return say("a second standing offer; the first one is used")
        reading.offer = offer
        return None
    run = read_run_order(words)
    if isinstance(run, Said):
        if re.fullmatch(r"(?:reveal|draw) \d+", words):
            return say(
                "to reveal several cards write {count}; {reveal} alone reveals one card",
                count="'reveal 3 then hold'",
                reveal="'reveal'",
            )
        return run
    if run is not None:
        return _add_conditions(run, reading)
    return say("not understood; expected {syntax}", syntax=_syntax(ctx))


def _answer(words: str) -> Answer | None:
    for answer, phrases in (
        (Answer.REVEAL, REVEAL_PHRASES),
        (Answer.HOLD, HOLD_PHRASES),
        (Answer.TAKE, TAKE_PHRASES),
        (Answer.PASS, PASS_PHRASES),
    ):
        if words in phrases:
            return answer
    return None


def _syntax(ctx: Context) -> Said:
    if ctx.step is Step.DECIDE:
        return DECIDE_SYNTAX
    if ctx.step is Step.OFFER:
        return OFFER_SYNTAX
    return say("choose one of {takers}", takers=", ".join(ctx.takers))


def _set_answer(answer: Answer, ctx: Context, reading: _Reading, notes: list[str]) -> Said | None:
    if ctx.step is Step.DECIDE and answer in (Answer.TAKE, Answer.PASS):
        return say(
            "{answer} answers a take-over offer; it is your own decision now: reveal or hold", answer=answer.value
        )
    if ctx.step is Step.OFFER and answer in (Answer.REVEAL, Answer.HOLD):
        return say(
            "it is {holder}'s run: answer take or pass (after a take-over your first card is revealed "
            "for you; to go on, add a standing order such as {until})",
            holder=ctx.holder,
            until="'reveal until 30 beside'",
        )
    if ctx.step is Step.CHOOSE:
        return say("several players offered to take over: choose one of {takers}", takers=", ".join(ctx.takers))
    if reading.answer is not None:
        return say("a second answer; the first one ({answer}) is used", answer=reading.answer.value)
    reading.answer = answer
    notes.append(answer_note(answer, ctx))
    return None


_CHOOSE = re.compile(r"^\s*+(?:choose|pick|accept|select|let)(\s.*)$", re.I | re.DOTALL)
"""A choice's verb, then the name (with what may follow it: :func:`_named`)."""


def _named(rest: str) -> str | None:
    """The name in what follows a choice's verb: without the full stops, exclamation marks and spaces that
    end it, nor a last ``take(s) over`` (read in code: a lazy name before optional words, as a pattern,
    backtracks over every run of spaces)."""
    if rest.isspace():  # a name of spaces (none to compare), if a space that is no line break follows the first
        return "" if rest[1:].strip("\n") else None
    rest = rest.lstrip()
    end = len(rest)
    while end > 1 and (rest[end - 1] in ".!" or rest[end - 1].isspace()):
        end -= 1
    words = rest[:end].rsplit(None, 2)
    if len(words) == 3 and words[1].lower() in ("take", "takes") and words[2].lower() == "over":
        name = words[0]
    else:
        name = rest[:end]
    return None if "\n" in name else name  # a name is on one line


def _chosen_seat(line: str, ctx: Context) -> str | None:
    """The taker named on the line (``choose B``, ``pick b``, or just ``B``), or None."""
    match = _CHOOSE.match(line)
    named = _named(match.group(1)) if match else None
    name = (line if named is None else named).strip().casefold()
    for seat in ctx.takers:
        if seat.casefold() == name:
            return seat
    return None


def _set_choice(chosen: str, ctx: Context, reading: _Reading, notes: list[str]) -> Said | None:
    if reading.choose is not None:
        return say("a second choice; the first one ({chosen}) is used", chosen=reading.choose)
    reading.choose = chosen
    notes.append(
        say(
            "{order}: {chosen} takes over your run and pays you {bounty} gems",
            order=f"choose {chosen}",
            chosen=chosen,
            bounty=ctx.bounty,
        )
    )
    return None


def _add_conditions(run: Conditions, reading: _Reading) -> Said | None:
    old = reading.conditions
    for name in ("beside", "stripe", "reveals"):
        if getattr(run, name) is not None and getattr(old, name) is not None:
            return say("a second {name} condition; the first one is used", name=f"'{name}'")
    reading.conditions = Conditions(
        beside=run.beside if run.beside is not None else old.beside,
        stripe=run.stripe if run.stripe is not None else old.stripe,
        reveals=run.reveals if run.reveals is not None else old.reveals,
    )
    reading.run_given = True
    return None


def _finish(reading: _Reading, ctx: Context, errors: list[OrderError], notes: list[str]) -> Orders | None:
    """Check the message answers what the phase asks, and add the notes on standing orders."""
    c = reading.conditions
    run = RunOrder(c.beside, c.stripe, c.reveals) if reading.run_given else None
    orders = Orders(
        answer=reading.answer,
        choose=reading.choose,
        run=run,
        offer=reading.offer,
        withdraw_run=reading.withdraw_run and run is None,
        withdraw_offer=reading.withdraw_offer and reading.offer is None,
    )
    missing = _missing(orders, ctx)
    if missing:
        if not errors or orders != Orders():
            errors.append(OrderError("", missing))
        return None
    notes.extend(standing_notes(orders, ctx))
    return orders


def _missing(orders: Orders, ctx: Context) -> Said | None:
    if ctx.step is Step.DECIDE and orders.answer is None and orders.run is None:
        return say("no decision given, so nothing was accepted; write {syntax}", syntax=DECIDE_SYNTAX)
    if ctx.step is Step.OFFER and orders.answer is None and orders.offer is None:
        return say("no answer to the take-over offer, so nothing was accepted; write {syntax}", syntax=OFFER_SYNTAX)
    if ctx.step is Step.CHOOSE and orders.choose is None:
        return say(
            "several players offered to take over your run: write {choose} and one of {takers}",
            choose="choose",
            takers=", ".join(ctx.takers),
        )
    return None
