"""Reading a deadline's orders (seed rules 3, 8-10; rulings P4-P7).

Lines (or parts separated by ``;``) are of four sorts::

    swap 25:10 55:11                     a readjustment (see readjust.py)
    move 1: 25=10 55=6 85=12             a move's plain cards
    move 2 if B leads 55: 55=11          a case: used when its condition holds
    move 2 otherwise: 25=4 55=9 85=3     the plain cards again ("else" too)

Moves are numbered across the game, as the report and HELP number them: the
second deadline of a game of two moves a deadline plays moves 3 and 4.  The
numbers of the deadline's own moves (``move 1``, ``move 2``) are read too, as
the first and second move of this deadline, with a note saying which move each
became; everything the reader writes back uses the game's numbers.

Variants: ``m1``, ``1:``, ``first move``; ``25:10``, ``r25 10``; commas.  A
line without a label is the next move, except that after a case it is that
move's plain line, and a case without a label belongs to the move of the line
before it (the deadline's second move at the earliest).  Every problem is an
error on its line and the line is left out; the notes echo how each condition
was read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from adjudicator.api import OrderError, ParsedOrders
from adjudicator.games.three_races.conditions import Condition
from adjudicator.games.three_races.orders import (
    Cards,
    Case,
    DeadlineOrders,
    MoveOrders,
    format_deadline,
)
from adjudicator.games.three_races.orders_condition import parse_condition
from adjudicator.games.three_races.orders_deadline_notes import explained
from adjudicator.games.three_races.orders_moves import LABEL, MOVE_SYNTAX, ORDINAL_WORD, label_number, parse_cards
from adjudicator.games.three_races.plan import Option, check_cards
from adjudicator.games.three_races.readjust import (
    KEYWORDS,
    Readjust,
    apply_readjust,
    parse_readjust,
    readjust_index,
    readjust_problem,
)
from adjudicator.games.three_races.state import State
from adjudicator.text import order_parts
from adjudicator.words import say

MAX_CASES = 8
_IF = re.compile(r"^(?:if|when)\b(.*?)(?::|\bthen\b)(.*)$", re.IGNORECASE | re.DOTALL)
_ELSE = re.compile(r"^(?:else|otherwise|default|fallback)\b\s*[:,]?\s*(.*)$", re.IGNORECASE | re.DOTALL)


@dataclass(frozen=True)
class _Line:
    """One usable line: its move (1-based within the deadline), its condition (None: plain) and its cards."""

    number: int
    text: str
    move: int
    condition: Condition | None
    cards: Cards


class _Reader:
    """The state of reading one text: lines accepted so far, errors and notes."""

    def __init__(self, state: State, seat: str) -> None:
        self.state = state
        self.seat = seat
        self.team = state.team(seat)
        self.per_deadline = state.options.moves_per_deadline
        self.first = state.moves + 1
        self.lines: list[_Line] = []
        self.errors: list[OrderError] = []
        self.notes: list[str] = []
        self.readjust: Readjust | None = None
        self.previous: _Line | None = None

    def read(self, segment: str) -> None:
        first = segment.split(maxsplit=1)
        if first[0].lower().rstrip(":") in KEYWORDS:
            self._read_readjust(segment, first[1] if len(first) > 1 else "")
            return
        label = LABEL.match(segment)
        rest = segment[label.end() :] if label else segment
        move = self._deadline_move(segment, label) if label else None
        case = _IF.match(rest)
        otherwise = _ELSE.match(rest)
        condition: Condition | None = None
        if case:
            parsed = parse_condition(case.group(1), self.state.seats, self.seat)
            if isinstance(parsed, str):
                self.errors.append(OrderError(segment, parsed))
                return
            condition, rest = parsed, case.group(2)
        elif otherwise:
            rest = otherwise.group(1)
        elif re.match(r"(?:if|when)\b", rest, re.IGNORECASE):
            self.errors.append(OrderError(segment, say("put ':' or 'then' between a condition and its cards")))
            return
        if move is None:
            move = self._guess_move(condition is not None, otherwise is not None)
            self.notes.append(say('"{line}" read as move {move}', line=segment, move=self.shown(move)))
        cards = parse_cards(rest)
        problem = cards if isinstance(cards, str) else self._line_problem(move, condition)
        if problem:
            self.errors.append(OrderError(segment, problem))
            return
        assert not isinstance(cards, str)
        running = self.state.running()
        kept = tuple((race, card) for race, card in cards if race in running)
        for race in sorted({race for race, _ in cards} - set(running)):
            self.notes.append(
                say(
                    "move {move}: the {race} race has finished and needs no card; it was left out",
                    move=self.shown(move),
                    race=race,
                )
            )
        if not kept:
            self.notes.append(say('"{line}" was ignored: it names only finished races', line=segment))
            return
        line = _Line(len(self.lines), segment, move, condition, kept)
        self.lines.append(line)
        self.previous = line

    def shown(self, move: int) -> int:
        """The game's number of the deadline's ``move``-th move."""
        return self.first + move - 1

    def _deadline_move(self, segment: str, label: re.Match[str]) -> int:
        """The move of the deadline (1-based) a label names.

        A number among the deadline's moves is the game's; from the second
        deadline on, 1 to ``moves_per_deadline`` is the deadline's own count,
        noted.  Any other number is returned as it stands, shifted so that
        :meth:`_line_problem` refuses it with the game's numbers.
        """
        number = label_number(label)
        if label.group(2):
            return number
        if self.first <= number < self.first + self.per_deadline:
            return number - self.first + 1
        if 1 <= number <= self.per_deadline:
            self.notes.append(
                say(
                    '"{line}": move {number} read as move {move}, the {ordinal} move of this deadline '
                    "(moves are numbered across the game)",
                    line=segment,
                    number=number,
                    move=self.shown(number),
                    ordinal=ORDINAL_WORD[number],
                )
            )
            return number
        return number - self.first + 1

    def _read_readjust(self, segment: str, rest: str) -> None:
        readjust, problem = parse_readjust(rest, self.team)
        if readjust is not None:
            problem = readjust_problem(self.state, self.team, readjust) or ""
        if self.readjust is not None:
            problem = say("only one readjustment at a time; this line is ignored")
        if problem or readjust is None:
            self.errors.append(OrderError(segment, problem))
            return
        self.readjust = readjust

    def _guess_move(self, conditional: bool, otherwise: bool) -> int:
        before = self.previous
        if before is None:
            return 2 if conditional else 1
        if conditional:
            return max(before.move, 2)
        if otherwise or (before.condition is not None and not self._has_plain(before.move)):
            return before.move
        return before.move + 1

    def _has_plain(self, move: int) -> bool:
        return any(line.move == move and line.condition is None for line in self.lines)

    def _line_problem(self, move: int, condition: Condition | None) -> str | None:
        if not 1 <= move <= self.per_deadline:
            last = self.shown(self.per_deadline)
            if self.per_deadline == 1:
                return say(
                    "there is no move {move} at this deadline: it plays move {first}",
                    move=self.shown(move),
                    first=self.first,
                )
            return say(
                "there is no move {move} at this deadline: it plays moves {first}-{last}",
                move=self.shown(move),
                first=self.first,
                last=last,
            )
        if condition is not None and move == 1:
            return say(
                "move {move}, the first of this deadline, cannot depend on anything yet: "
                "conditions are for later moves (seed rule 9)",
                move=self.first,
            )
        if condition is None and self._has_plain(move):
            return say("move {move} is already given; this line is ignored", move=self.shown(move))
        if condition is not None and sum(1 for ln in self.lines if ln.move == move and ln.condition) >= MAX_CASES:
            return say("at most {count} cases for one move", count=MAX_CASES)
        return None

    def check_cards(self) -> None:
        """Leave out lines with a card that can never be played at its move (repeat until none)."""
        while True:
            verdicts = check_cards(self.state, self.team, self._options(), self.readjust)
            bad = next((v for v in verdicts if v.never), None)
            if bad is None:
                break
            line = self.lines[bad.line]
            team = self.team
            if self.readjust is not None and (readjust_index(self.state) or 0) < line.move:
                team = apply_readjust(team, self.readjust)
            hand = " ".join(str(c) for c in team.hands[bad.race])
            message = say(
                "move {move}, {race}={card}: {problem} (your {race} cards: {hand})",
                move=self.shown(line.move),
                race=bad.race,
                card=bad.card,
                problem=bad.problem,
                hand=hand,
            )
            self.errors.append(OrderError(line.text, message))
            self.lines = [ln for ln in self.lines if ln is not line]
            self.lines = [_Line(i, ln.text, ln.move, ln.condition, ln.cards) for i, ln in enumerate(self.lines)]
        for v in verdicts:
            if v.problem:
                move = self.shown(self.lines[v.line].move)
                self.notes.append(
                    say(
                        "move {move}, {race}={card}: in some cases {problem}; "
                        "then the lowest card left is played (ruling P6)",
                        move=move,
                        race=v.race,
                        card=v.card,
                        problem=v.problem,
                    )
                )

    def _options(self) -> list[list[Option]]:
        options: list[list[Option]] = []
        for move in range(1, self.per_deadline + 1):
            plain = next((ln for ln in self.lines if ln.move == move and ln.condition is None), None)
            base = {race: (card, plain.number) for race, card in plain.cards} if plain else {}
            cases = [ln for ln in self.lines if ln.move == move and ln.condition is not None]
            merged = [Option({**base, **{race: (card, ln.number) for race, card in ln.cards}}) for ln in cases]
            options.append([*merged, Option(base)])
        return options

    def orders(self) -> DeadlineOrders | None:
        if not self.lines and self.readjust is None:
            return None
        moves = []
        for move in range(1, self.per_deadline + 1):
            plain = next((ln.cards for ln in self.lines if ln.move == move and ln.condition is None), ())
            cases = tuple(
                Case(ln.condition, ln.cards) for ln in self.lines if ln.move == move and ln.condition is not None
            )
            moves.append(MoveOrders(cases, plain))
        return DeadlineOrders(tuple(moves), self.readjust)

    def explain(self, orders: DeadlineOrders) -> None:
        """Notes: the readjustment, each condition as read, and the runners left to rule 10."""
        self.notes += explained(self.state, orders, self.shown)


def parse_deadline(state: State, seat: str, text: str) -> ParsedOrders[DeadlineOrders]:
    """Read one deadline's orders for ``seat``; never raises on bad text."""
    reader = _Reader(state, seat)
    for segment in order_parts(text):
        reader.read(segment)
    if reader.lines:
        reader.check_cards()
    orders = reader.orders()
    if orders is None:
        if not reader.errors:
            reader.errors.append(OrderError("", say("no orders given; expected {syntax}", syntax=MOVE_SYNTAX)))
        return ParsedOrders(None, "", tuple(reader.errors), tuple(reader.notes))
    reader.explain(orders)
    canonical = format_deadline(orders, reader.first)
    return ParsedOrders(orders, canonical, tuple(reader.errors), tuple(reader.notes))
