"""What the engine-words tests read out of a message's data (adjudicator/words.py, bot/core/basics/engine_words.py).

A mail's stored data holds each text an engine said as a *form* (``{"said": pattern, "values", "text"}``);
a *sentence* is a form whose pattern is one of the catalogues' messages (``bot/locale/referee.pot``): words
a translator translated, not a name or an option's ``name = value`` line kept as a form to be laid out, nor
a pattern of no words of its own (:func:`adjudicator.words.joined`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import lru_cache
from typing import Any

import wcwidth
from babel.messages.pofile import read_po

from bot.core.basics.engine_words import is_form
from bot.core.basics.translation import LOCALE_DIR
from bot.core.messaging.rendering import READER_LANGUAGE
from tests.support.rendering import Row


@lru_cache(maxsize=1)
def marked() -> frozenset[str]:
    """The ids of the catalogues' messages (``referee.pot``)."""
    with (LOCALE_DIR / "referee.pot").open("rb") as source:
        return frozenset(str(m.id) for m in read_po(source) if m.id and isinstance(m.id, str))


def forms(data: Any, *, inner: bool = True) -> Iterator[dict[str, Any]]:
    """Every form in ``data`` at any depth; with ``inner``, the forms among a form's values too."""
    if is_form(data):
        yield data
        if inner:
            yield from forms(data["values"], inner=inner)
    elif isinstance(data, dict):
        for value in data.values():
            yield from forms(value, inner=inner)
    elif isinstance(data, list | tuple):
        for value in data:
            yield from forms(value, inner=inner)


def sentences(data: Any, *, inner: bool = True) -> Iterator[dict[str, Any]]:
    """The forms in ``data`` (see :func:`forms`) whose pattern the catalogues translate."""
    return (form for form in forms(data, inner=inner) if form["said"] in marked())


def english(data: Any) -> Any:
    """``data`` with every form replaced by its English text: what the engine's words were before forms."""
    if is_form(data):
        return data["text"]
    if isinstance(data, dict):
        return {key: english(value) for key, value in data.items()}
    if isinstance(data, list | tuple):
        return [english(value) for value in data]
    return data


def flat(text: str) -> str:
    """``text`` with every run of white space one space (a wrapped line read as one)."""
    return " ".join(text.split())


def by_reader(rows: Iterable[Row], readers: Iterable[str]) -> dict[str, list[Row]]:
    """The mails of each of ``readers`` (``ann@example.org`` is Ann's), in the order they were queued."""
    found: dict[str, list[Row]] = {who: [] for who in readers}
    for row in rows:
        who = row.row.recipient.split("@")[0].capitalize()
        if who in found:
            found[who].append(row)
    return found


def patterns_said(rows: Iterable[Row]) -> set[str]:
    """The patterns of every sentence said in ``rows``' data."""
    return {form["said"] for row in rows for form in sentences(row.row.data)}


def check_patterns_said(mails: dict[str, list[Row]], patterns: set[str], must_fire: set[str]) -> None:
    """Every pattern each reader's mails said is one of the game's ``patterns``, and the scripted play made
    each of ``must_fire`` (themselves the game's) fire for every reader."""
    assert patterns >= must_fire, must_fire - patterns
    for who, rows in mails.items():
        said = patterns_said(rows)
        assert said <= patterns, (who, said - patterns)
        assert said >= must_fire, (who, must_fire - said)


def english_read(rows: Iterable[Row], language: str) -> list[str]:
    """What a reader of ``language`` reads in English (each sentence of a mail's data found in English in its
    body), and every line of theirs wider than 78 columns; asserts each mail is in ``language``."""
    english: list[str] = []
    for row in rows:
        assert row.row.data.get(READER_LANGUAGE) == language, row.row.template
        body = flat(row.body)
        english += [f"{row.row.template}: {form['text'][:70]!r}" for form in sentences(row.row.data)
                    if flat(form["text"]) in body]  # fmt: skip
        english += [f"{row.row.template}: {line}" for line in row.body.splitlines() if wcwidth.wcswidth(line) > 78]
    return sorted(set(english))
