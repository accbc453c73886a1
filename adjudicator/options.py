"""A game's options: checked against the ones it declares, mapped to and from its dataclass, in help.

Every game keeps its resolved options in a frozen dataclass (``options.py``);
:func:`option_fields` and :func:`options_dict` are the two directions of that
mapping, :func:`is_whole` the check for a whole number (a bool is not one).
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import fields
from typing import Any

from adjudicator.api import JSON, OptionSpec, SetupError
from adjudicator.words import Said, joined, laid_out, say


def resolve_options(specs: Sequence[OptionSpec], given: Mapping[str, JSON]) -> dict[str, JSON]:
    """Defaults overlaid with ``given``; raise :class:`SetupError` for an unknown
    name, a value outside the declared choices, or a value of the wrong type."""
    by_name = {spec.name: spec for spec in specs}
    unknown = sorted(set(given) - set(by_name))
    if unknown:
        raise SetupError(f"unknown option(s) {', '.join(unknown)}; known: {', '.join(sorted(by_name))}")
    resolved: dict[str, JSON] = {spec.name: spec.default for spec in specs}
    for name, value in given.items():
        spec = by_name[name]
        if spec.choices and value not in spec.choices:
            choices = ", ".join(option_text(c) for c in spec.choices)
            raise SetupError(f"option {name} must be one of {choices}, not {option_text(value)}")
        if spec.default is not None and not _same_type(spec.default, value):
            raise SetupError(f"option {name} must be {_kind_of(spec.default)}, not {option_text(value)}")
        resolved[name] = value
    return resolved


def option_text(value: JSON) -> str:
    """An option's value as a game master writes it in ``OPTION <game> <name> <value>`` (read as JSON, else
    as the words given): ``true``, ``false``, ``null``, ``3``, ``[1, 2]``; a text as it is.  Never Python's
    words (``True``, ``None``) or quotes: what a reader sees can be typed back."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def _kind_of(default: JSON) -> str:
    """What an option of this default takes, in words (an error to a game master)."""
    if isinstance(default, bool):
        return "true or false"
    if isinstance(default, int | float):
        return "a number"
    if isinstance(default, str):
        return "a word or a text"
    return "a list" if isinstance(default, list) else "a table"


def _same_type(default: JSON, value: JSON) -> bool:
    if isinstance(default, bool) or isinstance(value, bool):
        return isinstance(default, bool) and isinstance(value, bool)
    if isinstance(default, (int, float)):
        return isinstance(value, (int, float))
    return isinstance(value, type(default))


HELP_WIDTH = 78
"""Every line of a game's help text fits in this many columns (the width of a mail)."""


def describe_options(specs: Sequence[OptionSpec], values: Mapping[str, JSON] | None = None) -> Said:
    """The options as help text, one paragraph each, wrapped to :data:`HELP_WIDTH` (in a reader's
    language too: each is a :func:`paragraph`).

    With ``values`` (a game's resolved options) each option shows the game's
    setting, and its default when that differs; without, each shows its default.
    """
    paragraphs: list[str] = []
    for spec in specs:
        head: str
        if values is None:
            head = f"{spec.name} = {option_text(spec.default)}"
            if spec.choices:
                head = say(
                    "{setting} (one of: {choices})",
                    setting=head,
                    choices=", ".join(option_text(c) for c in spec.choices),
                )
        else:
            value = values.get(spec.name, spec.default)
            head = f"{spec.name} = {option_text(value)}"
            if value != spec.default:
                head = say("{setting} (default {default})", setting=head, default=option_text(spec.default))
        paragraphs += [paragraph(head, "  ", "      "), paragraph(spec.help, "      ", "      ")]
    return joined("\n", paragraphs)


def paragraph(words: str, first: str, rest: str) -> Said:
    """``words`` wrapped by :func:`wrap_without_widow` (``first`` and ``rest`` indent its lines); said in a
    reader's language, the translation is wrapped the same way (:attr:`adjudicator.words.Said.layout`)."""
    return laid_out(words, "\n".join(wrap_without_widow(words, first, rest)), (first, rest))


_NARROWEST = HELP_WIDTH // 2
"""The narrowest width :func:`wrap_without_widow` tries before it gives up on a lone last word."""


def wrap_without_widow(text: str, first: str, rest: str) -> list[str]:
    """``text`` wrapped within :data:`HELP_WIDTH` (``first`` and ``rest`` indent its lines), never
    leaving one word alone on the last line.

    A lone last word reads as a stray (``      wiped.``); the paragraph is wrapped a column narrower
    each time until its last line holds two words.  A text of one word, or one that cannot be
    wrapped so down to half the width, is wrapped at the full width.
    """
    widest = textwrap.wrap(text, HELP_WIDTH, initial_indent=first, subsequent_indent=rest)
    for width in range(HELP_WIDTH, _NARROWEST, -1):
        lines = textwrap.wrap(text, width, initial_indent=first, subsequent_indent=rest)
        if len(lines) < 2 or len(lines[-1].split()) > 1:
            return lines
    return widest


def help_with_options(text: str, specs: Sequence[OptionSpec], values: Mapping[str, JSON] | None = None) -> Said:
    """A game's help ``text`` followed by its options (what ``GameRules.help_text`` returns):
    one game's settings when ``values`` are its options, else the defaults; said, so that a reader hears
    the help (when ``text`` is said), the heading and each option's paragraph in their language."""
    options = describe_options(specs, values)
    if values is None:
        return say("{rules}\nOptions and their defaults:\n{options}\n", rules=text, options=options)
    return say("{rules}\nThis game's options:\n{options}\n", rules=text, options=options)


def option_fields(cls: Any, values: Mapping[str, JSON]) -> dict[str, JSON]:
    """The entries of ``values`` that name a field of the options dataclass ``cls``."""
    names = {field.name for field in fields(cls)}
    return {name: value for name, value in values.items() if name in names}


def options_dict(options: Any) -> dict[str, JSON]:
    """Every field of an options dataclass instance, by name, as stored."""
    return {field.name: getattr(options, field.name) for field in fields(options)}


def is_whole(value: JSON) -> bool:
    """True for an int that is not a bool (JSON true is not the number 1)."""
    return isinstance(value, int) and not isinstance(value, bool)
