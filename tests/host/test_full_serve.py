"""The whole product as a host runs it: ``referee serve`` against Dovecot, aiosmtpd and the fake Discord.

One ``referee serve --config FILE`` subprocess reads mail from a real Dovecot
(IMAP IDLE), sends mail through a real aiosmtpd (with AUTH), speaks to the
fake Discord's REST API and gateway (tests/support/fake_discord.py), all three
started by the test, and serves the web pages (read mid-game: who ordered,
never what, and the board's picture; and at the end: every report and the
record to download).  Each report's post in the forum carries the board.  A game master creates and runs a short Golden Strider
race by mail (``race_length`` 12: the setup and two rounds); three seats play
by mail (APPENDed to the mailbox, as a delivery agent would), three by slash
commands.  The process is stopped with SIGTERM twice and restarted with the
same settings and database each time:

* in the middle of round 1 (three orders in, three owed): exit 0, the turn
  still open; one order is mailed while the referee is down; after the
  restart a co-GM on Discord (named by mail) broadcasts, and the last two
  orders are sent on Discord;
* right after the game master moved round 2's deadline a few seconds away:
  the referee is down across the deadline, and an order mailed meanwhile
  (before the deadline) counts; the next run resolves the turn once, with
  the no-moves-received rule for the seat that sent nothing.

At the end, counted from what the servers received and from the database:
every order applied exactly once (the turn records and the exported game
record hold exactly the orders sent), every turn resolved once, every mail
received once per recipient (Message-IDs counted at aiosmtpd), every Discord
message posted once (the forum post and the DMs, by the nonce each outbox
row's blocks carry), every message and command answered once.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import sys
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from bot.discord.transport import nonce_for, status_nonce
from bot.host.cli import main
from bot.store.db import make_engine, session_factory, unit_of_work
from bot.store.models import Game, InboundMessage, OrderSubmission, OutboxMessage, TurnRecord
from tests.discord.test_serve import command
from tests.email.mailboxes import append, eventually, folder_counts
from tests.email.pipeline import TRUSTED_SERVER, message
from tests.email.test_deadlines import replies_to
from tests.email.test_gm_by_mail import Mail, address
from tests.support.dovecot import PASSWORD, DovecotServer
from tests.support.fake_discord import FakeDiscord
from tests.support.net import free_port
from tests.support.smtp_sink import SmtpSink

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
GAME = "race1"
GM = "gm@example.org"
BY_MAIL = ("Ann", "Ben", "Cat")
BY_DISCORD = ("Dan", "Eve", "Fay")
SETUP, ROUND, LAST = "cards 10 8 6 4 2", "play 10/0 bank 0", "play 8/0 bank 0"
"""Orders in their canonical form: the turn records keep that form."""
BROADCAST = "Round one: good luck from the Discord side."
CAT_ROUND_ONE, CAT_LAST = "<cat-round1@example.org>", "<cat-last@example.org>"
"""Cat's two mails sent while the referee is down."""
MESSAGE_ID = re.compile(rb"^Message-ID:\s*(\S+)", re.IGNORECASE | re.MULTILINE)
WAIT = 30.0
"""Bound of every wait: generous for a loaded machine; the usual case is well under a second."""


def write_config(
    directory: Path, dovecot: DovecotServer, imap_user: str, smtp: SmtpSink, fake: FakeDiscord, web_port: int
) -> Path:
    """Settings for all three channels: the passwords and the token come from the environment."""
    assert smtp.login is not None
    config = directory / "referee.toml"
    config.write_text(
        "\n".join([
            "[referee]",
            f'database = "{directory / "referee.sqlite3"}"',
            'bot_address = "referee@example.com"',
            'mail_domain = "example.com"',
            f'game_masters = "{GM}"',
            "[referee.imap]",
            f'host = "{dovecot.host}"', f"port = {dovecot.port}", 'security = "none"', f'user = "{imap_user}"',
            "[referee.smtp]",
            f'host = "{smtp.host}"', f"port = {smtp.port}", 'security = "none"', f'user = "{smtp.login[0]}"',
            # The mailbox's receiving server, which vouches for senders: creating a game by mail needs one.
            "[referee.email]", f'trusted_authserv_ids = "{TRUSTED_SERVER}"',
            "[referee.intake]", "poll_seconds = 5",
            "[referee.send]", "interval_seconds = 0.2",
            "[referee.deadline]", "check_seconds = 0.2",
            "[referee.discord]",
            f"guild_id = {fake.guild_id}", f"forum_channel_id = {fake.forum_channel_id}",
            f"gm_role_id = {fake.gm_role_id}", f'api_base = "{fake.api_base}"', f'gateway_url = "{fake.gateway_url}"',
            "send_interval_seconds = 0.2",
            "[referee.web]", 'host = "127.0.0.1"', f"port = {web_port}", f'base_url = "http://127.0.0.1:{web_port}"',
        ]) + "\n"
    )  # fmt: skip
    assert main(["--config", str(config), "db", "upgrade"]) == 0
    return config


