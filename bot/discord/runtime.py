"""The Discord channel as one supervised task: log in, sync the commands, deliver the outbox until stopped.

``DiscordRuntime.run(stop)`` is what ``referee serve`` runs for Discord
(beside the email channel and the deadline worker, which are not Discord's).

``discord_api_base`` and ``discord_gateway_url`` point discord.py at a
Discord-compatible server (the tests' fake).  discord.py has no per-client
setting for them: they are the class attributes ``discord.http.Route.BASE``
and ``DiscordWebSocket.DEFAULT_GATEWAY`` (internals, hence the exact pin of
discord.py), set for the whole process when the runtime starts.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

import discord
import yarl
from sqlalchemy.orm import Session, sessionmaker

from bot.core.basics.clock import Clock, SystemClock
from bot.core.messaging.outbox_bell import OutboxBell
from bot.core.model.config import ServiceConfig
from bot.core.runtime.service import GameService
from bot.core.runtime.supervisor import Stage
from bot.core.views import GameViews
from bot.discord import dm_buttons
from bot.discord.answers import Answers
from bot.discord.channel import DiscordSettings
from bot.discord.client import RefereeClient
from bot.discord.direct_messages import DirectMessages
from bot.discord.games.registry import GameScreenSet
from bot.discord.gm_commands import GmCancel, GmConfirm, gm_group
from bot.discord.link_command import link_command
from bot.discord.player_commands import player_commands
from bot.discord.transport import DiscordDelivery
from bot.discord.understand import CHANNEL
from bot.text.gm_vocabulary import AddressReader, written_address

log = logging.getLogger(__name__)


def point_at(api_base: str, gateway_url: str) -> None:
    """Send every discord.py client of this process to ``api_base`` (REST) and ``gateway_url``."""
    discord.http.Route.BASE = api_base.rstrip("/")
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url)


class DiscordRuntime:
    """The client, its commands and the outbox delivery, built from the settings."""

    def __init__(
        self,
        settings: DiscordSettings,
        sessions: sessionmaker[Session],
        *,
        service: GameService | None = None,
        clock: Clock | None = None,
        guild_ready_timeout: float = 2.0,
        bell: OutboxBell | None = None,
        read_address: AddressReader = written_address,
    ) -> None:
        if not settings.token:
            raise ValueError("Discord needs a bot token: set REFEREE_DISCORD_TOKEN")
        if not settings.guild_id:
            raise ValueError("Discord needs the guild: set guild_id in [referee.discord]")
        self.settings = settings
        self.clock = clock or SystemClock()
        self.service = service or GameService(sessions, ServiceConfig())
        self.client = RefereeClient(settings.guild_id, guild_ready_timeout=guild_ready_timeout)
        self.delivery = DiscordDelivery(
            self.client,
            sessions,
            self.clock,
            settings.forum_channel_id,
            interval=settings.send_interval_seconds,
            channels=(CHANNEL,),
            service_config=self.service.config,
            bell=bell,
            guild_id=settings.guild_id,
        )
        self.answers = Answers(self.service, self.delivery, self.clock)
        views = GameViews(sessions)
        self.client.install(player_commands(self.answers, views))
        self.client.use_game_screens(screens := GameScreenSet(self.answers, views))
        self.client.install([gm_group(self.answers, views, settings.gm_role_id), link_command(self.answers)])
        self.client.gm_answers = self.answers
        self.client.add_dynamic_items(GmConfirm, GmCancel, *dm_buttons.ITEMS)
        self.client.interaction_hooks.append(self.answers.orders_by_modal)
        self.direct_messages = DirectMessages(
            self.client,
            self.service,
            self.delivery,
            self.clock,
            guild_id=settings.guild_id,
            gm_role_id=settings.gm_role_id,
            read_address=read_address,
        )
        self.client.message_hooks.append(self.direct_messages.on_message)
        self.delivery.after_public = screens.after_public_report
        self.delivery.transport.dm_buttons = dm_buttons.buttons_for
        self.ready = asyncio.Event()

    name = "discord"
    stage = Stage.INTAKE

    async def prepare(self) -> None:
        """Nothing to read before the others start: interactions are answered as they come."""

    async def run_once(self) -> bool:
        """``referee serve --once`` does not log in to Discord (interactions need a running client)."""
        log.info("discord: not run by `serve --once`; its outbox rows wait for `referee serve`")
        return True

    async def run(self, stop: asyncio.Event) -> None:
        """Log in, sync commands to the guild, deliver until ``stop``; a failed login or a lost client raises.

        The supervisor (:mod:`bot.core.runtime.supervisor`) restarts it; the rest of the
        referee goes on meanwhile.
        """
        point_at(self.settings.api_base, self.settings.gateway_url)
        if self.client.is_closed():
            self.client.clear()  # a restart after a lost connection reuses the client
        client_task = asyncio.create_task(self.client.start(self.settings.token), name="discord-client")
        ready_task = asyncio.create_task(self.client.wait_until_ready())
        try:
            await asyncio.wait({client_task, ready_task}, return_when=asyncio.FIRST_COMPLETED)
            if client_task.done():
                client_task.result()  # raises why the client stopped (a refused token, say)
                raise RuntimeError("the Discord client stopped before it was ready")
            log.info("Discord ready as %s in guild %s", self.client.user, self.settings.guild_id)
            self.ready.set()
            delivering = asyncio.Event()
            delivery_task = asyncio.create_task(self.delivery.run(delivering), name="discord-delivery")
            stop_task = asyncio.create_task(stop.wait())
            await asyncio.wait({client_task, stop_task}, return_when=asyncio.FIRST_COMPLETED)
            stop_task.cancel()
            delivering.set()  # only this channel's delivery stops with its client; the referee goes on
            await delivery_task
            if client_task.done():
                client_task.result()
                if not stop.is_set():
                    raise RuntimeError("the Discord client disconnected")
        finally:
            ready_task.cancel()
            await self.client.close()
            with contextlib.suppress(asyncio.CancelledError):
                await client_task
