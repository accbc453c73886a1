"""The players' slash commands: ``/games``, ``/join``, ``/orders``, ``/onfile``, ``/status``, ``/help``,
``/rules``, ``/resign``, ``/absent``, ``/observe``, ``/calendar``, ``/pictures``, ``/zone``, ``/quiet``,
``/settings``, ``/press``, ``/mute``, ``/ready``, ``/reliability``, ``/standby`` and ``/take``.

Each is made from its command's declaration (:mod:`bot.discord.declared_commands`: its name, its
summary, its options), and a new command a player may run gets one without an edit here, unless it
is one Discord shows in a way a declaration cannot say, written here by hand: ``/orders`` (a modal
when its text is left out), ``/press`` (one command for ``PRESS TO`` and ``PRESS REPLY``), ``/mute``
(its ``stop`` turns ``MUTE`` into ``UNMUTE``) and ``/standby`` (one command for ``STANDBY <kind>``,
``STANDBY OFF`` and ``STANDBY`` alone, its kinds a choice); or one given by mail only
(:data:`NOT_ON_DISCORD`).  What Discord shows beyond the declaration (which live list a field
suggests from, the options' descriptions) is :data:`SHOWN`.

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
from collections.abc import Mapping
from typing import Any

import discord
from discord import app_commands

from adjudicator import registry
from bot.core.model import commands as c
from bot.core.model.declaration import declared
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
    spoken,
)
from bot.discord.command_words import slash_words
from bot.discord.declared_commands import Shown, Suggest, declared_command, makes
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


NOT_ON_DISCORD: tuple[type[c.Declared], ...] = (c.ShowRecord, c.WaitForDeadline, c.NotUnderstood)
"""Commands a player gives by mail only: a finished game's sealed record (a file for ``referee verify``), ``SET
WAIT`` (njudge's; Discord has none yet), and a line the reader could not read (no one asks for it).  ``/link``
makes the link commands (:mod:`bot.discord.link_command`)."""
LINKING: tuple[type[c.Declared], ...] = (c.RequestLink, c.ConfirmLink)
BY_HAND: tuple[type[c.Declared], ...] = (
    c.SubmitOrders, c.SendPress, c.ReplyPress, c.MutePress, c.SetStandby, c.ShowStandby,
)  # fmt: skip
"""The commands of the slash commands written here by hand (see the module docstring)."""
PLAYERS = (c.Permission.ANYONE, c.Permission.VOUCHED, c.Permission.SEAT)

SHOWN: dict[type[c.Declared], Shown] = {
    c.JoinGame: Shown(suggest={"game": "joinable"}, describe={
        "game": slash_words("The game to join"),
        "name": slash_words("Your seat's name (default: your display name)")}),
    c.ShowFiledOrders: Shown(suggest={"game": "playing"}, describe={"game": slash_words("Your game")}),
    c.ShowStatus: Shown(suggest={"game": "listed"}),
    c.ShowHelp: Shown(suggest={"game": "game_or_kind"}, describe={
        "game": slash_words("A game or game kind (leave out for the list of commands)")}),
    c.ShowRules: Shown(suggest={"kind": "kind_or_game"}, describe={
        "kind": slash_words("A kind of game (or a game: its kind's rules)")}),
    c.Resign: Shown(suggest={"game": "listed"}, describe={"game": slash_words("The game to leave")}),
    c.DeclareAbsence: Shown(suggest={"game": "playing"}, rename={"first": "from", "last": "to"}, describe={
        "game": slash_words("Your game"),
        "first": slash_words("The first day away (2026-03-10)"),
        "last": slash_words("The last day away")}),
    c.Observe: Shown(suggest={"game": "listed"}, describe={"stop": slash_words("Stop observing it")}),
    c.ShowCalendar: Shown(describe={"new": slash_words("A new address: the old one stops working")}),
    c.SetPictures: Shown(describe={"on": slash_words("True: a picture with each report mail; False: none")}),
    c.SetZone: Shown(describe={"zone": slash_words("An IANA zone such as Europe/Paris, or OFF")}),
    c.SetQuiet: Shown(describe={"hours": slash_words("From-to in your zone, such as 22:00-07:00, or OFF")}),
    c.SetLanguage: Shown(describe={"language": slash_words("en, fr or de; OFF: the game's own")}),
    c.SetFormat: Shown(describe={"form": slash_words("PLAIN: sentences and lists; TABLES: fixed-width tables")}),
    c.SetDigest: Shown(describe={"when": slash_words("DAILY 08:00 (your zone), TURN or OFF")}),
    c.ConfirmReady: Shown(suggest={"game": "joinable"}, describe={"game": slash_words("Your game, in its ready check")}),
    c.TakeSeat: Shown(suggest={"game": "offered_games", "seat": "offered_seats"}, describe={
        "game": slash_words("A game with a seat up for a substitute")}),
}  # fmt: skip
"""What Discord shows of a declared command beyond its declaration (:class:`bot.discord.declared_commands.Shown`)."""


def players_commands() -> list[type[c.Declared]]:
    """The declared commands a player runs on Discord by a slash command made from the declaration."""
    return [kind for kind in declared() if kind.declaration.permission in PLAYERS
            and kind not in NOT_ON_DISCORD + LINKING + BY_HAND]  # fmt: skip


def player_commands(answers: Answers, views: GameViews) -> list[app_commands.Command[Any, ..., Any]]:
    """The player commands, bound to ``answers`` (the core) and ``views`` (autocomplete)."""

    async def run(interaction: discord.Interaction, game: str | None, command: c.Command) -> None:
        await answers.apply(interaction, command)

    suggest = players_suggestions(views)
    made = [declared_command(kind, run, suggest, SHOWN.get(kind)) for kind in players_commands()]
    return [*made, *(by_hand(answers, views, suggest) for by_hand in (_orders, _press, _mute, _standby))]


def players_suggestions(views: GameViews) -> dict[str, Suggest]:
    """What the players' options suggest from, by name: games (``game``: any; ``joinable``, ``playing``,
    ``listed``), games then kinds or kinds then games, the games and seats up for a substitute."""

    async def joinable(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await game_choices(views, current, JOINABLE)

    async def playing(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await game_choices(views, current, PLAYING)

    async def listed(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await game_choices(views, current, LISTED)

    async def any_game(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await game_choices(views, current, ANY)

    async def game_or_kind(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        games = await game_choices(views, current, ANY)
        return (games + kind_choices(current))[:MAX_CHOICES]

    async def kind_or_game(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        kinds = kind_choices(current)
        return (kinds + await game_choices(views, current, ANY))[:MAX_CHOICES]

    async def offered_games(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await offered_game_choices(views, current)

    async def offered_seats(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        game = getattr(interaction.namespace, "game", None)
        return await offered_seat_choices(views, str(game) if game else None, current)

    suggestions = {
        "game": any_game, "joinable": joinable, "playing": playing, "listed": listed, "game_or_kind": game_or_kind,
        "kind_or_game": kind_or_game, "offered_games": offered_games, "offered_seats": offered_seats,
    }  # fmt: skip
    return {name: spoken(suggest) for name, suggest in suggestions.items()}


def _orders(answers: Answers, views: GameViews, suggest: Mapping[str, Suggest]) -> app_commands.Command[Any, ..., Any]:
    """``/orders``, written by hand (see its callback's docstring)."""

    @app_commands.command(name="orders", description=slash_words("Send your orders (the last set sent counts)"),
                          extras=makes(c.SubmitOrders))  # fmt: skip
    @app_commands.describe(
        game=slash_words("Your game"), text=slash_words("Your orders; leave out to write several lines")
    )
    @app_commands.autocomplete(game=suggest["playing"])
    async def orders(interaction: discord.Interaction, game: str, text: str | None = None) -> None:
        """By hand: without ``text``, a modal with a paragraph field (long or multi-line orders)."""
        if text is None or not text.strip():
            await open_orders_modal(interaction, game.strip())
            return
        await answers.apply(interaction, c.SubmitOrders(game, text))

    return orders


def _press(answers: Answers, views: GameViews, suggest: Mapping[str, Suggest]) -> app_commands.Command[Any, ..., Any]:
    """``/press``, written by hand (see its callback's docstring)."""

    async def press_seats(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        """The game's seats (and ALL) for ``to:``; after a comma, the next seat of a list."""
        game = getattr(interaction.namespace, "game", None)
        view = await asyncio.to_thread(views.game, str(game)) if game else None
        head, _, last = current.rpartition(",")
        lead = f"{head.strip()}, " if head.strip() else ""
        names = [c.EVERY_SEAT] if not lead else []
        names += [s for s in (view.seats if view else ()) if last.strip().lower() in s.lower()]
        return [app_commands.Choice(name=(lead + n)[:100], value=(lead + n)[:100]) for n in names[:MAX_CHOICES]]

    @app_commands.command(name="press",
                          description=slash_words("A message to other seats of your game, relayed by the referee"),
                          extras=makes(c.SendPress, c.ReplyPress))  # fmt: skip
    @app_commands.describe(game=slash_words("Your game"), to=slash_words("Seats, separated by commas, or ALL"),
                           text=slash_words("The message"),
                           anonymous=slash_words("Unsigned (where the game allows grey press)"),
                           reply=slash_words("The code of a press message you got: answers its sender "
                                             "(instead of to:)"))  # fmt: skip
    @app_commands.autocomplete(game=suggest["listed"], to=press_seats)
    async def press(interaction: discord.Interaction, game: str, text: str, to: str | None = None,
                    anonymous: bool = False, reply: str | None = None) -> None:  # fmt: skip
        """By hand: one command for ``PRESS TO`` and ``PRESS REPLY`` (``reply`` instead of ``to``)."""
        if reply and reply.strip():
            await answers.apply(interaction, c.ReplyPress(game, reply.strip().upper(), text, anonymous))
            return
        seats = tuple(name.strip() for name in (to or "").split(",") if name.strip())
        await answers.apply(interaction, c.SendPress(game, seats, text, anonymous))

    return press


def _mute(answers: Answers, views: GameViews, suggest: Mapping[str, Suggest]) -> app_commands.Command[Any, ..., Any]:
    """``/mute``, written by hand (see its callback's docstring)."""

    @app_commands.command(
        name="mute", description=slash_words("No more signed press from a seat, or anonymous press from a code's sender"),
        extras=makes(c.MutePress),
    )  # fmt: skip
    @app_commands.describe(
        game=slash_words("Your game"),
        who=slash_words("A seat, or the code of a press message"),
        stop=slash_words("Unmute"),
    )
    @app_commands.autocomplete(game=suggest["listed"])
    async def mute(interaction: discord.Interaction, game: str, who: str, stop: bool = False) -> None:
        """By hand: ``stop`` is ``UNMUTE`` (the command's ``mute`` turned round)."""
        await answers.apply(interaction, c.MutePress(game, who, not stop))

    return mute


def _standby(answers: Answers, views: GameViews, suggest: Mapping[str, Suggest]) -> app_commands.Command[Any, ..., Any]:
    """``/standby``, written by hand (see its callback's docstring)."""

    @app_commands.command(name="standby",
                          description=slash_words("Be offered seats that need a substitute (off: no longer)"),
                          extras=makes(c.SetStandby, c.ShowStandby))  # fmt: skip
    @app_commands.describe(kind=slash_words("The kind of game, or all (leave out to see your list)"),
                           off=slash_words("True: take yourself off that list"))  # fmt: skip
    @app_commands.choices(kind=STANDBY_KINDS)
    async def standby(interaction: discord.Interaction, kind: str | None = None, off: bool = False) -> None:
        """By hand: one command for ``STANDBY <kind>``, ``STANDBY OFF <kind>`` and ``STANDBY`` alone."""
        if kind is None:
            await answers.apply(interaction, c.ShowStandby())
            return
        await answers.apply(interaction, c.SetStandby(c.ANY_KIND if kind == ALL_KINDS else kind, on=not off))

    return standby
