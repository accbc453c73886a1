"""Deadlines against real servers: no order that reached the mailbox in time is lost, mail is answered at once.

Everything runs as ``referee serve`` runs it (:func:`bot.host.wiring.workers`:
IMAP intake with IDLE against Dovecot, the SMTP sender against aiosmtpd, the
deadline worker), on the real clock, with deadlines a second or two away.
Mail is APPENDed to Dovecot, which dates it (INTERNALDATE) as it arrives.
"""

from __future__ import annotations

import asyncio
import base64
import itertools
import json
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from bot.core.basics.clock import SystemClock
from bot.core.intake.watermarks import Watermarks
from bot.core.model import commands as c
from bot.core.model.config import ServiceConfig
from bot.core.runtime import supervisor
from bot.core.runtime.service import GameService
from bot.host.wiring import workers
from bot.settings.loader import Settings
from bot.store.db import make_engine, session_factory, unit_of_work
from bot.store.models import Game, InboundMessage, OutboxMessage, TurnRecord
from tests.email.mailboxes import client_for, eventually
from tests.email.pipeline import TRUSTED_SERVER, message
from tests.support.database import migrated_sqlite
from tests.support.dovecot import PASSWORD, DovecotServer
from tests.support.rendering import rendered, reply_text
from tests.support.smtp_sink import SmtpSink

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.integration

REFEREE = "referee@example.com"
GM = "gm@example.org"
SEATS = ("Ann", "Ben", "Cat", "Dan", "Eve", "Fay")
_IDS = itertools.count(1)


def address(seat: str) -> str:
    return f"{seat.lower()}@example.org"


@pytest.fixture
def store(tmp_path: Path) -> tuple[str, sessionmaker[Session]]:
    path = str(tmp_path / "referee.sqlite3")
    migrated_sqlite(path)
    engine = make_engine(path)
    yield path, session_factory(engine)
    engine.dispose()


def settings_for(path: str, dovecot: DovecotServer, user: str, smtp: SmtpSink, **extra: object) -> Settings:
    values: dict[str, object] = {
        "database": path, "mail_domain": "example.com", "bot_address": REFEREE,
        "imap_host": dovecot.host, "imap_port": dovecot.port, "imap_security": "none", "imap_user": user,
        "imap_password": PASSWORD, "smtp_host": smtp.host, "smtp_port": smtp.port, "smtp_security": "none",
        "send_interval_seconds": 0.05, "intake_poll_seconds": 60, "deadline_check_seconds": 30,
        "email_trusted_authserv_ids": TRUSTED_SERVER,
    }  # fmt: skip
    values.update(extra)
    return Settings().merged(values)


@asynccontextmanager
async def serving(settings: Settings, sessions: sessionmaker[Session]) -> AsyncIterator[None]:
    found = workers(settings, sessions, SystemClock())
    stop = asyncio.Event()
    task = asyncio.create_task(supervisor.serve(found, stop))
    try:
        yield
    finally:
        stop.set()
        await asyncio.wait_for(task, timeout=15)


def make_game(sessions: sessionmaker[Session], slug: str, deadline: datetime | None, setup: tuple[str, ...]) -> None:
    """A running Golden Strider game (address-only authentication) with its setup deadline at ``deadline``;
    the seats in ``setup`` have already sent their cards."""
    service = GameService(sessions, ServiceConfig(message_domain="example.com", game_masters=frozenset({GM})))
    now = datetime.now(UTC)

    def send(who: str, name: str, command: c.Command) -> str:
        envelope = c.Envelope(
            c.Sender("email", who, name), (command,), f"setup:{next(_IDS)}", now, trust=c.Trust.VERIFIED
        )
        return reply_text(service.apply(envelope)) or ""

    send(GM, "Game Master", c.CreateGame(slug, "golden-strider", {}, "UTC", 60, False, "address"))
    for seat in SEATS:
        assert "JOINED" in send(address(seat), seat, c.JoinGame(slug, seat))
    assert "STARTED" in send(GM, "Game Master", c.StartGame(slug))
    for seat in setup:
        assert "ORDERS ACCEPTED" in send(address(seat), seat, c.SubmitOrders(slug, "cards 10 8 6 4 2"))
    with unit_of_work(sessions) as session:
        if deadline is not None:
            session.execute(update(Game).where(Game.slug == slug).values(deadline_at=deadline))
        session.execute(update(OutboxMessage).values(sent_at=now))


