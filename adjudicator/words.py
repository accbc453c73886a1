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

Two shapes are made of other texts: :func:`joined` (texts one after another, each said in the reader's
language) and a paragraph (:func:`adjudicator.options.paragraph`: a help text wrapped to 78 columns with
its indents, ``layout``; said again, the translation is wrapped the same way, so it fits as the English
does).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence


class Said(str):
    """English words an engine said, which remember how: ``pattern`` and ``values`` (see the module)."""

    pattern: str
    values: Mapping[str, object]
    layout: tuple[str, str] | None = None
    """A paragraph's first and other lines' indents, its lines broken by
    :func:`adjudicator.options.wrap_without_widow`; None: the lines are as the pattern writes them."""

    def __new__(cls, pattern: str, values: Mapping[str, object], text: str | None = None) -> Said:
        said = super().__new__(cls, text if text is not None else pattern.format_map(values) if values else pattern)
        said.pattern = pattern
        said.values = dict(values)
        return said

    def __reduce__(self) -> tuple[object, ...]:
        return (Said, (self.pattern, self.values, str(self)), {"layout": self.layout})


def say(pattern: str, /, **values: object) -> Said:
    """``pattern`` with ``values`` put into its named fields: the English text, kept with both."""
    return Said(pattern, values)


def _literal(text: str) -> str:
    """``text`` as a pattern that says itself (its braces doubled)."""
    return text.replace("{", "{{").replace("}", "}}")


def joined(separator: str, texts: Sequence[str]) -> Said:
    """``texts`` one after another with ``separator`` between them, each said in the reader's language (a
    plain ``str`` among them as it is)."""
    fields = {f"t{i}": text for i, text in enumerate(texts)}
    return Said(_literal(separator).join("{" + name + "}" for name in fields), fields)


def laid_out(words: str, text: str, layout: tuple[str, str]) -> Said:
    """``words`` (said, or a plain ``str``) whose English reads ``text``, laid out by ``layout`` (see
    :attr:`Said.layout`)."""
    pattern, values = (words.pattern, words.values) if isinstance(words, Said) else (_literal(words), {})
    said = Said(pattern, values, text)
    said.layout = layout
    return said
