"""Golden Strider's typed command: ``/play game: card: bank:``, the cards offered from the player's own hand.

A round's order is one card, part of it banked (seed rule 5; the order
syntax ``play 6/0 bank 2`` of the game's help).  ``card`` autocompletes over
the cards the player holds, each with the last round it may be played in
(seed rule 8: no card is held more than seven turns).  The command builds the
same free text as an email would carry, so the game's own parser judges it.

Options are validated here as well: discord.py sends ``Range`` to Discord as
min/max but does not check it (Discord does, as min/max; a crafted payload skips it), so a client that
ignores them must still get a clear refusal, and nothing is applied.

The hand is read from the game's state as stored (Golden Strider's state
format, version 1: ``runners[].hand`` as ``[value, turn]`` pairs); another
version offers no suggestions and the command still works.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import discord
from discord import app_commands

from bot.core.model import commands as c
from bot.core.views import GameView, GameViews
from bot.discord.answers import Answers
from bot.discord.choices import MAX_CHOICES
from bot.discord.render import NO_MENTIONS, plain
from bot.discord.typed import games_of_kind, seated

KIND = "golden-strider"
STATE_VERSION = 1
CARD_LIFETIME = 7
"""Seed rule 8: a card must be played within seven turns of being received."""
MAX_CARD = 10
"""Seed rule 2: cards are 0 to 10."""
_CARD = re.compile(r"^\s*(\d{1,2})\s*/\s*(\d{1,4})\s*$")


@dataclass(frozen=True)
class HeldCard:
    """A card in hand: its value and the turn it was received."""

    value: int
    turn: int

    @property
    def label(self) -> str:
        return f"{self.value}/{self.turn}"

    @property
    def last_round(self) -> int:
        return self.turn + CARD_LIFETIME


def hand_of(view: GameView, seat: str) -> list[HeldCard]:
    """The cards ``seat`` holds, oldest first ([] when the state is not Golden Strider's version 1)."""
    state: dict[str, Any] = view.state or {}
    if view.kind != KIND or state.get("version") != STATE_VERSION:
        return []
    for runner in state.get("runners", []):
        if runner.get("seat") == seat:
            return [HeldCard(int(value), int(turn)) for value, turn in runner.get("hand", [])]
    return []


def check_play(card: str, bank: int) -> str | None:
    """Why ``card`` and ``bank`` cannot be a play, or None (range checks only; the game's parser does the rest)."""
    match = _CARD.match(card)
    if match is None:
        return f"'{card}' is not a card: write it as value/turn received, e.g. 6/0 (pick one from the list)."
    value = int(match.group(1))
    if not 0 <= value <= MAX_CARD:
        return f"'{card}' is not a card: values are 0 to {MAX_CARD}."
    if not 0 <= bank <= MAX_CARD:
        return f"bank must be between 0 and {MAX_CARD}, not {bank}."
    if bank > value:
        return f"you cannot bank {bank} from a card worth {value}."
    return None


def play_text(card: str, bank: int) -> str:
    value, turn = (part.strip() for part in card.split("/"))
    return f"play {int(value)}/{int(turn)} bank {bank}"


def play_command(answers: Answers, views: GameViews) -> app_commands.Command[Any, ..., Any]:
    """``/play``, bound to ``answers`` (the core) and ``views`` (the player's hand)."""

    async def games(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await games_of_kind(views, KIND, current)

    async def cards(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        player = await seated(views, interaction, KIND)
        if player is None:
            return []
        hand = hand_of(player.view, player.seat)
        typed = current.strip()
        return [
            app_commands.Choice(name=f"{card.label}  (worth {card.value}; play by round {card.last_round})",
                                value=card.label)
            for card in hand
            if card.label.startswith(typed)
        ][:MAX_CHOICES]  # fmt: skip

    @app_commands.command(name="play", description="Golden Strider: play one of your cards, banking part of it")
    @app_commands.describe(
        game="Your Golden Strider game",
        card="One of your cards (value/turn received)",
        bank="Points of the card to bank for stamina (the rest is movement)",
    )
    @app_commands.autocomplete(game=games, card=cards)
    async def play(
        interaction: discord.Interaction, game: str, card: str, bank: app_commands.Range[int, 0, 10] = 0
    ) -> None:
        problem = check_play(card, bank)
        if problem is not None:
            await interaction.response.send_message(
                f"Not sent: {plain(problem)}", ephemeral=True, allowed_mentions=NO_MENTIONS
            )
            return
        await answers.apply(interaction, c.SubmitOrders(game, play_text(card, bank)))

    return play