def orders_mail(seat: str, slug: str, text: str, message_id: str | None = None) -> tuple[str, bytes]:
    message_id = message_id or f"<{slug}.{seat.lower()}.{next(_IDS)}@example.org>"
    raw = message(f"ORDERS {slug}\n{text}\n", sender=address(seat), name=seat, subject=f"orders {slug}",
                  message_id=message_id, vouched_by=TRUSTED_SERVER)  # fmt: skip
    return message_id, raw


def replies_to(smtp: SmtpSink, message_id: str) -> list[str]:
    """The bodies of the replies to ``message_id`` (found by bytes first: parsing every message each
    time the tests poll would starve the event loop the sender runs in)."""
    needle = f"In-Reply-To: {message_id}".encode()
    found = [r.message for r in smtp.messages() if needle in r.raw]
    return [m.get_content() for m in found if m["In-Reply-To"] == message_id]


def turn_records(sessions: sessionmaker[Session]) -> dict[str, TurnRecord]:
    with unit_of_work(sessions) as session:
        rows = session.execute(select(Game.slug, TurnRecord).join(TurnRecord, TurnRecord.game_id == Game.id)).all()
    return {slug: record for slug, record in rows if record.turn_number == 0}


def arrivals(sessions: sessionmaker[Session]) -> dict[str, datetime]:
    """Message-ID -> the arrival time stored for it (the server's INTERNALDATE)."""
    with unit_of_work(sessions) as session:
        rows = session.execute(select(InboundMessage.message_id, InboundMessage.received_at)).all()
    return {mid: at for mid, at in rows if mid}


class Appender:
    """One IMAP connection that APPENDs mail for the tests (the way a delivery agent would)."""

    def __init__(self, dovecot: DovecotServer, user: str) -> None:
        self.client = client_for(dovecot, user)
        self.lock = threading.Lock()

    def append(self, raw: bytes) -> float:
        with self.lock:
            self.client.append("INBOX", raw)
            return time.monotonic()

    def close(self) -> None:
        self.client.logout()


@dataclass
class Race:
    slug: str
    deadline: datetime
    offset: float
    ann_id: str = ""
    ben_id: str = ""


GAMES = 24
OFFSETS = (0.9, 0.6, 0.35, 0.2, 0.1, 0.04)
"""How long before its deadline each game's last order is delivered (seconds)."""


