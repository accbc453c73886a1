"""Quiet hours end to end (issue 41): ``referee serve`` against Dovecot and aiosmtpd, on a clock the test moves
(tests/support/clocked_serve.py).  Ann (``ZONE Asia/Ho_Chi_Minh``, ``QUIET 22:00-07:00``) mails her orders at
23:00 her time: the reply reaches her at once; Ben's press to her (22:30) and the report her orders completed
wait in the outbox until 07:00 hers, while Ben gets his at once; at 06:59 nothing has reached her, at 07:00 both.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from imapclient import IMAPClient
from sqlalchemy import select, update

from bot.core.model import commands as c
from bot.core.model.config import ServiceConfig
from bot.core.runtime.service import GameService
from bot.host.cli import main
from bot.store.db import make_engine, session_factory, unit_of_work
from bot.store.models import Game, OutboxMessage
from tests.email.mailboxes import client_for, eventually
from tests.email.pipeline import TRUSTED_SERVER, message
from tests.email.test_deadlines import replies_to
from tests.support.dovecot import PASSWORD, DovecotServer
from tests.support.smtp_sink import SmtpSink

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
GM = "gm@example.org"
SEATS = ("Ann", "Ben", "Cat", "Dan", "Eve", "Fay")
# Days ago: Dovecot dates an APPEND as asked only in the past (a later date is its own now). Hanoi keeps
# UTC+7 all year.
EVENING = (datetime.now(UTC) - timedelta(days=3)).replace(hour=14, minute=0, second=0, microsecond=0)  # 21:00 Hanoi
PRESS_AT = EVENING + timedelta(hours=1, minutes=30)  # 22:30 in Hanoi: Ben's press to Ann
ELEVEN = EVENING + timedelta(hours=2)  # 23:00 in Hanoi: Ann's orders
SEVEN = EVENING + timedelta(hours=10)  # 07:00 in Hanoi, the next morning: her quiet hours end
WAIT = 20.0


def address(seat: str) -> str:
    return f"{seat.lower()}@example.org"


def write_config(directory: Path, dovecot: DovecotServer, imap_user: str, smtp: SmtpSink) -> Path:
    assert smtp.login is not None
    config = directory / "referee.toml"
    config.write_text(
        "\n".join([
            "[referee]",
            f'database = "{directory / "referee.sqlite3"}"',
            'bot_address = "referee@example.com"', 'mail_domain = "example.com"', f'game_masters = "{GM}"',
            "[referee.imap]",
            f'host = "{dovecot.host}"', f"port = {dovecot.port}", 'security = "none"', f'user = "{imap_user}"',
            "[referee.smtp]",
            f'host = "{smtp.host}"', f"port = {smtp.port}", 'security = "none"', f'user = "{smtp.login[0]}"',
            "[referee.email]", f'trusted_authserv_ids = "{TRUSTED_SERVER}"',
            "[referee.intake]", "poll_seconds = 5",
            "[referee.send]", "interval_seconds = 0.1",
            "[referee.deadline]", "check_seconds = 0.2",
        ]) + "\n"
    )  # fmt: skip
    assert main(["--config", str(config), "db", "upgrade"]) == 0
    return config


def set_up(path: Path) -> None:
    """At 21:00 in Hanoi: a running game whose turn waits only for Ann; Ann's zone and quiet hours set.
    What that mailed is marked sent (it is not this test's)."""
    engine = make_engine(str(path))
    sessions = session_factory(engine)
    service = GameService(sessions, ServiceConfig(message_domain="example.com", game_masters=frozenset({GM})))
    count = iter(range(1000))

    def send(who: str, *commands: c.Command) -> str:
        name = "Game Master" if who == GM else who
        sender = c.Sender("email", who if who == GM else address(who), name)
        applied = service.apply(c.Envelope(sender, commands, f"setup:{next(count)}", EVENING, trust=c.Trust.VERIFIED))
        return applied.receipt

    send(GM, c.CreateGame("quiet1", "golden-strider", {}, "UTC", 2 * 24 * 60, True, "address"))
    for seat in SEATS:
        send(seat, c.JoinGame("quiet1", seat))
    send(GM, c.StartGame("quiet1"))
    send("Ann", c.SetZone("Asia/Ho_Chi_Minh"), c.SetQuiet("22:00-07:00"))
    for seat in SEATS[1:]:
        send(seat, c.SubmitOrders("quiet1", "cards 10 8 6 4 2"))
    with unit_of_work(sessions) as session:
        later = EVENING + timedelta(days=2)  # no deadline comes in this test
        session.execute(update(Game).values(deadline_at=later, resolve_at=later, reminders="none"))
        session.execute(update(OutboxMessage).values(sent_at=EVENING))
    engine.dispose()


def append_at(client: IMAPClient, raw: bytes, when: datetime) -> None:
    """APPEND as a delivery agent would, the server dating the mail ``when`` (its INTERNALDATE)."""
    client.append("INBOX", raw, msg_time=when)


def to(smtp: SmtpSink, recipient: str) -> list[bytes]:
    return [r.raw for r in smtp.messages() if recipient in r.recipients]


def templates(path: Path, raws: list[bytes]) -> list[str]:
    """The outbox templates of the mails ``raws`` (by their Message-IDs)."""
    ids = [line.split(b":", 1)[1].strip().decode() for raw in raws for line in raw.splitlines()
           if line.lower().startswith(b"message-id:")]  # fmt: skip
    engine = make_engine(str(path))
    try:
        with unit_of_work(session_factory(engine)) as session:
            rows = dict(session.execute(select(OutboxMessage.message_id, OutboxMessage.template)).all())
    finally:
        engine.dispose()
    return sorted(rows[i] for i in ids if i in rows)


async def test_a_player_in_quiet_hours_gets_the_reply_at_once_and_what_can_wait_at_seven(
    dovecot: DovecotServer, smtp_with_login: SmtpSink, tmp_path: Path
) -> None:
    smtp, user = smtp_with_login, dovecot.new_user("quiet")
    config = write_config(tmp_path, dovecot, user, smtp)
    database = tmp_path / "referee.sqlite3"
    set_up(database)
    clock = tmp_path / "clock"
    clock.write_text(ELEVEN.isoformat())
    assert smtp.login is not None
    environ = {**os.environ, "REFEREE_IMAP_PASSWORD": PASSWORD, "REFEREE_SMTP_PASSWORD": smtp.login[1]}
    log = tmp_path / "serve.log"
    with log.open("wb") as output:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tests.support.clocked_serve", str(clock), "--config", str(config), "serve",
            cwd=ROOT, env=environ, stdout=output, stderr=asyncio.subprocess.STDOUT,
        )  # fmt: skip

    async def until(condition: Callable[[], object]) -> None:
        def holds() -> bool:
            if process.returncode is not None:
                raise AssertionError(f"referee serve exited with {process.returncode}:\n{log.read_text()}")
            return bool(condition())

        try:
            await eventually(holds, WAIT)
        except AssertionError as error:
            raise AssertionError(f"{error}; the log:\n{log.read_text(errors='replace')[-4000:]}") from None

    try:
        press = message("PRESS quiet1 TO Ann\nShall we race side by side?\n", sender=address("Ben"), name="Ben",
                        subject="press", message_id="<ben-press@example.org>", vouched_by=TRUSTED_SERVER,
                        when=PRESS_AT)  # fmt: skip
        orders = message("ORDERS quiet1\ncards 10 8 6 4 2\n", sender=address("Ann"), name="Ann",
                         subject="orders quiet1", message_id="<ann-orders@example.org>", vouched_by=TRUSTED_SERVER,
                         when=ELEVEN)  # fmt: skip
        client = client_for(dovecot, user)
        try:
            append_at(client, press, PRESS_AT)
            append_at(client, orders, ELEVEN)
        finally:
            client.logout()
        # 23:00 in Hanoi: the reply to Ann's mail comes at once; Ben gets the reply to his press and the report
        await until(lambda: replies_to(smtp, "<ann-orders@example.org>") and replies_to(smtp, "<ben-press@example.org>")
                    and "report" in templates(database, to(smtp, address("Ben"))))  # fmt: skip
        assert "ORDERS ACCEPTED" in replies_to(smtp, "<ann-orders@example.org>")[0]
        assert templates(database, to(smtp, address("Ann"))) == ["reply"]  # the press and the report wait
        engine = make_engine(str(database))
        try:
            with unit_of_work(session_factory(engine)) as session:
                held = session.execute(
                    select(OutboxMessage.template, OutboxMessage.next_attempt_at)
                    .where(OutboxMessage.recipient == address("Ann"), OutboxMessage.sent_at.is_(None))
                ).all()  # fmt: skip
        finally:
            engine.dispose()
        assert sorted(held) == [("press", SEVEN), ("report", SEVEN)], held

        clock.write_text((SEVEN - timedelta(minutes=1)).isoformat())  # 06:59 in Hanoi: still quiet
        await asyncio.sleep(1.0)  # ten of the sender's looks
        assert templates(database, to(smtp, address("Ann"))) == ["reply"]

        clock.write_text(SEVEN.isoformat())  # 07:00 in Hanoi
        await until(lambda: len(to(smtp, address("Ann"))) == 3)
        assert templates(database, to(smtp, address("Ann"))) == ["press", "reply", "report"]
    finally:
        if process.returncode is None:
            process.terminate()
            await asyncio.wait_for(process.wait(), WAIT)
