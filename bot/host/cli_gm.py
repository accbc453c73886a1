"""``referee gm ...``: the host's command line for running games.

Every subcommand builds one command of the common model (:mod:`bot.core.model.commands`)
and applies it through the same pipeline as every channel, as the host: a
game master of every game, authenticated by being on the machine
(``Trust.VERIFIED``, ``as_host``).  It prints one line per effect and exits 2
with a one-line reason when refused; ``--json`` where a listing is printed.

What the host reads (``referee gm --help``, with examples) is :data:`DESCRIPTION`.
"""

from __future__ import annotations

import argparse
import json
import sys
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from bot.channels import registry as channels
from bot.core.model import commands as c
from bot.core.model.declaration import declared, field_types, is_number
from bot.email import channel as email
from bot.settings.loader import Settings

DESCRIPTION = """\
Run games as the host: you are a game master of every game on this machine.
Each action prints what it did; a refusal prints one line saying why (exit 2).
Times: an ISO time in the game's zone (2027-01-04T18:00), or a shift like +2d3h:
from the current deadline for gm deadline and replace --extend; from now for
pause --until, resume --deadline and rollback --deadline (there the old deadline
no longer holds).

Examples:
  referee gm create golden-strider spring26 --seats 6 --time-zone Europe/London \\
      --schedule "mon,thu at 20:00" --early 30m --grace 2h --reminders 24h,1h --gm gm@club.org
  referee gm create three-races autumn --seats 4 --ready-check 24h
  referee gm ready autumn "Steve Ovett" --reason "he confirmed by phone"
  referee gm start spring26
  referee gm status spring26 --json
  referee gm deadline spring26 +1d --reason "two players asked for a day"
  referee gm pause spring26 --until 2027-01-04T18:00 --reason "holidays"
  referee gm process spring26 --turn 4 --reason "everyone agreed"
  referee gm orders spring26 "Steve Ovett" "play 6/0 bank 2" --reason "sent to me by phone"
  referee gm replace spring26 "Steve Ovett" new@club.org --reason "Steve left" --extend +2d
  referee gm substitute spring26 "Steve Ovett" --reason "no orders for two turns"
  referee gm substitute spring26 "Steve Ovett" accept
  referee gm rollback spring26 --to-turn 3 --reason "wrong orders were processed"
  referee gm log spring26
  referee gm unlink discord:123456789012345678 --reason "linked to the wrong address"
"""

SettingsOf = Callable[[argparse.Namespace], Settings]
HOST = c.Sender("cli", "host", "the host")
"""The host's identity on its command line (``bot.host.wiring.CLI_CHANNEL``: answered inline, never queued)."""


ADDRESS_AUTH_UNAVAILABLE = (
    "--auth address needs a mail server that vouches for senders (an Authentication-Results "
    "header with dmarc, dkim or spf=pass), and email_trusted_authserv_ids names none: set it to "
    "your receiving server's authserv-id (deploy/HOSTING.md, Trust), or create a password game"
)
"""Why ``--auth address`` is refused where the host names no trusted server (:mod:`bot.email.policy`)."""


class Refused(Exception):
    """A one-line reason; ``bot.host.cli`` prints it and exits 2."""


def _address(text: str) -> tuple[str, str]:
    """``someone@club.org`` is an email address; ``discord:1234`` a Discord user id (:func:`bot.channels.registry.parse_address`)."""
    try:
        return channels.parse_address(text)
    except ValueError as exc:
        raise Refused(f"not an address: {exc}") from None


def _options(items: list[str]) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep:
            raise Refused(f"--option needs NAME=VALUE, not {item!r}")
        try:
            options[name.strip()] = json.loads(value)
        except json.JSONDecodeError:
            options[name.strip()] = value
    return options