async def test_orders_delivered_in_the_last_second_count_and_orders_just_after_the_opening_are_taken(
    dovecot, imap_user, smtp, store, capsys
):
    """Items 1 and 2: 24 games, deadlines 0.45 s apart; the last seat's orders reach the mailbox
    0.04-0.9 s before the deadline while the deadline worker runs.  Each must be counted.  As soon
    as a turn has resolved, another seat sends orders for the new turn: accepted, also when the
    arrival (whole seconds) falls in the opening's second."""
    path, sessions = store
    for i in range(GAMES):
        make_game(sessions, f"race{i}", None, setup=("Ben", "Cat", "Dan", "Eve"))  # Fay never orders
    first = datetime.now(UTC) + timedelta(seconds=4)
    races = [Race(f"race{i}", first + timedelta(seconds=0.45 * i), OFFSETS[i % len(OFFSETS)]) for i in range(GAMES)]
    with unit_of_work(sessions) as session:
        for race in races:
            session.execute(update(Game).where(Game.slug == race.slug).values(deadline_at=race.deadline))
    late_appender = Appender(dovecot, imap_user)
    stop = threading.Event()

    schedule = []
    for race in sorted(races, key=lambda r: r.deadline.timestamp() - r.offset):
        race.ann_id, raw = orders_mail("Ann", race.slug, "cards 10 8 6 4 2")
        schedule.append([race.deadline.timestamp() - race.offset, base64.b64encode(raw).decode()])
    job = {"host": dovecot.host, "port": dovecot.port, "user": imap_user, "password": PASSWORD, "schedule": schedule}

    def answer_each_new_turn() -> None:
        pending = {race.slug: race for race in races}
        while pending and not stop.is_set():
            for slug in list(pending):
                if slug in turn_records(sessions):
                    race = pending.pop(slug)
                    race.ben_id, raw = orders_mail("Ben", slug, "play 10 bank 0")
                    late_appender.append(raw)
            time.sleep(0.01)

    settings = settings_for(path, dovecot, imap_user, smtp)
    deliverer: subprocess.Popen[str] | None = None
    try:
        async with serving(settings, sessions):
            # The last orders come from a process of their own (tests/email/timed_append.py), so the
            # referee in this process cannot delay them: each reaches the server when it was meant to.
            deliverer = subprocess.Popen([sys.executable, "-m", "tests.email.timed_append"], cwd=ROOT,
                                         stdin=subprocess.PIPE, text=True)  # fmt: skip
            assert deliverer.stdin is not None
            deliverer.stdin.write(json.dumps(job))
            deliverer.stdin.close()
            answerer = threading.Thread(target=answer_each_new_turn, daemon=True)
            answerer.start()
            assert await asyncio.to_thread(deliverer.wait, 60) == 0
            await eventually(lambda: len(turn_records(sessions)) == GAMES, timeout=30)
            await asyncio.to_thread(answerer.join, 30)
            await eventually(lambda: all(replies_to(smtp, r.ben_id) for r in races), timeout=30)
    finally:
        stop.set()
        late_appender.close()
        if deliverer is not None and deliverer.poll() is None:
            deliverer.kill()

    records = turn_records(sessions)
    arrived = arrivals(sessions)
    delays = []
    same_second = 0
    for race in races:
        record = records[race.slug]
        assert arrived[race.ann_id] <= race.deadline, f"{race.slug}: delivered after its deadline"
        assert record.defaulted == ["Fay"], f"{race.slug}: Ann's orders, in {race.offset} s early, were lost"
        assert record.orders["Ann"] == "cards 10 8 6 4 2"
        (ann_reply,) = replies_to(smtp, race.ann_id)
        assert "ORDERS ACCEPTED" in ann_reply and "before turn" not in ann_reply
        (ben_reply,) = replies_to(smtp, race.ben_id)
        assert "ORDERS ACCEPTED for " + race.slug in ben_reply, ben_reply
        opened, ben_arrived = record.resolved_at, arrived[race.ben_id]
        same_second += ben_arrived.replace(microsecond=0) == opened.replace(microsecond=0)
        assert ben_arrived >= opened.replace(microsecond=0)
        delays.append((record.resolved_at - race.deadline).total_seconds())
    with capsys.disabled():
        print(
            f"\n{GAMES} deadlines with orders 0.04-0.9 s before them: all counted; turns resolved "
            f"{min(delays):.2f}-{max(delays):.2f} s after the deadline; orders for the new turn in the "
            f"opening's second: {same_second} of {GAMES}, all accepted"
        )
    assert same_second > 0, "no arrival fell in the opening's second: the rule was not exercised"


