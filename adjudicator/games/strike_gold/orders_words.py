"""Reading Strike Gold orders from free text (mail or Discord), leniently.

Slots are ``r<row>c<col>``; also read: ``R3C1``, ``r3 c1``, ``r3-c1``, ``row 3 col 1``,
``row 3 column 1``, ``c1r3``, ``(3,1)``.  Verbs: draw/take/pick (up) ... deck/stock/draw pile/blind
or discard/discard pile; keep/place/put/swap/replace/use; flip/reveal/turn over/"discard and flip";
discard/throw away.  Conditions: ``if 4 or less``, ``if <= 4``, ``if under 5``, ``if at most 4``,
``if 10 or more``, ``if 10+``, ``if >= 10``, ``if 3 to 5``, ``if between 3 and 5``, ``if 3..5``, ``if 3``,
``if negative``; postfix ``keep r3c1 if 4 or less``; fallback ``else``/``otherwise``.
"Keep where it clears a column" (also "keep it if it completes a column", "keep to clear a line").
Case, commas, semicolons, "and", "then" and line breaks separate parts and do not matter.

The whole text is one order: if any part cannot be read, nothing is accepted (a conditional
turn missing a piece would not be what the player meant), and each problem quotes its line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from adjudicator.games.strike_gold.cards import COLUMNS, MAX_CARD, MIN_CARD, ROWS, slot_at, slot_name
from adjudicator.text import order_lines
from adjudicator.words import say

SLOT_TOKEN = re.compile(r"^r(\d+)c(\d+)$")

_SUBSTITUTIONS: tuple[tuple[str, str], ...] = (
    (r"[\u2212\u2012]", "-"),
    (r"(?<=\d)\s*[\u2013\u2014]\s*(?=-?\d)", " to "),
    (r"[\u2013\u2014](?=\d)", "-"),
    (r"[\u2013\u2014]", ","),
    ("\u2264", "<="),
    ("\u2265", ">="),
    (r"&", " and "),
    (r"\bminus\s+(\d+)", r"-\1"),
    (r"\brows?\s*(\d+)\s*[,/\-]?\s*(?:col(?:umn)?s?|c)\s*(\d+)\b", r" r\1c\2 "),
    (r"\br\s*(\d+)\s*[,/\-]?\s*c\s*(\d+)\b", r" r\1c\2 "),
    (r"\b(?:col(?:umn)?|c)\s*(\d+)\s*[,/\-]?\s*(?:rows?|r)\s*(\d+)\b", r" r\2c\1 "),
    (r"\(\s*(\d+)\s*,\s*(\d+)\s*\)", r" r\1c\2 "),
    (r"\bbetween\s+(-?\d+)\s+and\s+(-?\d+)", r"\1 to \2"),
    (r"(?<!\d)(-?\d++)\s*+\.{2,3}\s*(-?\d+)", r"\1 to \2"),  # starts at a number's start: linear in a run of digits
    (
        r"\bif\s+(?:it|the\s+card|that)\s+(?:would\s+|will\s+|can\s+)?(?:clears?|completes?)\s+"
        r"(?:a\s+|the\s+|any\s+)?(?:matching\s+)?(?:column|col|line|row)s?\s*,?\s*"
        r"(?:then\s+)?(?:keep|place|put)(?:\s+it)?(?:\s+there)?\b",
        " keepclear ",
    ),
    (
        r"\b(?:keep|place|put|swap|use)\s+(?:it\s+|the\s+card\s+)?"
        r"(?:where(?:ver)?|if|when|to|so|in\s+a\s+slot\s+where|somewhere\s+where)\s+(?:that\s+)?"
        r"(?:it\s+)?(?:would\s+|will\s+|can\s+)?(?:clears?|completes?|finish(?:es)?)"
        r"(?:\s+(?:a|the|any))?(?:\s+matching)?(?:\s+(?:column|col|line|row|triplet)s?)?\b",
        " keepclear ",
    ),
    (r"\bpick\s+up\b", " pick "),
    (r"\bdraw\s+pile\b", " deck "),
    (r"\bdiscard\s+pile\b", " discard "),
    (
        r"\b(draws?|takes?|picks?|grabs?)((?:\s+(?:from|the|top|of|a|card|face|up|one|off|-?\d+))*)\s+discard\b",
        r"\1\2 discardpile",
    ),
    (r"\bdiscard\s*(?:it\s*)?(?:,\s*)?(?:and\s+|then\s+|\+\s*)?(?:flip|turn\s+over|turn\s+up|turn|reveal)\b", " flip "),
    (r"\b(r\d+c\d+)\s+(?:face\s+up|up|over)\b", r"\1"),
    (r"\bturn\s+(?:it\s+)?(?:face\s+)?(?:over|up)\b", " flip "),
    (r"\bthrow\s+(?:it\s+)?away\b", " discard "),
)

_TOKEN = re.compile(r"r\d+c\d+|-?\d+|<=|>=|=<|=>|==|[<>=+]|[a-z']+|[;,.:!?/|()\[\]-]|\S")

SEPARATORS = frozenset({";", ",", ".", ":", "!", "?", "/", "|", "(", ")", "[", "]", "-", "and", "then", "also"})
DRAW_VERBS = frozenset({"draw", "draws", "take", "takes", "pick", "picks", "grab", "grabs"})
DECK_WORDS = frozenset({"deck", "stock", "blind", "pile"})
DISCARD_WORDS = frozenset({"discard", "discards", "discarded", "discardpile"})
DRAW_FILLER = frozenset({"from", "the", "top", "of", "a", "card", "up", "face", "down", "one", "on", "off", "i"})
KEEP_VERBS = frozenset({"keep", "keeps", "place", "put", "swap", "replace", "use", "exchange", "k"})
FLIP_VERBS = frozenset({"flip", "flips", "reveal", "turn", "f"})
DISCARD_VERBS = frozenset({"discard", "discards", "dump", "toss", "throw", "pass"})
ACTION_VERBS = KEEP_VERBS | FLIP_VERBS | DISCARD_VERBS | {"keepclear"}
ACTION_FILLER = frozenset(
    {
        "it",
        "the",
        "card",
        "cards",
        "in",
        "into",
        "at",
        "on",
        "onto",
        "to",
        "slot",
        "position",
        "spot",
        "over",
        "with",
        "my",
        "a",
        "this",
        "that",
        "drawn",
        "new",
        "there",
        "away",
        "instead",
    }
)
ELSE_WORDS = frozenset({"else", "otherwise", "or", "elsewise"})
IF_WORDS = frozenset({"if", "when", "whenever"})
GLOBAL_FILLER = frozenset({"i", "will", "please", "i'll", "want", "to", "the", "my", "move", "order", "orders"})
CONDITION_FILLER = frozenset(
    {"it", "its", "it's", "is", "the", "card", "value", "drawn", "i", "draw", "a", "was", "get", "that", "number", "of"}
)


@dataclass(frozen=True)
class Token:
    text: str
    line: str


@dataclass(frozen=True)
class Bounds:
    low: int | None
    high: int | None


def normalize(line: str) -> str:
    """Lower-case and rewrite the synonyms into the words the token parser knows."""
    text = line.lower()
    for pattern, replacement in _SUBSTITUTIONS:
        text = re.sub(pattern, replacement, text)
    return text


def tokenize(text: str) -> list[Token]:
    """Tokens of every non-empty line; each remembers its original line for error messages."""
    tokens: list[Token] = []
    for line in order_lines(text):
        tokens.extend(Token(t, line) for t in _TOKEN.findall(normalize(line)))
        tokens.append(Token(";", line))
    return tokens


def read_slot(word: str) -> int | str:
    """The slot number of ``r<row>c<col>``, or why it is not a slot."""
    match = SLOT_TOKEN.match(word)
    if match is None:
        return say("'{word}' is not a slot; slots are written r<row>c<column>, e.g. r3c1", word=word)
    row, column = int(match.group(1)), int(match.group(2))
    if not (1 <= row <= ROWS and 1 <= column <= COLUMNS):
        return say(
            "there is no slot {word}: rows are 1-{rows} and columns 1-{columns}", word=word, rows=ROWS, columns=COLUMNS
        )
    return slot_at(row, column)


_N = r"(-?\d+)"
_CONDITIONS: tuple[tuple[str, str], ...] = (
    (rf"^{_N}$", "eq"),
    (rf"^(?:=|==|equals?|exactly|equal to) ?{_N}$", "eq"),
    (rf"^{_N} or (?:less|lower|below|under|smaller|fewer|lesser)$", "le"),
    (rf"^{_N} or (?:more|higher|above|over|greater|bigger|better)$", "ge"),
    (rf"^{_N} ?\+$", "ge"),
    (rf"^(?:<=|=<|at most|up to|no more than|not more than|max|maximum|not above) ?{_N}$", "le"),
    (rf"^(?:<|less than|lower than|under|below|smaller than|fewer than) ?{_N}$", "lt"),
    (rf"^(?:>=|=>|at least|no less than|not less than|min|minimum|not below) ?{_N}$", "ge"),
    (rf"^(?:>|more than|greater than|higher than|over|above|bigger than) ?{_N}$", "gt"),
    (rf"^(?:from )?{_N} to {_N}$", "range"),
)


def read_condition(words: list[str]) -> Bounds | str:
    """The value range a condition names (inclusive), or why it cannot be read."""
    kept = [w for w in words if w not in CONDITION_FILLER]
    phrase = " ".join(kept)
    if phrase in ("negative", "below zero", "less than zero"):
        return Bounds(None, -1)
    if phrase in ("positive", "above zero", "more than zero"):
        return Bounds(1, None)
    for pattern, kind in _CONDITIONS:
        match = re.match(pattern, phrase)
        if match is None:
            continue
        n = int(match.group(1))
        bounds = {
            "eq": Bounds(n, n),
            "le": Bounds(None, n),
            "lt": Bounds(None, n - 1),
            "ge": Bounds(n, None),
            "gt": Bounds(n + 1, None),
        }.get(kind)
        if bounds is None:
            bounds = Bounds(min(n, int(match.group(2))), max(n, int(match.group(2))))
        low = MIN_CARD if bounds.low is None else max(bounds.low, MIN_CARD)
        high = MAX_CARD if bounds.high is None else min(bounds.high, MAX_CARD)
        if low > high:
            return say(
                "no card matches 'if {condition}': cards run from {lowest} to {highest}",
                condition=" ".join(words),
                lowest=MIN_CARD,
                highest=MAX_CARD,
            )
        return bounds
    return say(
        "could not read the condition 'if {condition}'; write e.g. 'if 4 or less', 'if 10 or more', "
        "'if 3 to 5' or 'if 7'",
        condition=" ".join(words),
    )


def slot_list(slots: tuple[int, ...]) -> str:
    return " ".join(slot_name(s) for s in slots)
