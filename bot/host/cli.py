"""The ``referee`` command: the composition root, where settings, store, core and channels meet.

Subcommands:

* ``referee demo [--game KIND] [--players N] [--seed S] [--steeplechase] [--via direct|email] [--web]``
* ``referee serve [--once] [--log-format json|text]``, ``referee status``, ``referee doctor``,
  ``referee db backup PATH`` (:mod:`bot.host.cli_host`)
* ``referee inbox list [--status S]`` / ``referee inbox show ID`` / ``referee inbox requeue ID``: received
  mail, and parked messages put back in the queue
* ``referee replay RECORD.json [--json]``
* ``referee verify RECORD.json``: exit 0 only when every check was made and held (3: held, but the record
  could not support every check, as a version 1 record without order commitments)
* ``referee db upgrade [--db URL-or-path]``
* ``referee games``: the kinds of game this referee runs.
* ``referee gm ...``: the host runs games (:mod:`bot.host.cli_gm`).
* ``referee turns list|requeue``, ``referee outbox list``, ``referee export GAME`` (:mod:`bot.host.cli_queues`).

User errors print one line and exit 2; they never show a traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from adjudicator import registry
from adjudicator.record import RecordError, Replay, read_record, replay, replay_document, verify
from bot.core.commands.new_game_settings import player_count
from bot.core.messaging.rendering import render_report_body
from bot.host import bulk_games, cli_gm, cli_host, cli_queues
from bot.settings.loader import Settings

EXIT_USAGE = 2


class UserError(Exception):
    """A mistake of the person running the command: one line, exit code 2."""


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        result: int = args.run(args)
        sys.stdout.flush()
        return result
    except (UserError, cli_queues.Refused, cli_gm.Refused) as exc:
        print(f"referee: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        return _reader_went_away()


def _reader_went_away() -> int:
    """The reader of a listing stopped reading (``referee inbox list | head``): stop quietly.

    What was left unwritten goes nowhere (standard output now points at the null device,
    so the interpreter's last flush cannot fail again), and the exit code is the shell's
    for a command ended by SIGPIPE, 128 + 13.
    """
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return 128 + 13


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="referee", description="Referee for postal games (email and Discord).")
    parser.add_argument("--config", type=Path, help="TOML settings file (default: $REFEREE_CONFIG)")
    sub = parser.add_subparsers(required=True, metavar="COMMAND")

    demo = sub.add_parser("demo", help="play a whole game with computer players through the real pipeline")
    demo.add_argument("--game", default="golden-strider", help=f"game kind: {', '.join(registry.kinds())}")
    demo.add_argument("--players", type=int, help="number of players (default: the game's minimum)")
    demo.add_argument("--seed", type=int, default=1, help="seed of the computer players' choices")
    demo.add_argument("--steeplechase", action="store_true", help="Golden Strider: the steeplechase variant")
    demo.add_argument("--dir", type=Path, help="where to keep the demo database and record (default: a temp dir)")
    demo.add_argument("--option", action="append", default=[], metavar="NAME=VALUE", help="a game option (JSON value)")
    demo.add_argument(
        "--via", choices=("direct", "email"), default="direct",
        help="email: the players play by real mail through a local Maildir intake and outbox",
    )  # fmt: skip
    demo.add_argument("--web", action="store_true", help="then serve the game's web pages on loopback until Ctrl-C")
    demo.add_argument("--web-port", type=int, default=8080, help="the port of --web (default 8080; 0: a free one)")
    demo.add_argument("--web-seconds", type=float, help=argparse.SUPPRESS)  # tests: serve this long, then stop
    demo.set_defaults(run=_demo)

    inbox = sub.add_parser("inbox", help="received mail: list, show, requeue parked messages")
    inbox_sub = inbox.add_subparsers(required=True, metavar="ACTION")
    listing = inbox_sub.add_parser("list", help="the latest received messages (default: parked and failed)")
    listing.add_argument("--status", choices=("new", "done", "failed", "parked", "all"), help="only this status")
    listing.add_argument("--limit", type=int, default=50)
    listing.set_defaults(run=_inbox_list)
    show = inbox_sub.add_parser("show", help="one message's headers and last error")
    show.add_argument("id", type=int)
    show.set_defaults(run=_inbox_show)
    requeue = inbox_sub.add_parser("requeue", help="process a parked (or failed) message again")
    requeue.add_argument("id", type=int, nargs="+")
    requeue.set_defaults(run=_inbox_requeue)

    rep = sub.add_parser("replay", help="adjudicate a game record and print every turn's report")
    rep.add_argument("record", type=Path)
    rep.add_argument("--json", action="store_true", help="print one JSON document instead of the reports")
    rep.set_defaults(run=_replay)

    ver = sub.add_parser(
        "verify",
        help="check a finished game's revealed seed and replay its result",
        description="Exit 0: every check held; 1: one failed; 2: the record cannot be read; 3: every check "
        "made held, but the record could not support them all (each said: not checked).",
    )
    ver.add_argument("record", type=Path)
    ver.set_defaults(run=_verify)

    db = sub.add_parser("db", help="database administration")
    db_sub = db.add_subparsers(required=True, metavar="ACTION")
    up = db_sub.add_parser("upgrade", help="bring the database to the latest schema")
    up.add_argument("--db", help="SQLAlchemy URL or SQLite path (default: the settings' database)")
    up.set_defaults(run=_db_upgrade)

    games = sub.add_parser("games", help="list the kinds of game")
    games.set_defaults(run=_games)
    cli_queues.register(sub, _settings)
    cli_gm.register(sub, _settings)
    cli_host.register(sub, _settings, db_sub)
    bulk_games.register(sub, _settings)
    _config_after_the_command(parser)
    return parser


def _config_after_the_command(parser: argparse.ArgumentParser) -> None:
    """Let ``--config`` stand after the command too (``referee serve --config FILE``), at every level.

    Given there, it wins over one given before the command; not given, it leaves that one alone.
    """
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for command in action.choices.values():
                if not any("--config" in a.option_strings for a in command._actions):
                    command.add_argument(
                        "--config",
                        type=Path,
                        default=argparse.SUPPRESS,
                        help="TOML settings file (as before the command)",
                    )
                _config_after_the_command(command)


def _settings(args: argparse.Namespace) -> Settings:
    try:
        return Settings.load(args.config)
    except (OSError, ValueError) as exc:
        raise UserError(f"cannot read the settings: {exc}") from None


def _demo(args: argparse.Namespace) -> int:
    from bot.host.demo import DemoOptions, run_demo

    try:
        registry.get_rules(args.game)
    except registry.UnknownGame as exc:
        raise UserError(str(exc)) from None
    options: dict[str, Any] = {}
    for item in args.option:
        name, sep, value = item.partition("=")
        if not sep:
            raise UserError(f"--option needs NAME=VALUE, not {item!r}")
        try:
            options[name] = json.loads(value)
        except json.JSONDecodeError:
            options[name] = value
    demo = DemoOptions(
        args.game, args.players, args.seed, args.steeplechase, args.dir, options=options, via=args.via,
        web_port=args.web_port if args.web else None, web_seconds=args.web_seconds,
    )  # fmt: skip
    return run_demo(demo)


def _load_record(path: Path) -> Replay:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UserError(f"cannot read {path}: {exc.strerror}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise UserError(f"{path} is not valid JSON: {exc}") from None
    try:
        return replay(read_record(data))
    except RecordError as exc:
        raise UserError(f"{path}: {exc}") from None


def _replay(args: argparse.Namespace) -> int:
    played = _load_record(args.record)
    if args.json:
        print(json.dumps(replay_document(played), indent=1))
        return 0
    rules = played.rules
    for turn in played.turns:
        print(f"=== {rules.title}: turn {turn.phase.number}, {turn.phase.title}")
        events = [event.text for event in turn.resolution.events]
        print(render_report_body(rules.kind, turn.resolution.report, events))
    print("=== Standings" + ("" if played.finished else _why_unfinished(args.record)))
    for standing in rules.standings(played.final_state):
        score = "" if standing.score is None else f"  ({standing.score})"
        print(f"  {standing.place:>2}. {standing.seat}{score}")
    return 0


def _why_unfinished(path: Path) -> str:
    """Why a record's game did not reach its end: a game master ended (or abandoned) it, or it is not over."""
    ended = json.loads(path.read_text(encoding="utf-8")).get("ended")
    if isinstance(ended, dict):
        return " (abandoned by the game master)" if ended.get("abandoned") else " (ended by the game master)"
    return " (the game is not finished)"


UNCHECKED_EXIT = 3
"""``referee verify``'s exit code when every check it made held but the record could not support them all."""


def _verify(args: argparse.Namespace) -> int:
    """Print each check and whether it held, then each check the record could not support (``not checked``).

    Exit 0 only when every check was made and held; 1 when one failed; 3 (:data:`UNCHECKED_EXIT`) when
    every check made held but some could not be made (a version 1 record has no order commitments): such
    a record is not refused, an older referee wrote it so, but it does not pass as a checked one either,
    for a script that reads the exit code no more than for a person reading the lines (a record stripped
    back to version 1 to hide a changed order must not pass silently).  2 is a record that cannot be read.
    """
    played = _load_record(args.record)
    result = verify(played.record)
    for check, passed in result.checks:
        print(f"{'ok  ' if passed else 'FAIL'} {check}")
    for check in result.unchecked:
        print(f"not checked: {check}")
    if not result.ok:
        return 1
    return 0 if result.complete else UNCHECKED_EXIT


def _db_upgrade(args: argparse.Namespace) -> int:
    from bot.store.db import without_password
    from bot.store.migrate import current_revision, upgrade

    target = args.db or _settings(args).store.database
    try:
        upgrade(target)
    except Exception as exc:  # alembic and the drivers raise many kinds; the message is what helps
        raise UserError(f"cannot upgrade {without_password(target)}: {exc}") from None
    print(f"{without_password(target)}: at revision {current_revision(target)}")
    return 0


def _inbox_list(args: argparse.Namespace) -> int:
    from bot.core.intake.inbox import FAILED, PARKED, Inbox
    from bot.host.wiring import open_store

    with open_store(_settings(args)) as sessions:
        inbox = Inbox(sessions)
        if args.status is None:
            rows = sorted(inbox.summaries(PARKED, args.limit) + inbox.summaries(FAILED, args.limit), key=lambda r: r.id)
        else:
            rows = inbox.summaries(None if args.status == "all" else args.status, args.limit)
        counts = inbox.counts()
    print(", ".join(f"{count} {status}" for status, count in counts.items()))
    for row in rows:
        # a settled row says what handling did (refused, skipped as automatic mail and why)
        note = row.last_error if row.status != "done" else row.outcome
        note = (note or "").splitlines()[0][:100] if note else ""
        print(
            f"{row.id:>6} {row.status:<7} {row.attempts:>2} tries  {row.received_at:%Y-%m-%d %H:%M}  "
            f"{row.server_size or row.size:>8} B  {row.message_id or '-'}  {note}"
        )
    return 0


def _inbox_show(args: argparse.Namespace) -> int:
    from email.parser import BytesHeaderParser
    from email.policy import default

    from bot.core.intake.inbox import Inbox
    from bot.host.wiring import open_store

    with open_store(_settings(args)) as sessions:
        inbox = Inbox(sessions)
        raw = inbox.raw(args.id)
        row = inbox.summary(args.id)
    if raw is None or row is None:
        raise UserError(f"there is no received message #{args.id}")
    stored = f"{row.size} bytes" + (f" (of {row.server_size}, cut at the size limit)" if row.server_size else "")
    print(f"#{row.id} {row.status} after {row.attempts} attempt(s), key {row.source_key}, {stored}")
    headers = BytesHeaderParser(policy=default).parsebytes(raw)
    for name in ("From", "Return-Path", "To", "Subject", "Date", "Message-ID"):
        if headers.get(name) is not None:
            print(f"{name}: {headers[name]}")
    if row.outcome:
        print(f"Outcome: {row.outcome}")
    if row.last_error:
        print("Last error:")
        print(row.last_error.rstrip())
    return 0


def _inbox_requeue(args: argparse.Namespace) -> int:
    from bot.core.intake.inbox import Inbox
    from bot.host.wiring import open_store

    with open_store(_settings(args)) as sessions:
        inbox = Inbox(sessions)
        missing = [row_id for row_id in args.id if not inbox.requeue(row_id)]
    for row_id in args.id:
        if row_id not in missing:
            print(f"#{row_id} requeued: the next intake pass processes it")
    if missing:
        raise UserError(f"not parked or failed (or no such message): {', '.join(f'#{i}' for i in missing)}")
    return 0


def _games(args: argparse.Namespace) -> int:
    for rules in registry.all_rules():
        print(f"{rules.kind:<16} {rules.title} ({player_count(rules.min_seats, rules.max_seats)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
