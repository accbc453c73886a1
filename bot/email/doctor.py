"""The email channel's ``referee doctor`` checks: IMAP, SMTP, a Maildir, and who vouches for senders.

* IMAP: connect and log in, the intake folder exists, the done folder, IDLE and MOVE offered;
* SMTP: connect (TLS as configured) and AUTH; with ``--send-test`` a message to ``host_addresses``;
* a Maildir intake or outbox: the directory exists and is writable; with ``--send-test`` the test
  message is written into a Maildir outbox (and the check says nothing went by SMTP); a Maildir
  wins over a server named beside it, which is reported "not used" and never tried;
* sender trust: whether any Authentication-Results vouch for a sender.

No secret is ever printed.
"""

from __future__ import annotations

import asyncio
import os
import ssl
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.channels.contract import Check, DoctorContext, first_line

if TYPE_CHECKING:
    from bot.email.channel import EmailSettings

TIMEOUT = 15.0


def run(settings: EmailSettings, context: DoctorContext) -> list[Check]:
    """Every email check the settings call for, in order: what the channel uses (its own rule,
    :func:`bot.email.channel.intake_kind` and :func:`~bot.email.channel.sending_kind`), and a server
    that is named but not used said to be so, never tried."""
    from bot.email.channel import IMAP, MAILDIR, SMTP, intake_kind, sending_kind

    checks: list[Check] = []
    reads = intake_kind(settings)
    if reads == IMAP:
        checks += imap_checks(settings) + in_clear_check("IMAP", settings.imap_host, settings.imap_security, True)
    elif reads == MAILDIR:
        checks.append(_directory_check("Maildir intake", Path(settings.maildir_inbox), "maildir_inbox"))
        if settings.imap_host:
            checks.append(_not_used("IMAP", settings.imap_host, "maildir_inbox", "the Maildir is read"))
    else:
        checks.append(Check("email intake", True, "no imap_host nor maildir_inbox: no mail is read", warning=True))
    sends = sending_kind(settings)
    if sends == SMTP:
        checks += asyncio.run(smtp_checks(settings, context))
        checks += in_clear_check("SMTP", settings.smtp_host, settings.smtp_security, bool(settings.smtp_user))
    elif sends == MAILDIR:
        checks.append(_directory_check("Maildir outbox", Path(settings.maildir_outbox), "maildir_outbox"))
        if settings.smtp_host:
            checks.append(_not_used("SMTP", settings.smtp_host, "maildir_outbox", "mail is written to the Maildir"))
        if context.send_test:
            checks.append(maildir_test_check(settings, context))
    else:
        checks.append(Check("email sending", True, "no smtp_host nor maildir_outbox: mail waits in the outbox",
                            warning=True))  # fmt: skip
    return [*checks, sender_trust_check(settings)]


def _not_used(server: str, host: str, maildir: str, instead: str) -> Check:
    """A server named beside the Maildir that wins over it: not tried, and said so (not a fault)."""
    return Check(server, True, f"not used: {maildir} is set, so {instead} ({host} is not tried)")


def in_clear_check(server: str, host: str, security: str, logs_in: bool) -> list[Check]:
    """A warning when a password would cross the network unencrypted (``security = "none"`` to another machine)."""
    local = host == "localhost" or host.startswith("127.") or host == "::1"
    if security != "none" or local or not logs_in:
        return []
    setting = f"{server.lower()}_security"
    return [Check(f"{server} security", True, f"none: the password goes to {host} unencrypted",
                  f"set {setting} to tls or starttls (none is meant for a server on this machine)",
                  warning=True)]  # fmt: skip


# -- IMAP ----------------------------------------------------------------------------------------


