"""Migration 0016 starts the history of who held each seat from the seats there are, on SQLite and
PostgreSQL: each seat's present player holds it since it was joined, answering for every turn; a
resigned seat's holding is closed as resigned.  A game's ``min_reliability`` starts empty."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import text

from bot.store.db import make_engine
from bot.store.migrate import upgrade
from tests.support.postgres import PostgresCluster

JOINED = datetime(2026, 3, 2, 11, 0, tzinfo=UTC)
_NAMES = itertools.count()


@pytest.fixture(params=["sqlite", "postgresql"])
def at_0013(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty database migrated to revision 0013."""
    if request.param == "sqlite":
        target = str(tmp_path / "old.sqlite3")
    else:
        postgres: PostgresCluster = request.getfixturevalue("postgres")
        name = f"holders{next(_NAMES)}"
        postgres.execute(f"CREATE DATABASE {name}")
        target = postgres.url(name)
    upgrade(target, "0013")
    return target


def test_the_upgrade_gives_each_seat_its_present_player_as_holder(at_0013):
    engine = make_engine(at_0013)
    try:
        with engine.begin() as connection:
            for name in ("Ann", "Ben"):
                connection.execute(text("INSERT INTO players (display_name, created_at) VALUES (:name, :at)"),
                                   {"name": name, "at": JOINED})  # fmt: skip
            connection.execute(
                text("INSERT INTO games (slug, kind, options, seed, commitment, status, time_zone, turn_minutes, "
                     "offer_minutes, decision_minutes, early_processing, auth_mode, phase_number, created_at, "
                     "generation, turn_failures, schedule, min_gap_minutes, early_delay_minutes, grace_minutes, "
                     "reminders, joining_open, join_policy, invited, observers_allowed, absence_limit_days) VALUES "
                     "('g1', 'golden-strider', '{}', 's', 'c', 'running', 'UTC', 60, 60, 60, false, 'password', 3, "
                     ":at, 0, 0, '', 0, 0, 0, '24h', true, 'anyone', '[]', true, 14)"),
                {"at": JOINED},
            )  # fmt: skip
            for position, (player, seat, resigned) in enumerate(((1, "Ann", False), (2, "Ben", True))):
                connection.execute(
                    text("INSERT INTO seats (game_id, player_id, name, position, secret_hash, resigned, joined_at) "
                         "VALUES (1, :player, :seat, :position, 'h', :resigned, :at)"),
                    {"player": player, "seat": seat, "position": position, "resigned": resigned, "at": JOINED},
                )  # fmt: skip
        upgrade(at_0013)
        with engine.connect() as connection:
            rows = connection.execute(text("SELECT game_id, seat_name, player_id, since_at, first_turn, until_at, "
                                           "ended FROM seat_holders ORDER BY seat_name")).all()  # fmt: skip
            minimum = connection.execute(text("SELECT min_reliability FROM games")).scalar_one()
    finally:
        engine.dispose()
    assert [(r.game_id, r.seat_name, r.player_id, r.first_turn, r.ended) for r in rows] == [
        (1, "Ann", 1, 0, None),
        (1, "Ben", 2, 0, "resigned"),
    ]
    assert rows[0].until_at is None and rows[1].until_at is not None
    assert minimum is None
