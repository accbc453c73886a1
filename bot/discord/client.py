"""The discord.py client: an ``app_commands`` tree synced to the configured guild.

Plain :class:`discord.Client` (not ``AutoShardedClient``, which would ask
``GET /gateway/bot``; a plain client uses the default gateway URL) with default intents: the bot
needs no privileged intent, since commands arrive as interactions, and a DM's text (commands in free
text, :mod:`bot.discord.direct_messages`) comes with its message without the message content intent.
Commands are registered for the one guild and synced in ``setup_hook``
(guild commands appear at once; global ones can take an hour).  Its default
``allowed_mentions`` parse nothing (:data:`bot.discord.render.NO_MENTIONS`):
a send that forgot to say so still pings nobody.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

import aiohttp
import discord
from discord import app_commands

from adjudicator.words import say
from bot.core.basics.engine_words import said_text
from bot.core.basics.translation import speaking
from bot.discord.answers import Answers
from bot.discord.command_words import CommandWords
from bot.discord.render import NO_MENTIONS, plain
from bot.discord.screen_set import ScreenSet
from bot.discord.understand import locale_language

log = logging.getLogger(__name__)

NOT_IN_USE = say("This control is no longer in use (the referee does not know it): nothing was changed.")

SORRY = say(
    "Sorry: that failed on the referee's side and has been logged. If it was orders, "
    "check with /status whether they arrived before sending them again."
)
CHECK_FAILED = say("You may not use this command.")


async def tell_privately(interaction: discord.Interaction, text: str) -> None:
    """``text`` to the interaction's user only (a follow-up once the interaction was answered).

    ``text`` is plain: shown as written (its markdown and mentions escaped), pinging nobody.  Words said
    with :func:`adjudicator.words.say` are said in the language of the member's Discord (its locale, when
    it is a shipped language: :func:`bot.discord.understand.locale_language`), else in English.
    """
    with speaking(locale_language(getattr(interaction, "locale", None))):
        shown = plain(said_text(text))
    try:
        if interaction.response.is_done():
            await interaction.followup.send(shown, ephemeral=True, allowed_mentions=NO_MENTIONS)
        else:
            await interaction.response.send_message(shown, ephemeral=True, allowed_mentions=NO_MENTIONS)
    except (discord.HTTPException, aiohttp.ClientError, OSError) as error:
        log.warning("could not tell %s (%s): %s", interaction.user.id, error, text)


async def apologise(interaction: discord.Interaction, what: str, error: BaseException) -> None:
    """A bug while handling ``what``: logged with its traceback, and the user told privately (never left hanging)."""
    log.error("%s from %s failed", what, interaction.user.id, exc_info=error)
    await tell_privately(interaction, SORRY)


class RefereeTree(app_commands.CommandTree[discord.Client]):
    """The command tree: an error in a command is logged and answered privately, never left unanswered."""

    async def on_error(self, interaction: discord.Interaction, error: app_commands.AppCommandError) -> None:
        command = interaction.command.qualified_name if interaction.command else "?"
        if isinstance(error, app_commands.CheckFailure):
            log.info("/%s refused for %s: %s", command, interaction.user.id, error)
            await tell_privately(interaction, str(error) or CHECK_FAILED)
            return
        await apologise(interaction, f"/{command}", error)


class RefereeClient(discord.Client):
    """The referee on Discord; commands are added to the guild ``guild_id`` and synced at login."""

    def __init__(self, guild_id: int, *, guild_ready_timeout: float = 2.0) -> None:
        super().__init__(
            intents=discord.Intents.default(),
            allowed_mentions=NO_MENTIONS,
            guild_ready_timeout=guild_ready_timeout,
            max_ratelimit_timeout=30.0,
        )
        self.guild_id = guild_id
        self.tree = RefereeTree(self)
        self.guild = discord.Object(guild_id)
        self.game_screens: ScreenSet | None = None
        """Each game's screens, which its buttons report to (:meth:`use_game_screens`); known by a protocol only:
        the games' screens import this module, never the other way round (:mod:`bot.discord.screen_set`)."""
        self.gm_answers: Answers | None = None
        """What ``/gm`` confirm buttons apply through, set by the runtime."""
        self.interaction_hooks: list[Callable[[discord.Interaction], Awaitable[bool]]] = []
        """Called with every interaction discord.py has no handler for (modal submissions); True: taken."""
        self.message_hooks: list[Callable[[discord.Message], Awaitable[None]]] = []
        """Called with every message the gateway delivers (DMs in free text: :mod:`bot.discord.direct_messages`)."""
        self._templates: list[re.Pattern[str]] = []

    def add_dynamic_items(self, *items: type[discord.ui.DynamicItem[Any]]) -> None:
        """Register ``items`` (every button and menu the referee makes is one), remembering their ids' templates."""
        super().add_dynamic_items(*items)
        self._templates.extend(item.__discord_ui_compiled_template__ for item in items)

    def handles_component(self, custom_id: str) -> bool:
        """Whether a registered dynamic item takes a click on ``custom_id`` (matched as discord.py matches it)."""
        return any(template.fullmatch(custom_id) for template in self._templates)

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        """Hooks first (the orders modal); a click or a form nothing takes is answered privately, never left hanging.

        A button of a message posted by an older version of the referee, or a
        form it no longer reads, would otherwise show Discord's "interaction
        failed"; its user is told that nothing was changed, and it is logged.
        """
        for hook in self.interaction_hooks:
            try:
                if await hook(interaction):
                    return
            except Exception as error:
                await apologise(interaction, f"interaction {interaction.id}", error)
                return
        data: dict[str, Any] = dict(interaction.data or {})
        custom_id = str(data.get("custom_id", ""))
        untaken = interaction.type is discord.InteractionType.modal_submit or (
            interaction.type is discord.InteractionType.component and not self.handles_component(custom_id)
        )
        if untaken:
            log.warning("interaction %s (%r) from %s: nothing takes it", interaction.id, custom_id, interaction.user.id)
            await tell_privately(interaction, NOT_IN_USE)

    async def on_message(self, message: discord.Message) -> None:
        """Hand ``message`` to each hook; a hook that raises is logged (with the message's id), never raised."""
        for hook in self.message_hooks:
            try:
                await hook(message)
            except Exception:
                log.exception("message %s from %s failed", message.id, message.author.id)

    def use_game_screens(self, screens: ScreenSet) -> None:
        """Take every game's screens: their commands and items are added, their buttons find them here."""
        self.game_screens = screens
        self.install(screens.commands())
        self.add_dynamic_items(*screens.items())

    def install(self, commands: Iterable[app_commands.Command[Any, ..., Any] | app_commands.Group]) -> None:
        """Add ``commands`` to the guild's tree (before login: they are synced in ``setup_hook``)."""
        for command in commands:
            self.tree.add_command(command, guild=self.guild)

    async def setup_hook(self) -> None:
        await self.tree.set_translator(CommandWords())  # descriptions in every shipped language
        synced = await self.tree.sync(guild=self.guild)
        log.info("synced %d commands to guild %s", len(synced), self.guild_id)
