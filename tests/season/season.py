"""One club season of a game kind, start to finish, as its host, game master and players live it.

The host creates the game with the command line (``referee gm create ...
--gm ADDRESS``); the game master gets the GM password by mail and runs the
game by mail from then on; the players join and order by mail in the sloppy
forms of :func:`tests.season.club.sloppy`.  Along the way, on the turns a
:class:`Plan` names:

* the game master extends the deadline, pauses and resumes the game (every
  seat is told, with the new deadline);
* one seat misses a turn and the game master processes it early (``PROCESS
  <game> TURN <n>``): the report applies the no-moves-received rule to that
  seat and says so, and announces the early processing;
* one seat is replaced (``REPLACE ... WITH ... EXTEND``): the new player gets
  a briefing with the seat password and orders with it; every other seat is
  told the new deadline;
* the game master rolls back one turn; the orders on file stay, and a
  deadline moved a few seconds away resolves the turn again;
* one order carries a ``-- comment`` after it (refused, the player sends it
  again plainly, so the season goes on);
* a player mistypes JOIN, and asks LIST, HELP <game> and STATUS <game>; the
  host also creates a game without ``--time-zone`` (the settings name one).

What a mail says (a notice, an announcement, a listing) is checked at the end
of the season (:class:`Table` ``later``), all together: one missing sentence
does not hide the rest of the season.  What the play needs (a reply, a turn
resolved, an order accepted) is checked as it happens.

The game then plays to its natural end; the referee is stopped with SIGTERM,
the host exports the record and verifies it, and every mail of the season is
read as a player would (:func:`tests.season.club.read_as_a_player`).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from tests.season.club import (
    Club,
    Sent,
    address,
    flat,
    read_as_a_player,
    says_deadline,
    says_when,
    seconds_from_now,
    sloppy,
)  # fmt: skip
from tests.support.dovecot import DovecotServer
from tests.support.smtp_sink import SmtpSink

REPLACEMENT = "newcomer@club.example.org"
_TWO_NUMBERS = re.compile(r"\bturn (\d+)[:,] turn (\d+)")
"""A turn named twice in one phrase ("turn 2: turn 3"): the game's number beside the referee's."""


@dataclass(frozen=True)
class Plan:
    """What happens in a season of one kind: its seats, options and the turns (counted from 0, as
    the resolutions happen) on which the game master steps in."""

    kind: str
    game: str
    seats: tuple[str, ...]
    zone: str
    options: tuple[str, ...] = ()
    extend_on: int = 1
    comment_on: int = 5
    miss_on: int = 2
    replace_on: int = 3
    rollback_on: int = 4
    """The turn re-opened: rolled back to right after it resolved."""
    most_turns: int = 200
    schedule: str = "2d"
    """The game's schedule; the reminders come 24h before each deadline (with "24h", the first
    deadline is within the first reminder's lead: a reminder due at the start is not sent)."""
    written: Callable[[str, str], str] = lambda orders, phase: orders
    """How a player writes the example orders in the phase titled ``phase`` (by default as they are)."""


@dataclass
class Table:
    """Who sits where: the seat's address and password, and the last reply each player got."""

    addresses: dict[str, str] = field(default_factory=dict)
    secrets: dict[str, str] = field(default_factory=dict)
    last: dict[str, str] = field(default_factory=dict)
    gm_secret: str = ""
    later: list[tuple[str, Callable[[], str]]] = field(default_factory=list)
    """Checks of what a mail says, made at the end of the season: (what is expected, a check that
    returns "" when it holds, else the mail it read).  Each is independent of the play, so one
    failing does not hide the rest of the season."""

    def expect(self, what: str, holds: Callable[[], bool], text: Callable[[], str]) -> None:
        self.later.append((what, lambda: "" if holds() else text() or "(no mail)"))


async def run_season(plan: Plan, dovecot: DovecotServer, smtp: SmtpSink, tmp_path: Path) -> dict[str, Any]:
    """A club on the test's servers plays ``plan``'s season; the record (of ``plan.kind``), its time printed."""
    began = time.monotonic()
    club = Club(dovecot, smtp, tmp_path, plan.kind, plan.game, plan.zone)
    club.write_config()
    try:
        record = await play_season(club, plan)
    finally:
        await club.kill()
    assert record["game"] == plan.kind
    print(f"\nseason {plan.kind}: {time.monotonic() - began:.1f} s, {len(club.smtp.messages())} mails")
    return record