class Referee:
    """The ``referee serve`` subprocess, started as often as the test asks, each run with its own log."""

    def __init__(self, config: Path, environ: dict[str, str], fake: FakeDiscord) -> None:
        self.config, self.environ, self.fake = config, environ, fake
        self.process: asyncio.subprocess.Process | None = None
        self.logs: list[Path] = []

    async def start(self) -> None:
        log = self.config.parent / f"serve{len(self.logs)}.log"
        self.logs.append(log)
        identified, synced = self.fake.identifies, self._syncs()
        with log.open("wb") as output:
            self.process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot.host.cli", "--config", str(self.config), "serve",
                cwd=ROOT, env=self.environ, stdout=output, stderr=asyncio.subprocess.STDOUT,
            )  # fmt: skip
        # Ready when it has identified on the gateway and synced its commands (the mail waits in Dovecot),
        # and its web pages' process serves.
        await self.until(lambda: self.fake.identifies > identified and self._syncs() > synced
                         and "Discord ready" in log.read_text() and "web pages served on" in log.read_text())  # fmt: skip

    def _syncs(self) -> int:
        return sum(r.method == "PUT" and r.path.endswith("/commands") for r in self.fake.requests)

    async def until(self, condition: Callable[[], object], timeout: float = WAIT) -> None:
        """Wait for ``condition()``; fail at once (with the log) if the process has died meanwhile."""

        def holds() -> bool:
            assert self.process is not None
            if self.process.returncode is not None:
                raise AssertionError(f"referee serve exited with {self.process.returncode}:\n{self.log()}")
            return bool(condition())

        try:
            await eventually(holds, timeout)
        except AssertionError as error:
            raise AssertionError(f"{error}; the log:\n{self.log()}") from None

    async def terminate(self) -> None:
        """SIGTERM; the process must finish what it is doing and exit 0."""
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(self.process.wait(), WAIT)
        assert code == 0, self.log()
        assert "SIGTERM: finishing the current work, then stopping" in self.log()
        assert "referee stopped" in self.log()

    def log(self) -> str:
        return self.logs[-1].read_text(errors="replace")[-6000:] if self.logs else ""

    async def kill(self) -> None:
        if self.process is not None and self.process.returncode is None:
            self.process.kill()
            await self.process.wait()


class Players:
    """The six players: three write mail, three use slash commands on the fake Discord."""

    def __init__(self, mail: Mail, fake: FakeDiscord) -> None:
        self.mail, self.fake = mail, fake
        self.members = {seat: fake.add_member(seat) for seat in BY_DISCORD}
        self.co_gm = fake.add_member("Gail")
        self.secrets: dict[str, str] = {}
        self.gm_secret = ""
        self.sent: list[tuple[int, str, str]] = []
        """(turn, seat, orders) for every set of orders sent, on either channel."""

    def order_mail(self, seat: str, text: str) -> tuple[str, str]:
        return f"ORDERS {GAME}\n{text}\nPASSWORD {self.secrets[seat]}\n", address(seat)

    async def orders_by_mail(self, turn: int, seats: tuple[str, ...], text: str) -> None:
        for reply in await self.mail.send_all([self.order_mail(seat, text) for seat in seats]):
            assert "ORDERS ACCEPTED" in reply, reply
        self.sent += [(turn, seat, text) for seat in seats]

    async def orders_on_discord(self, turn: int, seats: tuple[str, ...], text: str) -> None:
        for seat in seats:
            reply = await command(self.fake, "orders", {"game": GAME, "text": text}, self.members[seat])
            assert "ORDERS ACCEPTED" in reply["content"], reply["content"]
            self.sent.append((turn, seat, text))

    async def gm(self, line: str, reason: str | None = None) -> str:
        body = line + "\n" + (f"REASON {reason}\n" if reason else "") + f"PASSWORD {self.gm_secret}\n"
        reply = await self.mail.send(body)
        assert "NOT UNDERSTOOD" not in reply, reply
        return reply


