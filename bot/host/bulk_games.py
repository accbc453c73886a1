"""``referee host bulk-games --kind K --count N [--players P]``: many open games at once, for a big club or a test.

Every game is made by the core's own commands, as the host (``Trust.VERIFIED``, ``as_host``):
``CreateGame`` (password seats, 48-hour turns), one ``JoinGame`` a seat, ``StartGame``; so each
is a real game with its seats, seeds, commitments, secrets and first deadline.  The players are
``<game>-s<n>`` on the host's own inline channel (``bot.host.wiring.CLI_CHANNEL``): their replies and
notices are answered inline, nothing is queued for mail.  Games are named ``<prefix><n>`` after the
highest such name that exists, so no existing game is touched; a refusal stops the run.

The envelopes of ``--batch`` games are applied in one transaction (:func:`bot.core.basics.batch.open_batch`,
one savepoint an envelope), which commits once: a game a batch, measured in deploy/PERFORMANCE.md.
A progress line is printed per batch.  Without ``--count`` nothing is done.
"""

from __future__ import annotations

import argparse
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from bot.core.model import commands as c
from bot.settings.loader import Settings

SettingsOf = Callable[[argparse.Namespace], Settings]
HOST = c.Sender("cli", "host", "the host")
TURN_MINUTES = 48 * 60


class BulkRefused(Exception):
    """A one-line reason (the caller prints it and exits 2)."""


def register(sub: Any, settings_of: SettingsOf) -> None:
    """Add ``host bulk-games`` to ``sub`` (an argparse subparsers object)."""
    host = sub.add_parser("host", help="the host's bulk tools (bulk-games: many open games at once)")
    host_sub = host.add_subparsers(required=True, metavar="ACTION")
    bulk = host_sub.add_parser("bulk-games", help="create and start many games through the core's commands")
    bulk.add_argument("--kind", required=True, help="the game's kind, e.g. golden-strider")
    bulk.add_argument("--count", type=int, help="how many games (required: nothing is done without it)")
    bulk.add_argument("--players", type=int, help="seats a game (default: the kind's least)")
    bulk.add_argument("--prefix", default="bulk", help="games are named <prefix><n> (default bulk)")
    bulk.add_argument("--batch", type=int, default=50, help="games a transaction (default 50)")
    bulk.set_defaults(run=lambda args: _command(args, settings_of(args)))


def _command(args: argparse.Namespace, settings: Settings) -> int:
    from bot.host.cli_queues import Refused
    from bot.host.wiring import open_store, service_config

    if args.count is None:
        raise Refused("bulk-games needs --count N (how many games to create)")
    with open_store(settings) as sessions:
        try:
            bulk_games(sessions, service_config(settings), args.kind, args.count, args.players, args.prefix,
                       args.batch)  # fmt: skip
        except BulkRefused as exc:
            raise Refused(str(exc)) from None
    return 0


def first_free(sessions: Any, prefix: str) -> int:
    """One past the highest ``<prefix><n>`` game there is (1 when there is none)."""
    from sqlalchemy import select  # here: listing the commands loads no database library

    from bot.store.db import unit_of_work
    from bot.store.models import Game

    with unit_of_work(sessions) as session:
        slugs = session.scalars(select(Game.slug).where(Game.slug.like(f"{prefix}%")))
        numbers = [int(rest) for slug in slugs if (rest := slug.removeprefix(prefix)).isdigit() and slug != rest]
    return max(numbers, default=0) + 1


def bulk_games(
    sessions: Any,
    config: Any,
    kind: str,
    count: int,
    players: int | None = None,
    prefix: str = "bulk",
    batch: int = 50,
    out: Callable[[str], None] = print,
) -> list[str]:
    """Create and start ``count`` games of ``kind``, ``batch`` games a transaction; their names.

    Raises :class:`BulkRefused` (after the batches committed so far) when the core refuses a command.
    """
    from adjudicator import registry
    from bot.core.basics.batch import Redo
    from bot.core.runtime.service import GameService

    if count < 1 or batch < 1:
        raise BulkRefused("--count and --batch must be at least 1")
    try:
        rules = registry.get_rules(kind)
    except Exception:
        raise BulkRefused(f"no game kind {kind!r}") from None
    seats = players or rules.min_seats
    if not rules.min_seats <= seats <= rules.max_seats:
        raise BulkRefused(f"{rules.title} takes {rules.min_seats} to {rules.max_seats} players, not {seats}")
    service = GameService(sessions, config)
    start = first_free(sessions, prefix)
    names = [f"{prefix}{n}" for n in range(start, start + count)]
    began = time.perf_counter()
    for first in range(0, count, batch):
        chunk = names[first : first + batch]
        envelopes = [envelope for slug in chunk for envelope in _game_envelopes(slug, rules.kind, seats)]
        try:
            _apply_all(service, sessions, envelopes, careful=False)
        except Redo:  # something raised: the batch again, an envelope a savepoint, to say which
            _apply_all(service, sessions, envelopes, careful=True)
        done = first + len(chunk)
        spent = time.perf_counter() - began
        out(f"{done}/{count} games ({chunk[-1]}), {spent:.1f} s, {1000 * spent / done:.0f} ms a game")
    return names


def _apply_all(service: Any, sessions: Any, envelopes: list[c.Envelope], careful: bool) -> None:
    """Apply ``envelopes`` in one transaction; :class:`BulkRefused` (all rolled back) at the first refusal."""
    from bot.core.basics.batch import open_batch

    with open_batch(sessions, careful) as opened:
        service.prepare(opened, envelopes)
        for envelope in envelopes:
            with opened.unit():
                applied = service.apply(envelope, opened)
            if applied.problems:
                raise BulkRefused(f"{envelope.commands[0]!r} refused: {', '.join(applied.problems)}")


def _game_envelopes(slug: str, kind: str, seats: int) -> list[c.Envelope]:
    """Create, a join a seat, start: the envelopes of one game."""
    now = datetime.now(UTC)

    def envelope(sender: c.Sender, command: c.Command, host: bool) -> c.Envelope:
        return c.Envelope(sender, (command,), f"bulk:{uuid.uuid4()}", now, trust=c.Trust.VERIFIED, as_host=host)

    create = c.CreateGame(slug, kind, {}, "UTC", TURN_MINUTES, False, "password", seats=seats)
    joins = [
        envelope(c.Sender("cli", f"{slug}-s{seat}", f"Player {seat} of {slug}"), c.JoinGame(slug, f"S{seat}"), False)
        for seat in range(1, seats + 1)
    ]
    return [envelope(HOST, create, True), *joins, envelope(HOST, c.StartGame(slug), True)]
