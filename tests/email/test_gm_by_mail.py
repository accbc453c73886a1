"""Game masters by email alone: a game master creates and runs a game with mail, against real servers.

Everything runs as ``referee serve`` runs it (:func:`bot.host.wiring.workers`:
IMAP intake against Dovecot, the SMTP sender against aiosmtpd, the deadline
worker) on the real clock.  Mail is APPENDed to Dovecot; what the referee
sends is read at the sink.  The game is a short Golden Strider race
(``race_length`` 12: setup and two rounds).
"""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from bot.store.db import make_engine, session_factory, unit_of_work
from bot.store.models import AuditEntry, Game
from tests.email.mailboxes import append, eventually
from tests.email.pipeline import TRUSTED_SERVER, message
from tests.email.test_deadlines import replies_to, serving, settings_for
from tests.support.database import migrated_sqlite
from tests.support.dovecot import DovecotServer
from tests.support.smtp_sink import SmtpSink

pytestmark = pytest.mark.integration

GM = "gm@example.org"
SEATS = ("Ann", "Ben", "Cat", "Dan", "Eve", "Fay")
GAME = "race1"
OBSERVER = "zed@example.net"
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


class Mail:
    """Sends mail to the referee through Dovecot and reads the answers at the SMTP sink."""

    def __init__(self, dovecot: DovecotServer, user: str, smtp: SmtpSink) -> None:
        self.dovecot, self.user, self.smtp = dovecot, user, smtp

    async def send(self, body: str, sender: str = GM, subject: str = "game", return_path: str = "same") -> str:
        """Mail ``body`` from ``sender``; the referee's reply to it."""
        return (await self.send_all([(body, sender)], subject, return_path))[0]

    async def send_all(self, mails: list[tuple[str, str]], subject: str = "game", return_path: str = "same"
                       ) -> list[str]:  # fmt: skip
        """Mail each (body, sender) at once; the referee's replies, in the same order."""
        ids = [f"<gm{next(_IDS)}@example.org>" for _ in mails]
        # The referee's receiving server checked each sender (its Authentication-Results); a forged
        # envelope sender gets none.
        vouched_by = TRUSTED_SERVER if return_path == "same" else None
        raws = [message(body, sender=sender, name=sender.split("@")[0].title(), subject=subject, message_id=mid,
                        return_path=return_path, vouched_by=vouched_by)
                for (body, sender), mid in zip(mails, ids, strict=True)]  # fmt: skip
        append(self.dovecot, self.user, *raws)
        await eventually(lambda: all(len(replies_to(self.smtp, mid)) == 1 for mid in ids))
        return [replies_to(self.smtp, mid)[0] for mid in ids]

    def count(self, needle: bytes) -> int:
        """How many of the mails sent so far hold ``needle`` (by bytes: parsing each poll starves the loop)."""
        return sum(needle in r.raw for r in self.smtp.messages())

    def to(self, recipient: str, needle: str) -> list[str]:
        """Bodies of the mail sent to ``recipient`` that contain ``needle``."""
        found = [r.message for r in self.smtp.messages() if recipient in r.recipients]
        bodies = (m.get_body(("plain",)).get_content() for m in found)  # a notice may carry deadline.ics
        return [body for body in bodies if needle in body]


