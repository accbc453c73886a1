"""``referee doctor``: is everything the settings name reachable and usable?

One :class:`Check` per line, ``ok``, ``warn`` (works, with a consequence
worth knowing) or ``FAIL`` with the fix.  The command exits non-zero when a
check fails.  What is checked, for what is configured:

* the settings a running bot needs (:meth:`bot.settings.Settings.missing`);
* the database: reachable, and migrated to the newest revision;
* IMAP: connect and log in, the intake folder exists, the done folder, IDLE and MOVE offered;
* SMTP: connect (TLS as configured) and AUTH; with ``--send-test`` a message to ``host_addresses``;
* a Maildir intake or outbox: the directory exists and is writable; with ``--send-test`` the test
  message is written into a Maildir outbox (and the check says nothing went by SMTP);
* Discord (when ``discord_token`` is set): the token (``GET /users/@me``), the guild, the forum
  channel, and the bot's permissions in it, computed from its roles and the channel's overwrites;
* the game masters: ``game_masters`` names someone.

Part of the composition root: it talks to the servers with the same
libraries as the channels (imapclient, aiosmtplib, aiohttp).  No secret is
ever printed.
"""

from __future__ import annotations

import asyncio
import os
import ssl
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from pathlib import Path
from typing import Any

from bot.settings import Settings, address_list, game_master_list

TIMEOUT = 15.0


@dataclass(frozen=True)
class Check:
    """One line of the report; ``fix`` says what to do when it is not ok."""

    name: str
    ok: bool
    detail: str
    fix: str = ""
    warning: bool = False

    def line(self) -> str:
        mark = "ok  " if self.ok and not self.warning else ("warn" if self.ok else "FAIL")
        text = f"{mark} {self.name}: {self.detail}"
        return f"{text}\n       fix: {self.fix}" if self.fix and (not self.ok or self.warning) else text


def run_checks(settings: Settings, send_test: bool = False) -> list[Check]:
    """Every check the settings call for, in order."""
    checks = [_missing_check(problem) for problem in settings.missing()]
    if not checks:
        checks.append(Check("settings", True, "every setting a running bot needs is there"))
    checks += database_checks(settings)
    if settings.imap_host:
        checks += imap_checks(settings) + in_clear_check("IMAP", settings.imap_host, settings.imap_security, True)
    elif settings.maildir_inbox:
        checks.append(_directory_check("Maildir intake", Path(settings.maildir_inbox), "maildir_inbox"))
    else:
        checks.append(Check("email intake", True, "no imap_host nor maildir_inbox: no mail is read", warning=True))
    if settings.smtp_host:
        checks += asyncio.run(smtp_checks(settings, send_test))
        checks += in_clear_check("SMTP", settings.smtp_host, settings.smtp_security, bool(settings.smtp_user))
    elif settings.maildir_outbox:
        checks.append(_directory_check("Maildir outbox", Path(settings.maildir_outbox), "maildir_outbox"))
        if send_test:
            checks.append(maildir_test_check(settings))
    else:
        checks.append(Check("email sending", True, "no smtp_host nor maildir_outbox: mail waits in the outbox",
                            warning=True))  # fmt: skip
    if settings.discord_token:
        checks += asyncio.run(discord_checks(settings))
    checks.append(game_master_check(settings))
    checks.append(sender_trust_check(settings))
    return checks


def in_clear_check(server: str, host: str, security: str, logs_in: bool) -> list[Check]:
    """A warning when a password would cross the network unencrypted (``security = "none"`` to another machine)."""
    local = host == "localhost" or host.startswith("127.") or host == "::1"
    if security != "none" or local or not logs_in:
        return []
    setting = f"{server.lower()}_security"
    return [Check(f"{server} security", True, f"none: the password goes to {host} unencrypted",
                  f"set {setting} to tls or starttls (none is meant for a server on this machine)",
                  warning=True)]  # fmt: skip


# -- database ------------------------------------------------------------------------------------


