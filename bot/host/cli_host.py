"""Host subcommands for running the referee for real.

* ``referee serve [--once] [--log-format json|text]``: the deadline worker and every configured
  channel, until SIGTERM (exit 0); SIGHUP re-reads the settings and restarts the workers;
* ``referee status [--json]``: games and deadlines, queues, parked turns, each worker's last error;
* ``referee doctor [--send-test]``: one line per check of the configured servers (:mod:`bot.host.doctor`);
* ``referee db backup PATH``: an online SQLite backup (PostgreSQL: the ``pg_dump`` line to use);
* ``referee web-pages``: the web pages' own process, which ``serve`` starts and watches (its settings
  come as one line on standard input: :mod:`bot.web.process`).

Part of the composition root (``bot.host.cli`` registers them).  The settings are
checked before anything is touched: every problem is one line naming the key.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from bot.host.cli_queues import Refused, SettingsOf
from bot.settings.loader import Settings, SettingsError

log = logging.getLogger("bot.serve")


def register(sub: Any, settings_of: SettingsOf, db_sub: Any) -> None:
    """Add the subcommands to ``sub`` (and ``backup`` to ``db_sub``), argparse subparsers objects."""
    serve = sub.add_parser("serve", help="run the deadline worker and every configured channel")
    serve.add_argument("--once", action="store_true", help="one pass of each, then exit (for cron)")
    serve.add_argument("--log-format", choices=("json", "text"), help="default: the log_format setting (text)")
    serve.set_defaults(run=lambda args: serve_command(args, settings_of))

    status = sub.add_parser("status", help="games, deadlines, queue lengths and the last error of each worker")
    status.add_argument("--json", action="store_true")
    status.set_defaults(run=lambda args: _status(args, settings_of(args)))

    doctor = sub.add_parser("doctor", help="check the database, the mail servers, Discord and the game masters")
    doctor.add_argument(
        "--send-test",
        action="store_true",
        help="also mail a test message to host_addresses (by SMTP, or into the Maildir outbox)",
    )
    doctor.set_defaults(run=lambda args: _doctor(args, settings_of(args)))

    pages = sub.add_parser("web-pages", help="the web pages' own process (serve starts it, settings on stdin)")
    pages.set_defaults(run=lambda args: _web_pages())

    backup = db_sub.add_parser("backup", help="copy a SQLite database while the bot runs (PostgreSQL: pg_dump)")
    backup.add_argument("path", type=Path, help="the new file")
    backup.add_argument("--db", help="SQLAlchemy URL or SQLite path (default: the settings' database)")
    backup.set_defaults(run=lambda args: _backup(args, settings_of))


# -- serve ---------------------------------------------------------------------------------


def _web_pages() -> int:
    """The web pages' own process (:mod:`bot.web.process`): its settings on standard input, the
    database opened read-only here (an adapter opens no store)."""
    from bot.host.wiring import open_reader
    from bot.web.process import main

    return main(open_reader)


def _complete(settings: Settings) -> Settings:
    try:
        settings.require_complete()
    except SettingsError as exc:
        raise Refused(f"cannot run with these settings: {exc}") from None
    return settings


EXIT_UNAVAILABLE = 75
"""``serve``/``status`` when the database server cannot be reached (EX_TEMPFAIL): systemd restarts on it,
unlike exit 2 (settings the referee refuses, which a restart cannot mend)."""


class Unavailable(Exception):
    """The database cannot be reached just now: worth a retry, unlike a :class:`Refused`."""


def _require_migrated(settings: Settings) -> None:
    """Refuse to run against a database that is not at the latest schema (a clear line, not a crash later).

    A SQLite file that does not exist is refused without being created (nothing is touched); a
    database that cannot be opened raises :class:`Unavailable`.
    """
    from bot.store.db import sqlite_file, without_password
    from bot.store.migrate import is_up_to_date

    file = sqlite_file(settings.store.database)
    if file is not None and not file.exists():
        raise Refused(f"there is no SQLite database at {file}: run `referee db upgrade` to create it")
    try:
        current = is_up_to_date(settings.store.database)
    except Exception as exc:  # the drivers raise many kinds; the message is what helps
        raise Unavailable(f"cannot open the database {without_password(settings.store.database)}: {exc}") from None
    if not current:
        shown = without_password(settings.store.database)
        raise Refused(f"the database {shown} is not at the latest schema: run `referee db upgrade`")


class _Runtime:
    """The store, the logs and the workers of one set of settings; ``rebuild`` swaps them (SIGHUP)."""

    def __init__(self, args: argparse.Namespace, settings_of: SettingsOf) -> None:
        self.args = args
        self.settings_of = settings_of
        self.stack = ExitStack()

    def build(self, settings: Settings) -> list[Any]:
        from bot.core.runtime.health import WorkerErrorLog
        from bot.core.runtime.logging_setup import SecretFilter, configure
        from bot.host.wiring import open_store, workers

        root = logging.getLogger()
        stack = ExitStack()
        handler = configure(self.args.log_format or settings.log.format, settings.log.level, settings.secrets())
        stack.callback(handler.close)  # then every line still queued is written (bot.core.runtime.logging_setup)
        stack.callback(root.removeHandler, handler)  # when serve returns (or the next settings replace it)
        try:
            sessions = stack.enter_context(open_store(settings))
            health = WorkerErrorLog(sessions)
            health.addFilter(SecretFilter(settings.secrets()))
            logging.getLogger().addHandler(health)
            stack.callback(logging.getLogger().removeHandler, health)
            stack.callback(health.close)
            found = workers(settings, sessions)
        except BaseException:
            stack.close()
            raise
        self.stack.close()
        self.stack = stack
        return found

    def rebuild(self) -> list[Any]:
        """SIGHUP: the settings file and environment again; raises (the old workers go on) if refused."""
        try:
            settings = Settings.load(self.args.config)
        except (OSError, ValueError) as exc:
            raise Refused(f"cannot read the settings: {exc}") from None
        _complete(settings)
        _require_migrated(settings)
        found = self.build(settings)
        from bot.store.db import without_password

        where = self.args.config or "the environment"
        log.info("settings re-read from %s: database %s", where, without_password(settings.store.database))
        return found


def serve_command(args: argparse.Namespace, settings_of: SettingsOf) -> int:
    from bot.host.wiring import serve

    settings = _complete(settings_of(args))
    try:
        _require_migrated(settings)
    except Unavailable as exc:
        print(f"referee: {exc}", file=sys.stderr)
        return EXIT_UNAVAILABLE
    runtime = _Runtime(args, settings_of)
    level = logging.getLogger().level
    try:
        try:
            found = runtime.build(settings)
        except ValueError as exc:  # a setting a channel cannot use
            raise Refused(str(exc)) from None
        return serve(found, once=args.once, reload=runtime.rebuild)
    finally:
        runtime.stack.close()
        logging.getLogger().setLevel(level)


# -- status, doctor, backup ----------------------------------------------------------------------


def _status(args: argparse.Namespace, settings: Settings) -> int:
    from bot.host.status import gather, render
    from bot.host.wiring import open_store

    try:
        _require_migrated(settings)
    except Unavailable as exc:
        print(f"referee: {exc}", file=sys.stderr)
        return EXIT_UNAVAILABLE
    with open_store(settings) as sessions:
        status = gather(sessions)
    print(json.dumps(status.as_json(), indent=1) if args.json else render(status))
    return 0


def _doctor(args: argparse.Namespace, settings: Settings) -> int:
    from bot.core.runtime.logging_setup import SecretFilter
    from bot.host.doctor import run_checks

    lines = run_checks(settings, send_test=args.send_test)
    mask = SecretFilter(settings.secrets()).mask
    broken = 0
    for check in lines:
        print(mask(check.line()))
        broken += not check.ok
    print(f"{len(lines) - broken} ok, {broken} broken")
    return 1 if broken else 0


def _backup(args: argparse.Namespace, settings_of: SettingsOf) -> int:
    from bot.store.backup import BackupRefused, backup
    from bot.store.db import without_password

    target = args.db or settings_of(args).store.database
    shown = without_password(target)
    try:
        size = backup(target, args.path)
    except BackupRefused as exc:
        raise Refused(str(exc)) from None
    except Exception as exc:  # sqlite3 raises several kinds; the message is what helps
        raise Refused(f"cannot back up {shown}: {exc}") from None
    print(f"{shown}: backed up to {args.path} ({size} bytes)", file=sys.stdout)
    return 0
