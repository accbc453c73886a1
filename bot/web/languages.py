"""The language a page is shown in, chosen per request: the reader's choice, else their browser's, else English.

* ``?lang=fr`` (the footer's language links): that language, and a cookie (:data:`COOKIE`) that keeps
  it for the reader's next pages; a code that is not shipped is ignored (no cookie);
* else the cookie, when it names a shipped language;
* else the ``Accept-Language`` header, negotiated with Babel (:func:`babel.core.negotiate_locale`)
  against the shipped languages (:data:`bot.core.people.languages.LANGUAGES`), in the reader's order
  of preference (``q``); ``fr-CH`` finds French;
* else English.

A page's response says ``Vary: Accept-Language, Cookie`` (:data:`VARY`), and each language is a page of
its own in the server's cache (the language is part of the key), so no cache serves one reader's
language to another.  Reading a request costs a bounded amount: a header longer than
:data:`MAX_HEADER_CHARS` is read only that far, and at most :data:`MAX_RANGES` ranges of it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from babel.core import negotiate_locale

from bot.core.people.languages import ENGLISH, LANGUAGES

PARAMETER = "lang"
"""The query parameter of a reader's choice: ``?lang=de``."""
COOKIE = "lang"
"""The cookie that keeps a reader's choice (a language code; nothing else is kept)."""
COOKIE_SECONDS = 365 * 24 * 3600
VARY = "Accept-Language, Cookie"
"""The request headers a page's language depends on."""
MAX_HEADER_CHARS = 400
MAX_RANGES = 20


@dataclass(frozen=True)
class Choice:
    """The language of one response, and the cookie to set (the code) when the reader chose it just now."""

    language: str
    remember: str | None = None


def shipped(code: str | None) -> str | None:
    """``code`` when it is a shipped language's code (any case), else None."""
    if not code:
        return None
    lowered = code.strip().lower()
    return lowered if lowered in LANGUAGES else None


def preferred(header: str) -> list[str]:
    """The language ranges of an ``Accept-Language`` header, most preferred first (by ``q``, then in
    the order written); ``*`` and ranges with ``q=0`` (not acceptable) are left out."""
    ranges: list[tuple[float, int, str]] = []
    for position, part in enumerate(header[:MAX_HEADER_CHARS].split(",")[:MAX_RANGES]):
        tag, _, parameters = part.partition(";")
        tag = tag.strip()
        weight = 1.0
        name, _, value = parameters.strip().partition("=")
        if name.strip().lower() == "q":
            try:
                weight = float(value.strip())
            except ValueError:
                weight = 0.0
        if tag and tag != "*" and weight > 0:
            ranges.append((-weight, position, tag))
    return [tag for _, _, tag in sorted(ranges)]


def negotiated(header: str | None) -> str:
    """The shipped language an ``Accept-Language`` header prefers most, else English."""
    if not header:
        return ENGLISH
    found = negotiate_locale(preferred(header), list(LANGUAGES), sep="-", aliases={})
    return found.lower() if found else ENGLISH


def choose(query: Mapping[str, str], cookies: Mapping[str, str], accept_language: str | None) -> Choice:
    """The language of a response to a request with this query, these cookies and this header."""
    chosen = shipped(query.get(PARAMETER))
    if chosen is not None:
        return Choice(chosen, remember=chosen)
    kept = shipped(cookies.get(COOKIE))
    if kept is not None:
        return Choice(kept)
    return Choice(negotiated(accept_language))
