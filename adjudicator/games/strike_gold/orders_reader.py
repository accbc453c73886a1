"""The token reader behind Strike Gold's order parser: words in, draw source and choices out.

It only recognises the shape of an order (see :mod:`.orders_words` for the accepted words); whether
the order is legal now is checked by :mod:`.orders_parse`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from adjudicator.api import OrderError
from adjudicator.games.strike_gold.orders import Act, Action, Choice, normal_bounds
from adjudicator.games.strike_gold.orders_words import (
    ACTION_FILLER,
    ACTION_VERBS,
    DECK_WORDS,
    DISCARD_VERBS,
    DISCARD_WORDS,
    DRAW_FILLER,
    DRAW_VERBS,
    ELSE_WORDS,
    FLIP_VERBS,
    GLOBAL_FILLER,
    IF_WORDS,
    SEPARATORS,
    SLOT_TOKEN,
    Token,
    read_condition,
    read_slot,
)
from adjudicator.games.strike_gold.state import Source
from adjudicator.words import say

SETUP_SYNTAX = say("flip SLOT SLOT, e.g. flip r1c1 r2c3 (slots r<row>c<col>, rows 1-3, columns 1-4)")
TURN_SYNTAX = say(
    "draw deck, keep r3c1 / draw deck, flip r2c2 / draw discard, keep r1c4 / draw deck, discard / "
    "draw deck; if 4 or less keep r3c1; else flip r2c2 / draw deck (alone: see the card, then decide)"
)
DECIDE_SYNTAX = say("keep SLOT, flip SLOT or discard (e.g. keep r3c1)")
_CONDITION_END = frozenset({";", ",", ".", "then", "and", "else", "otherwise"})
_SETUP_WORDS = frozenset({"card", "cards", "slot", "slots", "at", "in", "both", "up", "face", "over"})


@dataclass(frozen=True)
class ChoiceLine:
    """A choice and the line it was written on (for error messages)."""

    choice: Choice
    line: str


@dataclass
class Read:
    """What the reader found: the draw, the choices or setup slots, and the errors (quoting lines)."""

    source: Source | None = None
    source_line: str = ""
    named_value: int | None = None
    choices: list[ChoiceLine] = field(default_factory=list)
    slots: list[tuple[int, str]] = field(default_factory=list)
    errors: list[OrderError] = field(default_factory=list)


class Reader:
    """A small recursive-descent reader over the tokens of the whole text."""

    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self.i = 0
        self.out = Read()

    def word(self, offset: int = 0) -> str | None:
        j = self.i + offset
        return self.tokens[j].text if j < len(self.tokens) else None

    def fail(self, message: str) -> None:
        """Record an error against the current line and skip the rest of that line."""
        line = self.tokens[min(self.i, len(self.tokens) - 1)].line
        self.out.errors.append(OrderError(line, message))
        while self.i < len(self.tokens) and self.tokens[self.i].text != ";":
            self.i += 1

    def skip(self, words: frozenset[str]) -> None:
        while (w := self.word()) is not None and w in words:
            self.i += 1

    def read_turn(self) -> Read:
        while (w := self.word()) is not None:
            if w in SEPARATORS or w in ELSE_WORDS or w in GLOBAL_FILLER or (w == "turn" and not self._turn_is_verb()):
                self.i += 1
            elif w in DRAW_VERBS:
                self._draw()
            elif w in IF_WORDS:
                self._conditional()
            elif w in ACTION_VERBS:
                self._plain_action()
            elif SLOT_TOKEN.match(w):
                self.fail(say("{slot} has no verb before it: write 'keep {slot}' or 'flip {slot}'", slot=w))
            else:
                self.fail(say("did not understand '{word}'; expected {syntax}", word=w, syntax=TURN_SYNTAX))
        return self.out

    def read_setup(self) -> Read:
        while (w := self.word()) is not None:
            line = self.tokens[self.i].line
            if w in SEPARATORS or w in GLOBAL_FILLER or w in FLIP_VERBS or w in _SETUP_WORDS or w == "keep":
                self.i += 1
            elif SLOT_TOKEN.match(w):
                slot = read_slot(w)
                if isinstance(slot, str):
                    self.fail(slot)
                else:
                    self.out.slots.append((slot, line))
                    self.i += 1
            else:
                self.fail(say("did not understand '{word}'; expected {syntax}", word=w, syntax=SETUP_SYNTAX))
        return self.out

    def _turn_is_verb(self) -> bool:
        j = self.i + 1
        while j < len(self.tokens) and self.tokens[j].text in ACTION_FILLER:
            j += 1
        return j < len(self.tokens) and SLOT_TOKEN.match(self.tokens[j].text) is not None

    def _draw(self) -> None:
        line = self.tokens[self.i].line
        self.i += 1
        named: int | None = None
        while (w := self.word()) is not None and (w in DRAW_FILLER or w.lstrip("-").isdecimal()):
            if w.lstrip("-").isdecimal():
                named = int(w)
            self.i += 1
        w = self.word()
        if w in DECK_WORDS:
            source = Source.DECK
        elif w in DISCARD_WORDS:
            source = Source.DISCARD
        else:
            self.fail(say("draw from where? write 'draw deck' or 'draw discard'"))
            return
        self.i += 1
        self.skip(frozenset({"pile", "top", "card"}))
        if self.out.source is not None:
            self.out.errors.append(OrderError(line, say("a turn draws once; this second draw was not used")))
            return
        self.out.source, self.out.source_line, self.out.named_value = source, line, named

    def _condition_words(self) -> tuple[list[str], bool]:
        """The words of a condition, up to an action, a separator or "else"/"otherwise"; and whether
        it ended on an else-word (then what follows is the fallback, not this condition's action)."""
        words: list[str] = []
        while (w := self.word()) is not None and w not in ACTION_VERBS and w not in _CONDITION_END:
            words.append(w)
            self.i += 1
        ends_with_else = self.word() in ("else", "otherwise")
        while words and words[-1] in ELSE_WORDS:
            words.pop()
            ends_with_else = True
        return words, ends_with_else

    def _conditional(self) -> None:
        line = self.tokens[self.i].line
        self.i += 1
        words, _ = self._condition_words()
        self.skip(frozenset({",", "then", "and"}))
        if self.word() not in ACTION_VERBS:
            self.fail(
                say(
                    "'if {condition}' needs an action after it: keep SLOT, flip SLOT or discard",
                    condition=" ".join(words),
                )
            )
            return
        bounds = read_condition(words)
        action = self._action()
        if isinstance(bounds, str):
            self.out.errors.append(OrderError(line, bounds))
        elif action is not None:
            low, high = normal_bounds(bounds.low, bounds.high)
            self.out.choices.append(ChoiceLine(Choice(action, low, high), line))

    def _plain_action(self) -> None:
        line = self.tokens[self.i].line
        action = self._action()
        if action is None:
            return
        low: int | None = None
        high: int | None = None
        j = self.i + (1 if self.word() == "," else 0)
        if j < len(self.tokens) and self.tokens[j].text in IF_WORDS:
            start = self.i
            self.i = j + 1
            words, ends_with_else = self._condition_words()
            if self.word() in ACTION_VERBS and not ends_with_else:
                self.i = start
            else:
                bounds = read_condition(words)
                if isinstance(bounds, str):
                    self.out.errors.append(OrderError(line, bounds))
                    return
                low, high = normal_bounds(bounds.low, bounds.high)
        self.out.choices.append(ChoiceLine(Choice(action, low, high), line))

    def _action(self) -> Action | None:
        verb = self.word()
        assert verb is not None
        self.i += 1
        if verb == "keepclear":
            return Action(Act.KEEP_CLEARING)
        if verb in DISCARD_VERBS:
            self.skip(ACTION_FILLER)
            w = self.word()
            if w is not None and SLOT_TOKEN.match(w):
                self.fail(
                    say(
                        "'discard' takes no slot: to discard the card and turn {slot} face up, write 'flip {slot}'",
                        slot=w,
                    )
                )
                return None
            return Action(Act.DISCARD)
        self.skip(ACTION_FILLER)
        w = self.word()
        act = Act.FLIP if verb in FLIP_VERBS else Act.KEEP
        if w is None or not SLOT_TOKEN.match(w):
            self.fail(say("'{verb}' needs a slot after it, e.g. '{act} r3c1'", verb=verb, act=act.value))
            return None
        slot = read_slot(w)
        if isinstance(slot, str):
            self.fail(slot)
            return None
        self.i += 1
        return Action(act, slot)
