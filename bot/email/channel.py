"""The email channel, declared: its settings, its addresses, its doctor checks and its workers.

What runs is decided by the settings alone, each part a supervised worker:

* intake: a Maildir when ``maildir_inbox`` is set, else IMAP when ``imap_host`` is set, else none;
* sending: a Maildir when ``maildir_outbox`` is set, else SMTP when ``smtp_host`` is set, else none.

A Maildir named wins over a server (:func:`intake_kind`, :func:`sending_kind`): naming one is the
choice of a host with no mail server, or of a first try, and a copy of the example settings still
names the example's servers.  The server's section is then not used: nothing checks it, asks for
its password or connects to it (``referee doctor`` says "not used").

Email has no public place for games.  Bare addresses (``ann@club.org``) are email's: it is the
first channel of :data:`bot.channels.registry.CHANNELS`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from bot.channels.contract import AddressSyntax, Channel, Check, DoctorContext, Runtime
from bot.settings.fields import EMAIL_ADDRESS, PORT, choice, email_address, lower_case, not_empty, secret, setting
from bot.settings.fields import whole as whole_number

if TYPE_CHECKING:
    from sqlalchemy.orm import Session, sessionmaker

    from bot.core.basics.clock import Clock
    from bot.core.messaging.outbox_bell import OutboxBell
    from bot.core.runtime.supervisor import Worker
    from bot.email.imap import ImapConfig
    from bot.email.runtime import IntakeLoop
    from bot.email.transport import MailSender

log = logging.getLogger(__name__)

NAME = "email"
"""As the adapter's modules name it (bot.email.transport.CHANNEL, the form of bot.email.render)."""

SECURITY = choice("tls", "starttls", "none")


@dataclass(frozen=True)
class EmailSettings:
    """The email channel's section; its settings' names are its fields' (``imap_host`` is ``[imap] host``)."""

    # -- who the referee is ------------------------------------------------------
    bot_address: str = setting("referee@referee.invalid", email_address)
    """The address players write to; replies and reports come from it."""
    mail_from_name: str = "Referee"

    # -- intake: a Maildir (when maildir_inbox is set) or IMAP (when imap_host is) ---
    imap_host: str = ""
    imap_port: int = setting(0, PORT)
    imap_security: str = setting("tls", SECURITY)
    imap_user: str = ""
    imap_password: str = secret()
    imap_folder: str = setting("INBOX", not_empty)
    imap_done_folder: str = "Processed"
    imap_done_flag: str = "$RefereeDone"
    imap_idle: bool = True
    intake_poll_seconds: float = 60.0
    imap_ca_file: str = ""
    maildir_inbox: str = ""
    maildir_done_folder: str = "Processed"

    # -- sending: a Maildir (when maildir_outbox is set) or SMTP (when smtp_host is) -
    smtp_host: str = ""
    smtp_port: int = setting(0, PORT)
    smtp_security: str = setting("starttls", SECURITY)
    smtp_user: str = ""
    smtp_password: str = secret()
    smtp_ca_file: str = ""
    smtp_connections: int = setting(1, whole_number(1, 8, "a whole number from 1 to 8"))
    """SMTP sessions a sending pass uses at once (1 to 8; one recipient's mail all on one, in order; a
    kill -9 re-sends at most one mail per session)."""
    maildir_outbox: str = ""
    send_interval_seconds: float = 5.0

    # -- policy --------------------------------------------------------------------
    email_max_message_kb: int = 10 * 1024
    email_reply_limit: int = 20
    email_reply_window_minutes: int = 60
    email_reader_processes: int = setting(
        1, whole_number(0, 1, "0 (read mail in the intake's process) or 1 (in a process of its own)")
    )
    """Processes that read fetched mail beside the intake (bot.email.mail_reader): 1 reads the next
    batch while the intake applies the one before (two cores or more); 0 reads inline."""
    email_max_header_kb: int = 256
    """A mail whose header block is longer is not read, only answered (bot.email.prescreen)."""
    email_max_header_fields: int = 1000
    """A mail with more header fields is not read, only answered."""
    email_max_addresses: int = 1000
    """A mail with more addresses in its address fields (To, Cc, ...) is not read, only answered."""
    email_max_multiparts: int = 100
    """A mail with more (nested) multipart containers is not read, only answered."""
    email_max_nested_lines: int = 20_000_000
    """A mail whose multipart containers times its lines is more is not read, only answered (the
    parser checks each line against every boundary around it)."""
    email_read_seconds: float = 20.0
    """The longest one mail may take to read in the reader process; past it the mail is parked
    unread and the reader goes on (bot.email.mail_reader; needs email_reader_processes = 1)."""
    email_read_memory_mb: int = setting(1024, whole_number(256, None, "a whole number of megabytes, at least 256"))
    """The reader process's address space; a mail that needs more is parked unread."""
    email_sender_read_seconds: float = 10.0
    """Reading time one sender's mails may take together in 10 minutes at the full budget per mail;
    past it each gets 2 s (bot.core.intake.sender_budgets)."""
    email_strangers_read_seconds: float = 5.0
    """Reading time the mail of every sender the referee does not know (no seat in a live game, no
    game run) may take together in 10 minutes; past it such mail is parked unread and answered, so
    a crowd of new addresses cannot hold back a seated player's mail."""
    email_trusted_authserv_ids: tuple[str, ...] = setting((), lower_case)
    """Authserv-ids whose Authentication-Results vouch for a sender (bot.email.policy); empty: nobody
    is vouched for, and games with address-only authentication cannot be created."""


