"""A club season of L'autobus, played by mail through ``referee serve``: five teams of five cyclists, the whole race.

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
    kind="lautobus",
    game="la1",
    seats=("Ann", "Ben", "Cat", "Dan", "Eve"),
    zone="Europe/Paris",
)


async def test_a_season_of_lautobus(dovecot: DovecotServer, smtp_with_login: SmtpSink, tmp_path: Path) -> None:
    await run_season(PLAN, dovecot, smtp_with_login, tmp_path)
