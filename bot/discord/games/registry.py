"""The explicit list of games' Discord screens: kind -> screens (no package scanning), as
:mod:`adjudicator.registry` lists the engines.

A game without an entry is still played on Discord with the generic commands
(``/orders``, ``/status``); an entry adds its typed commands, buttons and prompts.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping

import discord

from bot.core.views import GameViews
from bot.discord.answers import Answers
from bot.discord.games.dragon_stripes import DragonStripesScreens
from bot.discord.games.golden_strider import GoldenStriderScreens
from bot.discord.games.lautobus import LautobusScreens
from bot.discord.games.screens import AppCommand, GameScreens, Item
from bot.discord.games.strike_gold import StrikeGoldScreens
from bot.discord.games.three_races import ThreeRacesScreens

ScreensFactory = Callable[[Answers, GameViews], GameScreens]

SCREENS: dict[str, ScreensFactory] = {
    "dragon-stripes": DragonStripesScreens,
    "golden-strider": GoldenStriderScreens,
    "lautobus": LautobusScreens,
    "strike-gold": StrikeGoldScreens,
    "three-races": ThreeRacesScreens,
}


class GameScreenSet:
    """Every registered game's screens, bound to the core: what the client installs and asks."""

    def __init__(self, answers: Answers, views: GameViews, screens: Mapping[str, ScreensFactory] = SCREENS) -> None:
        self._views = views
        self._screens = {kind: make(answers, views) for kind, make in sorted(screens.items())}

    def get(self, kind: str) -> GameScreens | None:
        return self._screens.get(kind)

    def commands(self) -> list[AppCommand]:
        """Every game's typed commands."""
        return [command for screens in self._screens.values() for command in screens.commands()]

    def items(self) -> list[Item]:
        """Every game's dynamic items."""
        return [item for screens in self._screens.values() for item in screens.items()]

    async def after_public_report(self, game: str, place: discord.abc.Messageable) -> None:
        """After a public report of ``game`` reached ``place``: its kind's hook, with its public view."""
        view = await asyncio.to_thread(self._views.public_view, game)
        screens = self._screens.get(view.kind) if view is not None else None
        if view is not None and screens is not None:
            await screens.after_public_report(view, place)
