"""``referee demo``: a whole game played through the real pipeline by computer players.

Computer players send free-text orders as envelopes (the same command model
every channel uses) to the real service, which stores them in a real SQLite
database migrated by alembic; a simulated clock jumps to each deadline and the
deadline worker resolves the turn with the adjudicator; the public report of
each turn is taken from the outbox and printed.  At the end the game's record
is exported, sealed, and verified by replaying it.

With ``--web`` the finished game's pages (:mod:`bot.web`) are served on
loopback afterwards, until Ctrl-C.

With ``--via email`` the players play by mail instead (:mod:`bot.email.demo`):
their joins and orders are real messages delivered into a local Maildir and
read by the real email intake; replies and reports are real messages the real
sender writes into a local Maildir outbox.  The game master still acts
directly (creating and starting a game are not email commands).
"""

from __future__ import annotations

import json
import random
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy.orm import Session, sessionmaker

from adjudicator import registry
from adjudicator.record import read_record, verify
from bot.core.basics.clock import SimulatedClock
from bot.core.games.stored import find_game, rules_of, state_for_reading
from bot.core.intake.inbox import Inbox
from bot.core.intake.reply_limit import ReplyBudget
from bot.core.messaging.delivery import PUBLIC_PREFIX
from bot.core.messaging.outbox import OutboxDrain
from bot.core.messaging.rendering import render, render_message
from bot.core.model import commands as c
from bot.core.model.config import ServiceConfig
from bot.core.people.seat_secrets import load_secret_key
from bot.core.runtime.service import Applied, GameService
from bot.core.views import GameViews
from bot.email.demo import MailPlayers
from bot.store.db import make_engine, session_factory, unit_of_work
from bot.store.migrate import upgrade

RUNNER_NAMES = (
    "Steve Ovett", "Sebastian Coe", "Steve Cram", "Said Aouita", "Peter Elliott",
    "Noureddine Morceli", "Abdi Bile", "Jose Luis Gonzalez", "Joaquim Cruz", "John Walker",
)  # fmt: skip
DEMO_START = datetime(2026, 1, 5, 18, 0, tzinfo=UTC)
DEMO_REFEREE = "referee@demo.invalid"
THINKING_TIME = timedelta(minutes=10)
"""How long a computer player takes over a move that resolves as soon as it arrives."""
SCREEN = "demo"
"""The demo's own channel: its players are on it, and the game's public place is the screen."""
MISS_CHANCE = 0.04
"""How often a computer player forgets to send orders (to show the no-moves-received rule)."""


@dataclass
class DemoOptions:
    game: str = "golden-strider"
    players: int | None = None
    seed: int = 1
    steeplechase: bool = False
    directory: Path | None = None
    time_zone: str = "Europe/London"
    options: dict[str, object] = field(default_factory=dict)
    via: str = "direct"
    """``direct`` (envelopes) or ``email`` (messages through the Maildir intake and sender)."""
    web_port: int | None = None
    """After the game, serve its pages on loopback at this port (0: a free one) until Ctrl-C; None: not."""
    web_seconds: float | None = None
    """Serve the pages this long, then stop (None: until Ctrl-C)."""


