"""Golden Strider's typed command: ``/play game: card: bank:``, the cards offered from the player's own hand.

A round's order is one card, part of it banked (seed rule 5; the order
syntax ``play 6/0 bank 2`` of the game's help).  ``card`` autocompletes over
the cards the player holds, each with the last round it may be played in
(seed rule 8), both read from the player's seat view.  The command builds the
same free text as an email would carry, so the game's own parser judges it.

Options are validated here as well: discord.py sends ``Range`` to Discord as
min/max but does not check it (Discord does, as min/max; a crafted payload skips it), so a client that
ignores them must still get a clear refusal, and nothing is applied.

The hand is the seat view's ``hand`` (Golden Strider's ``report.seat_view``:
``card``, ``value``, ``play_by`` per card); a view without it offers no
suggestions and the command still works.  The only number here is the
``bank`` option's range, which Discord shows (cards are 0 to 10, seed rule 2;
the game's parser checks the card itself).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import discord
from discord import app_commands

from bot.core.basics import linear
from bot.core.model import commands as c
from bot.core.views import GameView, GameViews
from bot.discord.answers import Answers
from bot.discord.choices import MAX_CHOICES
from bot.discord.command_words import slash_words
from bot.discord.games.screens import AppCommand, Screens
from bot.discord.games.typed import games_of_kind, seated
from bot.discord.render import NO_MENTIONS, plain

KIND = "golden-strider"
MAX_CARD = 10
"""The ``bank`` option's range as Discord shows it (seed rule 2: cards are 0 to 10)."""
_CARD = linear.compile(r"^\s*(\d{1,2})\s*/\s*(\d{1,4})\s*$")


@dataclass(frozen=True)
class HeldCard:
    """A card in hand: its label (value/turn received), value and the last round it may be played in."""

    label: str
    value: int
    last_round: int


def hand_of(view: GameView) -> list[HeldCard]:
    """The cards of the view's seat, oldest first ([] for another game's view, or the public view)."""
    shown: dict[str, Any] = view.shown or {}
    if view.kind != KIND or view.seat is None:
        return []
    return [HeldCard(str(card["card"]), int(card["value"]), int(card["play_by"])) for card in shown.get("hand", [])]


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


class GoldenStriderScreens(Screens):
    """Golden Strider on Discord: ``/play``."""

    kind = KIND

    def commands(self) -> Sequence[AppCommand]:
        return (play_command(self.answers, self.views),)


def play_command(answers: Answers, views: GameViews) -> app_commands.Command[Any, ..., Any]:
    """``/play``, bound to ``answers`` (the core) and ``views`` (the player's hand)."""

    async def games(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await games_of_kind(views, KIND, current)

    async def cards(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        player = await seated(views, interaction, KIND)
        if player is None:
            return []
        hand = hand_of(player.view)
        typed = current.strip()
        return [
            app_commands.Choice(name=f"{card.label}  (worth {card.value}; play by round {card.last_round})",
                                value=card.label)
            for card in hand
            if card.label.startswith(typed)
        ][:MAX_CHOICES]  # fmt: skip

    @app_commands.command(
        name="play", description=slash_words("Golden Strider: play one of your cards, banking part of it")
    )
    @app_commands.describe(
        game=slash_words("Your Golden Strider game"),
        card=slash_words("One of your cards (value/turn received)"),
        bank=slash_words("Points of the card to bank for stamina (the rest is movement)"),
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
