"""A club season of Golden Strider, the steeplechase, played by mail through ``referee serve``.

The shape of every season test (tests/season/season.py): the host creates the
game by the command line, its game master runs it by mail, six runners join
and order by mail as people write, one misses a turn, one is replaced, the
game master extends, pauses, resumes and rolls back once, the race ends and
its exported record verifies; every mail is read as a player would.  The
steeplechase is 70 squares: ``max_rounds`` 5 stops it after five rounds.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.season.season import Plan, run_season
from tests.support.dovecot import DovecotServer
from tests.support.smtp_sink import SmtpSink

pytestmark = pytest.mark.integration

PLAN = Plan(
    kind="golden-strider", game="gs1", seats=("Ann", "Ben", "Cat", "Dan", "Eve", "Fay"), zone="America/New_York",
    options=("steeplechase=true", "max_rounds=5"),
    schedule="24h",
)  # fmt: skip


async def test_a_season_of_golden_strider_steeplechase(
    dovecot: DovecotServer, smtp_with_login: SmtpSink, tmp_path: Path
) -> None:
    record = await run_season(PLAN, dovecot, smtp_with_login, tmp_path)
    assert record["options"]["steeplechase"] is True
