"""Reading one line of a Dragon Stripes order, leniently (the game's order syntax).

A line is normalised (case, punctuation, filler words, number words, "30+",
">= 30", "at least 30") and then read as one of: an answer (reveal, hold,
take, pass), a choice between takers, a standing run order, a standing
take-over offer, or a withdrawal.  This module knows words only; what a line
means in the current phase is decided in :mod:`orders`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from adjudicator.games.dragon_stripes.options import STRIPES
from adjudicator.words import Said, say

NUMBER_WORDS = {
    "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
    "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12", "fifteen": "15", "twenty": "20",
}  # fmt: skip

FILLER = frozenset(
    [
        "please",
        "i",
        "ll",
        "will",
        "d",
        "want",
        "wish",
        "to",
        "would",
        "like",
        "the",
        "a",
        "an",
        "gems",
        "gem",
        "knight",
        "is",
        "are",
        "there",
        "my",
        "me",
        "ok",
        "okay",
        "thanks",
        "thank",
        "you",
        "now",
        "up",
        "be",
        "of",
        "it",
        "s",
        "we",
    ]
)

REVEAL_PHRASES = frozenset(
    {
        "reveal", "r", "draw", "flip", "next", "continue", "go", "go on", "another", "more", "again", "hit",
        "keep going", "carry on", "reveal card", "reveal another", "reveal another card", "reveal next",
        "reveal next card", "draw card", "draw another", "turn card", "reveal 1", "reveal 1 more", "reveal 1 card",
        "reveal 1 more card", "reveal more", "reveal again", "reveal top card", "turn over card",
    }
)  # fmt: skip
HOLD_PHRASES = frozenset(
    {"hold", "h", "stick", "stand", "stay", "collect", "bank", "hold collect", "done", "hold here", "stop", "stop here"}
)
TAKE_PHRASES = frozenset(
    {"take", "t", "take over", "take run", "take over run", "yes", "y", "accept", "accept offer", "buy", "offer"}
)
PASS_PHRASES = frozenset(
    {
        "pass", "p", "no", "n", "decline", "no take over", "don t take", "don t take over", "do not take",
        "do not take over", "not take over", "pass offer", "no offer", "nope",
    }
)  # fmt: skip
WITHDRAW_WORDS = frozenset({"withdraw", "cancel", "revoke", "drop", "clear", "remove", "delete", "forget", "no"})
OFFER_WORDS = frozenset({"take", "over", "offer", "offers", "takeover"})
RUN_WORDS = frozenset({"run", "reveal", "hold", "until", "stripe", "beside"})
ALL_WORDS = frozenset({"all", "everything", "standing", "orders", "order", "both"})

_RUN_UNTIL = re.compile(
    r"^(?:reveal|draw|continue|keep|go|carry)(?: on| revealing| going| drawing)? (?:until |till )?"
    r"(?P<conditions>(?:stripe|beside|more|over|above|greater|at least|\d).*)$"
)
_HOLD_AT = re.compile(r"^(?:hold|stop|stick) (?:at|when|if|once|on|from|with) (?P<conditions>.+)$")
_RUN_COUNT = re.compile(
    r"^(?:reveal|draw) (?P<count>\d+)(?: more)?(?: cards?)?(?: more)? (?:then |and |and then )?(?:hold|stop|stick)$"
)
_OFFER = re.compile(
    r"^(?:take over|take|offer|buy)(?: over| run)? (?:if|when|whenever|at|once|with) (?P<condition>.+)$"
)
_ALWAYS = frozenset({"always take over", "take over always", "always take", "take always", "take over every time"})
_MORE_THAN = re.compile(r"(?:more than|over|above|greater than) (\d+)")
_AT_LEAST = re.compile(r"\b(?:or more|or above|or over|or higher|or beyond|or further|or greater|at least)\b")
_ORDINAL = re.compile(r"\b(\d+)(?:st|nd|rd|th)\b")


@dataclass(frozen=True)
class Conditions:
    """Hold conditions read from a standing run order (each None when not given)."""

    beside: int | None = None
    stripe: int | None = None
    reveals: int | None = None


def normalise(line: str) -> str:
    """Lower case, punctuation and filler words out, numbers as digits."""
    text = line.lower().replace("≥", " at least ").replace(">=", " at least ")
    text = text.replace("take-over", "take over").replace("takeover", "take over")
    text = re.sub(r"(?<!\d)(\d++)\s*+\+", r"\1 or more", text)
    text = re.sub(r"[^\w\s]", " ", text)
    words = [NUMBER_WORDS.get(word, word) for word in text.split()]
    return " ".join(word for word in words if word not in FILLER)


def read_conditions(text: str) -> Conditions | Said:
    """``30 beside or stripe 12`` -> Conditions; a string says what is wrong."""
    text = _MORE_THAN.sub(lambda m: str(int(m.group(1)) + 1), text)
    text = _ORDINAL.sub(r"\1", _AT_LEAST.sub(" ", text))
    beside: int | None = None
    stripe: int | None = None
    for part in (p.split() for p in re.split(r"\bor\b", text)):
        words = [w for w in part if w not in ("on", "at", "reaches", "reach", "knight", "gets", "get", "cards")]
        numbers = [int(w) for w in words if w.isdecimal()]
        kinds = {w for w in words if not w.isdecimal()}
        if len(numbers) != 1 or len(kinds) != 1:
            return say(
                "could not read {part} as a condition like {beside} or {stripe}",
                part=repr(" ".join(part)),
                beside="'30 beside'",
                stripe="'stripe 12'",
            )
        kind = kinds.pop()
        if kind in ("beside", "besides"):
            if beside is not None:
                return say("two numbers of gems beside; give one")
            beside = numbers[0]
        elif kind in ("stripe", "stripes", "st"):
            if stripe is not None:
                return say("two stripes; give one")
            stripe = numbers[0]
        else:
            return say(
                "could not read {kind}; say {beside} or {stripe}",
                kind=repr(kind),
                beside="'30 beside'",
                stripe="'stripe 12'",
            )
    if beside is not None and beside < 1:
        return say("the gems beside must be at least 1")
    if stripe is not None and not 1 <= stripe <= STRIPES:
        return say("stripes run from 1 to {stripes}", stripes=STRIPES)
    return Conditions(beside=beside, stripe=stripe)


def read_run_order(text: str) -> Conditions | Said | None:
    """A standing run order (``reveal until 30 beside``, ``hold at stripe 12``, ``reveal 3 then hold``), an
    error string, or None when the line is not a run order at all."""
    count = _RUN_COUNT.match(text)
    if count:
        reveals = int(count.group("count"))
        if not 1 <= reveals <= 51:
            return say("{order}: N must be 1 to 51", order="reveal N then hold")
        return Conditions(reveals=reveals)
    until = _RUN_UNTIL.match(text) or _HOLD_AT.match(text)
    if until:
        return read_conditions(until.group("conditions"))
    return None


def read_offer(text: str) -> int | Said | None:
    """A standing take-over offer: the gems beside from which to take over; error string; None if not one."""
    if text in _ALWAYS:
        return 0
    match = _OFFER.match(text)
    if match is None:
        return None
    conditions = read_conditions(match.group("condition"))
    if isinstance(conditions, Said):
        return say(
            "{problem} (a standing offer is {offer})", problem=conditions, offer="'take over if 25 or more beside'"
        )
    if conditions.beside is None or conditions.stripe is not None:
        return say("a standing offer names gems beside the knight: {offer}", offer="'take over if 25 or more beside'")
    return conditions.beside


def read_withdrawal(text: str) -> tuple[bool, bool] | None:
    """``withdraw`` (both), ``withdraw offer``, ``withdraw run``: (run, offer); None if not a withdrawal."""
    words = text.split()
    if not words or words[0] not in WITHDRAW_WORDS:
        return None
    rest = {word for word in words[1:] if not word.isdecimal()}
    if words[0] == "no" and not rest & {"standing", "orders", "order"}:
        return None
    if rest <= ALL_WORDS:
        return (True, True)
    rest -= ALL_WORDS
    if rest <= OFFER_WORDS | {"if", "beside", "or", "more"} and rest & {"take", "offer", "offers", "takeover"}:
        return (False, True)
    if rest <= RUN_WORDS | {"then", "at"}:
        return (True, False)
    return None
