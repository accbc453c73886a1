"""A person's digest setting (``DIGEST DAILY 08:00`` / ``DIGEST TURN`` / ``DIGEST OFF``), as read and stored.

``DAILY HH:MM``: press, notices and reminders are gathered into one mail a day, sent at that time on
the person's clock (their zone, ``players.time_zone``; UTC without one); ``DAILY`` alone is 08:00.
``TURN``: one mail per turn per game, when the turn ends.  ``OFF`` (None): each is sent on its own.
Reports and replies are never gathered.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import time

from adjudicator.words import say
from bot.core.basics import linear
from bot.core.basics.durations import TimeInputError

DAILY = "DAILY"
TURN = "TURN"
OFF = "OFF"
DEFAULT_TIME = time(8, 0)
FORM = say("DIGEST DAILY (at 08:00), DIGEST DAILY 18:30 (on a 24-hour clock in your zone), DIGEST TURN or DIGEST OFF")
_CLOCK = linear.compile(r"^([01]?[0-9]|2[0-3])[:.h]?([0-5][0-9])$")


@dataclass(frozen=True)
class Digest:
    """A digest setting: ``mode`` is :data:`DAILY` (with ``at``, a wall-clock time) or :data:`TURN`."""

    mode: str
    at: time | None = None

    def __str__(self) -> str:
        return f"{DAILY} {self.at:%H:%M}" if self.mode == DAILY and self.at is not None else self.mode


def parse_digest(text: str) -> Digest | None:
    """``DAILY [HH:MM]``, ``TURN`` or ``OFF`` (any case) as a :class:`Digest`, OFF as None; also reads
    what :class:`Digest` stores (``DAILY 08:00``).  Raises :class:`~bot.core.basics.durations.TimeInputError`
    saying the form for anything else."""
    words = text.strip().upper().split()
    if words == [OFF]:
        return None
    if words == [TURN]:
        return Digest(TURN)
    if words and words[0] == DAILY and len(words) <= 2:
        if len(words) == 1:
            return Digest(DAILY, DEFAULT_TIME)
        found = _CLOCK.match(words[1])
        if found is not None:
            return Digest(DAILY, time(int(found.group(1)), int(found.group(2))))
    raise TimeInputError(say("write the digest as {form}", form=FORM))


def stored_digest(stored: str | None) -> Digest | None:
    """The :class:`Digest` of a stored ``players.digest``; None for none or one that no longer reads."""
    if not stored:
        return None
    try:
        return parse_digest(stored)
    except TimeInputError:
        return None