def _read_address(text: str) -> str | None:
    return text.lower() if EMAIL_ADDRESS.match(text) else None


IMAP, SMTP, MAILDIR = "imap", "smtp", "maildir"


def intake_kind(settings: EmailSettings) -> str:
    """Where mail is read: :data:`MAILDIR` when ``maildir_inbox`` is set, else :data:`IMAP` when
    ``imap_host`` is, else "" (no intake).  Every part of the channel asks here."""
    return MAILDIR if settings.maildir_inbox else IMAP if settings.imap_host else ""


def sending_kind(settings: EmailSettings) -> str:
    """Where mail goes: :data:`MAILDIR` when ``maildir_outbox`` is set, else :data:`SMTP` when
    ``smtp_host`` is, else "" (mail waits in the outbox).  Every part of the channel asks here."""
    return MAILDIR if settings.maildir_outbox else SMTP if settings.smtp_host else ""


def missing(settings: EmailSettings) -> list[str]:
    found: list[str] = []
    if intake_kind(settings) == IMAP:
        if not settings.imap_user:
            found.append("imap_user: missing: imap_host is set, so the IMAP login name is needed")
        if not settings.imap_password:
            found.append("imap_password: missing: set REFEREE_IMAP_PASSWORD (or REFEREE_IMAP_PASSWORD_FILE)")
    if sending_kind(settings) == SMTP and settings.smtp_user and not settings.smtp_password:
        found.append("smtp_password: missing: smtp_user is set, so set REFEREE_SMTP_PASSWORD")
    return found


def intake_names(settings: EmailSettings) -> tuple[str, ...]:
    """The watermark names of the configured intakes: each deadline waits for them."""
    from bot.email.maildir import maildir_intake_name

    kind = intake_kind(settings)
    if kind == IMAP:
        return (_imap_config(settings).intake_name,)
    if kind == MAILDIR:
        return (maildir_intake_name(Path(settings.maildir_inbox)),)
    return ()


def _imap_config(settings: EmailSettings) -> ImapConfig:
    from bot.email.imap import ImapConfig

    if not settings.imap_user:
        raise ValueError("imap_host is set but imap_user is not")
    return ImapConfig(
        host=settings.imap_host, user=settings.imap_user, password=settings.imap_password,
        port=settings.imap_port, security=settings.imap_security, folder=settings.imap_folder,
        done_folder=settings.imap_done_folder, done_flag=settings.imap_done_flag, idle=settings.imap_idle,
        poll_seconds=settings.intake_poll_seconds, ca_file=settings.imap_ca_file or None,
    )  # fmt: skip


def workers(settings: EmailSettings, runtime: Runtime) -> list[Worker]:
    """The intake and the sender the settings ask for (each may be absent: the other runs alone)."""
    from bot.email.runtime import EmailIntakeWorker, EmailSenderWorker  # the adapter, when it is run

    found: list[Worker] = []
    intake = _intake(settings, runtime)
    if intake is None:
        log.warning("no mailbox configured (imap_host or maildir_inbox): no mail will be read")
    else:
        found.append(EmailIntakeWorker(intake))
    sender = _sender(settings, runtime.sessions, runtime.clock, runtime.bell)
    if sender is None:
        log.warning("no outgoing mail configured (smtp_host or maildir_outbox): mail waits in the outbox")
    else:
        found.append(EmailSenderWorker(sender))
    return found


