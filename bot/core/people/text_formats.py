"""The forms a person can be told in (``FORMAT PLAIN`` / ``FORMAT TABLES``).

``tables`` (the default, stored as None) is the fixed-width form: tables, drawn boards.  ``plain`` says
the same facts in the same order as sentences and lists, which a screen reader follows line by line.
"""

from __future__ import annotations

from adjudicator.words import say

TABLES = "tables"
PLAIN = "plain"
FORMATS = (TABLES, PLAIN)


class UnknownFormat(ValueError):
    """A form that is not one of :data:`FORMATS`."""


def parse_format(text: str) -> str:
    """``PLAIN`` or ``TABLES`` (any case; ``TABLE``, ``TEXT`` and ``SENTENCES`` read too) as its code."""
    cleaned = text.strip().lower()
    if cleaned in ("plain", "sentences", "text", "words"):
        return PLAIN
    if cleaned in ("tables", "table", "fixed", "default"):
        return TABLES
    raise UnknownFormat(
        say("no format {given}; write FORMAT PLAIN (sentences and lists) or FORMAT TABLES", given=repr(text.strip()))
    )


def stored_format(form: str) -> str | None:
    """What ``players.text_format`` holds for ``form``: None for the default (tables)."""
    return None if form == TABLES else form
