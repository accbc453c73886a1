"""The ``/gm`` group: the game masters' commands on Discord ("What GMs get").

Each subcommand is one core command, applied as one envelope like any
other interaction; the core's pipeline authorises it (a game master of the
game, or for ``create`` someone allowed to create games: the member's GM role
is ``Envelope.may_create``) and writes the audit entry.  Every game master's
command is made from its declaration (:mod:`bot.discord.declared_commands`:
``start``, ``deadline``, ``pause``, ``resume``, ``preview``, ``orders``,
``broadcast``, ``log``, ``ready`` and any new one) unless it is one Discord
shows in a way a declaration cannot say, written here by hand:
``create`` (its options read as ``name=value``, its kinds and option
names suggested, its choices and ranges), ``extend`` (the second form of
``SetDeadline``, a duration), ``substitute`` (a choice of actions, the reason
optional), and the destructive ones (``process``, ``rollback``, ``eject``,
``replace``: a confirm button first, ``replace`` naming a member); or one
given by mail and ``referee gm`` only (:data:`NOT_ON_DISCORD`).

``create`` autocompletes the kinds and, in ``options``, the kind's option
names and values (:mod:`bot.discord.game_options`); seats and game names
autocomplete from live state.

Who may use ``/gm`` at all: members with the configured GM role
(``discord_gm_role_id``), and the game's own game masters.  Anyone else is
refused privately before anything is applied, and the attempt is logged.
Every subcommand is deferred first (privately), since that check may read
the database, and answered with follow-ups (Discord's 3 s).

Destructive commands (``process``, ``rollback``, ``eject``, ``replace``)
first answer with a confirm button whose custom id carries the whole
command and the id of the member who asked
(``gm:<verb>:<user id>:<game>:<argument>[:<member id>]:<reason>``, a rollback's
argument ``<turn>`` or ``<turn>/same`` for the same draw, at most
100 characters, so a reason that does not fit is refused with the limit);
a click from anyone else is refused and changes nothing.  Beside it, a
``Cancel`` button (``gmcancel:<user id>:<verb>:<game>``) changes nothing,
says so in the same private message and takes both buttons away; a click
from anyone else is refused privately.  The buttons are
:class:`discord.ui.DynamicItem`, so both still work after a restart.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Awaitable, Callable, Mapping
from types import MappingProxyType
from typing import Any

import discord
from discord import app_commands

from adjudicator import registry
from adjudicator.words import say
from bot.core.basics import linear
from bot.core.basics.engine_words import said_text
from bot.core.basics.translation import speaking
from bot.core.model import commands as c
from bot.core.model.declaration import declared
from bot.core.views import GameViews
from bot.discord.answers import Answers
from bot.discord.choices import ANY, LISTED, MAX_CHOICES, PLAYING, game_choices, spoken
from bot.discord.client import apologise, tell_privately
from bot.discord.command_words import slash_words
from bot.discord.declared_commands import Run, Shown, Suggest, declared_command, description_of, field_words, makes
from bot.discord.game_options import option_choices
from bot.discord.render import NO_MENTIONS, plain
from bot.discord.understand import locale_language, sender_of

log = logging.getLogger(__name__)

CUSTOM_ID_LIMIT = 100
DESTRUCTIVE = tuple(kind.declaration.subcommand for kind in (c.ProcessNow, c.RollBack, c.EjectPlayer, c.ReplacePlayer))
"""The subcommands that first ask to confirm (their names are their commands' declared ones)."""
Confirm = Callable[[discord.Interaction, str, str, str, str], Awaitable[None]]
"""Asks to confirm (interaction, game, verb, what is asked, the confirm button's custom id): see the module docstring."""
SAME_DRAW = "same"
"""After a rollback's turn in its confirm id (``12/same``): the same draw (:class:`bot.core.model.commands.RollBack`)."""


def described(kind: type[c.Declared]) -> app_commands.locale_str:
    """A subcommand's description: its command's declared summary, capitalised (and "asks to confirm")."""
    return description_of(kind, confirm=kind.declaration.subcommand in DESTRUCTIVE)


_OPTION_START = linear.compile(r"[,\s]+([A-Za-z_][\w-]*\s*=)")
"""The commas and spaces before a ``name=``: where a line of options is cut."""
_OPTION = linear.compile(r"^\s*([A-Za-z_][\w-]*)\s*=\s*(.*?)\s*$")


_CONFIRM_ID = linear.compile(r"^gm:[a-z]+:\d+:(?P<rest>.+)$")


def has_gm_role(user: discord.abc.User, role_id: int) -> bool:
    """Whether ``user`` (a guild member) has the configured GM role (0: no role is configured)."""
    if not role_id or not isinstance(user, discord.Member):
        return False
    ids = {role.id for role in user.roles} | set(getattr(user, "_roles", ()))
    return role_id in ids


def parse_options(text: str | None) -> dict[str, Any] | str:
    """``name=value name2=value2`` (or comma-separated) as a dict (values JSON when they read as JSON), or why not.

    Only the form is checked here; the game's own option checker validates names and values in the core.
    """
    options: dict[str, Any] = {}
    line = (text or "").strip()
    cuts = [(found.start(), found.start(1)) for found in _OPTION_START.finditer(line)]
    starts, ends = [0] + [start for _, start in cuts], [end for end, _ in cuts] + [len(line)]
    for part in (line[start:end] for start, end in zip(starts, ends, strict=True)):
        if not part.strip():
            continue
        match = _OPTION.match(part)
        if match is None:
            return f"'{part.strip()}' is not name=value"
        name, raw = match.groups()
        try:
            options[name] = json.loads(raw)
        except ValueError:
            options[name] = raw
    return options


def deadline_spec(when: str) -> str:
    """An ISO time as given, or a shift ``+2d 3h`` with its spaces taken out (the core reads ``+2d3h``)."""
    text = when.strip()
    return "".join(text.split()) if text.startswith("+") else text


def confirm_id(verb: str, user_id: int, game: str, argument: str, reason: str, member: int | None = None) -> str:
    parts = [verb, str(user_id), game, argument] + ([str(member)] if member is not None else []) + [reason]
    return "gm:" + ":".join(parts)


def command_from_confirm(verb: str, rest: str) -> c.Command:
    """The core command a confirm button carries (see the module docstring)."""
    if verb == "replace":
        game, seat, member, reason = rest.split(":", 3)
        return c.ReplacePlayer(game, seat, "discord", member, reason)
    game, argument, reason = rest.split(":", 2)
    match verb:
        case "process":
            return c.ProcessNow(game, int(argument), reason)
        case "rollback":  # "<turn>" or "<turn>/same": the same draw (a button made before it has no "/same")
            turn, _, draw = argument.partition("/")
            return c.RollBack(game, int(turn), reason, same_draw=draw == SAME_DRAW)
        case "eject":
            return c.EjectPlayer(game, argument, reason)
    raise ValueError(f"not a confirmable command: {verb}")


class GmConfirm(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"^gm:(?P<verb>{'|'.join(DESTRUCTIVE)}):(?P<user>\d+):(?P<rest>.+)$",
):
    """The confirm button of a destructive ``/gm`` command; see the module docstring."""

    def __init__(self, verb: str, user_id: int, rest: str, label: str | None = None) -> None:
        """``label``: the button's words as the GM reads them (``Confirm <verb>`` in English)."""
        super().__init__(
            discord.ui.Button(
                label=label or f"Confirm {verb}",
                style=discord.ButtonStyle.danger,
                custom_id=f"gm:{verb}:{user_id}:{rest}",
            )
        )
        self.verb, self.user_id, self.rest = verb, user_id, rest

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> GmConfirm:
        return cls(match["verb"], int(match["user"]), match["rest"])

    async def callback(self, interaction: discord.Interaction) -> None:
        if interaction.user.id != self.user_id:
            log.warning("gm confirm %s from %s refused: not theirs", self.custom_id, interaction.user.id)
            await tell_privately(interaction, say("This confirmation is not yours: nothing was done."))
            return
        answers: Answers | None = getattr(interaction.client, "gm_answers", None)
        if answers is None:
            await tell_privately(interaction, say("The referee is not taking game master commands here."))
            return
        try:
            await answers.apply(interaction, command_from_confirm(self.verb, self.rest))
        except Exception as error:
            await apologise(interaction, f"button {self.custom_id}", error)


class GmCancel(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"^gmcancel:(?P<user>\d+):(?P<verb>{'|'.join(DESTRUCTIVE)}):(?P<game>[^:]+)$",
):
    """The cancel button beside a destructive command's confirm; see the module docstring."""

    def __init__(self, verb: str, user_id: int, game: str, label: str | None = None) -> None:
        """``label``: the button's word as the GM reads it (``Cancel`` in English)."""
        game = game[: CUSTOM_ID_LIMIT - len(f"gmcancel:{user_id}:{verb}:")]  # only named in the answer
        super().__init__(
            discord.ui.Button(
                label=label or "Cancel",
                style=discord.ButtonStyle.secondary,
                custom_id=f"gmcancel:{user_id}:{verb}:{game}",
            )
        )
        self.verb, self.user_id, self.game = verb, user_id, game

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> GmCancel:
        return cls(match["verb"], int(match["user"]), match["game"])

    async def callback(self, interaction: discord.Interaction) -> None:
        if interaction.user.id != self.user_id:
            log.warning("gm cancel %s from %s refused: not theirs", self.custom_id, interaction.user.id)
            await tell_privately(interaction, say("This confirmation is not yours: nothing was done."))
            return
        log.info("gm %s of %s cancelled by %s", self.verb, self.game, interaction.user.id)
        text = say("Cancelled: {command} of {game} was not done; nothing changed.", command=self.verb, game=self.game)
        with speaking(locale_language(getattr(interaction, "locale", None))):
            shown = plain(said_text(text))
        try:
            await interaction.response.edit_message(content=shown, view=None, allowed_mentions=NO_MENTIONS)
        except discord.HTTPException as error:  # the prompt is gone (dismissed): say it in a message of its own
            log.warning("could not edit the confirmation %s: %s", self.custom_id, error)
            await tell_privately(interaction, text)


def gm_group(answers: Answers, views: GameViews, gm_role_id: int) -> app_commands.Group:
    """The ``/gm`` group, bound to ``answers`` (the core), ``views`` (autocomplete, the GM check) and the GM role."""
    group = app_commands.Group(name="gm", description=slash_words("Game master commands"))

    async def allowed(interaction: discord.Interaction, game: str | None) -> bool:
        """The GM role, or a game master of ``game``; else a private refusal, logged."""
        if has_gm_role(interaction.user, gm_role_id):
            return True
        if game is not None and await asyncio.to_thread(views.is_game_master, game, sender_of(interaction.user)):
            return True
        command = interaction.command.qualified_name if interaction.command else "gm"
        log.warning("/%s refused for %s (%s): neither the GM role nor a GM of %s",
                    command, interaction.user.id, interaction.user.display_name, game)  # fmt: skip
        refusal = (
            say("Only members with the game master role or the game masters of {game} may use /{command}.",
                game=game, command=command)
            if game else say("Only members with the game master role may use /{command}.", command=command)
        )  # fmt: skip
        await tell_privately(interaction, refusal)
        return False

    async def run(interaction: discord.Interaction, game: str | None, command: c.Command) -> None:
        if not await answers.defer(interaction):  # the check may read the database: Discord's 3 s
            return
        if await allowed(interaction, game):
            await answers.apply(interaction, command, may_create=has_gm_role(interaction.user, gm_role_id))

    async def confirm(interaction: discord.Interaction, game: str, verb: str, what: str, custom_id: str) -> None:
        if not await answers.defer(interaction) or not await allowed(interaction, game):
            return
        if len(custom_id) > CUSTOM_ID_LIMIT:
            room = CUSTOM_ID_LIMIT - (len(custom_id) - len(custom_id.rsplit(":", 1)[1]))
            await tell_privately(
                interaction, say("The reason is too long for a confirmation: at most {room} characters.", room=room)
            )
            return
        match = _CONFIRM_ID.match(custom_id)
        assert match is not None
        with speaking(locale_language(getattr(interaction, "locale", None))):
            asked = plain(said_text(say("{what}\nThis cannot be undone by a click: confirm?", what=what)))
            confirm_label, cancel_label = said_text(say("Confirm {command}", command=verb)), said_text(say("Cancel"))
        view = discord.ui.View(timeout=None)
        view.add_item(GmConfirm(verb, interaction.user.id, match["rest"], confirm_label))
        view.add_item(GmCancel(verb, interaction.user.id, game, cancel_label))
        await interaction.followup.send(asked, view=view, ephemeral=True, allowed_mentions=NO_MENTIONS)

    suggestions = gm_suggestions(views)
    for made in (_create(run, suggestions), _extend(run, suggestions), _substitute(run, suggestions),
                 _process(confirm, suggestions), _replace(confirm, suggestions), _eject(confirm, suggestions),
                 _rollback(confirm, suggestions)):  # fmt: skip
        group.add_command(made)
    for kind in game_masters_commands():  # every other one: made from its declaration
        if group.get_command(kind.declaration.subcommand) is None:
            group.add_command(declared_command(kind, run, suggestions, SHOWN.get(kind), described(kind)))
    return group


def gm_suggestions(views: GameViews) -> dict[str, Suggest]:
    """What ``/gm``'s options suggest from, by name: the kinds, a kind's option names, games (``game``: any;
    ``listed``, ``playing``) and the named game's seats (``seat``)."""

    async def kinds(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        needle = current.strip().lower()
        names = [k for k in registry.kinds() if needle in k]
        return [app_commands.Choice(name=k, value=k) for k in names[:MAX_CHOICES]]

    async def option_names(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        return option_choices(str(getattr(interaction.namespace, "kind", "") or "").strip().lower(), current)

    async def listed(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await game_choices(views, current, LISTED)

    async def playing(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await game_choices(views, current, PLAYING)

    async def any_game(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await game_choices(views, current, ANY)

    async def seats(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        game = getattr(interaction.namespace, "game", None)
        view = await asyncio.to_thread(views.game, str(game)) if game else None
        names = [s for s in (view.seats if view else ()) if current.strip().lower() in s.lower()]
        return [app_commands.Choice(name=s, value=s) for s in names[:MAX_CHOICES]]

    suggestions = {
        "kinds": kinds,
        "option_names": option_names,
        "game": any_game,
        "listed": listed,
        "playing": playing,
        "seat": seats,
    }
    return {name: spoken(suggest) for name, suggest in suggestions.items()}


def _create(run: Run, suggest: Mapping[str, Suggest]) -> app_commands.Command[Any, ..., None]:
    """``/gm create``, written by hand (see its callback's docstring)."""

    @app_commands.command(
        name=c.CreateGame.declaration.subcommand, description=described(c.CreateGame), extras=makes(c.CreateGame)
    )
    @app_commands.describe(
        kind=slash_words("The kind of game"),
        game=slash_words("Its name (letters, digits, - and _)"),
        options=slash_words("Game options as name=value, separated by spaces (suggested for the kind)"),
        seats=slash_words("Seats it starts with"),
        schedule=slash_words("Deadlines: 48h, every 3 days at 18:00 ..."),
        time_zone=slash_words("The game's time zone (Europe/London); default: the host's"),
        press=slash_words("Press between players: none, white (signed; the default) or grey (anonymous too)"),
        press_gm_copies=slash_words("The game masters get a copy of the press (default: yes)"),
        press_in_record=slash_words("Keep the press's texts (default: no)"),
        ready_check=slash_words("Once full, each seat confirms within this (24h) or is freed; default: off"),
        min_reliability=slash_words("JOIN needs this % of owed turns ordered in time (once 5 are owed)"),
        substitute_after=slash_words("Missed turns in a row before a seat goes to the standby list (default 0: only "
                                     "/gm substitute)"),
        substitute_auto=slash_words("The first to take a seat offered has it at once (default: a GM accepts them)"),
    )  # fmt: skip
    @app_commands.autocomplete(kind=suggest["kinds"], options=suggest["option_names"])
    @app_commands.choices(press=[app_commands.Choice(name=mode, value=mode) for mode in c.PRESS_MODES])
    async def create(interaction: discord.Interaction, kind: str, game: str, options: str | None = None,
                     seats: int | None = None, schedule: str | None = None, time_zone: str = "",
                     press: str = "white", press_gm_copies: bool = True, press_in_record: bool = False,
                     ready_check: str = "",
                     min_reliability: app_commands.Range[int, 0, 100] | None = None,
                     substitute_after: app_commands.Range[int, 0] = 0, substitute_auto: bool = False) -> None:  # fmt: skip
        """By hand: its options are read as ``name=value``, its kinds and option names suggested, its press a choice."""
        parsed = parse_options(options)
        if isinstance(parsed, str):
            await tell_privately(
                interaction, say("Options: {problem}. Write them as name=value, separated by spaces.", problem=parsed)
            )
            return
        await run(interaction, None, c.CreateGame(game, kind, parsed, time_zone, seats=seats, schedule=schedule or "",
                                                  press=press, press_gm_copies=press_gm_copies,
                                                  press_in_record=press_in_record, ready_check=ready_check,
                                                  min_reliability=min_reliability,
                                                  substitute_after=substitute_after,
                                                  substitute_auto=substitute_auto))  # fmt: skip

    return create


def _extend(run: Run, suggest: Mapping[str, Suggest]) -> app_commands.Command[Any, ..., None]:
    """``/gm extend``, written by hand (see its callback's docstring)."""

    @app_commands.command(
        name=c.SetDeadline.declaration.forms[1].verb.lower(),
        description=slash_words("Move the deadline later by a duration (2d 3h)"),
        extras=makes(c.SetDeadline),
    )
    @app_commands.describe(
        **field_words("game", "reason"),
        by=slash_words("How much later: days, hours and minutes (2d 3h, 90m)"),
    )
    @app_commands.autocomplete(game=suggest["playing"])
    async def extend(interaction: discord.Interaction, game: str, by: str, reason: str) -> None:
        """By hand: ``SetDeadline``'s second form (a duration, where a declared command takes its first)."""
        await run(interaction, game, c.SetDeadline(game, deadline_spec("+" + by.strip().lstrip("+")), reason))

    return extend


def _process(confirm: Confirm, suggest: Mapping[str, Suggest]) -> app_commands.Command[Any, ..., None]:
    """``/gm process``, written by hand (see its callback's docstring)."""

    @app_commands.command(
        name=c.ProcessNow.declaration.subcommand, description=described(c.ProcessNow), extras=makes(c.ProcessNow)
    )
    @app_commands.describe(
        **field_words("game", "reason"),
        turn=slash_words("The turn to resolve, as the reports number it"),
    )
    @app_commands.autocomplete(game=suggest["playing"])
    async def process(interaction: discord.Interaction, game: str, turn: int, reason: str) -> None:
        """By hand: a confirm button first (see the module docstring)."""
        await confirm(interaction, game, "process", say("Process turn {turn} of {game} now.", turn=turn, game=game),
                      confirm_id("process", interaction.user.id, game, str(turn), reason))  # fmt: skip

    return process


def _replace(confirm: Confirm, suggest: Mapping[str, Suggest]) -> app_commands.Command[Any, ..., None]:
    """``/gm replace``, written by hand (see its callback's docstring)."""

    @app_commands.command(
        name=c.ReplacePlayer.declaration.subcommand,
        description=described(c.ReplacePlayer),
        extras=makes(c.ReplacePlayer),
    )
    @app_commands.describe(**field_words("game", "seat", "reason"), member=slash_words("The member who takes the seat"))
    @app_commands.autocomplete(game=suggest["listed"], seat=suggest["seat"])
    async def replace(interaction: discord.Interaction, game: str, seat: str, member: discord.Member,
                      reason: str) -> None:  # fmt: skip
        """By hand: a confirm button first, and the seat goes to a member (a USER option)."""
        asked = say("Give the seat {seat} of {game} to {member}.", seat=seat, game=game, member=member.display_name)
        await confirm(interaction, game, "replace", asked,
                      confirm_id("replace", interaction.user.id, game, seat, reason, member.id))  # fmt: skip

    return replace


def _substitute(run: Run, suggest: Mapping[str, Suggest]) -> app_commands.Command[Any, ..., None]:
    """``/gm substitute``, written by hand (see its callback's docstring)."""

    @app_commands.command(
        name=c.OfferSeat.declaration.subcommand, description=described(c.OfferSeat), extras=makes(c.OfferSeat)
    )
    @app_commands.describe(**field_words("game", "seat"),
                           action=slash_words("offer (the default) to the standby list, withdraw the offer, accept or "
                                              "decline who offered"),
                           reason=slash_words("Why (told to the players)"))  # fmt: skip
    @app_commands.choices(action=[app_commands.Choice(name=action, value=action) for action in c.OFFER_ACTIONS])
    @app_commands.autocomplete(game=suggest["playing"], seat=suggest["seat"])
    async def substitute(interaction: discord.Interaction, game: str, seat: str, action: str = "offer",
                         reason: str = "") -> None:  # fmt: skip
        """By hand: its action is a choice, its reason optional (withdrawing an offer needs none)."""
        await run(interaction, game, c.OfferSeat(game, seat, action, reason))

    return substitute


def _eject(confirm: Confirm, suggest: Mapping[str, Suggest]) -> app_commands.Command[Any, ..., None]:
    """``/gm eject``, written by hand (see its callback's docstring)."""

    @app_commands.command(
        name=c.EjectPlayer.declaration.subcommand, description=described(c.EjectPlayer), extras=makes(c.EjectPlayer)
    )
    @app_commands.describe(**field_words("game", "seat", "reason"))
    @app_commands.autocomplete(game=suggest["listed"], seat=suggest["seat"])
    async def eject(interaction: discord.Interaction, game: str, seat: str, reason: str) -> None:
        """By hand: a confirm button first (see the module docstring)."""
        await confirm(interaction, game, "eject", say("Eject the player of {seat} from {game}.", seat=seat, game=game),
                      confirm_id("eject", interaction.user.id, game, seat, reason))  # fmt: skip

    return eject


def _rollback(confirm: Confirm, suggest: Mapping[str, Suggest]) -> app_commands.Command[Any, ..., None]:
    """``/gm rollback``, written by hand (see its callback's docstring)."""

    @app_commands.command(
        name=c.RollBack.declaration.subcommand, description=described(c.RollBack), extras=makes(c.RollBack)
    )
    @app_commands.describe(**field_words("game", "reason"),
                           to_turn=slash_words("The turn to go back to the start of, as the reports number it"),
                           same_draw=slash_words("Draw as the turns drew before, keep the orders on file (to correct a "
                                                 "mistake; default: a new draw)"))  # fmt: skip
    @app_commands.autocomplete(game=suggest["game"])
    async def rollback(interaction: discord.Interaction, game: str, to_turn: int, reason: str,
                       same_draw: bool = False) -> None:  # fmt: skip
        """By hand: a confirm button first (see the module docstring)."""
        how = say("with the same draw, the orders on file kept") if same_draw else say("with a fresh draw")
        argument = f"{to_turn}/{SAME_DRAW}" if same_draw else str(to_turn)
        asked = say("Roll {game} back to the start of turn {turn}, {how}.", game=game, turn=to_turn, how=how)
        await confirm(interaction, game, "rollback", asked,
                      confirm_id("rollback", interaction.user.id, game, argument, reason))  # fmt: skip

    return rollback


def game_masters_commands() -> list[type[c.Declared]]:
    """The declared game masters' commands Discord's ``/gm`` has (all but :data:`NOT_ON_DISCORD`)."""
    return [kind for kind in declared() if kind.declaration.permission in (c.Permission.GAME_MASTER, c.Permission.CREATOR)
            and kind not in NOT_ON_DISCORD]  # fmt: skip


NOT_ON_DISCORD: tuple[type[c.Declared], ...] = (c.SetJoining, c.EndGame, c.SetOption, c.AddGameMaster)
"""Game masters' commands given by mail and ``referee gm`` only."""

_TIMES = MappingProxyType({"when": deadline_spec, "deadline": deadline_spec})
SHOWN: dict[type[c.Declared], Shown] = {
    c.StartGame: Shown(suggest={"game": "listed"}),
    c.SetDeadline: Shown(
        suggest={"game": "playing"},
        convert=_TIMES,
        describe={"when": slash_words("An ISO time in the game's zone (2026-03-10T18:00), or +2d3h from the deadline")},
    ),
    c.PauseGame: Shown(
        suggest={"game": "playing"},
        describe={"until": slash_words("An ISO time in the game's zone; leave out to pause until /gm resume")},
    ),
    c.ResumeGame: Shown(
        suggest={"game": "playing"},
        convert=_TIMES,
        describe={
            "deadline": slash_words(
                "The new deadline: an ISO time, or +2d3h from now; leave out: the game's schedule from now"
            )
        },
    ),
    c.PreviewTurn: Shown(suggest={"game": "playing"}),
    c.EnterOrders: Shown(
        suggest={"game": "playing"}, describe={"text": slash_words("The seat's orders, as its player would write them")}
    ),
    c.Broadcast: Shown(suggest={"game": "listed"}, describe={"text": slash_words("The message")}),
    c.SetGameLanguage: Shown(describe={"language": slash_words("en, fr or de: its players' default; OFF: English")}),
}
"""What ``/gm`` shows of a declared command beyond its declaration (:class:`bot.discord.declared_commands.Shown`):
which games its ``game`` suggests (default: any game), how a time is read."""


def declared_subcommand(kind: type[c.Declared], run: Run, games: Suggest) -> app_commands.Command[Any, ..., None]:
    """``/gm <name>`` for ``kind``, made from its declaration (:func:`bot.discord.declared_commands.declared_command`),
    its ``game`` suggested by ``games``."""
    return declared_command(kind, run, {"game": games}, SHOWN.get(kind), described(kind))