def resolved_turns(sessions: sessionmaker[Session]) -> list[tuple[int, int]]:
    with unit_of_work(sessions) as session:
        return sorted(session.execute(select(TurnRecord.generation, TurnRecord.turn_number)).all())


def thread_messages(fake: FakeDiscord) -> list[dict[str, Any]]:
    [post] = [t for t in fake.threads() if t["name"].startswith(f"{GAME} ")]
    return fake.messages[int(post["id"])]


async def test_referee_serve_runs_a_whole_game_on_mail_and_discord_across_two_sigterms(
    dovecot: DovecotServer, smtp_with_login: SmtpSink, fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    smtp, fake = smtp_with_login, fake_discord
    imap_user = dovecot.new_user("full")
    web_port = free_port()
    config = write_config(tmp_path, dovecot, imap_user, smtp, fake, web_port)
    page = f"http://127.0.0.1:{web_port}/games/{GAME}"
    assert smtp.login is not None
    environ = {**os.environ, "REFEREE_IMAP_PASSWORD": PASSWORD, "REFEREE_SMTP_PASSWORD": smtp.login[1],
               "REFEREE_DISCORD_TOKEN": "fake-token"}  # fmt: skip
    referee = Referee(config, environ, fake)
    mail = Mail(dovecot, imap_user, smtp)
    players = Players(mail, fake)
    engine = make_engine(str(tmp_path / "referee.sqlite3"))
    sessions = session_factory(engine)
    mails_sent: list[tuple[str, bytes]] = []
    down_across = cat_in_time = False
    try:
        await referee.start()

        # The game master creates the game by mail; players join on both channels.
        created = await mail.send("SEATS 6\nSCHEDULE 2d\nEARLY 0\nREMINDERS none\nOPTION race_length=12\n",
                                  subject=f"CREATE {GAME} golden-strider")  # fmt: skip
        assert f"CREATED {GAME}" in created, created
        players.gm_secret = created.split("Your game master password: ")[1].split()[0]
        joined = await mail.send_all([(f"JOIN {GAME} AS {seat}\n", address(seat)) for seat in BY_MAIL])
        players.secrets = {
            s: r.split("Your seat password: ")[1].split()[0] for s, r in zip(BY_MAIL, joined, strict=True)
        }
        for seat, member in players.members.items():
            reply = await command(fake, "join", {"game": GAME, "name": seat}, member)
            assert f"JOINED {GAME}" in reply["content"], reply["content"]
        assert f"STARTED {GAME}" in await players.gm(f"START {GAME}")
        # A co-GM on Discord, named by mail: she has no GM role, the game makes her one of its game masters.
        added = await players.gm(f"ADD GM {GAME} discord:{players.co_gm['id']}", "runs the Discord side")
        assert f"is a co-GM of {GAME}" in added, added

        # Turn 0, the setup: everyone's cards; with EARLY 0 the turn resolves once the last set is in.
        await players.orders_by_mail(0, BY_MAIL, SETUP)
        await players.orders_on_discord(0, BY_DISCORD, SETUP)
        await referee.until(lambda: resolved_turns(sessions) == [(0, 0)])

        # Turn 1: three orders in (two by mail, one on Discord), then SIGTERM mid-turn.
        await players.orders_by_mail(1, ("Ann", "Ben"), ROUND)
        await players.orders_on_discord(1, ("Dan",), ROUND)
        running = await read_page(page)  # the web pages, served by serve's pages' process: who ordered, never what
        assert "Orders received from: Ann, Ben, Dan." in running and ROUND not in running
        assert 'alt="Golden Strider, the start' in running, "the board's picture and its words"
        await referee.terminate()
        assert resolved_turns(sessions) == [(0, 0)], "stopped in the middle of turn 1"
        # Cat mails her orders while the referee is down: they wait in the mailbox.
        body, sender = players.order_mail("Cat", ROUND)
        append(dovecot, imap_user, message(body, sender=sender, name="Cat", subject="orders", message_id=CAT_ROUND_ONE))
        players.sent.append((1, "Cat", ROUND))
        await referee.start()
        await referee.until(lambda: len(replies_to(smtp, CAT_ROUND_ONE)) == 1)
        assert "ORDERS ACCEPTED" in replies_to(smtp, CAT_ROUND_ONE)[0]
        said = await command(fake, "gm", {"game": GAME, "text": BROADCAST}, players.co_gm, "broadcast")
        assert f"BROADCAST {GAME}" in said["content"] and "Sent to the 6 seats" in said["content"], said["content"]
        await players.orders_on_discord(1, ("Eve", "Fay"), ROUND)
        await referee.until(lambda: resolved_turns(sessions) == [(0, 0), (0, 1)])

        # Turn 2: Fay sends nothing; the GM moves the deadline a few seconds away and the referee is stopped.
        await players.orders_by_mail(2, ("Ann", "Ben"), LAST)
        await players.orders_on_discord(2, ("Dan", "Eve"), LAST)
        deadline = datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=5)
        moved = await players.gm(f"SET DEADLINE {GAME} {deadline.strftime('%Y-%m-%dT%H:%M:%SZ')}", "Fay is away")
        assert f"DEADLINE {GAME}" in moved, moved
        await referee.terminate()
        down_across = len(resolved_turns(sessions)) == 2
        # Cat mails while the referee is down, before the deadline: the mail server's time counts.
        body, sender = players.order_mail("Cat", LAST)
        append(dovecot, imap_user, message(body, sender=sender, name="Cat", subject="orders", message_id=CAT_LAST))
        await eventually(lambda: datetime.now(UTC) > deadline + timedelta(seconds=1), WAIT)
        await referee.start()  # after the deadline: the turn waits for the intake to read what came before it
        await referee.until(lambda: resolved_turns(sessions) == [(0, 0), (0, 1), (0, 2)])
        await referee.until(lambda: len(replies_to(smtp, CAT_LAST)) == 1)
        # Usually the referee was down across the deadline and Cat's mail reached the server before it; on a
        # machine slow enough for either to fail, the turn resolved without her (both are right; the checks follow).
        with unit_of_work(sessions) as session:
            arrived = session.scalars(select(InboundMessage.received_at).where(InboundMessage.message_id == CAT_LAST))
            cat_in_time = down_across and arrived.one() <= deadline
        if cat_in_time:
            players.sent.append((2, "Cat", LAST))
            assert "ORDERS ACCEPTED" in replies_to(smtp, CAT_LAST)[0]
        with unit_of_work(sessions) as session:
            assert session.scalars(select(Game.status).where(Game.slug == GAME)).one() == "finished"

        # Everything queued is delivered (or parked: the checks below refuse that): then stop for good.
        def unsent() -> int:
            with unit_of_work(sessions) as session:
                waiting = (OutboxMessage.sent_at.is_(None), OutboxMessage.parked_at.is_(None))
                return len(session.scalars(select(OutboxMessage.id).where(*waiting)).all())

        await referee.until(lambda: unsent() == 0)
        over = await read_page(page)
        assert "The game is over." in over and f"{GAME}/record.json" in over, "the record to download"
        assert all(f'id="turn-{turn}"' in over for turn in range(3)), "every report on the page"
        await referee.terminate()
        mails_sent = mail_ids(smtp)
    finally:
        await referee.kill()
    try:
        check_orders(sessions, players.sent, ["Fay"] if cat_in_time else ["Cat", "Fay"])
        check_mail(sessions, smtp, dovecot, imap_user)
        check_discord(sessions, fake, players)
        await check_record(config, environ, players.sent)
    finally:
        engine.dispose()
    for log in referee.logs:
        problems = [line for line in log.read_text().splitlines() if " ERROR " in line or "Traceback" in line]
        assert not problems, f"{log.name}: {problems}"
    print(f"\nfull serve: 3 runs, {len(players.sent)} order sets, {len(mails_sent)} mails received, "
          f"{sum(len(m) for m in fake.messages.values())} Discord messages; down across the last deadline: "
          f"{down_across}, the order mailed meanwhile counted: {cat_in_time}")  # fmt: skip


