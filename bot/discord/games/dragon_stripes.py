"""Decisions as buttons where a sequential game waits on one player: Dragon Stripes.

After each public report of a Dragon Stripes game, the game's post gets a
prompt for the phase now open: ``Reveal`` / ``Hold`` for the active player,
or, in a take-over window, ``Take over for N gems`` / ``Pass`` for each
player asked, or, when several took and the game's option
``takeover_selection`` is ``holder_chooses`` (docs/rules/dragon-stripes.md D6), one ``Choose B``
button per taker for the holder (the game's own text orders ``reveal``,
``hold``, ``take``, ``pass`` and ``choose B``; see its help).  A click is one
envelope, exactly as if the player had typed the order.

Each button's custom id carries game, turn and seat
(``ds:<game>:<turn>:<seat>:<action>``; a choice's action is ``choose<N>``,
N the taker's place in the game's seat order from 0, which keeps the id
within Discord's 100 characters; the ids of the other actions are
unchanged), and the buttons are a
:class:`discord.ui.DynamicItem`, so a click reaches the bot by its id alone,
after a restart too (persistent views match a click by its custom id alone).  A click from
anyone but that seat's player, or on a turn that is over, is answered
privately and changes nothing.

The prompt is made from the game's public view, and, when the holder chooses
between takers, from the holder's seat view (Dragon Stripes'
``report.seat_view``: ``seats`` in order and the waiting ``takers``, public
decisions both); a click is checked against the clicker's seat view.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import discord

from bot.core.basics import linear
from bot.core.basics.engine_words import said_text
from bot.core.games.stored import RUNNING
from bot.core.model import commands as c
from bot.core.views import GameView, GameViews
from bot.discord.answers import Answers
from bot.discord.client import apologise
from bot.discord.games.clicks import PostedPrompts, checked_click
from bot.discord.games.screens import Item, Screens, screens_of
from bot.discord.render import NO_MENTIONS, plain

KIND = "dragon-stripes"
ACTIONS = ("reveal", "hold", "take", "pass", "choose")
CHOOSE = "choose"
MAX_ROWS = 5
"""Discord allows five rows of buttons on a message."""
MAX_ROW_BUTTONS = 5
"""And five buttons on a row."""
_BOUNTY = linear.compile(r"(?:^|\W)for (\d+) gems(?:$|\W)")
"""The bounty in an offer phase's title: read in the engine's English text (``str(phase.title)`` is always
English: the engine says it, bot/core/basics/engine_words.py translates it only for the reader)."""


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


def takers_of(view: GameView) -> tuple[str, ...]:
    """The seats that offered to take over and wait for the holder's choice, in seat order (a seat view)."""
    shown = view.shown or {}
    if shown.get("step") != CHOOSE:
        return ()
    return tuple(str(seat) for seat in shown.get("takers", []))


def chosen_seat(view: GameView, action: str) -> str | None:
    """The taker a ``choose<N>`` action names, if it is still one of the takers waiting for the holder."""
    seats = (view.shown or {}).get("seats", [])
    index = int(action.removeprefix(CHOOSE))
    seat = str(seats[index]) if index < len(seats) else None
    return seat if seat in takers_of(view) else None