async def test_a_burst_during_a_pass_is_answered_within_seconds(dovecot, imap_user, smtp, store, capsys):
    """Item 3: a 2 MB mail, then four small ones 0.12 s apart, while the intake is busy with the first."""
    path, sessions = store
    make_game(sessions, "burst", None, setup=())
    settings = settings_for(path, dovecot, imap_user, smtp)
    appender = Appender(dovecot, imap_user)
    latencies: list[float] = []
    try:
        async with serving(settings, sessions):
            await asyncio.sleep(1.0)  # the intake is in IDLE
            for round_number in range(3):
                sent: list[tuple[str, float]] = []
                big_id = f"<big.{round_number}@example.org>"
                big = message("STATUS burst\n\n" + ("x" * 76 + "\n") * 27_000, subject="big", message_id=big_id)
                sent.append((big_id, await asyncio.to_thread(appender.append, big)))
                for n in range(4):
                    await asyncio.sleep(0.12)
                    small_id = f"<small.{round_number}.{n}@example.org>"
                    raw = message("STATUS burst\n", subject=f"small {n}", message_id=small_id)
                    sent.append((small_id, await asyncio.to_thread(appender.append, raw)))
                answered: dict[str, float] = {}

                def all_answered(sent: list[tuple[str, float]] = sent, answered: dict[str, float] = answered) -> bool:
                    for message_id, _ in sent:
                        if message_id not in answered and replies_to(smtp, message_id):
                            answered[message_id] = time.monotonic()
                    return len(answered) == len(sent)

                await eventually(all_answered, timeout=90)
                latencies.extend(answered[message_id] - at for message_id, at in sent)
    finally:
        appender.close()
    with capsys.disabled():
        print(f"\nburst replies after (s): {', '.join(f'{x:.2f}' for x in latencies)}")
    assert max(latencies) < 5, f"a reply took {max(latencies):.1f} s (the poll interval is 60 s)"


async def test_a_reused_message_id_with_other_content_gets_its_own_reply(dovecot, imap_user, smtp, store):
    """Item 4: STATUS, then ORDERS under the same Message-ID: two messages, two replies; a copy stays one."""
    path, sessions = store
    make_game(sessions, "reuse", None, setup=())
    appender = Appender(dovecot, imap_user)
    status = message("STATUS reuse\n", subject="status", message_id="<same@example.org>")
    _, orders = orders_mail("Ann", "reuse", "cards 10 8 6 4 2", message_id="<same@example.org>")
    try:
        async with serving(settings_for(path, dovecot, imap_user, smtp), sessions):
            for raw in (status, orders, orders):
                await asyncio.to_thread(appender.append, raw)
            await eventually(lambda: len(replies_to(smtp, "<same@example.org>")) == 2)
            await asyncio.sleep(1.5)  # time for a third reply, which must not come
    finally:
        appender.close()
    replies = replies_to(smtp, "<same@example.org>")
    assert len(replies) == 2
    assert any("STATUS reuse" in body for body in replies)
    assert any("ORDERS ACCEPTED for reuse" in body for body in replies)
    with unit_of_work(sessions) as session:
        assert len(session.scalars(select(InboundMessage)).all()) == 2


def auto_responder(dovecot: DovecotServer, user: str, smtp: SmtpSink, robot: str, stop: threading.Event) -> None:
    """Answers every reply sent to ``robot`` at once, with no RFC 3834 marking (the loop of item 5)."""
    appender = Appender(dovecot, user)
    seen = 0
    try:
        while not stop.is_set():
            mine = [r for r in smtp.messages() if robot in r.recipients]
            for received in mine[seen:]:
                subject = str(received.message["Subject"])
                body = "I am out of the office until Monday.\n\nYour message:\n" + received.message.get_content()
                appender.append(message(body, sender=robot, name="Robot", subject=f"Re: {subject}"))
            seen = len(mine)
            time.sleep(0.02)
    finally:
        appender.close()