def database_checks(settings: Settings) -> list[Check]:
    from sqlalchemy import text

    from bot.store.db import make_engine, sqlite_file
    from bot.store.migrate import current_revision, head_revision

    target = settings.database
    file = sqlite_file(target)
    if file is not None and not file.exists():  # opening it would create it: the doctor touches nothing
        return [Check("database", False, f"there is no SQLite database at {file}",
                      "run `referee db upgrade` to create it, or correct `database`")]  # fmt: skip
    engine = make_engine(target)
    try:
        with engine.connect() as connection:
            connection.execute(text("SELECT 1"))
    except Exception as exc:  # every driver has its own errors; the first line is what helps
        return [Check("database", False, f"cannot connect: {_first_line(exc)}",
                      "check `database` (host, port, user; the password in REFEREE_DATABASE)")]  # fmt: skip
    finally:
        engine.dispose()
    found = [Check("database", True, f"reachable ({_safe_url(target)})")]
    current, head = current_revision(target), head_revision()
    if current == head:
        found.append(Check("database schema", True, f"at the newest revision {head}"))
    else:
        found.append(Check("database schema", False, f"at revision {current or 'none (empty)'}, newest is {head}",
                           "run `referee db upgrade` (before starting `referee serve`)"))  # fmt: skip
    return found


def _safe_url(target: str) -> str:
    from sqlalchemy.engine import make_url

    from bot.store.db import database_url

    return make_url(database_url(target)).render_as_string(hide_password=True)


# -- IMAP ----------------------------------------------------------------------------------------


def imap_checks(settings: Settings) -> list[Check]:
    from imapclient import IMAPClient

    port = settings.imap_port or (993 if settings.imap_security == "tls" else 143)
    where = f"{settings.imap_host}:{port} ({settings.imap_security})"
    context = ssl.create_default_context(cafile=settings.imap_ca_file or None)
    try:
        client = IMAPClient(settings.imap_host, port=port, ssl=settings.imap_security == "tls",
                            ssl_context=context if settings.imap_security == "tls" else None, timeout=TIMEOUT)  # fmt: skip
        if settings.imap_security == "starttls":
            client.starttls(context)
    except Exception as exc:  # socket, TLS and protocol errors alike
        return [Check("IMAP connect", False, f"{where}: {_first_line(exc)}",
                      "check imap_host, imap_port and imap_security (tls: 993, starttls: 143)")]  # fmt: skip
    found = [Check("IMAP connect", True, where)]
    try:
        try:
            client.login(settings.imap_user, settings.imap_password)
        except Exception as exc:
            found.append(Check("IMAP login", False, f"as {settings.imap_user}: {_first_line(exc)}",
                               "check imap_user and the password in REFEREE_IMAP_PASSWORD"))  # fmt: skip
            return found
        found.append(Check("IMAP login", True, f"as {settings.imap_user}"))
        if client.folder_exists(settings.imap_folder):
            found.append(Check("IMAP folder", True, f"{settings.imap_folder!r} exists"))
        else:
            found.append(Check("IMAP folder", False, f"{settings.imap_folder!r} does not exist",
                               "create it in the mailbox, or set imap_folder to the folder mail arrives in"))  # fmt: skip
        capabilities = set(client.capabilities())
        if settings.imap_done_folder:
            if client.folder_exists(settings.imap_done_folder):
                found.append(Check("IMAP done folder", True, f"{settings.imap_done_folder!r} exists"))
            else:
                found.append(Check("IMAP done folder", True, f"{settings.imap_done_folder!r} does not exist yet",
                                   "the referee creates it at its first pass; or create it now", warning=True))  # fmt: skip
        found.append(_offered("IMAP IDLE", b"IDLE" in capabilities,
                              "new mail is read at once", f"polling every {settings.intake_poll_seconds:g} s"))  # fmt: skip
        found.append(_offered("IMAP MOVE", b"MOVE" in capabilities, "processed mail is moved to the done folder",
                              f"processed mail stays in {settings.imap_folder!r}, flagged {settings.imap_done_flag}"))  # fmt: skip
    finally:
        try:
            client.logout()
        except Exception:
            client.shutdown()
    return found


