"""The players' slash commands: ``/games``, ``/join``, ``/orders``, ``/onfile``, ``/status``, ``/help``,
``/rules``, ``/resign``, ``/absent``, ``/observe``, ``/calendar``, ``/pictures``, ``/press``, ``/mute``,
``/ready``, ``/reliability``, ``/standby`` and ``/take``.

Each command is one envelope of the common command model (the same
commands as by email: ``LIST``, ``JOIN``, ``ORDERS``, ``ORDERS?``, ``STATUS``, ``HELP``,
``RULES``, ``RESIGN``, ``ABSENT``, ``OBSERVE``, ``CALENDAR [NEW]``, ``PICTURES ON|OFF``, ``PRESS``, ``READY``,
``RECORD ME``, ``STANDBY``, ``TAKE``); orders stay
free text
in the game's own syntax, read by the
game's own parser in the core.  ``/orders`` without ``text`` opens a modal
with a paragraph field, for long or multi-line orders
(:mod:`bot.discord.orders_modal`).  Game names
autocomplete from live state: joinable games for ``/join``, games in play for
``/orders`` and ``/resign``, any game for ``/status``, any game or game kind for ``/help``, the game kinds then the games for
``/rules`` (a game gives its kind's rules), and for
``/take`` the games with a seat up for a substitute, then that game's seats up (public: the game's post
says so; :meth:`bot.core.views.GameViews.offered_seats`).  A seat offer's DM carries a button that is
``/take`` for that offer (:mod:`bot.discord.substitute_button`).
"""

from __future__ import annotations

import asyncio
from typing import Any

import discord
from discord import app_commands

from adjudicator import registry
from bot.core.model import commands as c
from bot.core.views import GameViews
from bot.discord.answers import Answers
from bot.discord.choices import (
    ANY,
    JOINABLE,
    LISTED,
    MAX_CHOICES,
    PLAYING,
    game_choices,
    kind_choices,
    offered_game_choices,
    offered_seat_choices,
)
from bot.discord.orders_modal import open_orders_modal

ALL_KINDS = "all"
"""``/standby kind:all``: every kind of game (the core's :data:`bot.core.model.commands.ANY_KIND`)."""
STANDBY_KINDS = [
    *(
        app_commands.Choice(name=f"{registry.get_rules(kind).title} ({kind})"[:100], value=kind)
        for kind in registry.kinds()
    ),
    app_commands.Choice(name="all kinds of game", value=ALL_KINDS),
][:MAX_CHOICES]
"""The choices of ``/standby kind:``: each kind of game this referee runs, and all."""


