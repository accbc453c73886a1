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
