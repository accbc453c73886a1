"""A club season of The three-race game, played by mail through ``referee serve``: four teams, three races at once; ``max_moves`` 10 ends it after five deadlines.

The shape of every season test (tests/season/season.py): the host creates the
game by the command line, its game master runs it by mail, the players join
and order by mail as people write, one misses a turn, one is replaced, the
game master extends, pauses, resumes and rolls back once, the game ends and
its exported record verifies; every mail is read as a player would.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from tests.season.club import Club
from tests.season.season import Plan, play_season
from tests.support.dovecot import DovecotServer
from tests.support.smtp_sink import SmtpSink

pytestmark = pytest.mark.integration


def as_numbered(orders: str, phase: str) -> str:
    """The example player's moves (M1, M2) as a player writes them from the report's numbering.

    The phase of the second deadline is titled "deadline 2: moves 3-4": its moves are written
    ``move 3:`` and ``move 4:``, across the game as the report and HELP number them.
    """
    match = re.search(r"moves (\d+)-", phase)
    if match is None:  # the setup
        return orders
    first = int(match.group(1))
    return re.sub(r"(?im)^m(\d+)\b", lambda m: f"move {first + int(m.group(1)) - 1}:", orders)


PLAN = Plan(
    kind="three-races",
    game="tr1",
    seats=("Ann", "Ben", "Cat", "Dan"),
    zone="Europe/London",
    options=("max_moves=10",),
    written=as_numbered,
)


async def test_a_season_of_three_races(dovecot: DovecotServer, smtp_with_login: SmtpSink, tmp_path: Path) -> None:
    began = time.monotonic()
    club = Club(dovecot, smtp_with_login, tmp_path, PLAN.kind, PLAN.game, PLAN.zone)
    club.write_config()
    try:
        record = await play_season(club, PLAN)
    finally:
        await club.kill()
    assert record["game"] == PLAN.kind
    print(f"\nseason {PLAN.kind}: {time.monotonic() - began:.1f} s, {len(club.smtp.messages())} mails")
