"""A club season of The three-race game, played by mail through ``referee serve``: four teams, three races at once; ``max_moves`` 10 ends it after five deadlines.

The shape of every season test (tests/season/season.py): the host creates the
game by the command line, its game master runs it by mail, the players join
and order by mail as people write, one misses a turn, one is replaced, the
game master extends, pauses, resumes and rolls back once, the game ends and
its exported record verifies; every mail is read as a player would.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.season.season import Plan, run_season
from tests.support.dovecot import DovecotServer
from tests.support.smtp_sink import SmtpSink

pytestmark = pytest.mark.integration


def as_numbered(orders: str, phase: str) -> str:
    """The example player's moves as a player writes them from the report's numbering.

    The phase of the second deadline is titled "deadline 2: moves 3-4": its moves are written
    ``move 3:`` and ``move 4:``, across the game as the report and HELP number them.  The
    example player already numbers them so (``M3``, ``3:`` or ``move 3:``); ``M3`` is spelled
    ``move 3:`` here, and every number written must be one of the phase's moves (adding the
    phase's first move again sent ``move 5`` at moves 3-4, which no player writes).
    """
    match = re.search(r"moves? (\d+)(?:-(\d+))?", phase)
    if match is None:  # the setup
        return orders
    written = re.sub(r"(?im)^m(\d+)\b\s*", r"move \1: ", orders)
    first, last = int(match.group(1)), int(match.group(2) or match.group(1))
    numbers = [int(n) for n in re.findall(r"(?im)(?:^|;\s*)(?:move\s+)?(\d+)(?=\s*(?::|\bif\b))", written)]
    assert numbers and all(first <= n <= last for n in numbers), (phase, written)
    return written


PLAN = Plan(
    kind="three-races",
    game="tr1",
    seats=("Ann", "Ben", "Cat", "Dan"),
    zone="Europe/London",
    options=("max_moves=10",),
    written=as_numbered,
)


async def test_a_season_of_three_races(dovecot: DovecotServer, smtp_with_login: SmtpSink, tmp_path: Path) -> None:
    await run_season(PLAN, dovecot, smtp_with_login, tmp_path)