async def play_season(club: Club, plan: Plan) -> dict[str, Any]:
    """Play the whole season of the module docstring; the exported (and verified) record."""
    table = Table(addresses={seat: address(seat) for seat in plan.seats})
    await club.start()
    await host_creates(club, plan, table)
    await players_join(club, plan, table)
    started = await gm(club, table, [f"start  {plan.game}"])
    assert f"STARTED {plan.game}" in started.reply, started.reply
    for seat in plan.seats:
        [announcement] = await club.mail_arrives(table.addresses[seat], f"game {plan.game} has started")
        says_when(club, announcement)

    turn = 0
    while club.view().phase is not None:
        assert turn < plan.most_turns, "the game does not end"
        await play_turn(club, plan, table, turn)
        turn += 1
    await club.until(lambda: club.unsent() == 0, "every mail sent")
    await club.stop()
    for seat, where in table.addresses.items():
        assert len(club.mails_to(where, "GAME OVER")) == 1, f"{seat} gets the final report once"
    record = club.export_and_verify()
    try:
        read_as_a_player(club)
    except AssertionError as error:  # reported with the checks below, none hiding another
        reading = str(error)
        table.expect("every mail read as a player would", lambda: False, lambda: reading)
    early = [m.get_body(("plain",)).get_content() for m in (r.message for r in club.smtp.messages())
             if "reminder" in m["Subject"] and "for turn 0 of" in flat(m.get_body(("plain",)).get_content())]  # fmt: skip
    table.expect("no reminder for the first turn, whose deadline was within the reminders' lead at the start",
                 lambda: plan.schedule != "24h" or not early, lambda: "\n".join(early))  # fmt: skip
    internal = re.compile(r"\b(SetDeadline|EnterOrders|PauseGame|ResumeGame|RollBack|ProcessNow|ReplaceSeat)\b")
    named = [
        line
        for r in club.smtp.messages()
        for line in r.message.get_body(("plain",)).get_content().splitlines()
        if internal.search(line)
    ]
    table.expect("the game master's actions are named in words, not by the code's names",
                 lambda: not named, lambda: "\n".join(named))  # fmt: skip
    reports = [
        m.get_body(("plain",)).get_content()
        for m in (r.message for r in club.smtp.messages())
        if "report" in m["Subject"]
    ]
    numbers = [pair for report in reports for pair in _TWO_NUMBERS.findall(flat(report))]
    table.expect("one turn number: a report never names a turn by two numbers",
                 lambda: all(a == b for a, b in numbers), lambda: f"{[p for p in numbers if p[0] != p[1]]}")  # fmt: skip
    failed = [f"{what}:\n{text}" for what, text in ((what, check()) for what, check in table.later) if text]
    assert not failed, "\n\n".join(failed)
    return record


async def asks_what_a_player_asks(club: Club, plan: Plan, table: Table) -> None:
    """LIST, HELP <game> and STATUS <game> by mail, as a player asks them after the first report."""
    seat = plan.seats[-1]
    report = await club.report_arrives(table.addresses[seat], 0)
    game_part = next(line for line in report.split("-" * 78)[1].splitlines() if line.strip())
    listed, helped, status = await club.send_all([
        (table.addresses[seat], sloppy(seat, ["list"])),
        (table.addresses[seat], sloppy(seat, [f"help   {plan.game}"])),
        (table.addresses[seat], sloppy(seat, [f"status {plan.game}", f"password {table.secrets[seat]}"])),
    ])  # fmt: skip
    full = f"{len(plan.seats)}/{len(plan.seats)} seats"
    table.expect(f"LIST shows the game's seats ({full})",
                 lambda: plan.game in listed.reply and full in flat(listed.reply), lambda: listed.reply)  # fmt: skip
    lonely = [line for line in helped.reply.splitlines() if re.fullmatch(r"\s*[a-z]+[.,]?\s*", line)]
    table.expect("HELP <game> wraps with no word alone on a line", lambda: not lonely, lambda: f"{lonely}")
    for name, value in (option.split("=") for option in plan.options):
        shown = re.search(rf"(?m)^\s*{name} = (\S+)", helped.reply)
        table.expect(f"HELP {plan.game} shows the game's {name} ({value})",
                     lambda shown=shown, value=value: bool(shown) and shown.group(1).lower() == value,  # type: ignore[misc]
                     lambda: helped.reply)  # fmt: skip
    table.expect("STATUS says when the deadline is", lambda: says_deadline(club, status.reply), lambda: status.reply)
    table.expect("STATUS holds the last report (the game's own part)",
                 lambda: flat(game_part) in flat(status.reply), lambda: f"{game_part!r} not in:\n{status.reply}")  # fmt: skip


