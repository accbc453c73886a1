"""The check every decision button makes before it acts: is it this user's seat, and this turn?

A button's custom id names the game, the turn and the seat it was made for.
A click is checked against the live game, read after the
interaction is deferred (the database may be slow: Discord's 3 s rule).  A
click from anyone but the seat's player, or on a turn that is over, gets a
private answer saying so, and nothing is changed.
"""

from __future__ import annotations

import asyncio
import hashlib

import discord

from bot.core.views import GameView, GameViews
from bot.discord.render import NO_MENTIONS, plain
from bot.discord.understand import sender_of


def not_yours(seat: str) -> str:
    return f"This button is for {plain(seat)}, not for you."


def turn_over(game: str, turn: int) -> str:
    return f"Turn {turn} of {plain(game)} is over (or no longer waits for you): nothing was changed."


async def checked_click(
    interaction: discord.Interaction, views: GameViews, game: str, turn: int, seat: str
) -> GameView | None:
    """Defer privately, then the live game as ``seat`` sees it (its seat view) if ``turn`` of ``game``
    still waits for ``seat`` and the user holds that seat; else None, once the user has been told why
    (privately)."""
    await interaction.response.defer(ephemeral=True, thinking=True)
    own = await asyncio.to_thread(views.seat_of, game, sender_of(interaction.user))
    if own != seat:
        await interaction.followup.send(not_yours(seat), ephemeral=True, allowed_mentions=NO_MENTIONS)
        return None
    view = await asyncio.to_thread(views.seat_view, game, seat)
    phase = view.phase if view is not None else None
    if view is None or phase is None or phase.number != turn or seat not in phase.owing:
        await interaction.followup.send(turn_over(game, turn), ephemeral=True, allowed_mentions=NO_MENTIONS)
        return None
    return view


class PostedPrompts:
    """Posts a game's prompt for a phase in its public place once: once per process (a set of
    (game, turn)), and once at Discord (a nonce per game and turn, so a retry posts nothing twice)."""

    def __init__(self) -> None:
        self._posted: set[tuple[str, int]] = set()

    def due(self, game: str, turn: int) -> bool:
        return (game, turn) not in self._posted

    async def post(
        self, channel: discord.abc.Messageable, game: str, turn: int, text: str, view: discord.ui.View
    ) -> None:
        nonce = hashlib.sha256(f"prompt\x00{game}\x00{turn}".encode()).hexdigest()[:25]
        await channel.send(text, view=view, nonce=nonce, allowed_mentions=NO_MENTIONS)
        self._posted.add((game, turn))