async def test_a_busy_player_is_still_answered_while_a_mail_loop_is_stopped(dovecot, imap_user, smtp, store):
    """Item 5, with a limit of 3 replies an hour: eight orders from one player, eight replies; an
    auto-responder gets 3 replies and then none, and the loop ends."""
    path, sessions = store
    make_game(sessions, "busy", None, setup=())
    robot = "robot@example.net"
    stop = threading.Event()
    settings = settings_for(path, dovecot, imap_user, smtp, email_reply_limit=3)
    appender = Appender(dovecot, imap_user)
    responder = threading.Thread(target=auto_responder, args=(dovecot, imap_user, smtp, robot, stop), daemon=True)
    hands = ["cards 10 8 6 4 2", "cards 9 8 7 4 2", "cards 10 10 5 3 2", "cards 8 8 8 4 2"] * 2
    ids: list[str] = []
    try:
        async with serving(settings, sessions):
            responder.start()
            await asyncio.to_thread(appender.append, message("Hello?\n", sender=robot, name="Robot", subject="hi"))
            for hand in hands:
                message_id, raw = orders_mail("Ann", "busy", hand)
                ids.append(message_id)
                await asyncio.to_thread(appender.append, raw)
            await eventually(lambda: all(replies_to(smtp, message_id) for message_id in ids), timeout=30)
            await eventually(lambda: len([r for r in smtp.messages() if robot in r.recipients]) >= 3, timeout=30)
            await asyncio.sleep(3)  # a loop would go on
    finally:
        stop.set()
        responder.join(timeout=5)
        appender.close()
    to_ann = [r for r in smtp.messages() if address("Ann") in r.recipients]
    assert len(to_ann) == len(hands), "every orders mail of the busy player was answered"
    assert all("ORDERS ACCEPTED for busy" in r.message.get_content() for r in to_ann)
    assert len([r for r in smtp.messages() if robot in r.recipients]) == 3, "the loop was stopped at the limit"
    with unit_of_work(sessions) as session:
        robot_rows = session.scalars(select(InboundMessage).where(InboundMessage.sender == robot)).all()
    assert len(robot_rows) == 4 and all(row.status == "done" for row in robot_rows), "stored, applied, not answered"
    # The robot's mail is not vouched for (no trusted Authentication-Results): past the limit, unanswered.
    assert "not answered: sender not vouched for" in (robot_rows[-1].outcome or "")


@pytest.mark.parametrize(
    ("headers", "return_path", "accepted"),
    [
        ({}, "mallory@players.test", False),  # the case of the issue: envelope sender another person
        ({"Authentication-Results": "mx.test; dkim=pass header.d=players.test"}, "bounce@players.test", True),
        ({"Authentication-Results": "mx.test; dmarc=pass header.from=players.test"}, "srs@relay.test", True),
        ({"Authentication-Results": "evil.test; dkim=pass header.d=players.test"}, "mallory@players.test", False),
        ({"Authentication-Results": "mx.test; dkim=pass header.d=other.test"}, "mallory@players.test", False),
        ({"Authentication-Results": "mx.test; dkim=pass header.d=players.test; dmarc=fail"}, "m@players.test", False),
        ({}, "steve@players.test", False),  # the envelope sender is the From address: it proves nothing
        (
            {"Authentication-Results": "mx.test; spf=fail smtp.mailfrom=players.test; dkim=fail"},
            "steve@players.test",
            False,
        ),
    ],
)
async def test_address_only_games_take_orders_only_from_vouched_senders(
    dovecot, imap_user, smtp, store, headers, return_path, accepted
):
    """Item 6: From steve@players.test; whether the orders are taken without the seat password."""
    path, sessions = store
    service = GameService(sessions, ServiceConfig(message_domain="example.com", game_masters=frozenset({GM})))
    now = datetime.now(UTC)
    seats = ("steve@players.test", "seb@players.test", "said@players.test", "ann@x.test", "bo@x.test", "cy@x.test")

    def send(who: str, command: c.Command) -> str:
        envelope = c.Envelope(c.Sender("email", who), (command,), f"s:{next(_IDS)}", now, trust=c.Trust.VERIFIED)
        return reply_text(service.apply(envelope)) or ""

    send(GM, c.CreateGame("club", "golden-strider", {}, "UTC", 60, False, "address"))
    for who in seats:
        send(who, c.JoinGame("club", who.split("@")[0].title()))
    send(GM, c.StartGame("club"))
    raw = message("ORDERS club\ncards 10 8 6 4 2\n", sender="steve@players.test", name="Steve Cram",
                  return_path=return_path, headers=headers, message_id="<steve@players.test>")  # fmt: skip
    settings = settings_for(path, dovecot, imap_user, smtp, email_trusted_authserv_ids="mx.test, other-mx.test")
    appender = Appender(dovecot, imap_user)
    try:
        async with serving(settings, sessions):
            await asyncio.to_thread(appender.append, raw)
            await eventually(lambda: bool(replies_to(smtp, "<steve@players.test>")))
    finally:
        appender.close()
    (reply,) = replies_to(smtp, "<steve@players.test>")
    if accepted:
        assert "ORDERS ACCEPTED for club" in reply, reply
    else:
        assert "ORDERS ACCEPTED" not in reply and "your seat password" in " ".join(reply.split()), reply


