"""Building the runtime from the settings (part of the composition root, used by ``bot.cli``).

What runs is decided by the settings alone, each part a supervised worker
(:mod:`bot.core.runtime.supervisor`), none depending on another:

* the deadline worker always runs;
* email intake: IMAP when ``imap_host`` is set, else a Maildir when ``maildir_inbox`` is set, else none;
* email sending: SMTP when ``smtp_host`` is set, else a Maildir when ``maildir_outbox`` is set, else none;
* Discord: when ``discord_token`` is set (with ``discord_guild_id``; a forum channel gives games a public place).
"""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

from sqlalchemy.orm import Session, sessionmaker

from bot import heap
from bot.core.basics.clock import Clock, SystemClock
from bot.core.intake.inbox import Inbox
from bot.core.intake.reply_limit import ReplyBudget
from bot.core.intake.watermarks import Watermarks
from bot.core.messaging.outbox import OutboxDrain
from bot.core.messaging.outbox_bell import OutboxBell
from bot.core.model.config import ServiceConfig
from bot.core.people.seat_secrets import load_secret_key
from bot.core.runtime import supervisor
from bot.core.runtime.deadline_worker import DeadlineWorker
from bot.core.runtime.housekeeping import Housekeeping
from bot.core.runtime.service import GameService
from bot.core.runtime.supervisor import Worker
from bot.email.imap import ImapConfig, ImapIntakeLoop
from bot.email.intake import Intake
from bot.email.mail_reader import MailReader, ReadingBudget
from bot.email.maildir import MaildirIntakeLoop, MaildirMailbox, MaildirTransport, maildir_intake_name
from bot.email.prescreen import MailLimits
from bot.email.processor import MailProcessor, ReplyLimit
from bot.email.render import MailIdentity
from bot.email.runtime import EmailIntakeWorker, EmailSenderWorker, IntakeLoop
from bot.email.smtp import SmtpConfig, SmtpTransport
from bot.email.transport import MailSender, Transport
from bot.email.understand import IntakePolicy
from bot.settings import Settings
from bot.store.db import make_engine, session_factory

log = logging.getLogger(__name__)


@contextmanager
def open_store(settings: Settings) -> Iterator[sessionmaker[Session]]:
    """Sessions on the configured database (which must be migrated: ``referee db upgrade``)."""
    engine = make_engine(settings.database)
    try:
        yield session_factory(engine)
    finally:
        engine.dispose()


def service_config(settings: Settings) -> ServiceConfig:
    return ServiceConfig(
        message_domain=settings.mail_domain,
        default_turn_minutes=settings.turn_minutes,
        default_offer_minutes=settings.offer_minutes,
        default_decision_minutes=settings.decision_minutes,
        default_time_zone=settings.time_zone,
        public_channels=public_channels(settings),
        status_channels=public_channels(settings),  # Discord's post keeps a pinned status; email has none
        host_recipients=tuple(("email", a.strip().lower()) for a in settings.host_addresses.split(",") if a.strip()),
        game_masters=frozenset(a.strip().lower() for a in settings.game_masters.split(",") if a.strip()),
        turn_max_attempts=settings.turn_max_attempts,
        turn_retry_seconds=settings.turn_retry_seconds,
        secret_key=load_secret_key(settings.secret_key, settings.secret_key_file, settings.database),
        inline_channels=(CLI_CHANNEL,),
        intakes=intake_names(settings),
        intake_wait_seconds=settings.intake_wait_seconds,
    )


def public_channels(settings: Settings) -> tuple[str, ...]:
    """The channels with a public place for every game: Discord, when a forum channel is configured."""
    return ("discord",) if settings.discord_token and settings.discord_forum_channel_id else ()


def intake_names(settings: Settings) -> tuple[str, ...]:
    """The watermark names of the configured intakes: each deadline waits for them."""
    if settings.imap_host:
        return (_imap_config(settings).intake_name,)
    if settings.maildir_inbox:
        return (maildir_intake_name(Path(settings.maildir_inbox)),)
    return ()


def _imap_config(settings: Settings) -> ImapConfig:
    if not settings.imap_user:
        raise ValueError("imap_host is set but imap_user is not")
    return ImapConfig(
        host=settings.imap_host, user=settings.imap_user, password=settings.imap_password,
        port=settings.imap_port, security=settings.imap_security, folder=settings.imap_folder,
        done_folder=settings.imap_done_folder, done_flag=settings.imap_done_flag, idle=settings.imap_idle,
        poll_seconds=settings.intake_poll_seconds, ca_file=settings.imap_ca_file or None,
    )  # fmt: skip


CLI_CHANNEL = "cli"
"""The host's command line (bot.cli_gm): it prints its answers; nothing is queued for it."""

PROTOCOL_LOGGERS = ("imapclient", "aiosmtplib", "mail.log")
"""Loggers that write protocol traffic (message text, seat passwords included) at DEBUG level."""


def workers(settings: Settings, sessions: sessionmaker[Session], clock: Clock | None = None) -> list[Worker]:
    """Every worker the settings ask for: the deadline worker, and each configured channel's parts.

    The protocol loggers are held at INFO whatever the root level: at DEBUG they would log
    message text, and with it seat passwords (which must never reach a log).
    """
    for name in PROTOCOL_LOGGERS:
        logging.getLogger(name).setLevel(logging.INFO)
    clock = clock or SystemClock()
    bell = OutboxBell().listen(sessions)  # the process's senders wake when this process commits their rows
    service = GameService(sessions, service_config(settings))
    housekeeping = Housekeeping(sessions, timedelta(days=settings.inbound_raw_retention_days))
    found: list[Worker] = [
        DeadlineWorker(service, clock, timedelta(seconds=settings.deadline_check_seconds), housekeeping)
    ]
    intake = _intake(settings, sessions, service, clock)
    if intake is None:
        log.warning("no mailbox configured (imap_host or maildir_inbox): no mail will be read")
    else:
        found.append(EmailIntakeWorker(intake))
    sender = _sender(settings, sessions, clock, bell)
    if sender is None:
        log.warning("no outgoing mail configured (smtp_host or maildir_outbox): mail waits in the outbox")
    else:
        found.append(EmailSenderWorker(sender))
    if settings.discord_token:
        from bot.discord.runtime import DiscordRuntime  # imported only when Discord is configured

        found.append(DiscordRuntime(settings, sessions, service=service, clock=clock, bell=bell))
    else:
        log.info("no Discord token (REFEREE_DISCORD_TOKEN): Discord is not run")
    return found


