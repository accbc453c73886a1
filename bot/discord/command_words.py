"""Slash commands' descriptions in the reader's language: a discord.py ``Translator`` over the catalogues.

Discord shows a command's and its options' descriptions in the language of the member's own client when
the synced tree carries their translations (``description_localizations``).  :class:`CommandWords` gives
them, at sync, from the referee's catalogues (:mod:`bot.core.basics.translation`) for every shipped
language, so a member whose Discord is in French reads what ``/orders`` and its options do in French
before they ever choose a language (``/language`` changes what the referee tells them, not Discord's
menus).  Names are never translated: command words and option names read the same in every language,
as orders do (a translated player and an English GM type the same ``/gm pause``); so are a fixed
choice's names (``press``: none, white, grey), while an autocomplete's are said in the member's language
(:mod:`bot.discord.choices`).

Where the words come from:

* a declared command's description is its declaration's ``summary``, marked ``mark("command", ...)``
  (:mod:`bot.core.model.commands`), capitalised and cut to Discord's 100 characters after translation
  (:func:`summary_description` carries the summary in the ``locale_str``);
* every other description (a hand-written command's, an option's) is marked where it is written with
  :func:`slash_words`, which Babel extracts (``scripts/catalogues``).

A description with no translation is left to Discord's English (the translator answers None), never a
key; ``tests/discord/test_commands.py`` holds every synced description to a translation in each shipped
language (a new command's summary goes into the catalogues with it: the README's recipe).
"""

from __future__ import annotations

import gettext

import discord
from discord import app_commands

from bot.core.basics.translation import SOURCE_LANGUAGE, mark, translations
from bot.discord.understand import locale_language

DESCRIPTION_LIMIT = 100
"""Discord's longest description of a command or an option."""
SUMMARY = "command"
"""The catalogues' context of a declared command's summary."""
CONFIRMING = mark("slash command", "%(summary)s (asks to confirm)")
"""A GM subcommand that asks to confirm first (``/gm process``): its summary and that."""

_DESCRIPTIONS = frozenset(
    {
        app_commands.TranslationContextLocation.command_description,
        app_commands.TranslationContextLocation.group_description,
        app_commands.TranslationContextLocation.parameter_description,
    }
)
_ENGLISH = translations(SOURCE_LANGUAGE)


def slash_words(text: str) -> str:
    """``text`` itself: a slash command's or an option's description, marked for the catalogues (Babel's
    ``slash_words`` keyword) and said in a member's language by :class:`CommandWords`."""
    return text


def summary_description(summary: str, confirm: bool = False) -> app_commands.locale_str:
    """A declared command's description: ``summary`` capitalised (with "asks to confirm" when ``confirm``),
    cut to 100 characters; the ``locale_str`` keeps the summary, which :class:`CommandWords` translates."""
    return app_commands.locale_str(_described(summary, confirm, _ENGLISH), summary=summary, confirm=confirm)


def _described(summary: str, confirm: bool, spoken: gettext.NullTranslations) -> str:
    """The summary said, capitalised, in its pattern ("asks to confirm"); a summary too long for the pattern
    within 100 characters is cut (the pattern's words are kept)."""
    said = spoken.pgettext(SUMMARY, summary)
    pattern = spoken.pgettext("slash command", CONFIRMING) if confirm else "%(summary)s"
    room = DESCRIPTION_LIMIT - len(pattern % {"summary": ""})
    if len(said) > room:
        said = said[: room - 1] + "\u2026"
    text = pattern % {"summary": said}
    return text[:1].upper() + text[1:]


class CommandWords(app_commands.Translator):
    """The descriptions of the synced commands in every shipped language (see the module docstring)."""

    async def translate(
        self, string: app_commands.locale_str, locale: discord.Locale, context: app_commands.TranslationContextTypes
    ) -> str | None:
        """``string`` in ``locale``'s language, or None: a name, English, a language not shipped, or no
        translation (Discord then shows the English)."""
        code = locale_language(locale)
        if context.location not in _DESCRIPTIONS or code is None:
            return None
        spoken = translations(code)
        summary = string.extras.get("summary")
        if summary is not None:
            said = _described(summary, bool(string.extras.get("confirm")), spoken)
        else:
            said = spoken.gettext(string.message)
        return None if said == string.message else said
