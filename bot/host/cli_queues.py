"""Host subcommands for what waits or failed: ``referee turns``, ``referee outbox``, ``referee export``.

* ``referee turns list [--json]``: turns the shunt parked (bot/core/turns/shunt.py), with their error;
* ``referee turns requeue GAME``: resolve a parked turn again (due at once);
* ``referee outbox list [--json]``: messages waiting per channel, and those a channel refused for good;
* ``referee export GAME``: a finished game's sealed record (JSON) on stdout, as ``replay`` and ``verify`` read it.

Part of the composition root (``bot.host.cli`` registers them); each prints one
line per item and exits 2 with a one-line reason when refused.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from bot.settings.loader import Settings

SettingsOf = Callable[[argparse.Namespace], Settings]


class Refused(Exception):
    """A one-line reason; ``bot.host.cli`` prints it and exits 2."""


def register(sub: Any, settings_of: SettingsOf) -> None:
    """Add the subcommands to ``sub`` (an argparse subparsers object)."""
    turns = sub.add_parser("turns", help="turns whose resolution failed: list, requeue")
    turns_sub = turns.add_subparsers(required=True, metavar="ACTION")
    listing = turns_sub.add_parser("list", help="parked turns and their errors")
    listing.add_argument("--json", action="store_true")
    listing.set_defaults(run=lambda args: _turns_list(args, settings_of(args)))
    requeue = turns_sub.add_parser("requeue", help="resolve a parked turn again, now")
    requeue.add_argument("game")
    requeue.set_defaults(run=lambda args: _turns_requeue(args, settings_of(args)))

    outbox = sub.add_parser("outbox", help="outgoing messages: waiting, and refused for good")
    outbox_sub = outbox.add_subparsers(required=True, metavar="ACTION")
    out_list = outbox_sub.add_parser("list", help="counts per channel and the parked messages")
    out_list.add_argument("--json", action="store_true")
    out_list.set_defaults(run=lambda args: _outbox_list(args, settings_of(args)))

    export = sub.add_parser("export", help="the record (JSON) of a game that is over (finished, ended or abandoned)")
    export.add_argument("game")
    export.set_defaults(run=lambda args: _export(args, settings_of(args)))


def _turns_list(args: argparse.Namespace, settings: Settings) -> int:
    from bot.core.turns.shunt import TurnShunt
    from bot.host.wiring import open_store

    with open_store(settings) as sessions:
        parked = TurnShunt(sessions).parked()
    if args.json:
        print(json.dumps([
            {"game": p.game, "turn": p.turn, "attempts": p.attempts, "parked_at": p.parked_at.isoformat(),
             "error": p.error} for p in parked
        ], indent=1))  # fmt: skip
        return 0
    print(f"{len(parked)} parked turn(s)")
    for p in parked:
        first = p.error.splitlines()[0][:100] if p.error else ""
        print(f"{p.game} turn {p.turn}: {p.attempts} attempts, parked {p.parked_at:%Y-%m-%d %H:%M} UTC: {first}")
    return 0


def _turns_requeue(args: argparse.Namespace, settings: Settings) -> int:
    from bot.core.turns.shunt import TurnShunt
    from bot.host.wiring import open_store

    with open_store(settings) as sessions:
        if not TurnShunt(sessions).requeue(args.game, datetime.now(UTC)):
            raise Refused(f"game {args.game} has no parked turn (see `referee turns list`)")
    print(f"{args.game}: requeued; the deadline worker resolves it at its next pass")
    return 0


def _outbox_list(args: argparse.Namespace, settings: Settings) -> int:
    from bot.core.messaging.outbox import OutboxDrain
    from bot.host.wiring import open_store

    with open_store(settings) as sessions:
        drain = OutboxDrain(sessions)
        waiting = drain.waiting_by_channel()
        parked = drain.parked()
    if args.json:
        print(json.dumps({
            "waiting": waiting,
            "parked": [{"id": m.id, "channel": m.channel, "recipient": m.recipient, "template": m.template,
                        "reason": reason} for m, reason in parked],
        }, indent=1))  # fmt: skip
        return 0
    print(", ".join(f"{count} waiting on {channel}" for channel, count in sorted(waiting.items())) or "nothing waiting")
    print(f"{len(parked)} parked")
    for message, reason in parked:
        print(f"#{message.id} {message.channel} {message.recipient} {message.template}: {reason.splitlines()[0][:100]}")
    return 0


def _export(args: argparse.Namespace, settings: Settings) -> int:
    from bot.core.views import GameViews
    from bot.host.wiring import open_store

    with open_store(settings) as sessions:
        try:
            record = GameViews(sessions).record(args.game)
        except ValueError as exc:
            raise Refused(str(exc)) from None
    print(json.dumps(record, indent=1))
    return 0
