"""No page or feed can be made to fail, or to show a control or bidi character, by text stored before
every input was cleaned as it entered (bot/core/basics/free_text.py).

The attack: a game master's reason holding NUL, an escape sequence, U+202E and a form feed, already
in the game's log (written directly into the database, as an older referee kept it).  The Atom feed
answered 500 for good (the feed writer refuses a control character: XML cannot carry it), and the
page showed the override.  Now both answer 200, the reason is announced with each such character
shown as U+FFFD, and the feed parses.
"""

from __future__ import annotations

import unicodedata
import xml.etree.ElementTree as ET
from pathlib import Path

from sqlalchemy import select

from bot.core.basics.free_text import DROPPED
from bot.store.db import unit_of_work
from bot.store.models import AuditEntry, Game
from tests.web.test_pages import RUNNERS
from tests.web.world import GM, club, served

ATOM = "{http://www.w3.org/2005/Atom}"
STORED = "\x00storm\x1b[31m \u202eevil\x0c closed"


def acting(text: str) -> list[str]:
    return [f"U+{ord(ch):04X}" for ch in text if ch not in "\r\n\t" and unicodedata.category(ch) in DROPPED]


async def test_a_stored_reason_with_control_characters_fails_no_page_or_feed(tmp_path: Path) -> None:
    with club(tmp_path) as made:
        made.create("race", "golden-strider", RUNNERS)
        made.start("race")
        with unit_of_work(made.sessions) as session:
            game = session.scalar(select(Game).where(Game.slug == "race"))
            assert game is not None
            session.add(AuditEntry(game_id=game.id, actor=GM, channel="email", action="SetDeadline", reason=STORED,
                                   detail={"command": "SetDeadline", "arguments": {}}, at=made.clock.now()))  # fmt: skip
        made.play("race", 1)  # the report after it announces it
        async with served(made) as reader:
            page = await reader.get("/games/race")
            status, headers, feed = await reader.response("GET", "/games/race/feed.atom")
    assert status == 200 and headers["Content-Type"].startswith("application/atom+xml"), feed[:300]
    entries = ET.fromstring(feed.encode()).findall(f"{ATOM}entry")
    shown = "\ufffdstorm\ufffd[31m \ufffdevil\ufffd closed"
    assert any(shown in (entry.findtext(f"{ATOM}title") or "") for entry in entries)
    assert any(shown in " ".join((entry.findtext(f"{ATOM}summary") or "").split()) for entry in entries)
    assert shown in page
    assert not acting(page) and not acting(feed)
