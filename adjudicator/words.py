"""Words an engine says to players, kept with the pattern they were said from.

An engine writes to players in English: event lines, phase titles, notes on how orders were read,
the reasons a line was refused, the words it puts into a report.  A text a reader may want in their
own language is made with :func:`say`: a :class:`Said`, which *is* the English text (a ``str``: equal
to it, printed as it, written by ``json`` as it, so records, digests and replays are unchanged) and
remembers the ``pattern`` it was made from and the ``values`` put into it.  The bot says it again in
the reader's language (``bot/core/basics/engine_words.py``): its catalogues hold each pattern's
translations, extracted from the ``say(...)`` calls by Babel (``babel.cfg``, keyword ``say``).

A pattern is a literal string with ``str.format``'s named fields (``"{seat} tripped on square
{square}"``); a translation has the same fields.  A value may itself be a :class:`Said` (a word said
in the reader's language inside the sentence).  Names, numbers and orders are values, never
patterns: they read the same in every language.  The engines stay pure: this module is the standard
library's ``str`` and nothing else.
"""

from __future__ import annotations

from collections.abc import Mapping


class Said(str):
    """English words an engine said, which remember how: ``pattern`` and ``values`` (see the module)."""

    pattern: str
    values: Mapping[str, object]

    def __new__(cls, pattern: str, values: Mapping[str, object]) -> Said:
        said = super().__new__(cls, pattern.format_map(values) if values else pattern)
        said.pattern = pattern
        said.values = dict(values)
        return said

    def __reduce__(self) -> tuple[object, ...]:
        return (Said, (self.pattern, self.values))


def say(pattern: str, /, **values: object) -> Said:
    """``pattern`` with ``values`` put into its named fields: the English text, kept with both."""
    return Said(pattern, values)