def _offered(name: str, offered: bool, good: str, otherwise: str) -> Check:
    if offered:
        return Check(name, True, f"offered: {good}")
    return Check(name, True, f"not offered: {otherwise}", "nothing is lost; a server that offers it is quicker",
                 warning=True)  # fmt: skip


# -- SMTP ----------------------------------------------------------------------------------------


async def smtp_checks(settings: Settings, send_test: bool) -> list[Check]:
    import aiosmtplib

    security = settings.smtp_security
    port = settings.smtp_port or {"tls": 465, "starttls": 587, "none": 25}[security]
    where = f"{settings.smtp_host}:{port} ({security})"
    context = ssl.create_default_context(cafile=settings.smtp_ca_file or None) if security != "none" else None
    client = aiosmtplib.SMTP(hostname=settings.smtp_host, port=port, use_tls=security == "tls",
                             start_tls=security == "starttls", tls_context=context, timeout=TIMEOUT)  # fmt: skip
    try:
        await client.connect()
    except Exception as exc:
        return [Check("SMTP connect", False, f"{where}: {_first_line(exc)}",
                      "check smtp_host, smtp_port and smtp_security (tls: 465, starttls: 587)")]  # fmt: skip
    found = [Check("SMTP connect", True, where)]
    try:
        if settings.smtp_user:
            try:
                await client.login(settings.smtp_user, settings.smtp_password)
            except Exception as exc:
                found.append(Check("SMTP AUTH", False, f"as {settings.smtp_user}: {_first_line(exc)}",
                                   "check smtp_user and the password in REFEREE_SMTP_PASSWORD"))  # fmt: skip
                return found
            found.append(Check("SMTP AUTH", True, f"as {settings.smtp_user}"))
        else:
            found.append(Check("SMTP AUTH", True, "no smtp_user: sending without AUTH", warning=True,
                               fix="most servers want AUTH: set smtp_user and REFEREE_SMTP_PASSWORD"))  # fmt: skip
        if send_test:
            found.append(await _send_test(client, settings))
    finally:
        try:
            await client.quit()
        except Exception:
            client.close()
    return found


async def _send_test(client: Any, settings: Settings) -> Check:
    recipients = address_list(settings.host_addresses)
    if not recipients:
        return Check("SMTP test message", False, "host_addresses is empty", "set host_addresses to your own address")
    message = _test_message(settings, recipients)
    try:
        await client.send_message(message, sender=settings.bot_address, recipients=recipients)
    except Exception as exc:
        return Check("SMTP test message", False, f"refused: {_first_line(exc)}",
                     "the server may not let bot_address send: check its sender rules")  # fmt: skip
    return Check("SMTP test message", True, f"sent to {', '.join(recipients)} ({message['Message-ID']})")


def maildir_test_check(settings: Settings) -> Check:
    """``--send-test`` with a Maildir outbox: the test message is written there, as the referee's mail is.

    Nothing leaves the machine (whatever reads the outbox delivers it, or nothing does): the
    check says so, and where the message is.
    """
    from bot.email.maildir import deliver

    name = "Maildir test message"
    recipients = address_list(settings.host_addresses)
    if not recipients:
        return Check(name, False, "host_addresses is empty", "set host_addresses to your own address")
    try:
        path = deliver(Path(settings.maildir_outbox), _test_message(settings, recipients).as_bytes())
    except OSError as exc:
        return Check(name, False, f"cannot write to {settings.maildir_outbox}: {exc.strerror}",
                     "let the referee's user write to it (maildir_outbox)")  # fmt: skip
    return Check(name, True, f"written to {path} (for {', '.join(recipients)}); the outbox is a Maildir, "
                 "so nothing was sent by SMTP", warning=True,
                 fix="to test sending by SMTP, set smtp_host (the referee then sends by SMTP, not to the Maildir)")  # fmt: skip


