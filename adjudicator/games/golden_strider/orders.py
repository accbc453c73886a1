"""Golden Strider orders: what players write, read leniently, written back canonically.

Setup (seed rule 2): ``cards 10 8 6 4 2``: five values, each 0-10 (1-10 with
``min_initial_card`` 1), totalling 30.

A round (seed rule 5): ``play 6/0 bank 2`` names the card by value and the turn
it was received; ``play 6`` takes the oldest card of that value; ``move M`` may
be added for information (ruling G5: the bank is honoured, movement is what is
left).  ``bank 0`` may be omitted.  Case, commas, colons and extra spaces do
not matter; ``p``/``card``, ``b``/``banked`` and ``m``/``movement`` are
accepted, as are ``b2`` and ``m4`` written together.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from adjudicator.api import OrderError, ParsedOrders
from adjudicator.games.golden_strider.state import HAND_SIZE, MAX_CARD, TOTAL_INITIAL, Card, Runner
from adjudicator.text import tight
from adjudicator.words import Said, say

SETUP_SYNTAX = say("cards V V V V V (five values 0-10 totalling 30), e.g. cards 10 8 6 4 2")
ROUND_SYNTAX = say("play CARD [move M] [bank B], e.g. play 6/0 bank 2 or play 6 bank 2")

_PLAY_WORDS = {"play", "plays", "p", "card", "cards"}
_BANK_WORDS = {"bank", "banks", "banked", "b", "stamina"}
_MOVE_WORDS = {"move", "moves", "movement", "m", "speed"}
_FILLER = {"and", "then", "with", "i", "please", "orders", "order", "round", "the"}
_CARD = re.compile(r"^(\d{1,2})(?:/t?(\d{1,3}))?$")
_GLUED = re.compile(r"^(b|m|bank|move)(\d{1,2})$")


@dataclass(frozen=True)
class SetupOrder:
    """The five initial cards (seed rule 2)."""

    values: tuple[int, ...]


@dataclass(frozen=True)
class PlayOrder:
    """One round's order: the card, the points to bank, and movement if given."""

    card: Card
    bank: int = 0
    move: int | None = None


def format_setup(order: SetupOrder) -> str:
    return "cards " + " ".join(str(v) for v in sorted(order.values, reverse=True))


def format_play(order: PlayOrder) -> str:
    move = f" move {order.move}" if order.move is not None else ""
    return f"play {order.card.label}{move} bank {order.bank}"


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def _tokens(line: str) -> list[str]:
    """Words of ``line``; spaces around the ``/`` of a card do not matter (``6 / 0`` is ``6/0``)."""
    return re.sub(r"[,;:=]", " ", tight(line.lower(), "/", "/")).split()


def parse_setup(text: str, min_card: int) -> ParsedOrders[SetupOrder]:
    """Read the five initial cards; every problem is reported against its line."""
    errors: list[OrderError] = []
    found: SetupOrder | None = None
    for line in _lines(text):
        words = [w for w in _tokens(line) if w not in _PLAY_WORDS and w not in _FILLER]
        if not words or not all(w.isdecimal() for w in words):
            errors.append(OrderError(line, say("not understood; expected {syntax}", syntax=SETUP_SYNTAX)))
            continue
        values = tuple(int(w) for w in words)
        problem = _setup_problem(values, min_card)
        if problem:
            errors.append(OrderError(line, problem))
        elif found is not None:
            errors.append(OrderError(line, say("a second set of cards; the first one is used")))
        else:
            found = SetupOrder(tuple(sorted(values, reverse=True)))  # as written back: highest first
    if found is None and not errors:
        errors.append(OrderError("", say("no cards given; expected {syntax}", syntax=SETUP_SYNTAX)))
    canonical = format_setup(found) if found else ""
    return ParsedOrders(found, canonical, tuple(errors))


def _setup_problem(values: tuple[int, ...], min_card: int) -> Said | None:
    if len(values) != HAND_SIZE:
        return say("{given} cards given; choose exactly {wanted} (seed rule 2)", given=len(values), wanted=HAND_SIZE)
    outside = [v for v in values if not min_card <= v <= MAX_CARD]
    if outside:
        return say(
            "card value {value} is outside {low}-{high} (seed rule 2)", value=outside[0], low=min_card, high=MAX_CARD
        )
    if sum(values) != TOTAL_INITIAL:
        return say(
            "these total {total}; the five cards must total {wanted} (seed rule 2)",
            total=sum(values),
            wanted=TOTAL_INITIAL,
        )
    return None


@dataclass(frozen=True)
class _RawPlay:
    value: int
    turn: int | None
    bank: int
    move: int | None


