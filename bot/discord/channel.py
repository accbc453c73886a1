"""The Discord channel, declared: its settings, its addresses, its doctor checks and its worker.

It runs when ``token`` is set (``REFEREE_DISCORD_TOKEN``, with ``guild_id``);
a forum channel (``forum_channel_id``) gives every game a public place, a
post whose pinned message is the game's status board.  An address on Discord
is a user id (``123456789012345678``, or ``discord:123...``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.channels.contract import AddressSyntax, Channel, Check, DoctorContext, Runtime
from bot.settings.fields import secret, setting, url, whole

if TYPE_CHECKING:
    from bot.core.runtime.supervisor import Worker

log = logging.getLogger(__name__)

NAME = "discord"
"""As the adapter's modules name it (bot.discord.understand.CHANNEL)."""

DISCORD_ID = whole(0, None, "a Discord id (a whole number; 0: none)")


@dataclass(frozen=True)
class DiscordSettings:
    """The Discord channel's section: ``[discord] token`` is ``token`` here, ``discord_token`` in files."""

    token: str = secret()
    guild_id: int = setting(0, DISCORD_ID)
    forum_channel_id: int = setting(0, DISCORD_ID)
    gm_role_id: int = setting(0, DISCORD_ID)
    api_base: str = setting("https://discord.com/api/v10", url("http://", "https://"))
    gateway_url: str = setting("wss://gateway.discord.gg/", url("ws://", "wss://"))
    send_interval_seconds: float = 2.0


def missing(settings: DiscordSettings) -> list[str]:
    found: list[str] = []
    if settings.token and not settings.guild_id:
        found.append("discord_guild_id: missing: discord_token is set, so the server (guild) id is needed")
    if settings.token and not settings.forum_channel_id:
        found.append("discord_forum_channel_id: missing: discord_token is set, so the forum channel id is needed")
    return found


def has_public_place(settings: DiscordSettings) -> bool:
    """Every game has a public place (a forum post) when a forum channel is configured."""
    return bool(settings.token and settings.forum_channel_id)


def workers(settings: DiscordSettings, runtime: Runtime) -> list[Worker]:
    if not settings.token:
        log.info("no Discord token (REFEREE_DISCORD_TOKEN): Discord is not run")
        return []
    from bot.discord.runtime import DiscordRuntime  # imported only when Discord is configured

    return [
        DiscordRuntime(
            settings,
            runtime.sessions,
            service=runtime.service,
            clock=runtime.clock,
            bell=runtime.bell,
            read_address=runtime.read_address,
        )
    ]


def doctor(settings: DiscordSettings, context: DoctorContext) -> list[Check]:
    from bot.discord import doctor as checks  # aiohttp, imported when the doctor runs

    return checks.run(settings, context)


def _read_user_id(text: str) -> str | None:
    return text if text.isdigit() else None


CHANNEL = Channel(
    name=NAME,
    label="Discord",
    settings=DiscordSettings,
    prefix="discord_",
    address=AddressSyntax(_read_user_id, "Discord user ids"),
    workers=workers,
    doctor=doctor,
    missing=missing,
    public_place=has_public_place,
    status_board=has_public_place,
    unreachable=lambda settings: "" if settings.token else "Discord user ids, but Discord is not configured",
    reach_by="REFEREE_DISCORD_TOKEN",
    join_hint=lambda settings: "On Discord: /join game:{game}" if settings.token else "",
    take_hint=lambda settings: "On Discord: /take game:{game} seat:{seat}" if settings.token else "",
    standby_hint=lambda settings: "On Discord: /standby kind:{kind}" if settings.token else "",
)
"""Discord, as :data:`bot.channels.registry.CHANNELS` lists it."""
