"""What an engine said, said again in the reader's language.

The engines speak English and keep, with each text a reader may want in another language, the pattern it
was made from and the values put into it (:class:`adjudicator.words.Said`).  This module is the one rule
for the rest of the journey:

- **Kept** (:func:`kept`): where engine words enter stored data (a message's data, a turn's record), each
  :class:`~adjudicator.words.Said` becomes its *form*, plain JSON: ``{"said": pattern, "values": {...},
  "text": english}``, and ``"layout": [first, rest]`` for a paragraph (its indents: the translation is
  wrapped as :func:`adjudicator.options.wrap_without_widow` wrapped the English).  A ``Said`` written by
  ``json`` as it is would keep only the English.
- **Spoken** (:func:`spoken`): where data is rendered (:func:`bot.core.messaging.rendering.render`, so every
  mail, DM, web page and report part), each form and each live ``Said`` becomes the text in the language
  being spoken (:func:`bot.core.basics.translation.speaking`): the pattern's translation from the
  catalogues with the values (themselves spoken) put in.  Templates see strings, as before.
- A pattern no catalogue translates is said with its values said in the language (a pattern of no words
  of its own, such as :func:`adjudicator.words.joined`'s, is one); a translation whose fields do not
  match, or a form damaged in storage, is said in English (the form's ``text``), never as a pattern or a
  key.

Plain strings are left as they are: a name or an order is never looked up.

The bot's own reasons travel the same way: an exception raised with a :class:`Said` (``raise
TimeInputError(say("..."))``) is shown by :func:`reason`, which keeps the pattern (``str(error)`` would
keep only the English).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from adjudicator.options import wrap_without_widow
from adjudicator.words import Said
from bot.core.basics.translation import gettext

_FORM_KEYS = frozenset(("said", "values", "text"))
_LAID_OUT_KEYS = _FORM_KEYS | {"layout"}


class KeptMapping(dict[Any, Any]):
    """A mapping :func:`kept` gave: nothing in it is a :class:`Said` any more, so :func:`kept` gives it back
    as it is, without walking it again (a turn's report, shared by its nine copies, is walked once).
    A plain ``dict`` to everything else (``json``, the database, the templates); never a form."""

    __slots__ = ()


def kept(data: Any) -> Any:
    """``data`` with every :class:`Said` in it (at any depth) replaced by its form; a ``dict`` in it comes
    back as a :class:`KeptMapping` (a shallow copy when nothing in it changed), anything else is ``data``
    itself when it holds no :class:`Said` (only what changes is copied)."""
    kind = type(data)
    if kind is str or kind is int or data is None or kind is bool or kind is float or kind is KeptMapping:
        return data
    if kind is Said:
        form = {"said": data.pattern, "values": {k: kept(v) for k, v in data.values.items()}, "text": str(data)}
        return form if data.layout is None else {**form, "layout": list(data.layout)}
    rebuilt = _rebuilt(data, kept)
    if type(rebuilt) is dict and not is_form(rebuilt):  # a form stays a plain dict: spoken() knows it by that
        return KeptMapping(rebuilt)
    return rebuilt


def reason(error: BaseException) -> str:
    """What ``error`` tells a person, kept with its pattern: its one argument when that is a :class:`Said`
    (said again in the reader's language when rendered), else ``str(error)`` (English as it was)."""
    said = error.args[0] if len(error.args) == 1 else None
    return said if isinstance(said, Said) else str(error)


def is_form(value: object) -> bool:
    """Whether ``value`` is a kept form of engine words (see :func:`kept`)."""
    return isinstance(value, dict) and (value.keys() == _FORM_KEYS or value.keys() == _LAID_OUT_KEYS)


def spoken(data: Any) -> Any:
    """``data`` with every form and every :class:`Said` in it (at any depth) said in the current language;
    ``data`` itself, not a copy, when it holds none (only what changes is copied)."""
    kind = type(data)
    if kind in _PLAIN:
        return data
    if kind is Said:
        return said_text(data)
    if kind is dict and "said" in data and is_form(data):
        return said_text(data)
    return _rebuilt(data, spoken)


_PLAIN = frozenset((str, int, float, bool, type(None)))
"""The types of a value :func:`kept` and :func:`spoken` give back as it is (a :class:`Said` is a ``str`` of
another type)."""


def _rebuilt(data: Any, each: Callable[[Any], Any]) -> Any:
    """``data`` (a mapping, a list or a tuple; anything else as it is) with ``each`` applied to every value
    but a plain one (:data:`_PLAIN`, which ``each`` gives back as it is), copied only when a value changes.

    Every message's data is walked here as it is rendered, a turn's report with its board too: a plain
    value (most of them) is looked at in the loop, without a call (half the time of a report's walk)."""
    kind = type(data)
    if kind is dict or kind is KeptMapping or isinstance(data, Mapping):
        copy: dict[Any, Any] | None = None
        for key, value in data.items():
            if type(value) in _PLAIN:
                continue
            new = each(value)
            if new is not value:
                if copy is None:
                    copy = dict(data)
                copy[key] = new
        return data if copy is None else copy
    if kind is list or kind is tuple or isinstance(data, list | tuple):
        items: list[Any] | None = None
        for index, value in enumerate(data):
            if type(value) in _PLAIN:
                continue
            new = each(value)
            if new is not value:
                if items is None:
                    items = list(data)
                items[index] = new
        return data if items is None else items
    if isinstance(data, str):
        return each(data) if isinstance(data, Said) else data  # a str subclass of another kind: as it is
    return data


def said_text(value: object) -> str:
    """One text in the current language: a :class:`Said` or a form translated, anything else as it is."""
    if isinstance(value, Said):
        return _laid_out(_say(value.pattern, value.values, str(value)), str(value), value.layout)
    if is_form(value):
        form: Mapping[str, Any] = value  # type: ignore[assignment]
        english = str(form["text"])
        values, layout = form["values"], form.get("layout")
        if not isinstance(form["said"], str) or not isinstance(values, Mapping):
            return english
        if layout is not None and not (isinstance(layout, list) and len(layout) == 2):
            return english
        return _laid_out(_say(form["said"], values, english), english, layout)
    return str(value)


def _say(pattern: str, values: Mapping[str, Any], english: str) -> str:
    translated = gettext(pattern)
    if translated == pattern and not any(_words(value) for value in values.values()):
        return english  # English, or no translation and no words inside: the text as the engine said it
    try:
        return translated.format_map({key: said_text(value) if _words(value) else value
                                      for key, value in values.items()})  # fmt: skip
    except (KeyError, ValueError, IndexError, AttributeError, TypeError):
        return english  # a translation whose fields differ from the pattern's: English, not a broken line


def _laid_out(said: str, english: str, layout: Any) -> str:
    """``said`` wrapped as a paragraph of ``layout``'s indents (the English as the engine wrapped it)."""
    if layout is None or said == english:
        return said
    first, rest = (str(indent) for indent in layout)
    return "\n".join(wrap_without_widow(" ".join(said.split()), first, rest))


def _words(value: object) -> bool:
    return isinstance(value, Said) or is_form(value)