def player_commands(answers: Answers, views: GameViews) -> list[app_commands.Command[Any, ..., Any]]:
    """The player commands, bound to ``answers`` (the core) and ``views`` (autocomplete)."""

    async def joinable(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await game_choices(views, current, JOINABLE)

    async def playing(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await game_choices(views, current, PLAYING)

    async def listed(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await game_choices(views, current, LISTED)

    async def game_or_kind(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        games = await game_choices(views, current, ANY)
        return (games + kind_choices(current))[:MAX_CHOICES]

    @app_commands.command(name="games", description="The games open to join or running")
    async def games(interaction: discord.Interaction) -> None:
        await answers.apply(interaction, c.ListGames())

    @app_commands.command(name="join", description="Take a seat in a game before it starts")
    @app_commands.describe(game="The game to join", name="Your seat's name (default: your display name)")
    @app_commands.autocomplete(game=joinable)
    async def join(interaction: discord.Interaction, game: str, name: str | None = None) -> None:
        await answers.apply(interaction, c.JoinGame(game, name))

    @app_commands.command(name="orders", description="Send your orders (the last set sent counts)")
    @app_commands.describe(game="Your game", text="Your orders; leave out to write several lines")
    @app_commands.autocomplete(game=playing)
    async def orders(interaction: discord.Interaction, game: str, text: str | None = None) -> None:
        if text is None or not text.strip():
            await open_orders_modal(interaction, game.strip())
            return
        await answers.apply(interaction, c.SubmitOrders(game, text))

    @app_commands.command(name="onfile", description="Your orders on file for this turn, and their commitment")
    @app_commands.describe(game="Your game")
    @app_commands.autocomplete(game=playing)
    async def onfile(interaction: discord.Interaction, game: str) -> None:
        await answers.apply(interaction, c.ShowFiledOrders(game))

    @app_commands.command(name="status", description="A game's phase, deadline and who has ordered")
    @app_commands.describe(game="The game")
    @app_commands.autocomplete(game=listed)
    async def status(interaction: discord.Interaction, game: str) -> None:
        await answers.apply(interaction, c.ShowStatus(game))

    @app_commands.command(name="help", description="The commands, or one game's rules and order syntax")
    @app_commands.describe(game="A game or game kind (leave out for the list of commands)")
    @app_commands.autocomplete(game=game_or_kind)
    async def help_(interaction: discord.Interaction, game: str | None = None) -> None:
        await answers.apply(interaction, c.ShowHelp(game))

    async def kind_or_game(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        kinds = kind_choices(current)
        return (kinds + await game_choices(views, current, ANY))[:MAX_CHOICES]

    @app_commands.command(name="rules", description="A game's whole rules as this referee applies them, with examples")
    @app_commands.describe(kind="A kind of game (or a game: its kind's rules)")
    @app_commands.autocomplete(kind=kind_or_game)
    async def rules(interaction: discord.Interaction, kind: str) -> None:
        await answers.apply(interaction, c.ShowRules(kind))

    @app_commands.command(name="resign", description="Leave a game; your seat gets no-moves-received orders")
    @app_commands.describe(game="The game to leave")
    @app_commands.autocomplete(game=listed)
    async def resign(interaction: discord.Interaction, game: str) -> None:
        await answers.apply(interaction, c.Resign(game))

    @app_commands.command(name="absent", description="Days you are away: a deadline inside them moves to their end")
    @app_commands.describe(game="Your game", from_="The first day away (2026-03-10)", to="The last day away")
    @app_commands.rename(from_="from")
    @app_commands.autocomplete(game=playing)
    async def absent(interaction: discord.Interaction, game: str, from_: str, to: str) -> None:
        await answers.apply(interaction, c.DeclareAbsence(game, from_, to))

    @app_commands.command(name="observe", description="Get a game's public reports by DM, without a seat")
    @app_commands.describe(game="The game", stop="Stop observing it")
    @app_commands.autocomplete(game=listed)
    async def observe(interaction: discord.Interaction, game: str, stop: bool = False) -> None:
        await answers.apply(interaction, c.Observe(game, stop))

    @app_commands.command(name="calendar", description="The address of your calendar of deadlines (private)")
    @app_commands.describe(new="A new address: the old one stops working")
    async def calendar(interaction: discord.Interaction, new: bool = False) -> None:
        await answers.apply(interaction, c.ShowCalendar(new))

    @app_commands.command(name="pictures", description="Whether your report mails carry a picture of the board")
    @app_commands.describe(on="True: a picture with each report mail; False: none")
    async def pictures(interaction: discord.Interaction, on: bool) -> None:
        await answers.apply(interaction, c.SetPictures(on))

    @app_commands.command(name="ready", description="Confirm you will play, when a full game asks")
    @app_commands.describe(game="Your game, in its ready check")
    @app_commands.autocomplete(game=joinable)
    async def ready(interaction: discord.Interaction, game: str) -> None:
        await answers.apply(interaction, c.ConfirmReady(game))

    async def press_seats(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        """The game's seats (and ALL) for ``to:``; after a comma, the next seat of a list."""
        game = getattr(interaction.namespace, "game", None)
        view = await asyncio.to_thread(views.game, str(game)) if game else None
        head, _, last = current.rpartition(",")
        lead = f"{head.strip()}, " if head.strip() else ""
        names = [c.EVERY_SEAT] if not lead else []
        names += [s for s in (view.seats if view else ()) if last.strip().lower() in s.lower()]
        return [app_commands.Choice(name=(lead + n)[:100], value=(lead + n)[:100]) for n in names[:MAX_CHOICES]]

    @app_commands.command(name="press", description="A message to other seats of your game, relayed by the referee")
    @app_commands.describe(game="Your game", to="Seats, separated by commas, or ALL", text="The message",
                           anonymous="Unsigned (where the game allows grey press)",
                           reply="The code of a press message you got: answers its sender (instead of to:)")  # fmt: skip
    @app_commands.autocomplete(game=listed, to=press_seats)
    async def press(interaction: discord.Interaction, game: str, text: str, to: str | None = None,
                    anonymous: bool = False, reply: str | None = None) -> None:  # fmt: skip
        if reply and reply.strip():
            await answers.apply(interaction, c.ReplyPress(game, reply.strip().upper(), text, anonymous))
            return
        seats = tuple(name.strip() for name in (to or "").split(",") if name.strip())
        await answers.apply(interaction, c.SendPress(game, seats, text, anonymous))

    @app_commands.command(
        name="mute", description="No more signed press from a seat, or anonymous press from a code's sender"
    )
    @app_commands.describe(game="Your game", who="A seat, or the code of a press message", stop="Unmute")
    @app_commands.autocomplete(game=listed)
    async def mute(interaction: discord.Interaction, game: str, who: str, stop: bool = False) -> None:
        await answers.apply(interaction, c.MutePress(game, who, not stop))

    @app_commands.command(name="reliability", description="Your record as a player: turns ordered in time, missed")
    async def reliability(interaction: discord.Interaction) -> None:
        await answers.apply(interaction, c.ShowReliability())

    @app_commands.command(name="standby", description="Be offered seats that need a substitute (off: no longer)")
    @app_commands.describe(kind="The kind of game, or all (leave out to see your list)",
                           off="True: take yourself off that list")  # fmt: skip
    @app_commands.choices(kind=STANDBY_KINDS)
    async def standby(interaction: discord.Interaction, kind: str | None = None, off: bool = False) -> None:
        if kind is None:
            await answers.apply(interaction, c.ShowStandby())
            return
        await answers.apply(interaction, c.SetStandby(c.ANY_KIND if kind == ALL_KINDS else kind, on=not off))

    async def offered_games(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await offered_game_choices(views, current)

    async def offered_seats(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        game = getattr(interaction.namespace, "game", None)
        return await offered_seat_choices(views, str(game) if game else None, current)

    @app_commands.command(name="take", description="Take over a seat that needs a substitute")
    @app_commands.describe(game="A game with a seat up for a substitute", seat="The seat")
    @app_commands.autocomplete(game=offered_games, seat=offered_seats)
    async def take(interaction: discord.Interaction, game: str, seat: str) -> None:
        await answers.apply(interaction, c.TakeSeat(game, seat))

    return [
        games,
        join,
        orders,
        onfile,
        status,
        help_,
        rules,
        resign,
        absent,
        observe,
        ready,
        calendar,
        pictures,
        press,
        mute,
        reliability,
        standby,
        take,
    ]