def _test_message(settings: Settings, recipients: list[str]) -> EmailMessage:
    message = EmailMessage()
    message["From"] = settings.bot_address
    message["To"] = ", ".join(recipients)
    message["Subject"] = "referee doctor: test message"
    message["Date"] = formatdate(localtime=False)
    message["Message-ID"] = make_msgid("doctor", domain=settings.mail_domain)
    message["Auto-Submitted"] = "auto-generated"
    message.set_content(
        "This is a test message from `referee doctor --send-test`.\n"
        "If it reached you, the referee can send mail through this server.\n"
    )
    return message


# -- Maildir -------------------------------------------------------------------------------------


def _directory_check(name: str, path: Path, setting: str) -> Check:
    if not path.exists():
        parent = next((p for p in path.parents if p.exists()), None)
        if parent is not None and parent.is_dir() and os.access(parent, os.W_OK | os.X_OK):
            return Check(name, True, f"{path} does not exist yet", "the referee creates it at its first pass",
                         warning=True)  # fmt: skip
        return Check(name, False, f"{path} does not exist and cannot be created", f"create it, or correct {setting}")
    if not path.is_dir():
        return Check(name, False, f"{path} is not a directory", f"correct {setting}")
    if not os.access(path, os.W_OK | os.X_OK):
        return Check(name, False, f"{path} is not writable", f"let the referee's user write to it ({setting})")
    return Check(name, True, f"{path} is writable")


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
GUILD_FORUM = 15


async def discord_checks(settings: Settings) -> list[Check]:
    import aiohttp

    base = settings.discord_api_base.rstrip("/")
    headers = {"Authorization": f"Bot {settings.discord_token}", "User-Agent": "referee-doctor (referee, 0.1)"}
    timeout = aiohttp.ClientTimeout(total=TIMEOUT)
    async with aiohttp.ClientSession(headers=headers, timeout=timeout) as http:

        async def get(path: str) -> tuple[int, Any]:
            async with http.get(f"{base}{path}") as response:
                body = await response.json(content_type=None) if response.status < 500 else None
                return response.status, body

        try:
            status, me = await get("/users/@me")
        except Exception as exc:
            return [
                Check("Discord API", False, f"{base}: {_first_line(exc)}", "check discord_api_base and the network")
            ]
        if status != 200:
            return [Check("Discord token", False, f"GET /users/@me answered {status}",
                          "reset the token in the Developer Portal (Bot tab) and set REFEREE_DISCORD_TOKEN")]  # fmt: skip
        found = [Check("Discord token", True, f"valid: logged in as {me.get('username')} ({me.get('id')})")]
        status, guild = await get(f"/guilds/{settings.discord_guild_id}")
        if status != 200:
            found.append(Check("Discord guild", False, f"guild {settings.discord_guild_id}: answered {status}",
                               "invite the bot (deploy/HOSTING.md), or correct discord_guild_id"))  # fmt: skip
            return found
        found.append(Check("Discord guild", True, f"{guild.get('name')} ({settings.discord_guild_id})"))
        status, channel = await get(f"/channels/{settings.discord_forum_channel_id}")
        if status != 200 or str(channel.get("guild_id")) != str(settings.discord_guild_id):
            found.append(Check("Discord forum", False, f"channel {settings.discord_forum_channel_id}: "
                               + (f"answered {status}" if status != 200 else "is in another guild"),
                               "correct discord_forum_channel_id (right-click the channel, Copy Channel ID)"))  # fmt: skip
            return found
        if channel.get("type") != GUILD_FORUM:
            found.append(Check("Discord forum", False, f"#{channel.get('name')} is not a forum channel "
                               f"(type {channel.get('type')})", "create a forum channel and name its id"))  # fmt: skip
            return found
        found.append(Check("Discord forum", True, f"#{channel.get('name')} is a forum channel"))
        status, member = await get(f"/guilds/{settings.discord_guild_id}/members/{me.get('id')}")
        if status != 200:
            found.append(Check("Discord permissions", False, f"cannot read the bot's membership ({status})",
                               "invite the bot to the guild (deploy/HOSTING.md)"))  # fmt: skip
            return found
        found.append(_permission_check(guild, member, channel, str(me.get("id"))))
        if settings.discord_gm_role_id:
            roles = {str(r.get("id")) for r in guild.get("roles", [])}
            if str(settings.discord_gm_role_id) in roles:
                found.append(Check("Discord GM role", True, f"role {settings.discord_gm_role_id} exists"))
            else:
                found.append(Check("Discord GM role", False, f"no role {settings.discord_gm_role_id} in the guild",
                                   "correct discord_gm_role_id (Server Settings, Roles, Copy Role ID)"))  # fmt: skip
    return found


