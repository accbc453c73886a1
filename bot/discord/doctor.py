"""The Discord channel's ``referee doctor`` checks.

The token (``GET /users/@me``), the guild, the forum channel, and the bot's
permissions in it, computed from its roles and the channel's overwrites;
whether it may make the guild's scheduled events (each running game's next
deadline: :mod:`bot.discord.events`), a warning when not, since the games run
without; the GM role when one is named.  No secret is ever printed.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from bot.channels.contract import Check, DoctorContext, first_line

if TYPE_CHECKING:
    from bot.discord.channel import DiscordSettings

TIMEOUT = 15.0


def run(settings: DiscordSettings, context: DoctorContext) -> list[Check]:
    """The checks, when a token is set (Discord does not run without one)."""
    return asyncio.run(discord_checks(settings)) if settings.token else []


# -- Discord -------------------------------------------------------------------------------------

PERMISSIONS = {
    "View Channel": 1 << 10,
    "Send Messages": 1 << 11,
    "Pin Messages": 1 << 51,  # each game's status message; its own permission since 2026 (not Manage Messages)
    "Read Message History": 1 << 16,
    "Create Public Threads": 1 << 35,
    "Send Messages in Threads": 1 << 38,
}
"""What the bot needs in the forum channel (deploy/HOSTING.md lists the same)."""
ADMINISTRATOR = 1 << 3
EVENT_PERMISSIONS = {"Create Events": 1 << 44, "Manage Events": 1 << 33}
"""Either lets the bot make and move its own scheduled events (guild-wide: no channel overwrite applies)."""
GUILD_FORUM = 15


async def discord_checks(settings: DiscordSettings) -> list[Check]:
    import aiohttp

    base = settings.api_base.rstrip("/")
    headers = {"Authorization": f"Bot {settings.token}", "User-Agent": "referee-doctor (referee, 0.1)"}
    timeout = aiohttp.ClientTimeout(total=TIMEOUT)
    async with aiohttp.ClientSession(headers=headers, timeout=timeout) as http:

        async def get(path: str) -> tuple[int, Any]:
            async with http.get(f"{base}{path}") as response:
                body = await response.json(content_type=None) if response.status < 500 else None
                return response.status, body

        try:
            status, me = await get("/users/@me")
        except Exception as exc:
            return [Check("Discord API", False, f"{base}: {first_line(exc)}", "check discord_api_base and the network")]
        if status != 200:
            return [Check("Discord token", False, f"GET /users/@me answered {status}",
                          "reset the token in the Developer Portal (Bot tab) and set REFEREE_DISCORD_TOKEN")]  # fmt: skip
        found = [Check("Discord token", True, f"valid: logged in as {me.get('username')} ({me.get('id')})")]
        status, guild = await get(f"/guilds/{settings.guild_id}")
        if status != 200:
            found.append(Check("Discord guild", False, f"guild {settings.guild_id}: answered {status}",
                               "invite the bot (deploy/HOSTING.md), or correct discord_guild_id"))  # fmt: skip
            return found
        found.append(Check("Discord guild", True, f"{guild.get('name')} ({settings.guild_id})"))
        status, channel = await get(f"/channels/{settings.forum_channel_id}")
        if status != 200 or str(channel.get("guild_id")) != str(settings.guild_id):
            found.append(Check("Discord forum", False, f"channel {settings.forum_channel_id}: "
                               + (f"answered {status}" if status != 200 else "is in another guild"),
                               "correct discord_forum_channel_id (right-click the channel, Copy Channel ID)"))  # fmt: skip
            return found
        if channel.get("type") != GUILD_FORUM:
            found.append(Check("Discord forum", False, f"#{channel.get('name')} is not a forum channel "
                               f"(type {channel.get('type')})", "create a forum channel and name its id"))  # fmt: skip
            return found
        found.append(Check("Discord forum", True, f"#{channel.get('name')} is a forum channel"))
        status, member = await get(f"/guilds/{settings.guild_id}/members/{me.get('id')}")
        if status != 200:
            found.append(Check("Discord permissions", False, f"cannot read the bot's membership ({status})",
                               "invite the bot to the guild (deploy/HOSTING.md)"))  # fmt: skip
            return found
        found.append(_permission_check(guild, member, channel, str(me.get("id"))))
        found.append(_events_check(guild, member, str(me.get("id"))))
        if settings.gm_role_id:
            roles = {str(r.get("id")) for r in guild.get("roles", [])}
            if str(settings.gm_role_id) in roles:
                found.append(Check("Discord GM role", True, f"role {settings.gm_role_id} exists"))
            else:
                found.append(Check("Discord GM role", False, f"no role {settings.gm_role_id} in the guild",
                                   "correct discord_gm_role_id (Server Settings, Roles, Copy Role ID)"))  # fmt: skip
    return found


def guild_permissions(guild: dict[str, Any], member: dict[str, Any], user_id: str) -> int:
    """The member's permissions in the guild (-1: all, as owner or administrator): @everyone's and its roles'."""
    if str(guild.get("owner_id")) == user_id:
        return -1
    roles = {str(r["id"]): int(r.get("permissions", 0)) for r in guild.get("roles", [])}
    base = roles.get(str(guild.get("id")), 0)
    for role in member.get("roles", []):
        base |= roles.get(str(role), 0)
    return -1 if base & ADMINISTRATOR else base


def channel_permissions(guild: dict[str, Any], member: dict[str, Any], channel: dict[str, Any], user_id: str) -> int:
    """The member's permissions in the channel: Discord's documented computation (base, then overwrites)."""
    guild_id = str(guild.get("id"))
    member_roles = [str(r) for r in member.get("roles", [])]
    base = guild_permissions(guild, member, user_id)
    if base == -1:
        return -1
    overwrites = {
        str(o["id"]): (int(o.get("allow", 0)), int(o.get("deny", 0))) for o in channel.get("permission_overwrites", [])
    }
    allow, deny = overwrites.get(guild_id, (0, 0))
    base = (base & ~deny) | allow
    allow = deny = 0
    for role in member_roles:
        a, d = overwrites.get(role, (0, 0))
        allow, deny = allow | a, deny | d
    base = (base & ~deny) | allow
    a, d = overwrites.get(user_id, (0, 0))
    return (base & ~d) | a


def _permission_check(guild: dict[str, Any], member: dict[str, Any], channel: dict[str, Any], user_id: str) -> Check:
    have = channel_permissions(guild, member, channel, user_id)
    lacking = [name for name, bit in PERMISSIONS.items() if not have & bit]
    if lacking:
        return Check("Discord permissions", False, f"in #{channel.get('name')} the bot lacks: {', '.join(lacking)}",
                     "give the bot's role these permissions on the forum channel (deploy/HOSTING.md)")  # fmt: skip
    return Check("Discord permissions", True, f"in #{channel.get('name')}: {', '.join(PERMISSIONS)}")


def _events_check(guild: dict[str, Any], member: dict[str, Any], user_id: str) -> Check:
    have = guild_permissions(guild, member, user_id)
    granted = [name for name, bit in EVENT_PERMISSIONS.items() if have & bit]
    if granted:
        return Check("Discord events", True, f"the bot may keep each running game's next deadline as a server "
                     f"event ({' and '.join(granted)})")  # fmt: skip
    return Check("Discord events", True, "the bot lacks Create Events and Manage Events: games run, but their "
                 "deadlines are not shown as server events",
                 "give the bot's role Create Events (Server Settings, Roles) for deadlines in the server's events",
                 warning=True)  # fmt: skip