def _intake(
    settings: Settings, sessions: sessionmaker[Session], service: GameService, clock: Clock
) -> IntakeLoop | None:
    policy = IntakePolicy(
        own_addresses=frozenset({settings.bot_address.lower()}),
        max_message_bytes=settings.email_max_message_kb * 1024,
        trusted_authserv_ids=frozenset(
            part.strip().lower() for part in settings.email_trusted_authserv_ids.split(",") if part.strip()
        ),
    )
    inbox = Inbox(sessions, settings.inbound_max_attempts, timedelta(seconds=settings.inbound_retry_seconds))
    limit = ReplyLimit(settings.email_reply_limit, timedelta(minutes=settings.email_reply_window_minutes))
    processor = MailProcessor(inbox, service, clock, policy, ReplyBudget(sessions), limit)
    limits = MailLimits(
        header_bytes=settings.email_max_header_kb * 1024, header_fields=settings.email_max_header_fields,
        addresses=settings.email_max_addresses, multiparts=settings.email_max_multiparts,
        nested_lines=settings.email_max_nested_lines,
    )  # fmt: skip
    budget = ReadingBudget(settings.email_read_seconds, settings.email_read_memory_mb)
    reader = MailReader(policy, settings.email_reader_processes, limits, budget)
    intake = Intake(processor, Watermarks(sessions), timedelta(seconds=settings.intake_settle_seconds), reader)
    if settings.imap_host:
        return ImapIntakeLoop(_imap_config(settings), intake)
    if settings.maildir_inbox:
        mailbox = MaildirMailbox(Path(settings.maildir_inbox), settings.maildir_done_folder)
        return MaildirIntakeLoop(mailbox, intake, poll_seconds=settings.intake_poll_seconds)
    return None


def _sender(settings: Settings, sessions: sessionmaker[Session], clock: Clock, bell: OutboxBell) -> MailSender | None:
    transport: Transport
    connections = 1
    if settings.smtp_host:
        transport = SmtpTransport(
            SmtpConfig(
                host=settings.smtp_host, port=settings.smtp_port, security=settings.smtp_security,
                user=settings.smtp_user, password=settings.smtp_password, envelope_from=settings.bot_address,
                ca_file=settings.smtp_ca_file or None,
            )
        )  # fmt: skip
        connections = settings.smtp_connections
    elif settings.maildir_outbox:
        transport = MaildirTransport(Path(settings.maildir_outbox))
    else:
        return None
    identity = MailIdentity(settings.bot_address, settings.mail_from_name)
    return MailSender(
        OutboxDrain(sessions), transport, clock, identity, interval=settings.send_interval_seconds,
        connections=connections, bell=bell,
    )  # fmt: skip


Reload = Callable[[], list[Worker]]
"""Re-reads the settings and builds the workers anew (SIGHUP); raises when the new settings are refused."""


def serve(found: list[Worker], once: bool = False, reload: Reload | None = None) -> int:
    """``referee serve``: run until SIGINT/SIGTERM (or one pass with ``once``); 0 on success.

    SIGTERM (or SIGINT) sets the workers' stop event: each finishes the transaction it is in
    (every received message is stored before it is acknowledged, every outgoing one is a row),
    the tasks end, and the caller closes the database; the exit code is 0.  SIGHUP, when
    ``reload`` is given, stops the workers the same way, calls ``reload`` and runs what it
    returns; if it raises, the old workers run on and the error is logged.
    """
    heap.settle()  # what start-up built lives as long as the process (bot.heap)
    if once:
        return 0 if asyncio.run(supervisor.run_once(found)) else 1
    asyncio.run(_serve_until_signalled(found, reload))
    return 0


async def _serve_until_signalled(found: list[Worker], reload: Reload | None = None) -> None:
    loop = asyncio.get_running_loop()
    terminate = asyncio.Event()
    generation = [asyncio.Event()]  # the stop event of the workers running now

    def on_terminate(name: str) -> None:
        log.info("%s: finishing the current work, then stopping", name)
        terminate.set()
        generation[0].set()

    def on_hangup() -> None:
        log.info("SIGHUP: re-reading the settings")
        generation[0].set()

    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, on_terminate, sig.name)
    if reload is not None:
        loop.add_signal_handler(signal.SIGHUP, on_hangup)
    try:
        while True:
            log.info(
                "referee serving (%s); stop with SIGTERM%s", ", ".join(w.name for w in found),
                ", re-read the settings with SIGHUP" if reload else "",
            )  # fmt: skip
            await supervisor.serve(found, generation[0])
            if terminate.is_set() or reload is None:
                break
            generation[0] = asyncio.Event()
            try:
                found = reload()
            except Exception as exc:  # refused settings: the old workers go on
                log.error("SIGHUP: the new settings are refused; going on with the old ones: %s", exc)
                continue
            heap.settle()
            log.info("SIGHUP: settings re-read; workers restarted")
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            loop.remove_signal_handler(sig)
    log.info("referee stopped")