async def read_page(url: str) -> str:
    """A web page of the running referee (its web channel), as a browser would ask for it."""
    async with aiohttp.ClientSession() as http, http.get(url) as response:
        assert response.status == 200, (url, response.status)
        return await response.text()


def mail_ids(smtp: SmtpSink) -> list[tuple[str, bytes]]:
    """(recipient, Message-ID) for every message aiosmtpd accepted."""
    return [(rcpt, m.group(1)) for r in smtp.messages() if (m := MESSAGE_ID.search(r.raw)) for rcpt in r.recipients]


def check_orders(sessions: sessionmaker[Session], sent: list[tuple[int, str, str]], last_defaulted: list[str]) -> None:
    """Every order set sent was applied once, and each resolved turn used exactly those (the rest defaulted)."""
    with unit_of_work(sessions) as session:
        submissions = session.execute(select(OrderSubmission.turn_number, OrderSubmission.seat_name,
                                             OrderSubmission.raw_text, OrderSubmission.source_id)).all()  # fmt: skip
        turns = {t.turn_number: (dict(t.orders), list(t.defaulted)) for t in session.scalars(select(TurnRecord))}
    assert sorted((turn, seat, raw.strip()) for turn, seat, raw, _ in submissions) == sorted(sent)
    assert len({source for *_, source in submissions}) == len(submissions), "each from its own message or command"
    for number, (orders, defaulted) in turns.items():
        expected = {seat: text for turn, seat, text in sent if turn == number}
        assert {seat: " ".join(text.split()) for seat, text in orders.items() if seat not in defaulted} == expected
    assert sorted(turns[2][1]) == last_defaulted and turns[0][1] == turns[1][1] == []