def later(seconds: float) -> str:
    return (datetime.now(UTC) + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%SZ")


async def test_a_game_created_and_run_by_its_game_master_by_email_alone(dovecot, imap_user, smtp, store):
    path, sessions = store
    settings = settings_for(path, dovecot, imap_user, smtp, game_masters=GM, deadline_check_seconds=0.2,
                            intake_poll_seconds=0.5)  # fmt: skip
    mail = Mail(dovecot, imap_user, smtp)
    async with serving(settings, sessions):
        gm_help, player_help, asked = await mail.send_all([("HELP\n", GM), ("HELP\n", address("Ann")),
                                                            ("HELP GM\n", address("Ann"))])  # fmt: skip
        assert "GAME MASTERS" in gm_help and "PROCESS <game> TURN <n>" in gm_help
        assert "send HELP GM" in player_help and "GAME MASTERS" not in player_help
        assert "PROCESS <game> TURN <n>" in asked

        mistaken = " ".join((await mail.send("SEATS 6\nSEETS 6\n", subject=f"CREATE {GAME} golden-strider")).split())
        assert "'SEETS 6' is not a setting" in mistaken and "nothing was created" in mistaken
        created = await mail.send(
            "SEATS 6\nSCHEDULE 2d\nREMINDERS none\nOPTION race_length=12\nZONE Europe/London\n",
            subject=f"CREATE {GAME} golden-strider",
        )
        assert f"CREATED {GAME}" in created, created
        gm_password = created.split("Your game master password: ")[1].split()[0]

        observing = await mail.send(f"OBSERVE {GAME}\n", sender=OBSERVER)
        assert f"OBSERVING {GAME}" in observing, observing
        joined = await mail.send_all([(f"JOIN {GAME} AS {seat}\n", address(seat)) for seat in SEATS])
        secrets = {
            seat: reply.split("Your seat password: ")[1].split()[0] for seat, reply in zip(SEATS, joined, strict=True)
        }

        # Refusals: a player, the GM without the GM password, a forged GM, a player with the GM password wrong.
        player, bare, wrong = await mail.send_all([
            (f"START {GAME}\nPASSWORD {secrets['Ann']}\n", address("Ann")), (f"START {GAME}\n", GM),
            (f"START {GAME}\nPASSWORD {secrets['Ann']}\n", GM)])  # fmt: skip
        forged = await mail.send(f"START {GAME}\n", return_path="mallory@evil.example")
        assert f"only the game master of {GAME} can do this" in player
        for refused in (bare, wrong, forged):
            assert "needs the game master's password" in refused, refused
        with unit_of_work(sessions) as session:
            assert session.scalars(select(Game.status).where(Game.slug == GAME)).one() == "forming"

        started = await mail.send(f"START {GAME}\nPASSWORD {gm_password}\n")
        assert f"STARTED {GAME}" in started and gm_password not in started
        setup = [(f"ORDERS {GAME}\ncards 10 8 6 4 2\nPASSWORD {secrets[seat]}\n", address(seat)) for seat in SEATS]
        for accepted in await mail.send_all(setup):
            assert "ORDERS ACCEPTED" in accepted, accepted

        extended = await mail.send(f"EXTEND {GAME} 1d\nREASON two players asked\nPASSWORD {gm_password}\n")
        assert f"DEADLINE {GAME}" in extended and "two players asked" in extended
        assert mail.to(address("Fay"), "two players asked"), "the players are told the deadline moved"
        no_reason = await mail.send(f"PROCESS {GAME} TURN 0\nPASSWORD {gm_password}\n")
        assert "needs a reason" in no_reason and "nothing was done" in no_reason
        processed = await mail.send(f"PROCESS {GAME} TURN 0\nREASON everyone is in\nPASSWORD {gm_password}\n")
        assert f"PROCESSED {GAME}" in processed and "NOT UNDERSTOOD" not in processed, processed
        await eventually(lambda: mail.count(b"turn 0 report") >= len(SEATS) + 1)
        again = await mail.send(f"PROCESS {GAME} TURN 0\nREASON everyone is in\nPASSWORD {gm_password}\n")
        assert "turn 0 of race1 is not open (turn 1 is): nothing was processed" in " ".join(again.split())

        broadcast = await mail.send(f"BROADCAST {GAME}\nRound one: good luck.\nPASSWORD {gm_password}\n")
        assert "NOT UNDERSTOOD" not in broadcast
        await eventually(lambda: mail.count(b"Round one: good luck.") >= len(SEATS))

        # Round 1: everyone plays 10; the deadline worker resolves it at a deadline the GM sets.
        round_one = [(f"ORDERS {GAME}\nplay 10 bank 0\nPASSWORD {secrets[seat]}\n", address(seat)) for seat in SEATS]
        for accepted in await mail.send_all(round_one):
            assert "ORDERS ACCEPTED" in accepted, accepted
        preview = await mail.send(f"PREVIEW {GAME}\nPASSWORD {gm_password}\n")
        assert f"PREVIEW {GAME}, turn 1" in preview and "nothing was changed" in preview, preview
        moved = await mail.send(f"SET DEADLINE {GAME} {later(1.5)}\nREASON all in\nPASSWORD {gm_password}\n")
        assert f"DEADLINE {GAME}" in moved, moved
        await eventually(lambda: mail.count(b"turn 1 report") > 0, timeout=15)

        # Round 2: Ann orders, the others fall under the no-moves-received rule at the deadline.
        await mail.send(f"ORDERS {GAME}\nplay 8 bank 0\nPASSWORD {secrets['Ann']}\n", sender=address("Ann"))
        entered = await mail.send(f"ORDERS {GAME} FOR Ben\nplay 8 bank 0\nREASON sent to me by phone\n"
                                  f"PASSWORD {gm_password}\n")  # fmt: skip
        assert f"ORDERS ENTERED for {GAME}, seat Ben, turn 2" in entered, entered
        await eventually(lambda: mail.count(b"orders entered for Ben") == 1)
        assert mail.to(address("Ben"), "sent to me by phone"), "Ben gets a copy"
        await mail.send(f"SET DEADLINE {GAME} {later(1.5)}\nREASON no need to wait\nPASSWORD {gm_password}\n")
        await eventually(lambda: mail.count(b"(final)") >= len(SEATS), timeout=15)
        log = await mail.send(f"LOG {GAME}\nPASSWORD {gm_password}\n")

    finals = [r.message.get_body(("plain",)).get_content() for r in smtp.messages() if b"(final)" in r.raw]
    finalists = {r for m in smtp.messages() if b"(final)" in m.raw for r in m.recipients}
    assert finalists >= {address(s) for s in SEATS} | {OBSERVER}, "every seat and the observer get the last report"
    assert all("GAME OVER" in body for body in finals)
    for action in ("StartGame", "SetDeadline", "ProcessNow", "Broadcast"):
        assert action in log, log
    with unit_of_work(sessions) as session:
        assert session.scalars(select(Game.status).where(Game.slug == GAME)).one() == "finished"
        actions = [e.action for e in session.scalars(select(AuditEntry).order_by(AuditEntry.id))]
    assert actions == ["CreateGame", "StartGame", "SetDeadline", "ProcessNow", "Broadcast", "PreviewTurn",
                       "SetDeadline", "EnterOrders", "SetDeadline", "ShowLog"]  # fmt: skip
    sent = [r.message for r in smtp.messages()]
    wide = [
        (m["Subject"], line)
        for m in sent
        for line in m.get_body(("plain",)).get_content().splitlines()
        if len(line) > 78
    ]
    assert not wide, wide
    for secret in (gm_password, *secrets.values()):
        assert all(secret not in m.as_string() for m in sent if "password:" not in m.as_string()), secret
