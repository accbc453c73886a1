"""Slash commands' descriptions in every shipped language (bot/discord/command_words.py), and the fake
Discord's refusal of what the real one refuses in a synced tree (tests/support/fake_discord.py).

The synced tree itself, every description translated and no name, is checked against the fake Discord in
tests/discord/test_commands.py."""

from __future__ import annotations

import asyncio

import discord
from discord import app_commands

from bot.core.model import commands as c
from bot.discord.command_words import CommandWords, slash_words, summary_description
from bot.discord.declared_commands import description_of
from tests.support.fake_discord import _command_errors, _size

Location = app_commands.TranslationContextLocation


def _said(string: app_commands.locale_str | str, locale: discord.Locale, where: Location = Location.command_description
          ) -> str | None:  # fmt: skip
    text = string if isinstance(string, app_commands.locale_str) else app_commands.locale_str(string)
    return asyncio.run(CommandWords().translate(text, locale, app_commands.TranslationContext(where, None)))


def test_a_declared_commands_summary_is_said_capitalised_in_french_and_german():
    assert description_of(c.ShowStatus).message == "Phase, turn, deadline, who owes orders and who has sent them"
    assert _said(description_of(c.ShowStatus), discord.Locale.french) == (
        "Phase, tour, échéance, qui doit des ordres et qui les a envoyés"
    )
    assert (
        _said(description_of(c.JoinGame), discord.Locale.german) == "Einen Platz in einer Partie vor ihrem Start nehmen"
    )
    confirming = description_of(c.ProcessNow, confirm=True)
    assert confirming.message.endswith(" (asks to confirm)")
    french = _said(confirming, discord.Locale.french)
    assert (
        french is not None
        and french.startswith("Résoudre le tour ouvert")
        and french.endswith(" (demande confirmation)")
    )


def test_an_options_description_is_said_from_the_catalogue():
    assert _said(slash_words("Your game"), discord.Locale.french, Location.parameter_description) == "Votre partie"
    assert (
        _said("Game master commands", discord.Locale.german, Location.group_description) == "Befehle der Spielleitung"
    )


def test_names_english_languages_not_shipped_and_words_no_catalogue_has_are_left_to_discord():
    assert _said("orders", discord.Locale.french, Location.command_name) is None  # command words never change
    assert _said("game", discord.Locale.german, Location.parameter_name) is None
    assert _said("Your game", discord.Locale.british_english, Location.parameter_description) is None
    assert _said("Your game", discord.Locale.japanese, Location.parameter_description) is None
    assert _said("Words no catalogue holds", discord.Locale.french) is None  # Discord shows the English
    assert _said(summary_description("a summary no catalogue holds"), discord.Locale.french) is None


def test_a_summary_is_cut_to_discords_hundred_characters_in_every_language():
    long = summary_description("x" * 150)
    assert len(long.message) == 100 and long.message.endswith("\u2026")


def test_the_fake_discord_refuses_what_discord_refuses_in_a_synced_command():
    fine = {"name": "orders", "description": "Send your orders", "type": 1,
            "description_localizations": {"fr": "Envoyer vos ordres"},
            "options": [{"name": "game", "description": "Your game", "type": 3}]}  # fmt: skip
    assert _command_errors(fine, "orders") == []
    too_long = {**fine, "description_localizations": {"de": "x" * 101}}
    assert _command_errors(too_long, "orders") and "101 characters" in _command_errors(too_long, "orders")[0]
    option = {**fine, "options": [{"name": "game", "description": "y" * 101, "type": 3}]}
    assert _command_errors(option, "orders")
    assert _command_errors({**fine, "name_localizations": {"fr": "Ordres"}}, "orders")  # not lower case
    assert _command_errors({**fine, "description": ""}, "orders")


def test_a_commands_size_counts_each_field_by_its_longest_translation():
    command = {"name": "gm", "description": "Game master commands", "description_localizations": {"fr": "Commandes du maître du jeu"},
               "options": [{"name": "action", "description": "What", "choices": [{"name": "offer", "value": "offer"}]}]}  # fmt: skip
    assert _size(command) == len("gm") + len("Commandes du maître du jeu") + len("action") + len("What") + 10
