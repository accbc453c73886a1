"""Decisions as buttons where a sequential game waits on one player (issue 13): Dragon Stripes.

After each public report of a Dragon Stripes game, the game's post gets a
prompt for the phase now open: ``Reveal`` / ``Hold`` for the active player,
or, in a take-over window, ``Take over for N gems`` / ``Pass`` for each
player asked (the game's own text orders ``reveal``, ``hold``, ``take`` and
``pass``; see its help).  A click is one envelope, exactly as if the player
had typed the order.

Each button's custom id carries game, turn and seat
(``ds:<game>:<turn>:<seat>:<action>``), and the buttons are a
:class:`discord.ui.DynamicItem`, so a click reaches the bot by its id alone,
after a restart too (persistent views; TEST_INFRA pitfall 14).  A click from
anyone but that seat's player, or on a turn that is over, is answered
privately and changes nothing.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from typing import Any

import discord

from bot.core import commands as c
from bot.core.games import RUNNING
from bot.core.views import GameView, GameViews
from bot.discord.answers import Answers
from bot.discord.clicks import PostedPrompts, checked_click
from bot.discord.client import apologise

KIND = "dragon-stripes"
ACTIONS = ("reveal", "hold", "take", "pass")
MAX_ROWS = 5
"""Discord allows five rows of buttons on a message."""
_BOUNTY = re.compile(r"\bfor (\d+) gems\b")


@dataclass(frozen=True)
class Choice:
    """One button: the seat it is for, the order it sends, its label."""

    seat: str
    action: str
    label: str
    style: discord.ButtonStyle
    row: int


@dataclass(frozen=True)
class Prompt:
    """The message that asks for the open phase's decisions."""

    game: str
    turn: int
    text: str
    choices: tuple[Choice, ...]


def custom_id(game: str, turn: int, seat: str, action: str) -> str:
    return f"ds:{game}:{turn}:{seat}:{action}"


def prompt_for(view: GameView) -> Prompt | None:
    """The prompt for ``view``'s open phase, or None (not Dragon Stripes, over, or nothing to press)."""
    phase = view.phase
    if view.kind != KIND or phase is None or view.status != RUNNING:
        return None
    text = f"**{view.slug}**, turn {phase.number}: {phase.title}"
    if phase.kind.value == "offer":
        bounty = _BOUNTY.search(phase.title)
        take = f"take over for {bounty.group(1)} gems" if bounty else "take over"
        choices = tuple(
            choice
            for row, seat in enumerate(phase.owing[:MAX_ROWS])
            for choice in (
                Choice(seat, "take", f"{seat}: {take}"[:80], discord.ButtonStyle.primary, row),
                Choice(seat, "pass", f"{seat}: pass"[:80], discord.ButtonStyle.secondary, row),
            )
        )
        return Prompt(view.slug, phase.number, text, choices)
    if phase.kind.value == "decision" and len(phase.owing) == 1 and "choose" not in phase.title:
        [seat] = phase.owing
        return Prompt(view.slug, phase.number, text, (
            Choice(seat, "reveal", f"{seat}: reveal", discord.ButtonStyle.primary, 0),
            Choice(seat, "hold", f"{seat}: hold", discord.ButtonStyle.secondary, 0),
        ))  # fmt: skip
    return None


class DecisionButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"^ds:(?P<game>[^:]+):(?P<turn>\d+):(?P<seat>[^:]+):(?P<action>reveal|hold|take|pass)$"):  # fmt: skip
    """A decision button; see the module docstring."""

    def __init__(self, game: str, turn: int, seat: str, action: str, label: str = "", style: discord.ButtonStyle = discord.ButtonStyle.secondary, row: int | None = None) -> None:  # fmt: skip
        super().__init__(
            discord.ui.Button(label=label or action, style=style, custom_id=custom_id(game, turn, seat, action)),
            row=row,
        )
        self.game, self.turn, self.seat, self.action = game, turn, seat, action

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> DecisionButton:
        return cls(match["game"], int(match["turn"]), match["seat"], match["action"])

    async def callback(self, interaction: discord.Interaction) -> None:
        desk: DecisionDesk | None = getattr(interaction.client, "decision_desk", None)
        if desk is None:
            await interaction.response.send_message("The referee is not taking decisions here.", ephemeral=True)
            return
        try:
            await desk.clicked(interaction, self.game, self.turn, self.seat, self.action)
        except Exception as error:
            await apologise(interaction, f"button {self.custom_id}", error)


class DecisionDesk:
    """Checks a click against the live game, applies it, and posts the prompts after public reports."""

    def __init__(self, answers: Answers, views: GameViews) -> None:
        self._answers = answers
        self._views = views
        self._prompts = PostedPrompts()

    async def clicked(self, interaction: discord.Interaction, game: str, turn: int, seat: str, action: str) -> None:
        """Refuse a click from anyone but ``seat``'s player or on a turn that is over; else apply it."""
        if await checked_click(interaction, self._views, game, turn, seat) is not None:
            await self._answers.apply(interaction, c.SubmitOrders(game, action))

    async def after_public(self, game: str, channel: discord.abc.Messageable) -> None:
        """Post the prompt for ``game``'s open phase in its public place (once per phase)."""
        view = await asyncio.to_thread(self._views.game, game)
        prompt = prompt_for(view) if view is not None else None
        if prompt is None or not self._prompts.due(prompt.game, prompt.turn):
            return
        buttons = discord.ui.View(timeout=None)
        for choice in prompt.choices:
            buttons.add_item(DecisionButton(prompt.game, prompt.turn, choice.seat, choice.action, choice.label,
                                            choice.style, choice.row))  # fmt: skip
        await self._prompts.post(channel, prompt.game, prompt.turn, prompt.text, buttons)