def check_mail(sessions: sessionmaker[Session], smtp: SmtpSink, dovecot: DovecotServer, imap_user: str) -> None:
    """Every mail received once per recipient, every outbox row for mail among them, every mail in answered once."""
    received = Counter(mail_ids(smtp))
    twice = [key for key, n in received.items() if n > 1]
    assert not twice, f"received twice: {twice}"
    with unit_of_work(sessions) as session:
        rows = session.execute(select(OutboxMessage.recipient, OutboxMessage.message_id, OutboxMessage.parked_at)
                               .where(OutboxMessage.channel == "email")).all()  # fmt: skip
        inbound = session.execute(select(InboundMessage.message_id, InboundMessage.status)).all()
    assert all(parked is None for *_, parked in rows)
    assert {(r, f"<{m.strip('<>')}>".encode()) for r, m, _ in rows} == set(received)
    for who in [address(seat) for seat in BY_MAIL] + [GM]:
        for turn in range(3):
            subject = f"[{GAME}] Golden Strider: turn {turn} report".encode()
            reports = [r for r in smtp.messages() if who in r.recipients and subject in r.raw]
            assert len(reports) == 1, (who, turn, len(reports))
    for seat in BY_MAIL:
        said = [r for r in smtp.messages() if address(seat) in r.recipients and BROADCAST.encode() in r.raw]
        assert len(said) == 1, (seat, "the co-GM's broadcast")
    assert sorted(status for _, status in inbound) == ["done"] * len(inbound)
    ids = [mid for mid, _ in inbound if mid]
    assert len(ids) == len(set(ids)) == len(inbound), "each mail stored once"
    assert all(len(replies_to(smtp, mid)) == 1 for mid in ids), "each mail answered once"
    wide = [
        line
        for r in smtp.messages()
        for line in r.message.get_body(("plain",)).get_content().splitlines()
        if len(line) > 78
    ]
    assert not wide, wide
    folders = folder_counts(dovecot, imap_user, "INBOX", "Processed")
    assert folders == {"INBOX": 0, "Processed": len(inbound)}, "every mail the server had was read and acknowledged"


