"""The referee's words in the reader's language: gettext catalogues read with Babel.

English is the source: every marked string (``{% trans %}`` and ``_()`` in
``templates/``, ``_()`` from this module in Python) is its own English
translation.  French and German are the catalogues ``bot/locale/<code>/LC_MESSAGES/referee.po``,
extracted into ``bot/locale/referee.pot`` and merged by Babel's own tools (``scripts/catalogues``,
with ``babel.cfg``); they sit inside the ``bot`` package, so a wheel carries them.  A ``.po`` is
read with :func:`babel.messages.pofile.read_po` and compiled in memory (no ``.mo`` in git); a
message a catalogue lacks, or leaves fuzzy or empty, is said in English, never as a key.

The language of what is being rendered is a context variable (:func:`speaking`), set by
:func:`bot.core.messaging.rendering.render_message` from a copy's ``reader_language``, with
that language's translations beside it (looked up once a block, not once a string); the gettext
callables the templates use read them (:func:`gettext`, :func:`ngettext`).
Orders and command words are never marked: they read the same in every language.
"""

from __future__ import annotations

import gettext as _gettext
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache
from io import BytesIO
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

DOMAIN = "referee"
"""The catalogues' gettext domain (``referee.pot``, ``<code>/LC_MESSAGES/referee.po``)."""
LOCALE_DIR = Path(__file__).resolve().parent.parent.parent / "locale"
"""``bot/locale``: the template catalogue and one folder per shipped language."""
SOURCE_LANGUAGE = "en"
"""The language the marked strings are written in."""

_LANGUAGE: ContextVar[str] = ContextVar("language", default=SOURCE_LANGUAGE)
_IDENTITY = _gettext.NullTranslations()
"""English's translations: every message is its own."""
_SPOKEN: ContextVar[_gettext.NullTranslations] = ContextVar("translations", default=_IDENTITY)
"""The translations of the language being spoken (:func:`speaking` sets it with :data:`_LANGUAGE`)."""


def catalogue_path(code: str) -> Path:
    """Where language ``code``'s catalogue is (``bot/locale/fr/LC_MESSAGES/referee.po``)."""
    return LOCALE_DIR / code / "LC_MESSAGES" / f"{DOMAIN}.po"


def shipped() -> tuple[str, ...]:
    """The codes of the languages with a catalogue, sorted (English, the source, has none)."""
    return tuple(sorted(p.name for p in LOCALE_DIR.iterdir() if catalogue_path(p.name).is_file()))


@lru_cache(maxsize=8)
def translations(code: str) -> _gettext.NullTranslations:
    """Language ``code``'s translations, read once; English (and any language without a catalogue)
    is the identity.  Fuzzy and empty entries are left out, so they fall back to English."""
    path = catalogue_path(code)
    if code == SOURCE_LANGUAGE or not path.is_file():
        return _IDENTITY
    return compile_catalogue(path, code)


def compile_catalogue(path: Path, code: str) -> _gettext.GNUTranslations:
    """The ``.po`` at ``path`` (language ``code``) compiled in memory; its fuzzy and empty entries
    are left out, so that they are said in English."""
    with path.open("rb") as source:
        catalogue = read_po(source, locale=code, domain=DOMAIN)
    compiled = BytesIO()
    write_mo(compiled, catalogue, use_fuzzy=False)
    compiled.seek(0)
    return _gettext.GNUTranslations(compiled)


def language() -> str:
    """The code of the language being spoken now (``en`` unless :func:`speaking` says otherwise)."""
    return _LANGUAGE.get()


@contextmanager
def speaking(code: str | None) -> Iterator[str]:
    """Within the block, marked strings are said in ``code`` (None or ``en``: English)."""
    token = _LANGUAGE.set(code or SOURCE_LANGUAGE)
    spoken = _SPOKEN.set(translations(code or SOURCE_LANGUAGE))
    try:
        yield _LANGUAGE.get()
    finally:
        _SPOKEN.reset(spoken)
        _LANGUAGE.reset(token)


def gettext(message: str) -> str:
    """``message`` in the current language (itself when there is no translation)."""
    return _SPOKEN.get().gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The singular or plural of a message for ``n``, in the current language."""
    return _SPOKEN.get().ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    """``message`` in the current language, told apart from the same words elsewhere by ``context``."""
    return _SPOKEN.get().pgettext(context, message)


def npgettext(context: str, singular: str, plural: str, n: int) -> str:
    """:func:`ngettext` with a ``context``."""
    return _SPOKEN.get().npgettext(context, singular, plural, n)


def gettext_said(message: str, /, **variables: object) -> str:
    """The templates' ``gettext`` and ``_`` (jinja2's newstyle gettext): ``message`` in the current
    language with ``variables`` put in (``%(name)s``; ``%%`` is a percent sign)."""
    return _SPOKEN.get().gettext(message) % variables


def ngettext_said(singular: str, plural: str, n: int, /, **variables: object) -> str:
    """The templates' ``ngettext`` (newstyle): ``num`` is ``n`` unless given."""
    variables.setdefault("num", n)
    return _SPOKEN.get().ngettext(singular, plural, n) % variables


def pgettext_said(context: str, message: str, /, **variables: object) -> str:
    """The templates' ``pgettext`` (newstyle): ``context`` is the message's context unless given."""
    variables.setdefault("context", context)
    return _SPOKEN.get().pgettext(context, message) % variables


def npgettext_said(context: str, singular: str, plural: str, n: int, /, **variables: object) -> str:
    """The templates' ``npgettext`` (newstyle)."""
    variables.setdefault("context", context)
    variables.setdefault("num", n)
    return _SPOKEN.get().npgettext(context, singular, plural, n) % variables


def mark(context: str, message: str) -> str:
    """``message`` itself, marked for the catalogues with its ``context``: a name kept in a table and
    translated where it is said (``pgettext(context, message)``)."""
    return message


_ = gettext
