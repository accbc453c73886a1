"""The bounds of press between players: how long a message may be, how often a player may send one,
what its text may hold, and the short codes a reply names a message by.

Every cost a player can make the referee pay (mail to the other seats) is
bounded here, and every bound is a refusal with a clear answer, never a
message cut short: :mod:`bot.core.commands.press` checks them before anything
is sent.  What a text may hold is the rule of every free text
(:func:`bot.core.basics.free_text.clean_text`, applied by the pipeline as the
command enters; named here for press's own checks).
"""

from __future__ import annotations

import secrets

from bot.core.basics import linear
from bot.core.basics.free_text import clean_text as clean_text

MAX_PRESS_CHARS = 4_000
"""The longest press text, in characters: a long letter, not a flood (a longer one is refused, nothing sent)."""
MAX_PRESS_LINES = 100
"""The most lines a press text may have (10,000 one-letter lines are as much a flood as 10,000 letters)."""
PRESS_PER_HOUR = 6
"""Press messages (sent or replies) a player may send in one game in any hour: a conversation, not a stream."""
PRESS_PER_DAY = 30
"""Press messages a player may send in one game in any 24 hours: each is mailed to its recipients."""
MAX_RECIPIENTS_NAMED = 20
"""The most seats one ``TO`` may name (no game has more seats): a longer list is refused unread."""

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
"""The letters of a press code: no 0/O or 1/I, so a code read off a screen is typed right."""
CODE_LENGTH = 4
"""A code names a message within its game only, and only a recipient of the message may use it, so four
letters (a million codes) leave nothing to guess: a wrong code and someone else's code get the same answer."""
_CODE = linear.compile(rf"[{CODE_ALPHABET}]{{{CODE_LENGTH}}}")


def new_code() -> str:
    """A fresh random code (the caller makes sure its game has no message with it yet)."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def read_code(text: str) -> str | None:
    """``text`` as a press code (any case, surrounding spaces and brackets ignored), or None."""
    candidate = text.strip().strip("[]").upper()
    return candidate if _CODE.fullmatch(candidate) else None


def too_big(text: str) -> tuple[str, int] | None:
    """("characters", n) or ("lines", n) when ``text`` is over a bound, else None."""
    if len(text) > MAX_PRESS_CHARS:
        return "characters", len(text)
    lines = text.count("\n") + 1
    if lines > MAX_PRESS_LINES:
        return "lines", lines
    return None
