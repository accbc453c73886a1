"""What the client asks of every game's screens together, so that it never imports them.

The games' screens (:mod:`bot.discord.games`) import the client (a clicked button finds its game's
screens on it: :func:`bot.discord.games.screens.screens_of`); the client knows them only by this
protocol, which :class:`bot.discord.games.registry.GameScreenSet` implements.  So the client and the
games' screens are no import loop (the import contracts of ``pyproject.toml`` hold it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import discord
from discord import app_commands

AppCommand = app_commands.Command[Any, ..., Any] | app_commands.Group
"""A slash command or group a game's screens add to the guild's tree."""
Item = type[discord.ui.DynamicItem[Any]]
"""A button or menu class whose clicks a game's screens take (found by its custom id, after a restart too)."""


class ScreenSet(Protocol):
    """Every registered game's screens, bound to the core."""

    def get(self, kind: str) -> object | None:
        """The screens of the game kind ``kind``, or None."""
        ...

    def commands(self) -> Sequence[AppCommand]:
        """Every game's typed commands."""
        ...

    def items(self) -> Sequence[Item]:
        """Every game's dynamic items."""
        ...
