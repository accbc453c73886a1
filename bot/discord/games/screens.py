"""The one protocol a game's Discord screens implement: its typed commands, its buttons, its prompts.

A game brings to Discord only what is its own (docs/architecture.md, "How a game plugs in"
and "Channels"): typed commands (``/play``), persistent buttons and menus
(:class:`discord.ui.DynamicItem` classes, found by their custom id after a
restart too), and what it posts after each public report of one of its games
(the prompt that carries those buttons).  Each game's screens are one module
``bot/discord/games/<kind>.py`` registered in :data:`bot.discord.games.registry.SCREENS`.

A screen sees a game only through :class:`bot.core.views.GameViews`: the public
view, or the view of the seat of the member who asked (never the stored state).
A rule it needs (a card's last round, the cards a rider may play) is read from
those views, not copied from the engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar

import discord

from bot.core.views import GameView, GameViews
from bot.discord.answers import Answers
from bot.discord.client import RefereeClient
from bot.discord.screen_set import AppCommand as AppCommand
from bot.discord.screen_set import Item as Item


class GameScreens(Protocol):
    """One game's Discord screens; every hook may do nothing (see :class:`Screens`)."""

    kind: str
    """The game's kind, as :mod:`adjudicator.registry` names it."""

    def commands(self) -> Sequence[AppCommand]:
        """The typed commands to add to the guild's tree."""
        ...

    def items(self) -> Sequence[Item]:
        """The dynamic items (buttons, menus) whose clicks this game takes."""
        ...

    async def after_public_report(self, view: GameView, place: discord.abc.Messageable) -> None:
        """Called after a public report of one of this game's games reached ``place`` (``view`` is its public view)."""
        ...


class Screens:
    """The defaults: no command, no item, nothing after a public report; bound to the core and its views."""

    kind = ""

    def __init__(self, answers: Answers, views: GameViews) -> None:
        self.answers = answers
        self.views = views

    def commands(self) -> Sequence[AppCommand]:
        return ()

    def items(self) -> Sequence[Item]:
        return ()

    async def after_public_report(self, view: GameView, place: discord.abc.Messageable) -> None:
        return None


S = TypeVar("S", bound=Screens)


def screens_of(client: discord.Client, kind: type[S]) -> S | None:
    """The client's screens of class ``kind`` (a clicked item finds its game's screens so), or None."""
    if not isinstance(client, RefereeClient) or client.game_screens is None:
        return None
    found = client.game_screens.get(kind.kind)
    return found if isinstance(found, kind) else None
