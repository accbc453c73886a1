"""The three-race game's typed command: ``/runners game: race25: race55: race85:``, one option per race.

Each option is the cards of that race's runner, written as numbers
separated by spaces, and means what the open phase asks for:

* the setup (turn 0): the runner's hand of four (seed rule 2), e.g.
  ``race25: 2 4 5 10``; the command sends ``25: 2 4 5 10 / 55: ...`` (give two
  races and the third gets the four cards left);
* a deadline: the cards it plays, in move order, one per move of the
  deadline (``moves_per_deadline``), e.g. ``race25: 10 4``; the command sends
  ``move 1: 25=10 55=6 85=12; move 2: 25=4 ...`` (a race left out plays its
  lowest card, rule 10).

That is the game's own order syntax (see its help), so the game's parser
judges it exactly as it judges an email; conditions and readjustments stay
with ``/orders``.  Each option autocompletes over the player's own cards:
what is typed so far followed by each card the runner may still play at the
next move (cards come back when a cycle of four moves ends), or at the setup
each card not given to another race.

Options are validated here as well (cards 1 to 12, at most four to a hand
or one per move, no card twice in a setup): Discord does not check the form
of a string option, and nothing is applied when the check fails.

The cards are read from the player's seat view (the three-race game's
``report.seat_view``: the team's ``hands`` and ``spent`` by race, the
``moves`` of the coming deadline, the races ``running``, the ``cards``, the
``hand_size`` and the ``cycle``), never another team's; a view without them
offers no suggestions and the command still works.  The races are the
command's options (``race25``, ``race55``, ``race85``, seed preamble), and
the form check before anything is read takes a card as 1 to 12 (seed rule 2).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
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

KIND = "three-races"
RACES = (25, 55, 85)
"""The command's options, one per race (``race25`` ...)."""
CARDS = range(1, 13)
"""The form check's cards (seed rule 2), before any view is read."""
_NUMBER = linear.compile(r"^\d{1,3}$")


@dataclass(frozen=True)
class Team:
    """What the command needs of a team: the phase, its cards and the moves of the coming deadline,
    and the game's cards, hand size and cycle (seed rules 2 and 3: moves 1-4, 5-8, ... are cycles;
    at the end of each, every card comes back)."""

    setup: bool
    moves: tuple[int, ...]
    hands: Mapping[int, tuple[int, ...]]
    spent: Mapping[int, frozenset[int]]
    running: tuple[int, ...]
    cards: tuple[int, ...]
    hand_size: int
    cycle: int


def team_of(view: GameView) -> Team | None:
    """The view's seat's cards (None for another game's view, the public view, or one without them)."""
    shown: dict[str, Any] = view.shown or {}
    if view.kind != KIND or view.seat is None or "hands" not in shown:
        return None
    return Team(
        setup=bool(shown["setup"]),
        moves=tuple(int(move) for move in shown["moves"]),
        hands={int(r): tuple(int(x) for x in cards) for r, cards in shown["hands"].items()},
        spent={int(r): frozenset(int(x) for x in cards) for r, cards in shown["spent"].items()},
        running=tuple(int(race) for race in shown["running"]),
        cards=tuple(int(card) for card in shown["cards"]),
        hand_size=int(shown["hand_size"]),
        cycle=int(shown["cycle"]),
    )


def read_cards(text: str | None) -> list[int] | str:
    """The numbers of one option, or why it is not a list of cards."""
    numbers: list[int] = []
    for word in (text or "").replace(",", " ").split():
        if not _NUMBER.match(word) or int(word) not in CARDS:
            return f"'{word}' is not a card: cards are 1 to 12"
        numbers.append(int(word))
    return numbers


def check_runners(given: Mapping[int, list[int]], setup: bool, moves: int, hand_size: int) -> str | None:
    """Why the options cannot be orders for the phase, or None (form only; the game's parser does the rest)."""
    if not given:
        return "give the cards of at least one race."
    for race, cards in given.items():
        if setup and len(cards) > hand_size:
            return f"race{race} has {len(cards)} cards; each runner gets exactly {_count(hand_size)} (seed rule 2)."
        if not setup and len(cards) > moves:
            plural = "move" if moves == 1 else "moves"
            return f"race{race} has {len(cards)} cards, but this deadline has {moves} {plural}: one card a move."
    if setup:
        dealt = [card for cards in given.values() for card in cards]
        twice = sorted({card for card in dealt if dealt.count(card) > 1})
        if twice:
            return f"card {twice[0]} is given twice; each of 1-12 goes to exactly one runner (seed rule 2)."
    return None


def _count(number: int) -> str:
    words = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")
    return words[number] if 0 <= number < len(words) else str(number)


def runners_text(given: Mapping[int, list[int]], setup: bool, first: int = 1) -> str:
    """The order text in the game's own syntax (setup split, or ``move N: race=card ...`` lines,
    numbered across the game from ``first``, the deadline's first move)."""
    if setup:
        return " / ".join(f"{race}: {' '.join(str(card) for card in cards)}" for race, cards in given.items())
    longest = max(len(cards) for cards in given.values())
    moves = []
    for index in range(longest):
        pairs = " ".join(f"{race}={cards[index]}" for race, cards in given.items() if index < len(cards))
        moves.append(f"move {first + index}: {pairs}")
    return "; ".join(moves)


