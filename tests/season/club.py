"""A club season's harness: ``referee serve`` against Dovecot and aiosmtpd, played by mail as people do.

:class:`Club` writes the settings (IMAP IDLE in, SMTP out with AUTH, quick
loops, no Discord), migrates the database, starts ``referee serve --config
FILE`` as a subprocess and stops it with SIGTERM.  The host runs the command
line in-process (:meth:`Club.cli`, ``bot.host.cli.main``, its output captured).
Mail to the referee is APPENDed to its mailbox as a delivery agent would;
what the referee sends is read at aiosmtpd.  Every wait is for an event (a
reply to a Message-ID, a turn resolved, a mail arrived) under a generous
bound, never a fixed sleep.

Players write the way players write (:func:`sloppy`): a greeting, lower
case, extra spaces, a signature and the referee's last reply quoted below.
Their orders come from the game's own example player (``example_orders``
on the state the referee holds): what a player reading their report would
choose; the canonical form the reply must echo is the game's
``format_orders`` of the parsed text.

:func:`read_as_a_player` reads every mail the referee sent in the season:
each line within 78 columns, one threaded reply (``In-Reply-To``) per mail
received and no reply to anything else, every acceptance echoing the
orders understood and every mail that sets a deadline giving it in UTC and
in the game's zone.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import itertools
import json
import os
import random
import re
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.engine import Engine

from adjudicator import registry
from bot.core.views import GameView, GameViews
from bot.host.cli import main
from bot.store.db import make_engine, session_factory, unit_of_work
from bot.store.models import Game, InboundMessage, OutboxMessage, TurnRecord
from tests.email.mailboxes import append, eventually
from tests.email.pipeline import message
from tests.support.dovecot import PASSWORD, DovecotServer
from tests.support.smtp_sink import Received, SmtpSink
from tests.support.stored import stored_state

ROOT = Path(__file__).resolve().parents[2]
REFEREE = "referee@example.com"
WAIT = 30.0
"""Bound of every wait: generous for a loaded 2-core machine; the usual case is well under a second."""
WIDTH = 78
_IDS = itertools.count(1)
_DEADLINE = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC")


def address(name: str) -> str:
    return f"{name.lower()}@club.example.org"


def flat(text: str) -> str:
    """``text`` with every run of white space one space: what a reader sees across wrapped lines."""
    return " ".join(text.split())


def sloppy(name: str, lines: list[str], quoted: str = "") -> str:
    """A mail body as a club member writes one: greeting, lower case, extra spaces, signature, quote.

    ``lines`` are the command lines (written as given, with their spacing and case); the greeting is a
    line of its own above them, the signature below a ``-- `` line, and ``quoted`` (the referee's
    last reply) below that with ``> `` before each line.
    """
    quote = "".join(f"> {line}\n" for line in quoted.splitlines()[:12])
    said = f"On Thursday, the referee wrote:\n{quote}" if quote else ""
    return "Hi referee,\n\n" + "".join(f"{line}\n" for line in lines) + f"\nThanks,\n-- \n{name}\n\n{said}"


def messy(order_text: str) -> str:
    """An order as typed in a hurry: lower case, doubled spaces."""
    return "  ".join(order_text.lower().split(" "))


@dataclass
class Sent:
    """A mail sent to the referee and its one reply."""

    message_id: str
    sender: str
    body: str
    reply: str = ""


@dataclass
class Club:
    """See the module docstring: one season's servers, settings, referee process and mail."""

    dovecot: DovecotServer
    smtp: SmtpSink
    directory: Path
    kind: str
    game: str
    zone: str
    gm: str = "gm@club.example.org"
    imap_user: str = ""
    config: Path = Path()
    process: asyncio.subprocess.Process | None = None
    logs: list[Path] = field(default_factory=list)
    sent: list[Sent] = field(default_factory=list)
    accepted: list[tuple[str, str]] = field(default_factory=list)
    """(Message-ID, the canonical orders its reply must echo) for every order mail."""
    engine: Engine | None = None
    rng: random.Random = field(default_factory=lambda: random.Random(7))

    # -- the servers and the process -----------------------------------------------------

    def write_config(self) -> None:
        assert self.smtp.login is not None
        self.imap_user = self.dovecot.new_user("club")
        self.config = self.directory / "referee.toml"
        self.config.write_text(
            "\n".join([
                "[referee]",
                f'database = "{self.directory / "referee.sqlite3"}"',
                f'bot_address = "{REFEREE}"',
                'mail_domain = "example.com"',
                f'time_zone = "{self.zone}"',
                "[referee.imap]",
                f'host = "{self.dovecot.host}"', f"port = {self.dovecot.port}", 'security = "none"',
                f'user = "{self.imap_user}"',
                "[referee.smtp]",
                f'host = "{self.smtp.host}"', f"port = {self.smtp.port}", 'security = "none"',
                f'user = "{self.smtp.login[0]}"',
                "[referee.intake]", "poll_seconds = 5",
                "[referee.send]", "interval_seconds = 0.1",
                "[referee.deadline]", "check_seconds = 0.2",
            ]) + "\n"
        )  # fmt: skip
        assert self.cli("db", "upgrade")[0] == 0
        self.engine = make_engine(str(self.directory / "referee.sqlite3"))

    def environ(self) -> dict[str, str]:
        assert self.smtp.login is not None
        return {**os.environ, "PYTHONPATH": str(ROOT), "REFEREE_IMAP_PASSWORD": PASSWORD,
                "REFEREE_SMTP_PASSWORD": self.smtp.login[1]}  # fmt: skip

    async def start(self) -> None:
        """Start ``referee serve``; ready once it has answered a mail (HELP from the GM)."""
        log = self.directory / f"serve{len(self.logs)}.log"
        self.logs.append(log)
        with log.open("wb") as output:
            self.process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot.host.cli", "--config", str(self.config), "serve",
                cwd=ROOT, env=self.environ(), stdout=output, stderr=asyncio.subprocess.STDOUT,
            )  # fmt: skip

    async def stop(self) -> None:
        """SIGTERM: the process finishes what it is doing and exits 0."""
        if self.process is None or self.process.returncode is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(self.process.wait(), WAIT)
        assert code == 0, self.log()

    async def kill(self) -> None:
        if self.process is not None and self.process.returncode is None:
            self.process.kill()
            await self.process.wait()
        if self.engine is not None:
            self.engine.dispose()

    def log(self) -> str:
        return self.logs[-1].read_text(errors="replace")[-6000:] if self.logs else ""

    async def until(self, condition: Callable[[], object], what: str, timeout: float = WAIT) -> None:
        """Wait for ``condition()``; fail at once (with the log) if the referee has died meanwhile."""

        def holds() -> bool:
            if self.process is not None and self.process.returncode is not None:
                raise AssertionError(f"referee serve exited with {self.process.returncode}:\n{self.log()}")
            return bool(condition())

        try:
            await eventually(holds, timeout)
        except AssertionError as error:
            raise AssertionError(f"waiting for {what}: {error}; the log:\n{self.log()}") from None

    # -- the host's command line -------------------------------------------------------------

    def cli(self, *args: str) -> tuple[int, str]:
        """``referee --config FILE ARGS`` in this process: (exit code, what it printed)."""
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            try:
                code = main(["--config", str(self.config), *args])
            except SystemExit as exit_:
                code = int(exit_.code or 0)
        return code, out.getvalue()

    # -- mail ----------------------------------------------------------------------------------------

    async def send(self, sender: str, body: str, subject: str = "Re: our game") -> Sent:
        """Mail ``body`` from ``sender``; wait for the referee's one reply to it."""
        return (await self.send_all([(sender, body)], subject))[0]

    async def send_all(self, mails: list[tuple[str, str]], subject: str = "Re: our game") -> list[Sent]:
        """Mail each (sender, body) at once; each with its one reply, in the same order."""
        batch = [Sent(f"<season{next(_IDS)}.{os.getpid()}@club.example.org>", sender, body) for sender, body in mails]
        raws = [
            message(s.body, sender=s.sender, name=s.sender.split("@")[0].title(), subject=subject,
                    message_id=s.message_id, when=datetime.now(UTC))
            for s in batch
        ]  # fmt: skip
        append(self.dovecot, self.imap_user, *raws)
        self.sent += batch
        await self.until(lambda: all(self.replies_to(s.message_id) for s in batch), "the replies")
        for s in batch:
            s.reply = self.replies_to(s.message_id)[0].get_body(("plain",)).get_content()
        return batch

    def replies_to(self, message_id: str) -> list[EmailMessage]:
        needle = f"In-Reply-To: {message_id}".encode()
        return [r.message for r in self.smtp.messages() if needle in r.raw]

    def mails_to(self, recipient: str, needle: str = "") -> list[str]:
        """Bodies of the mail sent to ``recipient`` holding ``needle`` (white space flattened)."""
        found = [r.text for r in self.smtp.messages() if recipient in r.recipients]
        return [body for body in found if flat(needle) in flat(body)]

    async def mail_arrives(self, recipient: str, needle: str, count: int = 1) -> list[str]:
        """Wait until ``count`` mails to ``recipient`` hold ``needle``; their bodies."""
        await self.until(lambda: len(self.mails_to(recipient, needle)) >= count, f"{needle!r} to {recipient}")
        return self.mails_to(recipient, needle)

    async def report_arrives(self, recipient: str, turn: int) -> str:
        """Wait for the report of ``turn`` to ``recipient`` (by its subject); its body."""
        subject = f"turn {turn} report".encode()

        def found() -> list[Received]:
            return [r for r in self.smtp.messages() if recipient in r.recipients and subject in r.raw]

        await self.until(lambda: found(), f"the report of turn {turn} to {recipient}")
        return str(found()[-1].message.get_body(("plain",)).get_content())

    # -- the game as the referee holds it ---------------------------------------------------------

    def view(self) -> GameView:
        assert self.engine is not None
        view = GameViews(session_factory(self.engine)).game(self.game)
        assert view is not None
        return view

    def resolved(self) -> int:
        """How many turn records the live line of the game holds."""
        assert self.engine is not None
        with unit_of_work(session_factory(self.engine)) as session:
            game = session.scalars(select(Game).where(Game.slug == self.game)).one()
            records = select(TurnRecord.turn_number).where(
                TurnRecord.game_id == game.id, TurnRecord.generation == game.generation
            )
            return len(session.scalars(records).all())

    async def turn_resolves(self, before: int) -> None:
        """Wait until the game has resolved a turn more than ``before`` (or ended)."""
        await self.until(lambda: self.resolved() > before or self.view().phase is None, f"turn {before} resolving")

    def orders_for(self, seat: str) -> tuple[str, str]:
        """(what the player writes, its canonical form): the game's example player on the open turn."""
        rules = registry.get_rules(self.kind)
        assert self.engine is not None
        state = stored_state(session_factory(self.engine), self.game)
        text = rules.example_orders(state, seat, self.rng)
        parsed = rules.parse_orders(state, seat, text)
        assert parsed.accepted, (seat, text, parsed)
        return messy(text), rules.format_orders(state, seat, parsed.orders)

    def zone_of(self, slug: str) -> str:
        """The time zone the referee holds for the game ``slug``."""
        assert self.engine is not None
        with unit_of_work(session_factory(self.engine)) as session:
            return session.scalars(select(Game.time_zone).where(Game.slug == slug)).one()

    def unsent(self) -> int:
        assert self.engine is not None
        with unit_of_work(session_factory(self.engine)) as session:
            waiting = (OutboxMessage.sent_at.is_(None), OutboxMessage.parked_at.is_(None),
                       OutboxMessage.channel == "email")  # fmt: skip
            return len(session.scalars(select(OutboxMessage.id).where(*waiting)).all())

    def inbound(self) -> list[tuple[str | None, str]]:
        assert self.engine is not None
        with unit_of_work(session_factory(self.engine)) as session:
            return [(m, s) for m, s in session.execute(select(InboundMessage.message_id, InboundMessage.status))]

    # -- the end: the record ---------------------------------------------------------------------

    def export_and_verify(self) -> dict[str, Any]:
        """``referee export GAME`` then ``referee verify FILE``, as the host does; the record."""
        code, out = self.cli("export", self.game)
        assert code == 0, out
        path = self.directory / f"{self.game}.json"
        path.write_text(out)
        code, said = self.cli("verify", str(path))
        assert code == 0, said
        record: dict[str, Any] = json.loads(out)
        return record


