"""A club season of Strike Gold, played by mail through ``referee serve``: two players, one round to 50 points (``game_to`` 50); each player's move is a turn.

The shape of every season test (tests/season/season.py): the host creates the
game by the command line, its game master runs it by mail, the players join
and order by mail as people write, one misses a turn, one is replaced, the
game master extends, pauses, resumes and rolls back once, the game ends and
its exported record verifies; every mail is read as a player would.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.season.season import Plan, run_season
from tests.support.dovecot import DovecotServer
from tests.support.smtp_sink import SmtpSink

pytestmark = pytest.mark.integration

PLAN = Plan(
    kind="strike-gold",
    game="sg1",
    seats=("Ann", "Ben"),
    zone="Asia/Tokyo",
    options=("game_to=50",),
)


async def test_a_season_of_strike_gold(dovecot: DovecotServer, smtp_with_login: SmtpSink, tmp_path: Path) -> None:
    await run_season(PLAN, dovecot, smtp_with_login, tmp_path)
