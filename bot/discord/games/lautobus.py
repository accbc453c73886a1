"""L'autobus's typed command: ``/riders game: rider1: ... rider5:``, one card per rider of the team.

A turn's order is one card for each of the team's riders that still holds
cards (seed rule 4, ruling L7; the order syntax ``1: 3, 2: 5, 3: zero`` of
the game's help).  Each ``riderN`` option autocompletes over that rider's
own hand: its movement cards, and ZERO and SPRINT while unused, except on
turn 1 when no special may be played (seed rule 10).  The command builds the
same free text as an email would carry, so the game's own parser judges it
(a rider left out gets ruling L8's card, with the parser's warning).

Options are validated here as well (a number 1 to 99, ``zero`` or
``sprint``): Discord does not check the form of a string option, and nothing
is applied when the check fails.

The hands are read from the player's seat view (L'autobus's
``report.seat_view``: ``riders[]`` with ``rider``, ``cards`` and the
``playable`` cards, the game's own rule of what may be played now); a view
without them offers no suggestions and the command still works.  The form
check reads a card as the order syntax writes it (a number up to 99, the
largest the game's parser reads, ``zero`` or ``sprint``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import discord
from discord import app_commands

from bot.core.basics import linear
from bot.core.model import commands as c
from bot.core.views import GameView, GameViews
from bot.discord.answers import Answers
from bot.discord.choices import MAX_CHOICES
from bot.discord.client import tell_privately
from bot.discord.command_words import slash_words
from bot.discord.games.screens import AppCommand, Screens
from bot.discord.games.typed import games_of_kind, public_view, seated
from bot.discord.render import NO_MENTIONS, plain

KIND = "lautobus"
RIDERS = (1, 2, 3, 4, 5)
"""The command's options ``rider1`` to ``rider5``: a team's riders (the seat view names those that hold cards)."""
MAX_CARD = 99
"""The largest movement card the game's parser reads."""
SPECIALS = ("zero", "sprint")
_NUMBER = linear.compile(r"^\d{1,2}$")


def hands_of(view: GameView) -> dict[int, tuple[str, ...]]:
    """Rider -> the labels of its cards (``3``, ``zero``, ``sprint``), for the view's seat ({} for another view)."""
    return {rider: cards for rider, (cards, _) in _riders(view).items()}


def playable_of(view: GameView) -> dict[int, tuple[str, ...]]:
    """Rider -> the cards it may play now, each once, in hand order (the game's rule, from the seat view)."""
    return {rider: playable for rider, (_, playable) in _riders(view).items()}


def _riders(view: GameView) -> dict[int, tuple[tuple[str, ...], tuple[str, ...]]]:
    shown: dict[str, Any] = view.shown or {}
    if view.kind != KIND or view.seat is None:
        return {}
    return {
        int(rider["rider"]): (
            tuple(str(card) for card in rider.get("cards", [])),
            tuple(str(card) for card in rider.get("playable", [])),
        )
        for rider in shown.get("riders", [])
    }


def read_card(text: str) -> str | None:
    """A card as the order text writes it (``3``, ``zero``, ``sprint``), or None."""
    word = text.strip().lower()
    if word in SPECIALS:
        return word
    if _NUMBER.match(word) and 1 <= int(word) <= MAX_CARD:
        return str(int(word))
    return None


def check_riders(given: Mapping[int, str]) -> str | None:
    """Why the options cannot be a turn's cards, or None (form only; the game's parser does the rest)."""
    if not given:
        return "give a card to at least one rider."
    for rider, text in given.items():
        if read_card(text) is None:
            return f"rider{rider}: '{text.strip()}' is not a card: write a number 1 to {MAX_CARD}, zero or sprint."
    return None


def riders_text(given: Mapping[int, str]) -> str:
    """``1: 3, 2: 5, 3: zero`` (riders in order)."""
    return ", ".join(f"{rider}: {read_card(given[rider])}" for rider in sorted(given))


def _described(card: str, hand: tuple[str, ...]) -> str:
    if card == "zero":
        return "zero  (no movement)"
    if card == "sprint":
        if hand == ("sprint",):
            return "sprint  (your last card: it moves 1)"
        return "sprint  (all your other cards at once)"
    return f"{card}  (move {card})"


class LautobusScreens(Screens):
    """L'autobus on Discord: ``/riders``."""

    kind = KIND

    def commands(self) -> Sequence[AppCommand]:
        return (riders_command(self.answers, self.views),)


def riders_command(answers: Answers, views: GameViews) -> app_commands.Command[Any, ..., Any]:
    """``/riders``, bound to ``answers`` (the core) and ``views`` (the riders' hands)."""

    async def games(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await games_of_kind(views, KIND, current)

    def cards_for(rider: int) -> Any:
        async def cards(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
            player = await seated(views, interaction, KIND)
            if player is None:
                return []
            hand = hands_of(player.view).get(rider, ())
            typed = current.strip().lower()
            return [
                app_commands.Choice(name=_described(card, hand), value=card)
                for card in playable_of(player.view).get(rider, ())
                if card.startswith(typed)
            ][:MAX_CHOICES]

        return cards

    @app_commands.command(name="riders", description=slash_words("L'autobus: one card for each of your riders"))
    @app_commands.describe(
        game=slash_words("Your L'autobus game"),
        rider1=slash_words("Rider 1's card (a number, zero or sprint)"),
        rider2=slash_words("Rider 2's card"),
        rider3=slash_words("Rider 3's card"),
        rider4=slash_words("Rider 4's card"),
        rider5=slash_words("Rider 5's card"),
    )
    @app_commands.autocomplete(game=games, rider1=cards_for(1), rider2=cards_for(2), rider3=cards_for(3),
                               rider4=cards_for(4), rider5=cards_for(5))  # fmt: skip
    async def riders(
        interaction: discord.Interaction,
        game: str,
        rider1: str | None = None,
        rider2: str | None = None,
        rider3: str | None = None,
        rider4: str | None = None,
        rider5: str | None = None,
    ) -> None:
        options = (rider1, rider2, rider3, rider4, rider5)
        given = {rider: text for rider, text in zip(RIDERS, options, strict=True) if text is not None and text.strip()}
        problem = check_riders(given)
        if problem is not None:
            await interaction.response.send_message(
                f"Not sent: {plain(problem)}", ephemeral=True, allowed_mentions=NO_MENTIONS
            )
            return
        if not await answers.defer(interaction):  # the game's kind is read from the database: the 3 s rule
            return
        view = await public_view(views, game)
        if view is not None and view.kind != KIND:
            await tell_privately(interaction, f"Not sent: {game} is not an L'autobus game.")
            return
        await answers.apply(interaction, c.SubmitOrders(game, riders_text(given)))

    return riders
