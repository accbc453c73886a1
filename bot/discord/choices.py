"""Autocomplete: game names from live state, and the game kinds, filtered by what the player has typed (25 at most)."""

from __future__ import annotations

import asyncio

from discord import app_commands

from adjudicator import registry
from bot.core.games.stored import FINISHED, FORMING, PAUSED, RUNNING
from bot.core.views import GameViews

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
    matching = [g for g in games if needle in g.slug or needle in g.title.lower()]
    matching.sort(key=lambda g: (not g.slug.startswith(needle), g.slug))
    return [
        app_commands.Choice(name=f"{g.slug} ({g.title}, {g.status})"[:100], value=g.slug)
        for g in matching[:MAX_CHOICES]
    ]


def kind_choices(typed: str) -> list[app_commands.Choice[str]]:
    """The game kinds whose name or title contains ``typed`` (for ``/help``, which takes a kind as well as a game)."""
    needle = typed.strip().lower()
    kinds = [(k, registry.get_rules(k).title) for k in registry.kinds()]
    return [
        app_commands.Choice(name=f"{kind} ({title}, a kind of game)"[:100], value=kind)
        for kind, title in kinds
        if needle in kind or needle in title.lower()
    ][:MAX_CHOICES]