def _intake(settings: EmailSettings, runtime: Runtime) -> IntakeLoop | None:
    core, sessions, service, clock = runtime.intake, runtime.sessions, runtime.service, runtime.clock
    from bot.core.intake.inbox import Inbox
    from bot.core.intake.reply_limit import ReplyBudget
    from bot.core.intake.sender_budgets import KnownAddresses, SenderBudgetLimits, SenderBudgets
    from bot.core.intake.watermarks import Watermarks
    from bot.email.imap import ImapIntakeLoop
    from bot.email.intake import Intake
    from bot.email.mail_reader import MailReader, ReadingBudget
    from bot.email.maildir import MaildirIntakeLoop, MaildirMailbox
    from bot.email.prescreen import MailLimits
    from bot.email.processor import MailProcessor, ReplyLimit
    from bot.email.understand import IntakePolicy

    policy = IntakePolicy(
        own_addresses=frozenset({settings.bot_address.lower()}),
        max_message_bytes=settings.email_max_message_kb * 1024,
        trusted_authserv_ids=frozenset(settings.email_trusted_authserv_ids),
        read_address=runtime.read_address,
    )
    inbox = Inbox(sessions, core.inbound_max_attempts, timedelta(seconds=core.inbound_retry_seconds))
    limit = ReplyLimit(settings.email_reply_limit, timedelta(minutes=settings.email_reply_window_minutes))
    processor = MailProcessor(inbox, service, clock, policy, ReplyBudget(sessions), limit)
    limits = MailLimits(
        header_bytes=settings.email_max_header_kb * 1024, header_fields=settings.email_max_header_fields,
        addresses=settings.email_max_addresses, multiparts=settings.email_max_multiparts,
        nested_lines=settings.email_max_nested_lines,
    )  # fmt: skip
    budget = ReadingBudget(settings.email_read_seconds, settings.email_read_memory_mb)
    shares = SenderBudgetLimits(settings.email_sender_read_seconds, settings.email_strangers_read_seconds)
    senders = SenderBudgets(shares, KnownAddresses(sessions, NAME))
    reader = MailReader(policy, settings.email_reader_processes, limits, budget, senders)
    intake = Intake(processor, Watermarks(sessions), timedelta(seconds=core.intake_settle_seconds), reader)
    kind = intake_kind(settings)
    if kind == IMAP:
        return ImapIntakeLoop(_imap_config(settings), intake)
    if kind == MAILDIR:
        mailbox = MaildirMailbox(Path(settings.maildir_inbox), settings.maildir_done_folder)
        return MaildirIntakeLoop(mailbox, intake, poll_seconds=settings.intake_poll_seconds)
    return None


def _sender(
    settings: EmailSettings, sessions: sessionmaker[Session], clock: Clock, bell: OutboxBell
) -> MailSender | None:
    from bot.core.messaging.outbox import OutboxDrain
    from bot.email.maildir import MaildirTransport
    from bot.email.render import MailIdentity
    from bot.email.smtp import SmtpConfig, SmtpTransport
    from bot.email.transport import MailSender, Transport

    transport: Transport
    connections = 1
    kind = sending_kind(settings)
    if kind == SMTP:
        transport = SmtpTransport(
            SmtpConfig(
                host=settings.smtp_host, port=settings.smtp_port, security=settings.smtp_security,
                user=settings.smtp_user, password=settings.smtp_password, envelope_from=settings.bot_address,
                ca_file=settings.smtp_ca_file or None,
            )
        )  # fmt: skip
        connections = settings.smtp_connections
    elif kind == MAILDIR:
        transport = MaildirTransport(Path(settings.maildir_outbox))
    else:
        return None
    identity = MailIdentity(settings.bot_address, settings.mail_from_name)
    return MailSender(
        OutboxDrain(sessions), transport, clock, identity, interval=settings.send_interval_seconds,
        connections=connections, bell=bell,
    )  # fmt: skip


def doctor(settings: EmailSettings, context: DoctorContext) -> list[Check]:
    from bot.email import doctor as checks  # the servers' libraries, imported when the doctor runs

    return checks.run(settings, context)


def unreachable(settings: EmailSettings) -> str:
    """Why mail to an address cannot go out, or empty."""
    return "" if sending_kind(settings) else "addresses, but no outgoing mail is configured"


def by_mail(words: str) -> Callable[[EmailSettings], str]:
    """A hint (:attr:`Channel.join_hint` ...): send ``words`` to the referee's address, when mail is read."""

    def hint(settings: EmailSettings) -> str:
        return f"By mail: send {words} to {settings.bot_address}" if intake_kind(settings) else ""

    return hint


CHANNEL = Channel(
    name=NAME,
    label="Email",
    settings=EmailSettings,
    prefix="",
    address=AddressSyntax(_read_address, "email addresses"),
    workers=workers,
    doctor=doctor,
    missing=missing,
    intakes=intake_names,
    unreachable=unreachable,
    reach_by="smtp_host (or maildir_outbox)",
    own_address=lambda settings: settings.bot_address.lower(),
    log_quiet=("imapclient", "aiosmtplib", "mail.log"),
    join_hint=by_mail("JOIN {game}"),
    take_hint=by_mail("STAND IN {game} {seat}"),
    standby_hint=by_mail("STANDBY {kind}"),
)
"""Email, as :data:`bot.channels.registry.CHANNELS` lists it."""
