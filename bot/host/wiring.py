"""Building the runtime from the settings (part of the composition root, used by ``bot.host.cli``).

What runs is decided by the settings alone, each part a supervised worker
(:mod:`bot.core.runtime.supervisor`), none depending on another: the deadline
worker always runs, and each channel of :data:`bot.channels.registry.CHANNELS` builds
the workers its section asks for (its ``channel.py`` says which).
"""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta

from sqlalchemy.orm import Session, sessionmaker

from bot.channels import registry as channels
from bot.channels.contract import Hints, Runtime
from bot.core.basics.clock import Clock, SystemClock
from bot.core.messaging.outbox_bell import OutboxBell
from bot.core.model.config import ServiceConfig
from bot.core.people.seat_secrets import load_secret_key
from bot.core.runtime import heap, supervisor
from bot.core.runtime.deadline_worker import DeadlineWorker
from bot.core.runtime.housekeeping import Housekeeping
from bot.core.runtime.service import GameService
from bot.core.runtime.supervisor import Worker
from bot.settings.loader import Settings
from bot.store.db import make_engine, make_reader_engine, session_factory

log = logging.getLogger(__name__)


@contextmanager
def open_store(settings: Settings) -> Iterator[sessionmaker[Session]]:
    """Sessions on the configured database (which must be migrated: ``referee db upgrade``)."""
    engine = make_engine(settings.store.database)
    try:
        yield session_factory(engine)
    finally:
        engine.dispose()


@contextmanager
def open_reader(database: str, connections: int) -> Iterator[sessionmaker[Session]]:
    """Read-only sessions on ``database``, at most ``connections`` at once (the web pages' process)."""
    engine = make_reader_engine(database, connections)
    try:
        yield session_factory(engine)
    finally:
        engine.dispose()


def service_config(settings: Settings) -> ServiceConfig:
    game, host, store = settings.game, settings.host, settings.store
    return ServiceConfig(
        message_domain=game.mail_domain,
        default_turn_minutes=game.turn_minutes,
        default_offer_minutes=game.offer_minutes,
        default_decision_minutes=game.decision_minutes,
        default_time_zone=game.time_zone,
        public_channels=public_channels(settings),
        status_channels=status_channels(settings),
        host_recipients=tuple(channels.parse_address(a) for a in host.host_addresses),
        game_masters=frozenset(channels.parse_address(a)[1] for a in host.game_masters),
        turn_max_attempts=game.turn_max_attempts,
        turn_retry_seconds=game.turn_retry_seconds,
        secret_key=load_secret_key(store.secret_key, store.secret_key_file, store.database),
        inline_channels=(CLI_CHANNEL,),
        intakes=intake_names(settings),
        intake_wait_seconds=settings.intake.intake_wait_seconds,
        web_base_url=web_base_url(settings),
    )


def web_base_url(settings: Settings) -> str:
    """Where the games' pages are read (the web channel's ``base_url``), for links in messages; empty: none."""
    return next((url for c in channels.CHANNELS if (url := c.pages_url(settings.of(c)))), "")


def hints(settings: Settings) -> Hints:
    """How a person joins a game, takes a seat up for a substitute, or stands by, on each channel that
    takes it (:attr:`Channel.join_hint`, :attr:`Channel.take_hint`, :attr:`Channel.standby_hint`)."""
    sections = [(c, settings.of(c)) for c in channels.CHANNELS]
    return Hints(
        join=tuple(hint for c, section in sections if (hint := c.join_hint(section))),
        take=tuple(hint for c, section in sections if (hint := c.take_hint(section))),
        standby=tuple(hint for c, section in sections if (hint := c.standby_hint(section))),
    )


def public_channels(settings: Settings) -> tuple[str, ...]:
    """The channels with a public place for every game (Discord, when a forum channel is configured)."""
    return tuple(c.name for c in channels.CHANNELS if c.public_place(settings.of(c)))


def status_channels(settings: Settings) -> tuple[str, ...]:
    """The channels whose public place keeps a status board (Discord's post pins one; email has none)."""
    return tuple(c.name for c in channels.CHANNELS if c.status_board(settings.of(c)))


def intake_names(settings: Settings) -> tuple[str, ...]:
    """The watermark names of the configured intakes: each deadline waits for them."""
    return tuple(name for c in channels.CHANNELS for name in c.intakes(settings.of(c)))


CLI_CHANNEL = "cli"
"""The host's command line (bot.host.cli_gm): it prints its answers; nothing is queued for it."""


def protocol_loggers() -> tuple[str, ...]:
    """Loggers that write protocol traffic (message text, seat passwords included) at DEBUG level."""
    return tuple(name for c in channels.CHANNELS for name in c.log_quiet)


def workers(settings: Settings, sessions: sessionmaker[Session], clock: Clock | None = None) -> list[Worker]:
    """Every worker the settings ask for: the deadline worker, and each channel's.

    The protocol loggers are held at INFO whatever the root level: at DEBUG they would log
    message text, and with it seat passwords (which must never reach a log).
    """
    for name in protocol_loggers():
        logging.getLogger(name).setLevel(logging.INFO)
    clock = clock or SystemClock()
    bell = OutboxBell().listen(sessions)  # the process's senders wake when this process commits their rows
    service = GameService(sessions, service_config(settings))
    housekeeping = Housekeeping(sessions, timedelta(days=settings.intake.inbound_raw_retention_days))
    found: list[Worker] = [
        DeadlineWorker(service, clock, timedelta(seconds=settings.game.deadline_check_seconds), housekeeping)
    ]
    runtime = Runtime(sessions, clock, service, settings.intake, bell, channels.parse_address, hints(settings))
    for channel in channels.CHANNELS:
        found += channel.workers(settings.of(channel), runtime)
    return found


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
    heap.settle()  # what start-up built lives as long as the process (bot.core.runtime.heap)
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