def _read_play_line(line: str) -> _RawPlay | Said:
    """The card, bank and move written on one line, or the reason it is not an order."""
    tokens = _tokens(line)
    value: int | None = None
    turn: int | None = None
    bank: int | None = None
    move: int | None = None
    i = 0
    while i < len(tokens):
        word = tokens[i]
        glued = _GLUED.match(word)
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        if glued:
            kind = "bank" if glued.group(1).startswith("b") else "move"
            number = int(glued.group(2))
            if kind == "bank":
                bank = number
            else:
                move = number
            i += 1
        elif word in _BANK_WORDS or word in _MOVE_WORDS:
            if nxt is None or not nxt.isdecimal():
                return say("'{word}' needs a number after it; expected {syntax}", word=word, syntax=ROUND_SYNTAX)
            if word in _BANK_WORDS:
                bank = int(nxt)
            else:
                move = int(nxt)
            i += 2
        elif word in _PLAY_WORDS:
            if nxt is None or not _CARD.match(nxt):
                return say(
                    "'{word}' needs a card after it, like 6/0 or 6; expected {syntax}", word=word, syntax=ROUND_SYNTAX
                )
            value, turn = _card_parts(nxt)
            i += 2
        elif _CARD.match(word) and value is None:
            value, turn = _card_parts(word)
            i += 1
        elif word in _FILLER:
            i += 1
        else:
            return say("did not understand '{word}'; expected {syntax}", word=word, syntax=ROUND_SYNTAX)
    if value is None:
        return say("no card named; expected {syntax}", syntax=ROUND_SYNTAX)
    return _RawPlay(value, turn, bank or 0, move)


def _card_parts(word: str) -> tuple[int, int | None]:
    match = _CARD.match(word)
    assert match is not None
    return int(match.group(1)), int(match.group(2)) if match.group(2) is not None else None


def find_card(runner: Runner, value: int, turn: int | None) -> Card | None:
    """The card ``value/turn`` in the hand, or the oldest card of ``value`` when no turn is given."""
    matches = [c for c in runner.hand if c.value == value and (turn is None or c.turn == turn)]
    return min(matches) if matches else None


def parse_play(text: str, runner: Runner) -> ParsedOrders[PlayOrder]:
    """Read one round's order for ``runner``; notes say how restitution and G5 apply."""
    errors: list[OrderError] = []
    notes: list[Said] = []
    found: PlayOrder | None = None
    hand = " ".join(c.label for c in runner.hand)
    for line in _lines(text):
        raw = _read_play_line(line)
        if isinstance(raw, str):
            errors.append(OrderError(line, raw))
            continue
        card = find_card(runner, raw.value, raw.turn)
        if card is None:
            wanted = f"{raw.value}/{raw.turn}" if raw.turn is not None else str(raw.value)
            errors.append(
                OrderError(line, say("you hold no card {wanted}; your hand is {hand}", wanted=wanted, hand=hand))
            )
            continue
        if raw.bank > card.value:
            errors.append(
                OrderError(line, say("cannot bank {bank} from a card of {value}", bank=raw.bank, value=card.value))
            )
            continue
        if found is not None:
            errors.append(OrderError(line, say("only one card is played each round; this line was ignored")))
            continue
        found = PlayOrder(card, raw.bank, raw.move)
        if raw.turn is None and sum(1 for c in runner.hand if c.value == raw.value) > 1:
            notes.append(say("card {value} read as {card}, your oldest {value}", value=raw.value, card=card.label))
        notes.extend(_spending_notes(found, runner.owed))
    if found is None and not errors:
        errors.append(OrderError("", say("no order given; expected {syntax}", syntax=ROUND_SYNTAX)))
    return ParsedOrders(found, format_play(found) if found else "", tuple(errors), tuple(notes))


def _spending_notes(order: PlayOrder, owed: int) -> list[Said]:
    """How the card will be spent (docs/rules/golden-strider.md 1.1 default resolution, G5)."""
    deducted = min(order.card.value, owed)
    banked = min(order.bank, order.card.value - deducted)
    moved = order.card.value - deducted - banked
    notes: list[Said] = []
    if deducted:
        notes.append(say("restitution {deducted} comes off first (seed rule 12)", deducted=deducted))
    if banked < order.bank:
        notes.append(say("only {banked} can be banked after restitution", banked=banked))
    if order.move is not None and order.move != moved:
        notes.append(
            say(
                "move {move} does not fit: the bank is honoured and you move {moved} (ruling G5)",
                move=order.move,
                moved=moved,
            )
        )
    if owed > order.card.value:
        notes.append(say("{carried} restitution will be carried forward (cf)", carried=owed - deducted))
    notes.append(
        say(
            "this plays {card}: deduct {deducted}, move {moved}, bank {banked}",
            card=order.card.label,
            deducted=deducted,
            moved=moved,
            banked=banked,
        )
    )
    return notes