def test_a_turn_waits_for_an_intake_that_is_behind_then_resolves_and_tells_the_gm(store):
    """Items 1-3: the deadline worker never runs ahead of an intake, and never waits for one forever."""
    _, sessions = store
    deadline = (datetime.now(UTC) + timedelta(hours=1)).replace(microsecond=500_000)
    make_game(sessions, "wait", deadline, setup=SEATS[:5])
    name = "imap:referee@mail.test/INBOX"
    service = GameService(
        sessions, ServiceConfig(message_domain="example.com", intakes=(name,), intake_wait_seconds=60)
    )
    marks = Watermarks(sessions)
    after: Callable[[float], datetime] = lambda seconds: deadline + timedelta(seconds=seconds)  # noqa: E731
    assert service.resolve_due(after(1)) == [], "the intake never recorded a pass"
    marks.record_pass(name, deadline.replace(microsecond=0), after(1))
    assert service.resolve_due(after(2)) == [], "the intake read up to 12:00:00, not past 12:00:00.5"
    marks.record_error(name, "OSError: connection refused", after(3))
    assert service.resolve_due(after(59)) == []
    assert service.resolve_due(after(60)) == [("wait", 0)], "after intake_wait_seconds the turn resolves"
    with unit_of_work(sessions) as session:
        (row,) = session.scalars(select(OutboxMessage).where(OutboxMessage.kind == "notice",
                                                             OutboxMessage.template != "seat_joined")).all()  # fmt: skip
    notice = rendered(row)
    assert notice.recipient == GM and name in notice.body and "connection refused" in notice.body
    assert f"read up to {deadline:%Y-%m-%d %H:%M:%S} UTC" in notice.body
    assert all(len(line) <= 78 for line in notice.body.splitlines())

    make_game(sessions, "ontime", deadline, setup=SEATS[:5])
    marks.record_pass(name, after(1).replace(microsecond=0), after(2))
    assert service.resolve_due(after(2)) == [("ontime", 0)], "caught up: it resolves at once"
    with unit_of_work(sessions) as session:
        notices = select(OutboxMessage).where(OutboxMessage.kind == "notice", OutboxMessage.template != "seat_joined")
        assert len(session.scalars(notices).all()) == 1