def register(sub: Any, settings_of: SettingsOf) -> None:
    """Add ``referee gm`` and its subcommands to ``sub`` (an argparse subparsers object)."""
    gm = sub.add_parser(
        "gm", help="run games as the host: create, start, deadlines, overrides, log",
        description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    gm_sub = gm.add_subparsers(required=True, metavar="ACTION")

    def add(kind: type[c.Declared], build: Callable[[argparse.Namespace], c.Command], *, listing: bool = False,
            example: str = "") -> argparse.ArgumentParser:  # fmt: skip
        """The subcommand of ``kind``: its name and help from the command's declaration."""
        declared = kind.declaration
        help_text = declared.summary
        parser = gm_sub.add_parser(declared.subcommand, help=help_text, description=f"{help_text}.\n\nExample: "
                                   f"{example}" if example else help_text,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
        if listing:
            parser.add_argument("--json", action="store_true", help="one JSON document")
        parser.set_defaults(build=build, run=lambda args: _run(args, settings_of(args), build(args)))
        assert isinstance(parser, argparse.ArgumentParser)
        added.add(kind)
        return parser

    added: set[type[c.Declared]] = set()

    def reason(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--reason", required=True, help="why (written to the log and told to the players)")

    create = add(c.CreateGame, lambda a: c.CreateGame(
        a.game, a.kind, _options(a.option), a.time_zone, 0, False, a.auth, seats=a.seats, max_seats=a.max_seats,
        schedule=a.schedule or "", min_gap=a.min_gap, early_delay=a.early, grace=a.grace, reminders=a.reminders,
        join="invited" if a.invite else "anyone", invited=tuple(a.invite), observers=not a.no_observers,
        absence_limit_days=a.absence_limit, game_masters=tuple(_address(x) for x in a.gm), press=a.press,
        min_reliability=a.min_reliability,
        press_gm_copies=not a.no_press_gm_copies, press_in_record=a.press_in_record, ready_check=a.ready_check,
        substitute_after=a.substitute_after, substitute_auto=a.substitute_auto,
    ), example="referee gm create golden-strider spring26 --seats 6 --schedule 48h --gm gm@club.org")  # fmt: skip
    create.add_argument("kind")
    create.add_argument("game")
    seats = create.add_mutually_exclusive_group()
    seats.add_argument("--seats", type=int, help="the game starts with exactly N seats")
    seats.add_argument("--max-seats", type=int, help="open joining, up to N seats")
    create.add_argument("--option", action="append", default=[], metavar="NAME=VALUE")
    create.add_argument("--time-zone", default="", metavar="TZ",
                        help="e.g. Europe/London (default: the time_zone setting, UTC unless set)")  # fmt: skip
    create.add_argument("--schedule", metavar="SPEC", help="48h, 'every 3 days at 18:00', 'mon,thu at 20:00' (a "
                        "game started 08:00 with 'every day at 20:00' ends its first turn that day)")  # fmt: skip
    create.add_argument("--min-gap", default="0", metavar="DURATION", help="least time from a report to a deadline")
    create.add_argument("--early", metavar="DELAY", help="process early, DELAY after the last order (0 allowed)")
    create.add_argument("--grace", default="0", metavar="DURATION", help="wait this long for late orders")
    create.add_argument("--reminders", default="24h,1h", metavar="LIST", help="before each deadline (or none)")
    create.add_argument("--auth", choices=("password", "address"), default="password")
    create.add_argument("--invite", action="append", default=[], metavar="ADDRESS", help="only these may join")
    create.add_argument("--no-observers", action="store_true", help="closed to observers")
    create.add_argument("--absence-limit", type=int, default=14, metavar="DAYS", help="per player (0: none)")
    create.add_argument(
        "--min-reliability",
        type=int,
        metavar="PERCENT",
        help="JOIN needs this share of owed turns ordered in time (once 5 are owed)",
    )
    create.add_argument("--gm", action="append", default=[], metavar="ADDRESS", help="the GM (then co-GMs)")
    create.add_argument("--press", choices=c.PRESS_MODES, default="white",
                        help="press between players: none, white (signed; default) or grey (anonymous too)")  # fmt: skip
    create.add_argument("--no-press-gm-copies", action="store_true", help="the GMs get no copy of the press")
    create.add_argument("--press-in-record", action="store_true", help="keep the press's texts")
    create.add_argument("--ready-check", default="", metavar="DURATION",
                        help="once the game fills, each seat confirms within DURATION (e.g. 24h) or is freed "
                        "(default: no check)")  # fmt: skip
    create.add_argument("--substitute-after", type=int, default=0, metavar="N",
                        help="a seat whose player missed N turns in a row is offered to the standby list "
                        "(default 0: only when you say so, with gm substitute)")  # fmt: skip
    create.add_argument(
        "--substitute-auto",
        action="store_true",
        help="the first to take a seat offered has it at once (default: you accept them)",
    )

    add(c.StartGame, lambda a: c.StartGame(a.game),
        example="referee gm start spring26").add_argument("game")  # fmt: skip
    add(c.ShowStatus, lambda a: c.ShowStatus(a.game),
        listing=True).add_argument("game")  # fmt: skip

    deadline = add(c.SetDeadline, lambda a: c.SetDeadline(a.game, a.when, a.reason), example="referee gm deadline g1 +1d --reason x")  # fmt: skip
    deadline.add_argument("game")
    deadline.add_argument("when")
    reason(deadline)
    pause = add(c.PauseGame, lambda a: c.PauseGame(a.game, a.reason, a.until))
    pause.add_argument("game")
    pause.add_argument("--until", metavar="WHEN", help="ISO time, or +2d from now")
    reason(pause)
    resume = add(c.ResumeGame, lambda a: c.ResumeGame(a.game, a.reason, a.deadline))
    resume.add_argument("game")
    resume.add_argument("--deadline", metavar="WHEN", help="ISO time, or +2h from now (default: the schedule from now)")
    reason(resume)
    process = add(c.ProcessNow, lambda a: c.ProcessNow(a.game, a.turn, a.reason), example="referee gm process g1 --turn 4 --reason x")  # fmt: skip
    process.add_argument("game")
    process.add_argument("--turn", type=int, required=True, metavar="N")
    reason(process)
    add(c.PreviewTurn, lambda a: c.PreviewTurn(a.game)).add_argument(
        "game")  # fmt: skip
    orders = add(c.EnterOrders, lambda a: c.EnterOrders(a.game, a.seat, a.text, a.reason))  # fmt: skip
    orders.add_argument("game")
    orders.add_argument("seat")
    orders.add_argument("text")
    reason(orders)
    replace = add(c.ReplacePlayer, lambda a: c.ReplacePlayer(a.game, a.seat, *_address(a.address), a.reason, a.extend))  # fmt: skip
    replace.add_argument("game")
    replace.add_argument("seat")
    replace.add_argument("address", help="an email address, or discord:<user id>")
    replace.add_argument("--extend", metavar="WHEN", help="also move the deadline (+2d from it, or an ISO time)")
    reason(replace)
    substitute = add(c.OfferSeat, lambda a: c.OfferSeat(a.game, a.seat, a.action, a.reason),
                     example='referee gm substitute spring26 "Steve Ovett" --reason "no orders for 2 turns"')  # fmt: skip
    substitute.add_argument("game")
    substitute.add_argument("seat")
    substitute.add_argument("action", nargs="?", default="offer", choices=c.OFFER_ACTIONS,
                            help="offer the seat (the default), withdraw the offer, accept or decline who "
                            "offered to take it")  # fmt: skip
    substitute.add_argument("--reason", default="", help="why (written to the log and told to the players)")
    unlink = add(c.UnlinkIdentity, lambda a: c.UnlinkIdentity(*_address(a.address), a.reason))  # fmt: skip
    unlink.add_argument("address", help="an email address, or discord:<user id>")
    reason(unlink)
    eject = add(c.EjectPlayer, lambda a: c.EjectPlayer(a.game, a.seat, a.reason))
    eject.add_argument("game")
    eject.add_argument("seat")
    reason(eject)
    rollback = add(c.RollBack, lambda a: c.RollBack(a.game, a.to_turn, a.reason, a.deadline, a.same_draw))  # fmt: skip
    rollback.add_argument("game")
    rollback.add_argument("--to-turn", type=int, required=True, metavar="N")
    rollback.add_argument("--deadline", metavar="WHEN", help="ISO time, or +2d from now")
    rollback.add_argument("--same-draw", action="store_true",
                          help="the turns played again draw what they drew, and the orders on file for turn N stand "
                          "as they were (to correct a mistake; the players are told); default: a fresh draw")  # fmt: skip
    reason(rollback)
    broadcast = add(c.Broadcast, lambda a: c.Broadcast(a.game, a.text))
    broadcast.add_argument("game")
    broadcast.add_argument("text")
    add(c.ShowLog, lambda a: c.ShowLog(a.game), listing=True).add_argument("game")
    joining = add(c.SetJoining, lambda a: c.SetJoining(a.game, a.state == "open", a.reason))
    joining.add_argument("game")
    joining.add_argument("state", choices=("open", "close"))
    joining.add_argument("--reason", default="")
    end = add(c.EndGame, lambda a: c.EndGame(a.game, a.reason, a.abandon))
    end.add_argument("game")
    end.add_argument("--abandon", action="store_true")
    reason(end)
    option = add(c.SetOption, lambda a: c.SetOption(a.game, a.name, a.value,
                 a.reason))  # fmt: skip
    option.add_argument("game")
    option.add_argument("name")
    option.add_argument("value")
    reason(option)
    add_gm = add(c.AddGameMaster, lambda a: c.AddGameMaster(
        a.game, *_address(a.address), a.reason, a.hand_over))  # fmt: skip
    add_gm.add_argument("game")
    add_gm.add_argument("address")
    add_gm.add_argument("--hand-over", action="store_true")
    reason(add_gm)
    for kind in declared():  # a command with no subcommand of its own above: read from its declared syntax
        if kind not in added and kind.declaration.permission in RUN_BY_GAME_MASTERS and kind.declaration.forms:
            _declared_subcommand(add(kind, _declared_build(kind)), kind)


RUN_BY_GAME_MASTERS = (c.Permission.GAME_MASTER, c.Permission.CREATOR, c.Permission.HOST)


def _declared_subcommand(parser: argparse.ArgumentParser, kind: type[c.Declared]) -> None:
    """Arguments from the command's first declared form: ``<field>`` positional, ``[WORD <field>]`` an
    option ``--word``, a number where the field is an ``int``; ``--reason`` when the command has a reason."""
    types = field_types(kind)
    for keyword, name, optional in kind.declaration.forms[0].arguments:
        convert = int if is_number(types.get(name, "")) else str
        if optional:
            flag = "--" + "-".join((keyword or name).lower().split())
            parser.add_argument(flag, dest=name, type=convert, metavar=name.upper())
        else:
            parser.add_argument(name, type=convert)
    if "reason" in types:
        parser.add_argument("--reason", required=True, help="why (written to the log and told to the players)")


def _declared_build(kind: type[c.Declared]) -> Callable[[argparse.Namespace], c.Command]:
    names = [name for _, name, _ in kind.declaration.forms[0].arguments]

    def build(args: argparse.Namespace) -> c.Command:
        values = {name: getattr(args, name) for name in names if getattr(args, name) is not None}
        if hasattr(args, "reason"):
            values["reason"] = args.reason
        return kind(**values)  # type: ignore[return-value]

    return build


def _run(args: argparse.Namespace, settings: Settings, command: c.Command) -> int:
    from bot.core.messaging.rendering import render
    from bot.core.runtime.service import GameService
    from bot.host.wiring import open_store, service_config

    if (
        isinstance(command, c.CreateGame)
        and command.auth == "address"
        and not settings.of(email.CHANNEL).email_trusted_authserv_ids
    ):
        raise Refused(ADDRESS_AUTH_UNAVAILABLE)
    envelope = c.Envelope(
        HOST, (command,), f"cli:{uuid.uuid4()}", datetime.now(UTC), trust=c.Trust.VERIFIED, as_host=True,
    )  # fmt: skip
    with open_store(settings) as sessions:
        applied = GameService(sessions, service_config(settings)).apply(envelope)
    assert applied.reply is not None
    data = applied.reply.data
    if getattr(args, "json", False) and data["items"]:
        print(json.dumps(data["items"][0], indent=1, default=str))
    else:
        for item in data["items"]:
            sys.stdout.write(render("cli/item.txt.j2", {"item": item}, "cli"))
    if data["problems"]:
        first = data["problems"][0]
        reason = render("cli/problem.txt.j2", {"item": first}, "cli").strip()
        raise Refused(" ".join(reason.split()))
    return 0