def next_cards(team: Team, race: int, typed: list[int], others: list[int]) -> list[int]:
    """The cards that may follow ``typed`` in ``race``'s option ([] when it is complete or cannot be played).

    At the setup: any card not typed already nor given to another race
    (``others``), up to four.  At a deadline: the cards the runner still holds
    at the next move, following the cycle (cards spent, and all back after
    moves 4, 8, ...).
    """
    if team.setup:
        if len(typed) >= team.hand_size:
            return []
        return [card for card in team.cards if card not in typed and card not in others]
    if race not in team.running or len(typed) >= len(team.moves):
        return []
    hand = team.hands.get(race, ())
    spent = set(team.spent.get(race, frozenset()))
    for move, card in zip(team.moves, typed, strict=False):
        if card not in hand or card in spent:
            return []
        spent.add(card)
        if move % team.cycle == 0:
            spent.clear()
    return [card for card in hand if card not in spent]


def suggestions(team: Team, race: int, current: str, others: list[int]) -> list[app_commands.Choice[str]]:
    """What typed so far, followed by each card that may come next (the typed text itself once complete)."""
    typed = read_cards(current)
    if isinstance(typed, str):
        return []
    following = next_cards(team, race, typed, others)
    prefix = " ".join(str(card) for card in typed)
    if not following:
        whole = team.hand_size if team.setup else len(team.moves)
        complete = len(typed) == whole and typed[-1] in next_cards(team, race, typed[:-1], others)
        return [app_commands.Choice(name=_described(team, prefix), value=prefix)] if complete else []
    values = [f"{prefix} {card}".strip() for card in following]
    return [app_commands.Choice(name=_described(team, value), value=value) for value in values][:MAX_CHOICES]


def _described(team: Team, value: str) -> str:
    cards = value.split()
    if team.setup:
        left = team.hand_size - len(cards)
        return f"{value}  ({left} more to choose)" if left else f"{value}  (the runner's four cards)"
    return f"{value}  (" + ", ".join(f"move {n}: {card}" for n, card in zip(team.moves, cards, strict=False)) + ")"


class ThreeRacesScreens(Screens):
    """The three-race game on Discord: ``/runners``."""

    kind = KIND

    def commands(self) -> Sequence[AppCommand]:
        return (runners_command(self.answers, self.views),)


def runners_command(answers: Answers, views: GameViews) -> app_commands.Command[Any, ..., Any]:
    """``/runners``, bound to ``answers`` (the core) and ``views`` (the team's cards)."""

    async def games(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await games_of_kind(views, KIND, current)

    def cards_for(race: int) -> Any:
        async def cards(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
            player = await seated(views, interaction, KIND)
            team = team_of(player.view) if player is not None else None
            if team is None:
                return []
            others = [
                card
                for other in RACES
                if other != race
                for card in _or_none(read_cards(getattr(interaction.namespace, f"race{other}", None)))
            ]
            return suggestions(team, race, current, others)

        return cards

    @app_commands.command(
        name="runners", description=slash_words("The three-race game: your runners' cards for the open phase")
    )
    @app_commands.describe(
        game=slash_words("Your three-race game"),
        race25=slash_words("The 25 runner: its four cards at the setup, else one card per move (10 4)"),
        race55=slash_words("The 55 runner: its four cards at the setup, else one card per move"),
        race85=slash_words("The 85 runner: its four cards at the setup, else one card per move"),
    )
    @app_commands.autocomplete(game=games, race25=cards_for(25), race55=cards_for(55), race85=cards_for(85))
    async def runners(
        interaction: discord.Interaction,
        game: str,
        race25: str | None = None,
        race55: str | None = None,
        race85: str | None = None,
    ) -> None:
        given: dict[int, list[int]] = {}
        for race, text in zip(RACES, (race25, race55, race85), strict=True):
            cards = read_cards(text)
            if isinstance(cards, str):
                await interaction.response.send_message(
                    f"Not sent: race{race}: {plain(cards)}.", ephemeral=True, allowed_mentions=NO_MENTIONS
                )
                return
            if cards:
                given[race] = cards
        if not given:
            await interaction.response.send_message(
                "Not sent: give the cards of at least one race.", ephemeral=True, allowed_mentions=NO_MENTIONS
            )
            return
        if not await answers.defer(interaction):  # the phase is read from the database: the 3 s rule
            return
        player = await seated(views, interaction, KIND)  # the seat view holds the public view too
        view = player.view if player is not None else await public_view(views, game)
        shown = (view.shown or {}) if view is not None else {}
        team = team_of(view) if view is not None else None
        setup = int(shown.get("deadline", 0)) == 0
        moves = int(shown.get("moves_per_deadline", 2))
        hand_size = team.hand_size if team is not None else len(CARDS) // len(RACES)
        problem = check_runners(given, setup, moves, hand_size)
        if view is not None and view.kind != KIND:
            problem = f"{game} is not a three-race game."
        if problem is not None:
            await tell_privately(interaction, f"Not sent: {problem}")
            return
        await answers.apply(
            interaction, c.SubmitOrders(game, runners_text(given, setup, int(shown.get("move", 0)) + 1))
        )

    return runners


def _or_none(cards: list[int] | str) -> list[int]:
    return [] if isinstance(cards, str) else cards