def test_an_intake_that_cannot_log_in_says_so_on_its_watermark(dovecot, store):
    """The GM notice names the error: a failing pass records it and leaves the watermark where it was."""
    from bot.core.intake.inbox import Inbox
    from bot.email.imap import ImapIntakeLoop
    from bot.email.intake import Intake
    from bot.email.processor import MailProcessor
    from bot.email.understand import IntakePolicy
    from tests.email.mailboxes import config_for, wait_until

    _, sessions = store
    server = DovecotServer(dovecot.binary)  # its own: a failed login slows later ones from this address
    server.start()
    try:
        service = GameService(sessions, ServiceConfig(message_domain="example.com", game_masters=frozenset({GM})))
        processor = MailProcessor(Inbox(sessions), service, SystemClock(), IntakePolicy())
        marks = Watermarks(sessions)
        config = config_for(server, server.new_user(), password="wrong", max_backoff=0.1)
        loop = ImapIntakeLoop(config, Intake(processor, marks))
        stop = threading.Event()
        thread = threading.Thread(target=loop.run, args=(stop,), daemon=True)
        thread.start()
        try:
            wait_until(lambda: bool(marks.all()))
        finally:
            stop.set()
            thread.join(timeout=5)
    finally:
        server.stop()
    (mark,) = marks.all()
    assert mark.name == config.intake_name and mark.read_until is None
    assert (mark.last_error or "").startswith("LoginError"), mark.last_error


async def test_with_the_mail_server_away_a_turn_waits_its_bounded_time_and_the_gm_is_told(dovecot, smtp, store):
    """Item 1: the IMAP server goes away before a deadline; the turn waits intake_wait_seconds (2 s
    here), then resolves, and the game master's notice names the intake and how far it had read;
    the intake records its error on its watermark."""
    path, sessions = store
    server = DovecotServer(dovecot.binary)
    server.start()
    user = server.new_user()
    make_game(sessions, "away", None, setup=SEATS[:5])
    settings = settings_for(path, server, user, smtp, intake_wait_seconds=2, deadline_check_seconds=0.5)
    try:
        async with serving(settings, sessions):
            await asyncio.sleep(1.0)  # the intake has passed and is in IDLE
            server.stop()
            deadline = datetime.now(UTC) + timedelta(seconds=1)
            with unit_of_work(sessions) as session:
                session.execute(update(Game).where(Game.slug == "away").values(deadline_at=deadline))
            await eventually(lambda: "away" in turn_records(sessions), timeout=20)
            resolved = turn_records(sessions)["away"].resolved_at
            await eventually(lambda: any(GM in r.recipients for r in smtp.messages()), timeout=10)
            marks = Watermarks(sessions)
            await eventually(lambda: bool(marks.all()[0].last_error), timeout=10)
    finally:
        server.stop()
    assert resolved - deadline >= timedelta(seconds=2), "it waited for the intake"
    assert resolved - deadline < timedelta(seconds=10), "but not for ever"
    notices = [r.message for r in smtp.messages() if GM in r.recipients and "unread" in str(r.message["Subject"])]
    (notice,) = notices
    body = notice.get_content()
    assert f"imap:{user}@127.0.0.1/INBOX" in body and "read up to" in body
    assert all(len(line) <= 78 for line in body.splitlines())
    (mark,) = Watermarks(sessions).all()
    assert mark.read_until is not None and mark.read_until <= deadline, "the watermark stayed where it was"


async def test_a_deadline_set_while_the_intake_idles_resolves_in_seconds(dovecot, imap_user, smtp, store):
    """The intake waits in IDLE for up to 60 s here; a deadline set meanwhile is noticed (it asks
    again every 5 s), so the watermark passes it and the turn resolves long before the minute."""
    path, sessions = store
    make_game(sessions, "soon", None, setup=SEATS[:5])
    settings = settings_for(path, dovecot, imap_user, smtp, deadline_check_seconds=0.5)
    async with serving(settings, sessions):
        await asyncio.sleep(1.0)
        deadline = datetime.now(UTC) + timedelta(seconds=1)
        with unit_of_work(sessions) as session:
            session.execute(update(Game).where(Game.slug == "soon").values(deadline_at=deadline))
        await eventually(lambda: "soon" in turn_records(sessions), timeout=70)
    resolved = turn_records(sessions)["soon"].resolved_at
    assert resolved - deadline < timedelta(seconds=10), f"resolved {resolved - deadline} after the deadline"
