"""Splitting a player's message into the lines and parts the order parsers read.

A line ends at any line separator ``str.splitlines`` knows (``\\n``, ``\\r\\n``,
a lone ``\\r`` from old mail programs, ``\\u2028``, form feed ...), so a
message reads the same whatever client wrote it.  Blank lines and the spaces
around each line are dropped.
"""

from __future__ import annotations

import re


def order_lines(text: str) -> list[str]:
    """The non-blank lines of ``text``, stripped."""
    return [line.strip() for line in text.splitlines() if line.strip()]


def order_parts(text: str, separators: str = ";") -> list[str]:
    """The non-blank parts of ``text``: its lines, each split again at any of ``separators``."""
    split = re.compile(f"[{re.escape(separators)}]")
    return [part.strip() for line in order_lines(text) for part in split.split(line) if part.strip()]


def tight(text: str, marks: str, mark: str) -> str:
    """``text`` with each of ``marks`` written ``mark``, without the spaces around it (``25 = 4`` is
    ``25:4``): what ``re.sub(r"\\s*[:=]\\s*", ":", text)`` gives, in code, as that pattern is tried at every
    space of a run of spaces (quadratic in the run)."""
    for other in marks:
        text = text.replace(other, mark)
    parts = text.split(mark)
    if len(parts) == 1:
        return text
    return mark.join([parts[0].rstrip(), *(part.strip() for part in parts[1:-1]), parts[-1].lstrip()])


def a_or_an(number: int) -> str:
    """The article of ``number`` as it is read aloud: "an 8", "an 11", "an 18", "an 80",
    "an 800", but "a 7", "a 12", "a 60" and "a -2" (minus two)."""
    digits = str(number)
    if digits.startswith("8"):
        return "an"
    if digits[:2] in ("11", "18") and len(digits) % 3 == 2:  # eleven, eighteen (thousand, million)
        return "an"
    return "a"
