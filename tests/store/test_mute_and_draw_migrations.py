"""Migrations 0018 and 0019 on SQLite and PostgreSQL: a press mute made before mutes kept muting both kinds of
the seat's press (nobody suddenly gets press they muted); every turn resolved before drew once (draw 0), and
every game's open turn draws 0 with nothing to deal again."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import text

from bot.store.db import make_engine
from bot.store.migrate import upgrade
from tests.support.postgres import PostgresCluster

AT = datetime(2026, 3, 2, 11, 0, tzinfo=UTC)
_NAMES = itertools.count()


@pytest.fixture(params=["sqlite", "postgresql"])
def at_0017(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty database migrated to revision 0017."""
    if request.param == "sqlite":
        target = str(tmp_path / "old.sqlite3")
    else:
        postgres: PostgresCluster = request.getfixturevalue("postgres")
        name = f"mutes{next(_NAMES)}"
        postgres.execute(f"CREATE DATABASE {name}")
        target = postgres.url(name)
    upgrade(target, "0017")
    return target


def test_old_mutes_keep_muting_and_old_turns_drew_once(at_0017):
    engine = make_engine(at_0017)
    try:
        with engine.begin() as connection:
            for name in ("Ann", "Ben"):
                connection.execute(text("INSERT INTO players (display_name, created_at) VALUES (:name, :at)"),
                                   {"name": name, "at": AT})  # fmt: skip
            connection.execute(
                text("INSERT INTO games (slug, kind, options, seed, commitment, status, time_zone, turn_minutes, "
                     "offer_minutes, decision_minutes, early_processing, auth_mode, phase_number, created_at, "
                     "generation, turn_failures, schedule, min_gap_minutes, early_delay_minutes, grace_minutes, "
                     "reminders, joining_open, join_policy, invited, observers_allowed, absence_limit_days) VALUES "
                     "('g1', 'golden-strider', '{}', 's', 'c', 'running', 'UTC', 60, 60, 60, false, 'password', 1, "
                     ":at, 0, 0, '', 0, 0, 0, '24h', true, 'anyone', '[]', true, 14)"),
                {"at": AT},
            )  # fmt: skip
            for position, (player, seat) in enumerate(((1, "Ann"), (2, "Ben"))):
                connection.execute(
                    text("INSERT INTO seats (game_id, player_id, name, position, secret_hash, resigned, joined_at) "
                         "VALUES (1, :player, :seat, :position, 'h', false, :at)"),
                    {"player": player, "seat": seat, "position": position, "at": AT},
                )  # fmt: skip
            connection.execute(text("INSERT INTO press_mutes (game_id, seat_id, muted_seat_id) VALUES (1, 1, 2)"))
            connection.execute(
                text("INSERT INTO turns (game_id, generation, turn_number, phase_kind, phase_title, state_before, "
                     "orders, defaulted, events, report, private, state_after, resolved_at) VALUES "
                     "(1, 0, 0, 'setup', 'setup', '{}', '{}', '[]', '[]', '{}', '{}', '{}', :at)"),
                {"at": AT},
            )  # fmt: skip
        upgrade(at_0017)
        with engine.connect() as connection:
            mutes = connection.execute(text("SELECT signed, anonymous FROM press_mutes")).all()
            draws = connection.execute(text("SELECT draw FROM turns")).scalars().all()
            game = connection.execute(text("SELECT draw, redeal, kept_draws, orders_kept_turn FROM games")).one()
    finally:
        engine.dispose()
    assert [tuple(row) for row in mutes] == [(True, True)]
    assert draws == [0]
    assert tuple(game) == (0, False, None, None)