def channel_permissions(guild: dict[str, Any], member: dict[str, Any], channel: dict[str, Any], user_id: str) -> int:
    """The member's permissions in the channel: Discord's documented computation (base, then overwrites)."""
    guild_id = str(guild.get("id"))
    if str(guild.get("owner_id")) == user_id:
        return -1
    roles = {str(r["id"]): int(r.get("permissions", 0)) for r in guild.get("roles", [])}
    member_roles = [str(r) for r in member.get("roles", [])]
    base = roles.get(guild_id, 0)
    for role in member_roles:
        base |= roles.get(role, 0)
    if base & ADMINISTRATOR:
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


# -- game masters --------------------------------------------------------------------------------


def _missing_check(problem: str) -> Check:
    """``key: missing: how to give it`` (:meth:`Settings.missing`) as a check naming the key, with the how as the fix."""
    key, _, how = problem.partition(": missing: ")
    return Check("settings", False, f"{key} is missing", how or problem)


def sender_trust_check(settings: Settings) -> Check:
    """Whether any mail sender can be vouched for: only a trusted server's Authentication-Results do it."""
    servers = address_list(settings.email_trusted_authserv_ids)
    if servers:
        return Check("sender trust", True, f"Authentication-Results from {', '.join(servers)} vouch for senders")
    return Check("sender trust", True, "no trusted mail server: no sender is vouched for, --auth address games "
                 "cannot be created (password games work)", "set email_trusted_authserv_ids to your receiving "
                 "server's authserv-id (deploy/HOSTING.md, Trust)", warning=True)  # fmt: skip


def game_master_check(settings: Settings) -> Check:
    """The game masters named: each must be reachable on a configured channel, and none the referee itself."""
    masters = game_master_list(settings)
    if not masters:
        return Check("game masters", True, "game_masters is empty: games are created by the host only",
                     "set game_masters to the addresses (or Discord user ids) that may create games",
                     warning=True)  # fmt: skip
    named = f"{len(masters)} named: {', '.join(masters)}"
    if settings.bot_address.lower() in masters:
        return Check("game masters", False, f"{named}; {settings.bot_address} is the referee's own address",
                     "name the game masters' own addresses: mail from the referee's address is never read as a command")  # fmt: skip
    by_discord = [m for m in masters if m.isdigit()]
    by_mail = [m for m in masters if not m.isdigit()]
    unreachable = []
    if by_discord and not settings.discord_token:
        unreachable.append(f"{', '.join(by_discord)} (Discord user ids, but Discord is not configured)")
    if by_mail and not (settings.smtp_host or settings.maildir_outbox):
        unreachable.append(f"{', '.join(by_mail)} (addresses, but no outgoing mail is configured)")
    if unreachable:
        return Check("game masters", True, f"{named}; not reachable: {'; '.join(unreachable)}",
                     "set REFEREE_DISCORD_TOKEN or smtp_host (or maildir_outbox), or name them as they play",
                     warning=True)  # fmt: skip
    return Check("game masters", True, named)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}".rstrip(": ")
