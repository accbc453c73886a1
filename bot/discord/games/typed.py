"""What the typed game commands share (``/play``, ``/runners``, ``/riders``): the game and the player's seat.

A typed command belongs to one kind of game: its ``game`` option offers the
running games of that kind, and its other options autocomplete from the
seat view of the game named in the ``game`` option (what the member's seat
may see: the rules' ``seat_view``, never the stored state).  Each game's
module (:mod:`bot.discord.games.golden_strider`, ``three_races``,
``lautobus``) reads its own view from there, and builds the same free text
an email would carry, so the game's own parser judges it.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import discord
from discord import app_commands

from bot.core.games.stored import RUNNING
from bot.core.views import GameView, GameViews
from bot.discord.choices import MAX_CHOICES
from bot.discord.understand import sender_of


@dataclass(frozen=True)
class Seated:
    """The game named in an interaction as the member's seat sees it (``view.shown`` is its seat view)."""

    view: GameView
    seat: str


async def games_of_kind(views: GameViews, kind: str, current: str) -> list[app_commands.Choice[str]]:
    """The running games of ``kind`` whose slug contains what was typed (25 at most)."""
    listed = await asyncio.to_thread(views.games, (RUNNING,))
    typed = current.strip().lower()
    return [app_commands.Choice(name=g.slug, value=g.slug) for g in listed if g.kind == kind and typed in g.slug][
        :MAX_CHOICES
    ]


async def seated(views: GameViews, interaction: discord.Interaction, kind: str) -> Seated | None:
    """The game of the ``game`` option seen from the member's seat, or None (no such game of ``kind``, no seat)."""
    slug = str(getattr(interaction.namespace, "game", "") or "")
    if not slug:
        return None
    view = await asyncio.to_thread(_seat_view, views, slug, interaction.user)
    if view is None or view.seat is None or view.kind != kind:
        return None
    return Seated(view, view.seat)


async def public_view(views: GameViews, slug: str) -> GameView | None:
    """The game ``slug`` as everyone may see it now (read in a worker thread)."""
    return await asyncio.to_thread(views.public_view, slug)


def _seat_view(views: GameViews, slug: str, user: discord.abc.User) -> GameView | None:
    seat = views.seat_of(slug, sender_of(user))
    return None if seat is None else views.seat_view(slug, seat)