def run_demo(options: DemoOptions, out: Callable[[str], None] = print) -> int:
    """Play one whole game; print every public report and the final result; 0 on success."""
    rules = registry.get_rules(options.game)
    seats = options.players or rules.min_seats
    if not rules.min_seats <= seats <= rules.max_seats:
        out(f"error: {rules.title} takes {rules.min_seats} to {rules.max_seats} players, not {seats}")
        return 2
    game_options = dict(options.options)
    if options.steeplechase:
        game_options["steeplechase"] = True
    directory = options.directory or Path(tempfile.mkdtemp(prefix="referee-demo-"))
    directory.mkdir(parents=True, exist_ok=True)
    database = directory / "demo.sqlite3"
    for stale in (database, directory / "demo.sqlite3-wal", directory / "demo.sqlite3-shm"):
        stale.unlink(missing_ok=True)  # each demo plays a new game in a new database ...
    shutil.rmtree(directory / "mail", ignore_errors=True)  # ... and new mailboxes
    upgrade(str(database))
    engine = make_engine(str(database))
    sessions = session_factory(engine)
    clock = SimulatedClock(DEMO_START)
    key = load_secret_key("", "", str(database))  # demo.sqlite3.key beside the database
    config = ServiceConfig(message_domain="demo.invalid", public_channels=(SCREEN,), secret_key=key)
    service = GameService(sessions, config)
    views = GameViews(sessions)
    drain = OutboxDrain(sessions)
    rng = random.Random(options.seed)
    slug = "demo"
    counter = iter(range(1, 1_000_000))

    def direct(address: str, name: str, *commands: c.Command) -> Applied:
        channel = "email" if options.via == "email" else SCREEN  # the game master reads mail when players do
        envelope = c.Envelope(
            c.Sender(channel, address, name),
            commands,
            f"demo:{next(counter)}",
            clock.now(),
            trust=c.Trust.VERIFIED,
            may_create=True,
        )
        return service.apply(envelope)

    mail: MailPlayers | None = None
    if options.via == "email":
        mail = MailPlayers(
            directory / "mail", service, Inbox(sessions), ReplyBudget(sessions), drain, clock, DEMO_REFEREE,
            options.seed,
        )  # fmt: skip

    def send(batch: list[tuple[str, str, tuple[c.Command, ...]]], expected: str) -> str | None:
        """Send ``batch``; None when every reply says ``expected`` was done, else the first other reply."""
        if mail is not None:
            heading = expected.replace("_", " ").upper()
            return next(
                (reply or "(no reply)" for reply in mail.send(batch) if not reply or heading not in reply), None
            )
        for address, name, commands in batch:
            applied = direct(address, name, *commands)
            if expected not in applied.results:
                return f"{name}: {', '.join(applied.problems) or 'no reply'}"
        return None

    gm = "gm@demo.invalid"
    auth = "address"
    created = direct(
        gm, "Game Master", c.CreateGame(slug, rules.kind, game_options, options.time_zone, 48 * 60, False, auth)
    )
    if "created" not in created.results:
        out(f"error: {_refusal(created)}")
        engine.dispose()
        return 2
    names = _names(rules.kind, seats)
    refused = send([(_address(name), name, (c.JoinGame(slug, name),)) for name in names], "joined")
    if refused is not None:
        out(f"error: a player could not join:\n{refused}")
        return 1
    started = direct(gm, "Game Master", c.StartGame(slug))
    if "started" not in started.results:
        out(f"error: the game did not start: {', '.join(started.problems)}")
        return 1
    out(f"Demo: {rules.title}, {seats} players, database {database}")
    if mail is not None:
        out(f"Playing by email: inbox Maildir {mail.inbox_dir}, outbox Maildir {mail.outbox_dir}")
        mail.pump()
    _print_public(drain, clock.now(), out)
    while True:
        view = views.public_view(slug)
        assert view is not None and view.shown is not None
        if view.phase is None:
            break
        batch: list[tuple[str, str, tuple[c.Command, ...]]] = []
        for seat in view.phase.owing:
            if rng.random() < MISS_CHANCE and view.phase.number > 0:
                continue
            text = _example_orders(sessions, slug, seat, rng)
            batch.append((_address(seat), seat, (c.SubmitOrders(slug, text),)))
        refused = send(batch, "orders_accepted")
        if refused is not None:
            out(f"error: orders were refused:\n{refused}")
            return 1
        after = views.public_view(slug)
        assert after is not None
        if after.phase is None or after.phase.number != view.phase.number:
            clock.advance(THINKING_TIME)  # resolved at once (a sequential move): the next player takes a while
        elif after.phase.number == view.phase.number:
            deadline = service.next_deadline()
            if deadline is not None and deadline > clock.now():
                clock.set(deadline)
            service.resolve_due(clock.now())
        if mail is not None:
            mail.pump()
        _print_public(drain, clock.now(), out)
    record = views.record(slug)
    record_path = directory / "record.json"
    record_path.write_text(json.dumps(record, indent=1) + "\n")
    verification = verify(read_record(record))
    out(f"Game record: {record_path}")
    for check, passed in verification.checks:
        out(f"  {'ok  ' if passed else 'FAIL'} {check}")
    ok = verification.ok
    if mail is not None:
        ok = _mail_summary(mail, Inbox(sessions), drain, names, gm, out) and ok
    if options.web_port is not None:
        from bot.web.server import serve_pages  # aiohttp's server, only for --web

        serve_pages(sessions, options.web_port, seconds=options.web_seconds, out=out, game=slug)
    engine.dispose()
    return 0 if ok else 1


def _mail_summary(
    mail: MailPlayers, inbox: Inbox, drain: OutboxDrain, names: list[str], gm: str, out: Callable[[str], None]
) -> bool:
    """Print what went through the mail path and check that nothing is left behind."""
    counts = inbox.counts()
    unsent = drain.unsent_count("email")
    stats = mail.stats
    out(f"Mail: {stats.sent} messages in, {stats.replies} replies and {stats.reports} reports out")
    out(f"  inbox: {counts['done']} done, {counts['new']} new, {counts['failed']} failed, {counts['parked']} parked")
    out(f"  outbox: {unsent} unsent")
    received = [stats.by_recipient.get(_address(name), 0) for name in [*names, gm.split("@")[0]]]
    out(
        f"  messages per player: {min(received[:-1])} to {max(received[:-1])}; game master: {stats.by_recipient.get(gm, 0)}"
    )
    ok = counts["done"] == stats.sent and unsent == 0 and not counts["failed"] and not counts["parked"]
    out(f"  {'ok  ' if ok else 'FAIL'} every message was applied and every reply and report was sent")
    return ok


def _refusal(applied: Applied) -> str:
    """The first refusal of ``applied`` in one line, worded as ``referee gm`` words it."""
    problems = applied.reply.data["problems"] if applied.reply is not None else []
    if not problems:
        return ", ".join(applied.problems) or "refused"
    text = render("cli/problem.txt.j2", {"item": problems[0]}, "cli")
    return " ".join(text.split())


def _example_orders(sessions: sessionmaker[Session], slug: str, seat: str, rng: random.Random) -> str:
    """A computer player's orders: the game's own ``example_orders`` on the stored state.  The demo
    plays every seat and may read the whole state; adapters get views (:mod:`bot.core.views`)."""
    with unit_of_work(sessions) as session:
        game = find_game(session, slug)
        assert game is not None
        return rules_of(game).example_orders(state_for_reading(game), seat, rng)


def _names(kind: str, seats: int) -> list[str]:
    if kind == "golden-strider":
        return list(RUNNER_NAMES[:seats])
    return [f"Player {i + 1}" for i in range(seats)]


def _address(name: str) -> str:
    return name.lower().replace(" ", ".") + "@demo.invalid"


def _print_public(drain: OutboxDrain, now: datetime, out: Callable[[str], None]) -> None:
    """Show the public copies (what a game's public place gets), in the plain-text form, marking them delivered."""
    for message in drain.due(SCREEN, now + timedelta(days=3650)):
        if message.recipient.startswith(PUBLIC_PREFIX):
            out("")
            out(render_message("email", message.template, {**message.data, "context": {}}).body.rstrip())
        drain.mark_sent(message.id, now)  # the screen's players read their own copies
