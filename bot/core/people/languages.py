"""The languages a person can be told in (``LANGUAGE fr``), and how a name for one is read.

English is the referee's own language; French and German are shipped as complete catalogues.  A
person's choice is stored as its code (``players.language``); a game's GM may set a default for its
players who chose none (``games.language``).  Orders and command words are the same in every language.
"""

from __future__ import annotations

from adjudicator.words import say

ENGLISH = "en"
LANGUAGES: dict[str, str] = {"en": "English", "fr": "Français", "de": "Deutsch"}
"""Each shipped language's code and its name in itself, English first."""

_NAMES: dict[str, str] = {
    "english": "en", "anglais": "en", "englisch": "en",
    "french": "fr", "francais": "fr", "français": "fr", "franzosisch": "fr", "französisch": "fr",
    "german": "de", "deutsch": "de", "allemand": "de",
}  # fmt: skip


class UnknownLanguage(ValueError):
    """A language name or code that is not shipped; the message lists those that are."""


def parse_language(text: str) -> str:
    """The code of the shipped language ``text`` names: a code (``fr``, ``FR``), a locale (``fr-FR``,
    ``de_AT``) or a name in English or in itself (``French``, ``Deutsch``).

    Raises :class:`UnknownLanguage` saying which languages there are."""
    cleaned = text.strip().lower()
    code = cleaned.replace("_", "-").split("-", 1)[0]
    if code in LANGUAGES:
        return code
    if cleaned in _NAMES:
        return _NAMES[cleaned]
    raise UnknownLanguage(
        say("no language {given} here; there are {languages}", given=repr(text.strip()), languages=available())
    )


def available() -> str:
    """The shipped languages as a person reads them: ``en (English), fr (Français), de (Deutsch)``."""
    return ", ".join(f"{code} ({name})" for code, name in LANGUAGES.items())


def language_of(player_language: str | None, game_language: str | None = None) -> str:
    """The language a person is told in: their own choice, else their game's default, else English."""
    return player_language or game_language or ENGLISH