def read_as_a_player(club: Club) -> None:
    """Read every mail of the season as its recipient would (see the module docstring)."""
    mails = [r.message for r in club.smtp.messages()]
    assert mails
    wide = [
        (m["Subject"], line)
        for m in mails
        for line in m.get_body(("plain",)).get_content().splitlines()
        if len(line) > WIDTH
    ]
    assert not wide, f"lines wider than {WIDTH} columns: {wide}"
    ours = {s.message_id for s in club.sent}
    threads = [m["In-Reply-To"] for m in mails if m["In-Reply-To"]]
    assert set(threads) <= ours, f"replies to mail nobody sent: {set(threads) - ours}"
    for s in club.sent:
        answers = [m for m in mails if m["In-Reply-To"] == s.message_id]
        assert len(answers) == 1, (s.body, len(answers))
        assert s.message_id in (answers[0]["References"] or ""), "a reply lists the mail in References"
        assert answers[0]["Subject"].lower().startswith("re:"), answers[0]["Subject"]
    for report in (m.get_body(("plain",)).get_content() for m in mails if "report" in m["Subject"]):
        if "GAME OVER" not in report:
            says_when(club, report)
    for message_id, canonical in club.accepted:
        [reply] = [s.reply for s in club.sent if s.message_id == message_id]
        assert flat(canonical) in flat(reply), f"the reply does not echo {canonical!r}:\n{reply}"
        says_when(club, reply)
    assert all(status == "done" for _, status in club.inbound()), club.inbound()


def says_deadline(club: Club, text: str) -> bool:
    """Whether ``text`` gives a deadline in UTC and in the game's zone."""
    flattened = flat(text)
    return bool(_DEADLINE.search(flattened)) and club.zone in flattened


def says_when(club: Club, text: str) -> None:
    """``text`` gives a deadline in UTC and in the game's zone."""
    assert says_deadline(club, text), f"no deadline in UTC and in the game's zone {club.zone}:\n{text}"


def seconds_from_now(seconds: float) -> str:
    """A deadline ``seconds`` away, as a GM writes one (ISO, UTC)."""
    return (datetime.now(UTC) + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%SZ")