async def host_creates(club: Club, plan: Plan, table: Table) -> None:
    """``referee gm create`` by the host; the game master's password arrives by mail."""
    options = [arg for option in plan.options for arg in ("--option", option)]
    code, out = club.cli(
        "gm", "create", plan.kind, plan.game, "--seats", str(len(plan.seats)), "--time-zone", plan.zone,
        "--schedule", plan.schedule, "--early", "0", "--reminders", "24h", *options, "--gm", club.gm,
    )  # fmt: skip
    assert code == 0, out
    code, out = club.cli("gm", "create", plan.kind, f"{plan.game}z", "--seats", str(len(plan.seats)))
    assert code == 0, out
    zone = club.zone_of(f"{plan.game}z")
    table.expect("a game created without --time-zone takes the host's time_zone setting",
                 lambda: zone == plan.zone, lambda: f"{plan.game}z: {zone}")  # fmt: skip
    [named] = await club.mail_arrives(club.gm, "The game master password:")
    table.gm_secret = named.split("The game master password:")[1].split()[0]
    assert plan.game in named and "HELP" in named


async def players_join(club: Club, plan: Plan, table: Table) -> None:
    """Every seat joins by mail: ``join  <game> as <Name>``, with a greeting and a signature."""
    first = plan.seats[0]
    typo = await club.send(table.addresses[first], sloppy(first, [f"jion  {plan.game} as {first}"]))
    table.expect("a mistyped JOIN gets 'did you mean JOIN'",
                 lambda: "did you mean" in typo.reply.lower() and "JOIN" in typo.reply, lambda: typo.reply)  # fmt: skip
    joined = await club.send_all([
        (table.addresses[seat], sloppy(seat, [f"join   {plan.game}  as {seat}"])) for seat in plan.seats
    ])  # fmt: skip
    for seat, sent in zip(plan.seats, joined, strict=True):
        assert f"JOINED {plan.game}" in sent.reply, sent.reply
        table.secrets[seat] = sent.reply.split("Your seat password:")[1].split()[0]
        table.last[seat] = sent.reply


async def gm(club: Club, table: Table, lines: list[str], reason: str = "") -> Sent:
    """A game master's command by mail, with its reason and the GM password (lower case, as typed)."""
    body = [*lines, *([f"reason {reason}"] if reason else []), f"password   {table.gm_secret}"]
    sent = await club.send(club.gm, sloppy("Gail (GM)", body), subject="gm")
    assert "needs" not in flat(sent.reply) or "nothing was done" not in sent.reply, sent.reply
    return sent


async def order(club: Club, plan: Plan, table: Table, seat: str, comment: str = "") -> Sent:
    """``seat`` orders by mail, as a player writes: the canonical orders are echoed in the reply."""
    example, canonical = club.orders_for(seat)
    phase = club.view().phase
    assert phase is not None
    lines = plan.written(example, phase.title).splitlines()
    if comment:
        lines[-1] += f"   -- {comment}"
    body = sloppy(seat, [f"orders  {plan.game}", *lines, f"password  {table.secrets[seat]}"], table.last[seat])
    sent = await club.send(table.addresses[seat], body)
    if comment:
        reply = sent.reply
        whole = "ORDERS ACCEPTED" in reply and flat(canonical) in flat(reply)
        table.expect(f"an order with a '-- {comment}' after it is accepted whole", lambda: whole, lambda: reply)
        if "ORDERS ACCEPTED" not in reply:  # refused: the player sends them again plainly; the season goes on
            return await order(club, plan, table, seat)
        if not whole:  # taken in part (what was taken is on file; the turn may have resolved with it)
            table.last[seat] = reply
            return sent
    assert "ORDERS ACCEPTED" in sent.reply, sent.reply
    club.accepted.append((sent.message_id, canonical))
    table.last[seat] = sent.reply
    return sent


async def play_turn(club: Club, plan: Plan, table: Table, turn: int) -> None:
    """One turn of the season: the owing seats order, the game master steps in as planned."""
    view = club.view()
    assert view.phase is not None
    owing, number, before = list(view.phase.owing), view.phase.number, club.resolved()
    if turn == plan.extend_on:
        await asks_what_a_player_asks(club, plan, table)
        await extend_pause_resume(club, plan, table)
    if turn == plan.replace_on:
        await replace(club, plan, table, owing[0])
    if turn == plan.miss_on:
        missing, *ordering = owing
        for seat in ordering:
            await order(club, plan, table, seat)
        processed = await gm(club, table, [f"process {plan.game} turn {number}"], f"{missing} is away")
        assert f"PROCESSED {plan.game}" in processed.reply, processed.reply
        await club.turn_resolves(before)
        await no_moves_received(club, plan, table, missing, number)
        return
    for index, seat in enumerate(owing):
        await order(club, plan, table, seat, "as planned" if turn == plan.comment_on and index == 0 else "")
    await club.turn_resolves(before)
    if turn == plan.rollback_on and club.view().phase is not None:
        await roll_back(club, plan, table, number)


