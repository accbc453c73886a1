"""Strike Gold played with buttons on Discord: draw, see the card privately, then keep or flip.

After each public report of a Strike Gold game whose turn waits on one
player, the game's post gets a prompt: ``Draw`` and ``Take the discard (X)``
for that player, or, once they have drawn, ``See the card and decide``.

* **Draw** sends the order ``draw deck``: the draw is resolved at once, as a
  turn of its own (the engine's half-move: the card is in the state as drawn
  and not yet placed, seen by its drawer only), and only then is the card
  shown, privately (an ephemeral reply, and the seat's copy of the report by
  direct message).  Seeing the card therefore commits the player: there is
  nothing to undo.
* The private reply shows the card and the player's own grid, with a button
  per slot to keep the card there (``keep r2c3``) and a menu of the
  face-down cards to discard it and flip one (``flip r1c4``), or, with no
  face-down card left, ``Discard it`` (``discard``).
* **Take the discard** changes nothing yet: the card is public, so it
  answers privately with the same grid of slots, and a slot pressed sends
  the one order ``draw discard, keep r2c3``.

Every click is one envelope carrying the game's own text order, so the same
engine, parser and records serve these buttons and the mail's conditional
orders.  Each custom id carries game, turn and seat
(``sg:<game>:<turn>:<seat>:<action>``); the buttons are
:class:`discord.ui.DynamicItem` s, so a click reaches the bot by its id alone,
after a restart too (persistent views), and a click from anyone but that
seat's player, or on a turn that is over, is answered privately and changes
nothing (:mod:`bot.discord.games.clicks`).  The prompt is made from the game's
public view, the private reply from the seat view of the player to move.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import discord

from bot.core.games.stored import RUNNING
from bot.core.messaging.rendering import render
from bot.core.model import commands as c
from bot.core.views import GameView, GameViews
from bot.discord.answers import Answers
from bot.discord.client import apologise
from bot.discord.games.clicks import PostedPrompts, checked_click, turn_over
from bot.discord.games.screens import Item, Screens, screens_of
from bot.discord.games.strike_gold_hand import KIND, TURN, Hand, hand_of, mover_of, order_text
from bot.discord.render import FORM, NO_MENTIONS, plain

_ID = r"^sg:(?P<game>[^:]+):(?P<turn>\d+):(?P<seat>[^:]+):"


def custom_id(game: str, turn: int, seat: str, action: str) -> str:
    """``action`` is ``draw``, ``take``, ``show``, ``discard``, ``keep-<slot>`` or ``flip`` (the menu)."""
    return f"sg:{game}:{turn}:{seat}:{action}"


@dataclass(frozen=True)
class Prompt:
    """The public message that asks the player to move: (action, label, style) per button."""

    game: str
    turn: int
    seat: str
    text: str
    buttons: tuple[tuple[str, str, discord.ButtonStyle], ...]


def prompt_for(view: GameView) -> Prompt | None:
    """The prompt for the public ``view``'s open phase, or None (not Strike Gold, not running, or not one player's move)."""
    phase = view.phase
    if view.kind != KIND or phase is None or view.status != RUNNING or len(phase.owing) != 1:
        return None
    seat = phase.owing[0]
    if mover_of(view) != seat:
        return None
    shown = view.shown or {}
    discard_top = shown.get("discard_top")
    text = f"**{plain(view.slug)}**, turn {phase.number}: {plain(phase.title)}"
    if shown.get("stage") != TURN:
        return Prompt(view.slug, phase.number, seat, text,
                      (("show", f"{seat}: see the card and decide", discord.ButtonStyle.primary),))  # fmt: skip
    buttons = [("draw", f"{seat}: draw", discord.ButtonStyle.primary)]
    if discard_top is not None:
        text += f". Discard pile: {discard_top} on top"
        buttons.append(("take", f"{seat}: take the discard ({discard_top})", discord.ButtonStyle.secondary))
    return Prompt(view.slug, phase.number, seat, text, tuple((a, label[:80], s) for a, label, s in buttons))


def chooser(hand: Hand) -> tuple[str, discord.ui.View] | None:
    """The private message offering ``hand``'s card: its text, and a button per slot plus the flip menu."""
    offered = hand.offered
    if offered is None:
        return None
    card, source = offered
    text = render(
        "discord/strike_gold_hand.txt.j2",
        {"game": hand.game, "turn": hand.turn, "seat": hand.seat, "stage": hand.stage, "card": card,
         "source": source, "rows": hand.rows(), "may_flip": hand.may_flip(), "may_discard": hand.may_discard()},
        FORM,
    )  # fmt: skip
    view = discord.ui.View(timeout=None)
    for index, slot in enumerate(hand.grid):
        view.add_item(StrikeGoldButton(hand.game, hand.turn, hand.seat, f"keep-{slot.name}",
                                       f"{slot.name}: {slot.shown}", row=index // hand.columns, disabled=slot.cleared))  # fmt: skip
    if hand.may_flip():
        view.add_item(StrikeGoldFlip(hand.game, hand.turn, hand.seat, [s.name for s in hand.grid if s.face_down]))
    if hand.may_discard():
        view.add_item(StrikeGoldButton(hand.game, hand.turn, hand.seat, "discard", "discard it",
                                       discord.ButtonStyle.danger, row=3))  # fmt: skip
    return text.strip(), view


class StrikeGoldButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=_ID + r"(?P<action>draw|take|show|discard|keep-r\d{1,2}c\d{1,2})$"):  # fmt: skip
    """A Strike Gold button; see the module docstring."""

    def __init__(self, game: str, turn: int, seat: str, action: str, label: str = "", style: discord.ButtonStyle = discord.ButtonStyle.secondary, row: int | None = None, disabled: bool = False) -> None:  # fmt: skip
        button: discord.ui.Button[Any] = discord.ui.Button(
            label=label or action, style=style, custom_id=custom_id(game, turn, seat, action), disabled=disabled
        )
        super().__init__(button, row=row)
        self.game, self.turn, self.seat, self.action = game, turn, seat, action

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> StrikeGoldButton:
        return cls(match["game"], int(match["turn"]), match["seat"], match["action"])

    async def callback(self, interaction: discord.Interaction) -> None:
        action, _, slot = self.action.partition("-")
        await _dispatch(interaction, self.custom_id, self.game, self.turn, self.seat, action, slot or None)


class StrikeGoldFlip(discord.ui.DynamicItem[discord.ui.Select[Any]], template=_ID + r"flip$"):
    """The menu of the player's face-down cards: discard the drawn card and flip the one chosen."""

    def __init__(self, game: str, turn: int, seat: str, slots: list[str] | None = None) -> None:
        options = [discord.SelectOption(label=f"flip {slot}", value=slot) for slot in slots or ["r1c1"]]
        menu: discord.ui.Select[Any] = discord.ui.Select(
            custom_id=custom_id(game, turn, seat, "flip"), placeholder="Discard it and flip...", options=options
        )
        super().__init__(menu, row=3)
        self.game, self.turn, self.seat = game, turn, seat

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> StrikeGoldFlip:
        return cls(match["game"], int(match["turn"]), match["seat"])

    async def callback(self, interaction: discord.Interaction) -> None:
        chosen = self.item.values[0] if self.item.values else None
        await _dispatch(interaction, self.custom_id, self.game, self.turn, self.seat, "flip", chosen)


ITEMS = (StrikeGoldButton, StrikeGoldFlip)
"""The dynamic items to register with the client (``add_dynamic_items``)."""


async def _dispatch(
    interaction: discord.Interaction, what: str, game: str, turn: int, seat: str, action: str, slot: str | None
) -> None:
    desk = screens_of(interaction.client, StrikeGoldScreens)
    if desk is None:
        await interaction.response.send_message(
            "The referee is not taking Strike Gold moves here.", ephemeral=True, allowed_mentions=NO_MENTIONS
        )
        return
    try:
        await desk.clicked(interaction, game, turn, seat, action, slot)
    except Exception as error:
        await apologise(interaction, f"Strike Gold control {what}", error)


class StrikeGoldScreens(Screens):
    """Strike Gold on Discord: checks a click against the live game, applies its order or shows the
    card, and posts the prompts."""

    kind = KIND

    def __init__(self, answers: Answers, views: GameViews) -> None:
        super().__init__(answers, views)
        self._prompts = PostedPrompts()

    def items(self) -> Sequence[Item]:
        return ITEMS

    async def clicked(
        self, interaction: discord.Interaction, game: str, turn: int, seat: str, action: str, slot: str | None = None
    ) -> None:
        """Refuse a click from anyone but ``seat``'s player or on a turn that is over; else act on it."""
        view = await checked_click(interaction, self.views, game, turn, seat)
        if view is None:
            return
        hand = hand_of(view)
        if action in ("take", "show"):
            if hand is None or (action == "take") != (hand.stage == TURN):
                await interaction.followup.send(turn_over(game, turn), ephemeral=True, allowed_mentions=NO_MENTIONS)
                return
            await self._show(interaction, hand)
            return
        text = order_text(hand.stage, action, slot, hand.slot_names()) if hand is not None else None
        if text is None:
            await interaction.followup.send(turn_over(game, turn), ephemeral=True, allowed_mentions=NO_MENTIONS)
            return
        await self.answers.apply(interaction, c.SubmitOrders(game, text))
        if action == "draw":  # the draw is resolved and recorded: now, and only now, the card is shown
            after = await asyncio.to_thread(self.views.seat_view, game, seat)
            drawn = hand_of(after) if after is not None else None
            if drawn is not None and drawn.stage != TURN:
                await self._show(interaction, drawn)

    async def _show(self, interaction: discord.Interaction, hand: Hand) -> None:
        made = chooser(hand)
        if made is None:
            await interaction.followup.send(
                turn_over(hand.game, hand.turn), ephemeral=True, allowed_mentions=NO_MENTIONS
            )
            return
        text, view = made
        await interaction.followup.send(text, view=view, ephemeral=True, allowed_mentions=NO_MENTIONS)

    async def after_public_report(self, view: GameView, place: discord.abc.Messageable) -> None:
        """Post the prompt for the game's open phase in its public place (once per phase)."""
        prompt = prompt_for(view)
        if prompt is None or not self._prompts.due(prompt.game, prompt.turn):
            return
        buttons = discord.ui.View(timeout=None)
        for action, label, style in prompt.buttons:
            buttons.add_item(StrikeGoldButton(prompt.game, prompt.turn, prompt.seat, action, label, style, row=0))
        await self._prompts.post(place, prompt.game, prompt.turn, prompt.text, buttons)
