"""Reliability records by mail, against the real servers: a missed turn moves the figure a player reads.

Everything runs as ``referee serve`` runs it (IMAP intake against Dovecot, the
SMTP sender against aiosmtpd, the deadline worker) on the real clock.  The
players' mail is APPENDed to Dovecot; the answers are read at the sink.  Ann
sends her setup, Ben sends nothing: once the deadline worker has resolved the
turn, ``RECORD ME`` answers Ben with the turn missed and Ann with it ordered;
``LIST`` and the game master's notice of Ben's JOIN to a new game say the same,
and a game asking more than Ben's share refuses his JOIN with the figure.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import update
from sqlalchemy.orm import Session, sessionmaker

from bot.core.model import commands as c
from bot.core.model.config import ServiceConfig
from bot.core.runtime.service import Applied, GameService
from bot.store.db import make_engine, session_factory, unit_of_work
from bot.store.models import Game
from tests.email.mailboxes import eventually
from tests.email.test_deadlines import make_game, serving, settings_for
from tests.email.test_gm_by_mail import GM, Mail, address
from tests.support.database import migrated_sqlite

pytestmark = pytest.mark.integration

WIDTH = 78


@pytest.fixture
def store(tmp_path: Path) -> tuple[str, sessionmaker[Session]]:
    path = str(tmp_path / "referee.sqlite3")
    migrated_sqlite(path)
    engine = make_engine(path)
    yield path, session_factory(engine)
    engine.dispose()


def gm_does(sessions: sessionmaker[Session], command: c.Command, when: datetime, key: str) -> Applied:
    """What the game master does outside the mail path (set up as by an authenticated channel)."""
    service = GameService(sessions, ServiceConfig(message_domain="example.com", game_masters=frozenset({GM})))
    sender = c.Sender("email", GM, "Game Master")
    return service.apply(c.Envelope(sender, (command,), key, when, trust=c.Trust.VERIFIED))


def one_line(text: str) -> str:
    return " ".join(text.split())


async def test_a_missed_turn_moves_the_figure_read_by_mail(dovecot, imap_user, smtp, store):
    path, sessions = store
    make_game(sessions, "race", None, ("Ann",))  # Ann has sent her setup; Ben (and the rest) nothing
    settings = settings_for(path, dovecot, imap_user, smtp, game_masters=GM, deadline_check_seconds=0.2,
                            intake_poll_seconds=0.3)  # fmt: skip
    mail = Mail(dovecot, imap_user, smtp)
    async with serving(settings, sessions):
        before = await mail.send("RECORD ME\n", sender=address("Ben"))
        assert "YOUR RECORD" in before and "You have owed no turns yet." in before, before

        with unit_of_work(sessions) as session:  # the setup's deadline passes now: the worker resolves it
            session.execute(update(Game).where(Game.slug == "race").values(deadline_at=datetime.now(UTC)))
        await eventually(lambda: mail.count(b"turn 0 report") >= 6, timeout=15)

        ben, ann = await mail.send_all([("RECORD ME\n", address("Ben")), ("record me\n", address("Ann"))])
        assert "Turns owed: 1. Ordered in time: 0 (0%). Missed: 1" in one_line(ben), ben
        assert "Turns owed: 1. Ordered in time: 1 (100%). Missed: 0" in one_line(ann), ann
        by_subject = await mail.send("", sender=address("Ben"), subject="Record me")
        assert "Missed: 1" in by_subject, by_subject

        created = gm_does(sessions, c.CreateGame("next", "golden-strider", {}, "UTC", 60, False, "address"),
                          datetime.now(UTC), "create:next")  # fmt: skip
        assert created.results == ("created",), created.problems
        joined = await mail.send("JOIN next AS Ben\n", sender=address("Ben"))
        assert "JOINED next" in joined, joined
        await eventually(lambda: bool(mail.to(GM, "Ben joined")), timeout=10)
        notice = one_line(mail.to(GM, "Ben joined")[0])
        assert "ordered 0 of 1 turn in time (0%), 1 missed" in notice, notice
        listing = await mail.send("LIST\n", sender=address("Cat"))
        assert "    Ben: ordered 0 of 1 turn in time, 1 missed" in listing.splitlines(), listing

    sent = [r.message for r in smtp.messages()]
    wide = [(m["Subject"], line) for m in sent for line in m.get_body(("plain",)).get_content().splitlines()
            if len(line) > WIDTH]  # fmt: skip
    assert not wide, wide


async def test_a_join_below_the_minimum_is_refused_by_mail_with_the_figure(dovecot, imap_user, smtp, store):
    """Ben has missed five turns of five: a game asking 50% refuses him, saying his figure and its minimum."""
    path, sessions = store
    make_game(sessions, "race", None, ())
    now = datetime.now(UTC)
    for turn in range(5):
        sent = gm_does(sessions, c.ProcessNow("race", turn, "nobody ordered"), now, f"process:{turn}")
        assert sent.results == ("processed",), sent.problems
        now += timedelta(seconds=1)
    created = gm_does(sessions, c.CreateGame("picky", "golden-strider", {}, "UTC", 60, False, "address",
                                             min_reliability=50), now, "create:picky")  # fmt: skip
    assert created.results == ("created",), created.problems
    settings = settings_for(path, dovecot, imap_user, smtp, game_masters=GM, intake_poll_seconds=0.3)
    mail = Mail(dovecot, imap_user, smtp)
    async with serving(settings, sessions):
        refused = await mail.send("JOIN picky\n", sender=address("Ben"))
    said = one_line(refused)
    assert "game picky takes players who ordered in time at least 50% of the turns they owed" in said, refused
    assert "you ordered 0 of 5 (0%), 5 missed (RECORD ME shows your record)" in said, refused
    assert all(len(line) <= WIDTH for line in refused.splitlines())