def check_discord(sessions: sessionmaker[Session], fake: FakeDiscord, players: Players) -> None:
    """Every Discord outbox row posted once (its blocks' nonces), one report a turn in the post and in each DM.

    The live status is no post per row: one message, posted once with the game's nonce, pinned, edited since.
    """
    with unit_of_work(sessions) as session:
        rows = session.execute(select(OutboxMessage.message_id, OutboxMessage.parked_at)
                               .where(OutboxMessage.channel == "discord", OutboxMessage.kind != "status")).all()  # fmt: skip
        statuses = session.execute(select(OutboxMessage.sent_at, OutboxMessage.parked_at)
                                   .where(OutboxMessage.channel == "discord", OutboxMessage.kind == "status")).all()  # fmt: skip
    assert rows and all(parked is None for _, parked in rows)
    assert statuses and all(sent is not None and parked is None for sent, parked in statuses)
    everything = [m for channel in fake.messages.values() for m in channel if m["type"] == 0]  # not "pinned" notices
    assert all(len(m["content"]) <= 2000 for m in everything)
    posted = Counter(m["nonce"] for m in everything if m.get("nonce"))
    assert set(posted.values()) == {1}, "a nonce posted twice"
    blocks = {mid: [i for i in range(20) if nonce_for(mid, i) in posted] for mid, _ in rows}
    assert all(found == list(range(len(found))) and found for found in blocks.values()), "every row's blocks posted"
    # The live status is one message, posted once with the game's nonce, pinned, edited in place since.
    [status] = [m for m in everything if m.get("nonce") == status_nonce(GAME)]
    assert [m["id"] for m in fake.pinned(status["channel_id"])] == [status["id"]] and status["edited_timestamp"]
    assert "**Game over.**" in status["content"], status["content"]
    assert sum(map(len, blocks.values())) + 1 == len(posted), "nothing posted that no outbox row holds"
    assert [m["id"] for m in everything if not m.get("nonce")] == [thread_messages(fake)[0]["id"]], "but the post"
    thread = [m["content"] for m in thread_messages(fake)]
    assert sum(BROADCAST in text for text in thread) == 1
    for member in players.members.values():
        assert sum(BROADCAST in m["content"] for m in fake.dm_messages(member["id"])) == 1
    assert sum(f"You are now a co-GM of {GAME}." in m["content"] for m in fake.dm_messages(players.co_gm["id"])) == 1
    for turn in range(3):
        heading = f"-- game {GAME} -- turn {turn}:"
        assert sum(heading in text for text in thread) == 1, (turn, thread)
        [first] = [m for m in thread_messages(fake) if heading in m["content"]]
        [(attachment, png)] = fake.attachments(first)
        assert attachment["filename"] == "board.png" and png.startswith(b"\x89PNG"), "the board on the post"
        for seat, member in players.members.items():
            dms = [m["content"] for m in fake.dm_messages(member["id"])]
            assert sum(heading in text and f"Copy for {seat}" in text for text in dms) == 1, (seat, turn)
    answered = Counter(len(replies) for replies in fake.interaction_messages.values())
    assert set(answered) == {1}, "every slash command answered once"


async def check_record(config: Path, environ: dict[str, str], sent: list[tuple[int, str, str]]) -> None:
    """The exported game record holds exactly the orders sent, turn by turn, and verifies."""
    exported = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot.host.cli", "--config", str(config), "export", GAME,
        cwd=ROOT, env=environ, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(exported.communicate(), WAIT)
    assert exported.returncode == 0, err.decode()
    record = json.loads(out)
    expected = [{seat: text for t, seat, text in sent if t == turn} for turn in range(3)]
    assert [{s: " ".join(o.split()) for s, o in turn.items()} for turn in record["turns"]] == expected
    path = config.parent / "record.json"
    path.write_bytes(out)
    assert main(["verify", str(path)]) == 0
