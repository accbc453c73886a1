"""Free text from outside, against the real servers: no mail, page or feed carries a control or bidi
character, none fails, and no seat is named after an address.

Everything runs as ``referee serve`` runs it (IMAP intake against Dovecot, the SMTP sender against
aiosmtpd, the deadline worker); the pages are served on loopback.  The attacks:

* a game master's reason with an escape sequence, U+202E (right-to-left override) and NUL, by mail
  and by ``referee gm``, and a broadcast with an OSC sequence and an isolate: every player's mail (as
  aiosmtpd received it), the game's page and its Atom feed carry none of them (the feed answered 500
  for good), each shown as U+FFFD;
* a JOIN without AS from a From with no display name (``zqxv.wombat@example.net``): the seat is named
  ``Player 1``, and no page shows any part of the address.
"""

from __future__ import annotations

import unicodedata
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import update
from sqlalchemy.orm import Session, sessionmaker

from bot.core.basics.free_text import DROPPED
from bot.core.model import commands as c
from bot.core.model.config import ServiceConfig
from bot.core.runtime.service import GameService
from bot.core.views import GameViews
from bot.host.cli import main
from bot.store.db import make_engine, session_factory, unit_of_work
from bot.store.models import Game
from bot.web.server import site_for
from tests.email.mailboxes import append, eventually
from tests.email.pipeline import TRUSTED_SERVER, message
from tests.email.test_deadlines import SEATS, make_game, replies_to, serving, settings_for
from tests.email.test_gm_by_mail import Mail
from tests.email.world import cheap_hash
from tests.support.database import migrated_sqlite
from tests.web.world import served

pytestmark = pytest.mark.integration

GM = "gm@example.org"
GAME = "night1"
OPEN = "open1"
GM_PASSWORD = "quartz-raven-4242"
NAMELESS = "zqxv.wombat@example.net"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[tuple[str, sessionmaker[Session]]]:
    path = str(tmp_path / "referee.sqlite3")
    migrated_sqlite(path)
    engine = make_engine(path)
    yield path, session_factory(engine)
    engine.dispose()


def acting(text: str) -> list[str]:
    """The characters of ``text`` that act rather than show (line breaks and tabs aside)."""
    return [f"U+{ord(ch):04X}" for ch in text if ch not in "\r\n\t" and unicodedata.category(ch) in DROPPED]


async def test_reasons_broadcasts_and_names_reach_no_mail_page_or_feed_acting(
    dovecot, imap_user, smtp, store, tmp_path, capsys
):
    path, sessions = store
    make_game(sessions, GAME, None, ())
    GameService(sessions, ServiceConfig(game_masters=frozenset({GM}))).apply(c.Envelope(
        c.Sender("email", GM, "Game Master"), (c.CreateGame(OPEN, "golden-strider", {}, "UTC", 60, False, "address"),),
        "setup:open", datetime.now(UTC), trust=c.Trust.VERIFIED,
    ))  # fmt: skip
    with unit_of_work(sessions) as session:
        session.execute(update(Game).values(gm_secret_hash=cheap_hash(GM_PASSWORD)))
    config = tmp_path / "referee.toml"
    config.write_text(f'database = "{path}"\n')
    settings = settings_for(path, dovecot, imap_user, smtp, game_masters=GM, deadline_check_seconds=0.2,
                            intake_poll_seconds=0.5)  # fmt: skip
    mail = Mail(dovecot, imap_user, smtp)
    async with serving(settings, sessions):
        extended = await mail.send(
            f"EXTEND {GAME} 1d\nREASON club night\x1b[2J\u202e\x00 holiday\nPASSWORD {GM_PASSWORD}\n"
        )
        assert f"DEADLINE {GAME}" in extended and "club night\ufffd[2J\ufffd\ufffd holiday" in extended, extended
        said = await mail.send(f"BROADCAST {GAME}\nGood luck\x1b]0;pwned\x07 all\u2066!\nPASSWORD {GM_PASSWORD}\n")
        assert "NOT UNDERSTOOD" not in said, said
        assert main(["--config", str(config), "gm", "deadline", GAME, "+1h",
                     "--reason", "by phone\x1b[31m\u202e\x00 again"]) == 0  # fmt: skip
        capsys.readouterr()
        append(dovecot, imap_user, message(f"JOIN {OPEN}\n", sender=NAMELESS, name="", message_id="<nameless@x>",
                                           vouched_by=TRUSTED_SERVER))  # fmt: skip
        await eventually(lambda: len(replies_to(smtp, "<nameless@x>")) == 1)
        assert "You are Player 1 in game open1" in " ".join(replies_to(smtp, "<nameless@x>")[0].split())
        await eventually(lambda: mail.count("by phone\ufffd[31m\ufffd\ufffd again".encode()) >= len(SEATS))
        await eventually(lambda: mail.count("Good luck\ufffd]0;pwned\ufffd all\ufffd!".encode()) >= len(SEATS))
        await eventually(lambda: mail.count("club night\ufffd[2J\ufffd\ufffd holiday".encode()) >= len(SEATS))
    received = smtp.messages()
    assert received
    for each in received:
        assert b"\x1b" not in each.raw and b"\x00" not in each.raw
        for part in each.message.walk():
            if part.get_content_maintype() == "text":
                assert not acting(part.get_content()), (each.message["Subject"], part.get_content())
        assert not acting(str(each.message["Subject"]))

    assert GameViews(sessions).public_view(OPEN).seats == ("Player 1",)  # type: ignore[union-attr]
    async with served(site_for(sessions, ServiceConfig())) as reader:
        page = await reader.get(f"/games/{GAME}")
        status, _, feed = await reader.response("GET", f"/games/{GAME}/feed.atom")
        index, joined_page = await reader.get("/"), await reader.get(f"/games/{OPEN}")
    assert status == 200, feed
    titles = [entry.findtext("{http://www.w3.org/2005/Atom}title") or "" for entry in ET.fromstring(feed).iter()]
    assert any("club night\ufffd[2J\ufffd\ufffd holiday" in title for title in titles), titles
    assert any("by phone\ufffd[31m\ufffd\ufffd again" in title for title in titles), titles
    for text in (page, feed, index, joined_page):
        assert not acting(text)
    assert "Player 1" in joined_page
    for shown in (index, joined_page, feed):
        assert "zqxv" not in shown.lower() and "wombat" not in shown.lower() and "example.net" not in shown
