"""Reading the conditions of a later move (seed rule 9, ruling P5).

Canonical forms are listed in :mod:`adjudicator.games.three_races.conditions`.
Accepted variants: ``me``/``I``/``my`` for the writer's own seat, ``r55`` or
``race 55``, ``B's square``, ``square of B``, ``at least``/``at most``/``more
than``/``less than``/``over``/``under``, ``30 or more``, ``B leads 55``, ``B
1st in 55``, ``2nd or better``, ``B behind C in 55``, ``55 running``, ``B at 30
in 55``.  A number right after a comparison is a value; 25, 55 or 85 after
``in``/``at`` is a race; a number after ``played`` is a card; otherwise 25, 55
and 85 name a race.  Seat names match whatever their case,
except a seat named like an ordinary word (a seat "A" is not the article "a").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from adjudicator.games.three_races.conditions import (
    ANYONE,
    Ahead,
    Atom,
    Cmp,
    Condition,
    Finished,
    Literal,
    Place,
    Played,
    Square,
)
from adjudicator.games.three_races.state import RACES
from adjudicator.words import say

SYNTAX = say(
    "conditions like: {examples}, joined by and/or, with not",
    examples="55 finished / B square in 55 >= 30 / B place in 55 <= 2 / "
    "B ahead of C in 85 / B played 12 in 85 / anyone played >= 10 in 25",
)

_PHRASES: tuple[tuple[str, str], ...] = (
    (r"\b(\d+)(?:st|nd|rd|th)?\s+or\s+better\b", r" place <= \1 "),
    (r"\b(\d+)\s+or\s+(?:more|higher|above|over|greater)\b", r" >= \1 "),
    (r"\b(\d+)\s+or\s+(?:less|fewer|lower|below|under)\b", r" <= \1 "),
    (r"\bat\s+least\b", " >= "),
    (r"\bat\s+most\b", " <= "),
    (r"\bno\s+more\s+than\b", " <= "),
    (r"\bno\s+less\s+than\b", " >= "),
    (r"\b(?:more|greater|higher)\s+than\b", " > "),
    (r"\b(?:less|fewer|lower)\s+than\b", " < "),
    (r"\b(?:is\s+)?not\s+equal\s+to\b", " != "),
    (r"\bequal\s+to\b", " = "),
    (r"\brace\s*(25|55|85)\b", r" r\1 "),
    (r"\b(25|55|85)[- ]?(?:square|sq)?\s*race\b", r" r\1 "),
    (r"\b(\w+)'s\b", r"\1"),
    (r"(>=|=>|<=|=<|!=|<>|==|>|<|=)", r" \1 "),
)
_CMP_WORDS = {
    ">=": Cmp.GE,
    "=>": Cmp.GE,
    "<=": Cmp.LE,
    "=<": Cmp.LE,
    ">": Cmp.GT,
    "<": Cmp.LT,
    "=": Cmp.EQ,
    "==": Cmp.EQ,
    "!=": Cmp.NE,
    "<>": Cmp.NE,
    "over": Cmp.GT,
    "above": Cmp.GT,
    "beyond": Cmp.GT,
    "under": Cmp.LT,
    "below": Cmp.LT,
    "exactly": Cmp.EQ,
    "equals": Cmp.EQ,
}
_KEYWORDS = {
    **dict.fromkeys(("finished", "finish", "ended", "done", "complete", "completed", "over"), "finished"),
    **dict.fromkeys(("running", "unfinished", "ongoing", "open", "continuing"), "running"),
    **dict.fromkeys(("square", "squares", "sq"), "square"),
    **dict.fromkeys(("place", "placed", "position", "pos", "rank", "ranked"), "place"),
    **dict.fromkeys(("leads", "lead", "leading", "leader", "wins", "winning"), "leads"),
    **dict.fromkeys(("ahead", "past", "beats", "passed"), "ahead"),
    **dict.fromkeys(("behind", "trails", "trailing"), "behind"),
    **dict.fromkeys(("played", "plays", "play", "playing", "card"), "played"),
    **dict.fromkeys(("not", "no", "isn't", "isnt", "hasn't", "hasnt", "didn't", "didnt", "doesn't"), "not"),
    **dict.fromkeys(("anyone", "anybody", "someone", "somebody", "any", "another"), "anyone"),
}
_ME = {"me", "i", "my", "mine", "myself", "we", "our", "us"}
_ORDINALS = {"1st": 1, "2nd": 2, "3rd": 3, "4th": 4, "first": 1, "second": 2, "third": 3, "fourth": 4}
_FILLER = {"is", "the", "of", "in", "at", "on", "race", "has", "have", "been", "was", "did", "does", "a", "an"}
_FILLER |= {"team", "teams", "runner", "runners", "player", "than", "to", "if", "with", "am", "are", "be", "were"}


@dataclass(frozen=True)
class _Tok:
    kind: str  # seat, race, value, cmp, word, ordinal
    text: str
    number: int = 0
    cmp: Cmp = Cmp.EQ


def _seat_at(words: list[str], i: int, seats: Sequence[str]) -> tuple[str, int] | None:
    """The seat written at ``words[i]`` and how many words it takes; case matters only
    for a seat whose name is also an ordinary word of conditions (a seat "A", the article "a")."""
    for seat in sorted(seats, key=lambda s: -len(s.split())):
        name = seat.split()
        here = words[i : i + len(name)]
        ordinary = seat.lower() in _FILLER or seat.lower() in _KEYWORDS or seat.lower() in _ME
        if name and (here == name if ordinary else [w.lower() for w in here] == [n.lower() for n in name]):
            return seat, len(name)
    return None


def _tokenize(text: str, seats: Sequence[str], me: str) -> list[_Tok]:
    spaced = " " + text + " "
    for pattern, repl in _PHRASES:
        spaced = re.sub(pattern, repl, spaced, flags=re.IGNORECASE)
    original = [w for w in re.split(r"[\s,()]+", spaced) if w]
    words = [w.lower() for w in original]
    tokens: list[_Tok] = []
    i = 0
    while i < len(words):
        match = _seat_at(original, i, seats)
        if match is not None:
            tokens.append(_Tok("seat", match[0]))
            i += match[1]
            continue
        word = words[i]
        i += 1
        previous = tokens[-1] if tokens else None
        if word in _ME:
            tokens.append(_Tok("seat", me))
        elif word in _CMP_WORDS and not (word == "over" and (i >= len(words) or not words[i].isdecimal())):
            tokens.append(_Tok("cmp", word, cmp=_CMP_WORDS[word]))
        elif re.fullmatch(r"r(25|55|85)", word):
            tokens.append(_Tok("race", word, int(word[1:])))
        elif word in _ORDINALS:
            tokens.append(_Tok("ordinal", word, _ORDINALS[word]))
        elif word.isdecimal():
            number = int(word)
            if previous is not None and previous.kind == "cmp":
                tokens.append(_Tok("value", word, number, previous.cmp))
                tokens.pop(-2)
            elif number in RACES and words[i - 2] in ("in", "at", "race"):
                tokens.append(_Tok("race", word, number))
            elif previous is not None and previous.text == "played":
                tokens.append(_Tok("value", word, number))
            elif number in RACES:
                tokens.append(_Tok("race", word, number))
            else:
                tokens.append(_Tok("value", word, number))
        elif word in _KEYWORDS:
            tokens.append(_Tok("word", _KEYWORDS[word]))
        elif word not in _FILLER:
            tokens.append(_Tok("unknown", word))
    return tokens


def parse_condition(text: str, seats: Sequence[str], me: str) -> Condition | str:
    """Read a condition; return it, or a message saying what is wrong."""
    tokens = _tokenize(text, seats, me)
    if not tokens:
        return say("an empty condition; expected {syntax}", syntax=SYNTAX)
    clauses: list[tuple[Literal, ...]] = []
    clause: list[Literal] = []
    part: list[_Tok] = []
    for token in [*tokens, _Tok("unknown", "or")]:
        if token.kind == "unknown" and token.text in ("and", "or"):
            literal = _literal(part)
            if isinstance(literal, str):
                return literal
            clause.append(literal)
            part = []
            if token.text == "or":
                clauses.append(tuple(clause))
                clause = []
        else:
            part.append(token)
    return Condition(tuple(clauses))


def _literal(tokens: list[_Tok]) -> Literal | str:
    shown = " ".join(t.text for t in tokens) or "(nothing)"
    unknown = [t.text for t in tokens if t.kind == "unknown"]
    if unknown:
        return say(
            "did not understand '{word}' in '{shown}'; expected {syntax}", word=unknown[0], shown=shown, syntax=SYNTAX
        )
    words = [t.text for t in tokens if t.kind == "word"]
    negated = words.count("not") % 2 == 1
    seats = [t.text for t in tokens if t.kind == "seat"]
    races = [t.number for t in tokens if t.kind == "race"]
    values = [t for t in tokens if t.kind in ("value", "ordinal")]
    if len(races) != 1:
        return say("'{shown}' must name one race (25, 55 or 85); expected {syntax}", shown=shown, syntax=SYNTAX)
    race = races[0]
    atom = _atom(set(words), seats, race, values)
    if isinstance(atom, str):
        return say("'{shown}': {problem}; expected {syntax}", shown=shown, problem=atom, syntax=SYNTAX)
    if "running" in words:
        negated = not negated
    return Literal(atom, negated)


def _atom(words: set[str], seats: list[str], race: int, values: list[_Tok]) -> Atom | str:
    value = values[0] if len(values) == 1 else None
    if len(values) > 1:
        return say("more than one number")
    if "played" in words:
        who = seats if seats else ([ANYONE] if "anyone" in words else [])
        if len(who) != 1 or value is None or value.kind != "value":
            return say("a 'played' condition needs one team (or 'anyone') and a card")
        if not 1 <= value.number <= 12:
            return say("cards are 1 to 12")
        return Played(who[0], race, value.cmp, value.number)
    if "ahead" in words or "behind" in words:
        if len(seats) != 2 or value is not None:
            return say("'ahead of' and 'behind' compare two teams")
        first, second = seats if "ahead" in words else reversed(seats)
        return Ahead(first, second, race)
    if len(seats) > 1 or "anyone" in words:
        return say("name one team")
    if words & {"leads", "place"} or (value is not None and value.kind == "ordinal"):
        if not seats:
            return say("name the team whose place is meant")
        if "leads" in words and value is None:
            return Place(seats[0], race, Cmp.EQ, 1)
        if value is None or not 1 <= value.number <= 4:
            return say("a place is 1 to 4")
        return Place(seats[0], race, value.cmp, value.number)
    if words & {"finished", "running"}:
        if seats or value is not None:
            return say("'finished' takes only the race")
        return Finished(race)
    if seats and value is not None:
        return Square(seats[0], race, value.cmp, value.number)
    return say("not a condition I know")
