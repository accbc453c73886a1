"""Autocomplete: game names from live state, and the game kinds, filtered by what the player has typed (25 at most).

A choice's name (what the menu shows) is said in the language of the member's Discord (:func:`spoken`: a
game's title and status, "a kind of game"); its value (what the command gets) is the game's or kind's
name, the same in every language.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Coroutine
from typing import Any

import discord
from discord import app_commands

from adjudicator import registry
from bot.core.basics.engine_words import said_text
from bot.core.basics.translation import _, pgettext, speaking
from bot.core.games.stored import FINISHED, FORMING, PAUSED, RUNNING
from bot.core.views import GameViews
from bot.discord.understand import locale_language

MAX_CHOICES = 25
"""Discord shows at most 25 choices."""

JOINABLE = (FORMING,)
PLAYING = (RUNNING, PAUSED)
LISTED = (FORMING, RUNNING, PAUSED)
ANY = (FORMING, RUNNING, PAUSED, FINISHED)


async def game_choices(views: GameViews, typed: str, statuses: tuple[str, ...]) -> list[app_commands.Choice[str]]:
    """Games in ``statuses`` whose slug or title contains ``typed`` (prefix matches first)."""
    games = await asyncio.to_thread(views.games, statuses)
    needle = typed.strip().lower()
    matching = [
        g for g in games if needle in g.slug or needle in g.title.lower() or needle in said_text(g.title).lower()
    ]
    matching.sort(key=lambda g: (not g.slug.startswith(needle), g.slug))
    return [
        app_commands.Choice(name=f"{g.slug} ({said_text(g.title)}, {pgettext('status', g.status)})"[:100], value=g.slug)
        for g in matching[:MAX_CHOICES]
    ]


async def offered_game_choices(views: GameViews, typed: str) -> list[app_commands.Choice[str]]:
    """The games with a seat up for a substitute whose slug or title contains ``typed`` (``/take``)."""
    offered = await asyncio.to_thread(views.offered_seats)
    needle = typed.strip().lower()
    games: dict[str, list[str]] = {}
    titles: dict[str, str] = {}
    for seat in offered:
        if needle in seat.slug or needle in seat.title.lower():
            games.setdefault(seat.slug, []).append(seat.seat)
            titles[seat.slug] = seat.title
    slugs = sorted(games, key=lambda slug: (not slug.startswith(needle), slug))
    return [
        app_commands.Choice(
            name=(
                _("%(game)s (%(title)s; up: %(seats)s)")
                % {"game": slug, "title": said_text(titles[slug]), "seats": ", ".join(games[slug])}
            )[:100],
            value=slug,
        )
        for slug in slugs[:MAX_CHOICES]
    ]


async def offered_seat_choices(views: GameViews, game: str | None, typed: str) -> list[app_commands.Choice[str]]:
    """The seats of ``game`` up for a substitute whose name contains ``typed`` (``/take``); none without a game."""
    if not game or not game.strip():
        return []
    offered = await asyncio.to_thread(views.offered_seats, game)
    needle = typed.strip().lower()
    names = [seat.seat for seat in offered if needle in seat.seat.lower()]
    return [app_commands.Choice(name=name, value=name) for name in names[:MAX_CHOICES]]


def kind_choices(typed: str) -> list[app_commands.Choice[str]]:
    """The game kinds whose name or title contains ``typed`` (for ``/help``, which takes a kind as well as a game)."""
    needle = typed.strip().lower()
    kinds = [(k, registry.get_rules(k).title) for k in registry.kinds()]
    return [
        app_commands.Choice(
            name=(_("%(kind)s (%(title)s, a kind of game)") % {"kind": kind, "title": said_text(title)})[:100],
            value=kind,
        )
        for kind, title in kinds
        if needle in kind or needle in title.lower() or needle in said_text(title).lower()
    ][:MAX_CHOICES]


Choices = Callable[[discord.Interaction, str], Coroutine[Any, Any, list[app_commands.Choice[str]]]]


def spoken(suggest: Choices) -> Choices:
    """``suggest`` answering in the language of the member's Discord (the interaction's locale)."""

    @functools.wraps(suggest)
    async def in_their_language(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        with speaking(locale_language(getattr(interaction, "locale", None))):
            return await suggest(interaction, current)

    return in_their_language