async def extend_pause_resume(club: Club, plan: Plan, table: Table) -> None:
    """EXTEND, PAUSE, RESUME by mail: each seat is told, with the deadline in UTC and the game's zone."""
    extended = await gm(club, table, [f"extend  {plan.game} 1d"], "two players asked")
    assert f"DEADLINE {plan.game}" in extended.reply, extended.reply
    for seat in plan.seats:
        [moved] = await club.mail_arrives(table.addresses[seat], "two players asked")
        says_when(club, moved)
    paused = await gm(club, table, [f"pause {plan.game}"], "the club is on holiday")
    assert "NOT UNDERSTOOD" not in paused.reply.split("IGNORED")[0].split("Hi referee")[-1], paused.reply
    for seat in plan.seats:
        await club.mail_arrives(table.addresses[seat], "paused the game")
    assert club.view().status == "paused", club.view().status
    resumed = await gm(club, table, [f"resume {plan.game}"], "back from holiday")
    for seat in plan.seats:
        [back] = await club.mail_arrives(table.addresses[seat], "back from holiday")
        says_when(club, back)
    assert club.view().status == "running", resumed.reply


async def replace(club: Club, plan: Plan, table: Table, seat: str) -> None:
    """REPLACE <game> <seat> WITH <address> EXTEND 1d: a briefing for the newcomer, notices to the rest."""
    replaced = await gm(club, table, [f"replace {plan.game} {seat} with {REPLACEMENT} extend 1d"], "moved away")
    assert "NOT UNDERSTOOD" not in replaced.reply.split("Hi referee")[-1].split("IGNORED")[0], replaced.reply
    [briefing] = await club.mail_arrives(REPLACEMENT, f"has given you the seat {seat}")
    says_when(club, briefing)
    table.expect("the briefing shows how to order", lambda: f"ORDERS {plan.game}" in briefing, lambda: briefing)
    await club.mail_arrives(table.addresses[seat], "has given your seat")
    for other in plan.seats:
        if other != seat:
            told = partial(notices, club, table.addresses[other], "moved away")
            table.expect(
                f"{other} is told of the replacement and its new deadline",
                lambda told=told: any(says_deadline(club, m) for m in told()),  # type: ignore[misc]
                lambda told=told: "\n".join(told()),  # type: ignore[misc]
            )
    table.addresses[seat] = REPLACEMENT
    table.secrets[seat] = briefing.split("Your seat password:")[1].split()[0]
    table.last[seat] = briefing


def notices(club: Club, recipient: str, needle: str) -> list[str]:
    """The mails to ``recipient`` holding ``needle`` that are not turn reports (a notice of its own)."""
    return [m for m in club.mails_to(recipient, needle) if "=" * 78 not in m]


async def no_moves_received(club: Club, plan: Plan, table: Table, missing: str, number: int) -> None:
    """The report of the turn the seat missed applies the no-moves-received rule and says so."""
    text = await club.report_arrives(table.addresses[missing], number)
    report = flat(text)
    assert f"{missing}: no orders received" in report or f"{missing}: no-moves-received" in report, text
    table.expect("the report announces the early processing", lambda: "is away" in report, lambda: text)


async def roll_back(club: Club, plan: Plan, table: Table, number: int) -> None:
    """ROLLBACK to the turn just resolved; its orders stay on file; a near deadline resolves it again."""
    before = club.resolved()
    rolled = await gm(club, table, [f"rollback {plan.game} to {number}"], "the wrong orders were processed")
    assert "ROLLED BACK" in rolled.reply.upper() or f"turn {number}" in rolled.reply, rolled.reply
    for seat in plan.seats:
        [notice] = await club.mail_arrives(table.addresses[seat], f"rolled the game back to the start of turn {number}")
        says_when(club, notice)
    view = club.view()
    if view.phase is not None and view.phase.number == number and club.resolved() < before:
        moved = await gm(club, table, [f"set deadline {plan.game} {seconds_from_now(2)}"], "orders on file stand")
        assert f"DEADLINE {plan.game}" in moved.reply, moved.reply
        await club.turn_resolves(club.resolved())