def imap_checks(settings: EmailSettings) -> list[Check]:
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
        return [Check("IMAP connect", False, f"{where}: {first_line(exc)}",
                      "check imap_host, imap_port and imap_security (tls: 993, starttls: 143)")]  # fmt: skip
    found = [Check("IMAP connect", True, where)]
    try:
        try:
            client.login(settings.imap_user, settings.imap_password)
        except Exception as exc:
            found.append(Check("IMAP login", False, f"as {settings.imap_user}: {first_line(exc)}",
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


async def smtp_checks(settings: EmailSettings, context: DoctorContext) -> list[Check]:
    import aiosmtplib

    security = settings.smtp_security
    port = settings.smtp_port or {"tls": 465, "starttls": 587, "none": 25}[security]
    where = f"{settings.smtp_host}:{port} ({security})"
    tls = ssl.create_default_context(cafile=settings.smtp_ca_file or None) if security != "none" else None
    client = aiosmtplib.SMTP(hostname=settings.smtp_host, port=port, use_tls=security == "tls",
                             start_tls=security == "starttls", tls_context=tls, timeout=TIMEOUT)  # fmt: skip
    try:
        await client.connect()
    except Exception as exc:
        return [Check("SMTP connect", False, f"{where}: {first_line(exc)}",
                      "check smtp_host, smtp_port and smtp_security (tls: 465, starttls: 587)")]  # fmt: skip
    found = [Check("SMTP connect", True, where)]
    try:
        if settings.smtp_user:
            try:
                await client.login(settings.smtp_user, settings.smtp_password)
            except Exception as exc:
                found.append(Check("SMTP AUTH", False, f"as {settings.smtp_user}: {first_line(exc)}",
                                   "check smtp_user and the password in REFEREE_SMTP_PASSWORD"))  # fmt: skip
                return found
            found.append(Check("SMTP AUTH", True, f"as {settings.smtp_user}"))
        else:
            found.append(Check("SMTP AUTH", True, "no smtp_user: sending without AUTH", warning=True,
                               fix="most servers want AUTH: set smtp_user and REFEREE_SMTP_PASSWORD"))  # fmt: skip
        if context.send_test:
            found.append(await _send_test(client, settings, context))
    finally:
        try:
            await client.quit()
        except Exception:
            client.close()
    return found


async def _send_test(client: Any, settings: EmailSettings, context: DoctorContext) -> Check:
    recipients = _mail_recipients(context)
    if not recipients:
        return Check("SMTP test message", False, "host_addresses is empty", "set host_addresses to your own address")
    message = _test_message(settings, context, recipients)
    try:
        await client.send_message(message, sender=settings.bot_address, recipients=recipients)
    except Exception as exc:
        return Check("SMTP test message", False, f"refused: {first_line(exc)}",
                     "the server may not let bot_address send: check its sender rules")  # fmt: skip
    return Check("SMTP test message", True, f"sent to {', '.join(recipients)} ({message['Message-ID']})")


def maildir_test_check(settings: EmailSettings, context: DoctorContext) -> Check:
    """``--send-test`` with a Maildir outbox: the test message is written there, as the referee's mail is.

    Nothing leaves the machine (whatever reads the outbox delivers it, or nothing does): the
    check says so, and where the message is.
    """
    from bot.email.maildir import deliver

    name = "Maildir test message"
    recipients = _mail_recipients(context)
    if not recipients:
        return Check(name, False, "host_addresses is empty", "set host_addresses to your own address")
    try:
        path = deliver(Path(settings.maildir_outbox), _test_message(settings, context, recipients).as_bytes())
    except OSError as exc:
        return Check(name, False, f"cannot write to {settings.maildir_outbox}: {exc.strerror}",
                     "let the referee's user write to it (maildir_outbox)")  # fmt: skip
    return Check(name, True, f"written to {path} (for {', '.join(recipients)}); the outbox is a Maildir, "
                 "so nothing was sent by SMTP", warning=True,
                 fix="to test sending by SMTP, set smtp_host (the referee then sends by SMTP, not to the Maildir)")  # fmt: skip


def _mail_recipients(context: DoctorContext) -> list[str]:
    """The host's addresses that are email addresses (``host_addresses``)."""
    from bot.email.channel import CHANNEL

    return [address for channel, address in context.host_addresses if channel == CHANNEL.name]


def _test_message(settings: EmailSettings, context: DoctorContext, recipients: list[str]) -> EmailMessage:
    message = EmailMessage()
    message["From"] = settings.bot_address
    message["To"] = ", ".join(recipients)
    message["Subject"] = "referee doctor: test message"
    message["Date"] = formatdate(localtime=False)
    message["Message-ID"] = make_msgid("doctor", domain=context.mail_domain)
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


def sender_trust_check(settings: EmailSettings) -> Check:
    """Whether any mail sender can be vouched for: only a trusted server's Authentication-Results do it."""
    servers = settings.email_trusted_authserv_ids
    if servers:
        return Check("sender trust", True, f"Authentication-Results from {', '.join(servers)} vouch for senders")
    return Check("sender trust", True, "no trusted mail server: no sender is vouched for, --auth address games "
                 "cannot be created (password games work)", "set email_trusted_authserv_ids to your receiving "
                 "server's authserv-id (deploy/HOSTING.md, Trust)", warning=True)  # fmt: skip