def prompt_for(view: GameView, holder: GameView | None = None) -> Prompt | None:
    """The prompt for the public ``view``'s open phase, or None (not Dragon Stripes, over, or nothing
    to press); ``holder`` is the seat view of the one seat owing a decision, if one does."""
    phase = view.phase
    if view.kind != KIND or phase is None or view.status != RUNNING:
        return None
    text = f"**{plain(view.slug)}**, turn {phase.number}: {plain(said_text(phase.title))}"
    if phase.kind.value == "offer":
        bounty = _BOUNTY.search(str(phase.title))
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
    takers = takers_of(holder) if holder is not None and phase.owing[:1] == (holder.seat,) else ()
    if phase.kind.value == "decision" and len(phase.owing) == 1 and takers and holder is not None:
        [seat] = phase.owing
        seats = [str(s) for s in (holder.shown or {}).get("seats", [])]
        return Prompt(view.slug, phase.number, text, tuple(
            Choice(seat, f"{CHOOSE}{seats.index(taker)}", f"{seat}: choose {taker}"[:80],
                   discord.ButtonStyle.primary, index // MAX_ROW_BUTTONS)
            for index, taker in enumerate(takers[: MAX_ROWS * MAX_ROW_BUTTONS])
        ))  # fmt: skip
    if phase.kind.value == "decision" and len(phase.owing) == 1 and not _choosing(view):
        [seat] = phase.owing
        return Prompt(view.slug, phase.number, text, (
            Choice(seat, "reveal", f"{seat}: reveal", discord.ButtonStyle.primary, 0),
            Choice(seat, "hold", f"{seat}: hold", discord.ButtonStyle.secondary, 0),
        ))  # fmt: skip
    return None


def _choosing(view: GameView) -> bool:
    """Whether the open decision is the holder's choice between takers: the public view's ``step``, else
    the engine's English title (never the title as translated for a reader)."""
    step = (view.shown or {}).get("step")
    return step == CHOOSE if step is not None else CHOOSE in str(view.phase.title if view.phase else "")


class DecisionButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"^ds:(?P<game>[^:]+):(?P<turn>\d+):(?P<seat>[^:]+):(?P<action>reveal|hold|take|pass|choose\d{1,2})$"):  # fmt: skip
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
        desk = screens_of(interaction.client, DragonStripesScreens)
        if desk is None:
            await interaction.response.send_message(
                "The referee is not taking decisions here.", ephemeral=True, allowed_mentions=NO_MENTIONS
            )
            return
        try:
            await desk.clicked(interaction, self.game, self.turn, self.seat, self.action)
        except Exception as error:
            await apologise(interaction, f"button {self.custom_id}", error)


class DragonStripesScreens(Screens):
    """Dragon Stripes on Discord: checks a click against the live game, applies it, and posts the
    prompts after public reports."""

    kind = KIND

    def __init__(self, answers: Answers, views: GameViews) -> None:
        super().__init__(answers, views)
        self._prompts = PostedPrompts()

    def items(self) -> Sequence[Item]:
        return (DecisionButton,)

    async def clicked(self, interaction: discord.Interaction, game: str, turn: int, seat: str, action: str) -> None:
        """Refuse a click from anyone but ``seat``'s player or on a turn that is over; else apply it."""
        view = await checked_click(interaction, self.views, game, turn, seat)
        if view is None:
            return
        order = action
        if action.startswith(CHOOSE):
            taker = chosen_seat(view, action)
            if taker is None:
                await interaction.followup.send(
                    f"Turn {turn} of {plain(game)} no longer waits for that choice: nothing was changed.",
                    ephemeral=True, allowed_mentions=NO_MENTIONS,
                )  # fmt: skip
                return
            order = f"choose {taker}"
        await self.answers.apply(interaction, c.SubmitOrders(game, order))

    async def after_public_report(self, view: GameView, place: discord.abc.Messageable) -> None:
        """Post the prompt for the game's open phase in its public place (once per phase)."""
        owing = view.phase.owing if view.phase is not None else ()
        holder = await asyncio.to_thread(self.views.seat_view, view.slug, owing[0]) if len(owing) == 1 else None
        prompt = prompt_for(view, holder)
        if prompt is None or not self._prompts.due(prompt.game, prompt.turn):
            return
        buttons = discord.ui.View(timeout=None)
        for choice in prompt.choices:
            buttons.add_item(DecisionButton(prompt.game, prompt.turn, choice.seat, choice.action, choice.label,
                                            choice.style, choice.row))  # fmt: skip
        await self._prompts.post(place, prompt.game, prompt.turn, prompt.text, buttons)
