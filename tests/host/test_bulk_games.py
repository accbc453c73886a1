"""``referee host bulk-games`` (bot/host/bulk_games.py): real games through the core's commands, none touched twice."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from bot.host.cli import main
from bot.store.db import make_engine, session_factory, unit_of_work
from bot.store.models import Game, OutboxMessage, Seat
from tests.support.database import migrated_sqlite


def test_bulk_games_makes_running_games_and_never_touches_existing_ones(tmp_path, capsys):
    database = tmp_path / "r.sqlite3"
    migrated_sqlite(str(database))
    config = tmp_path / "referee.toml"
    config.write_text(f'database = "{database}"\n')
    bulk = ["--config", str(config), "host", "bulk-games", "--kind", "golden-strider"]

    assert main(bulk) == 2  # no --count: nothing done
    assert "--count" in capsys.readouterr().err
    assert main([*bulk, "--count", "3", "--players", "8", "--batch", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split(" ")[0] for line in out] == ["2/3", "3/3"]  # a progress line a batch
    engine = make_engine(str(database))
    with unit_of_work(session_factory(engine)) as session:
        games = session.scalars(select(Game).order_by(Game.slug)).all()
        assert [(g.slug, g.status) for g in games] == [(f"bulk{n}", "running") for n in (1, 2, 3)]
        assert all(g.deadline_at is not None and g.seed for g in games)
        seats = session.scalar(select(func.count()).select_from(Seat).where(Seat.secret_hash.is_not(None)))
        assert seats == 24
        first_seed = games[0].seed
    assert main([*bulk, "--count", "1", "--players", "8"]) == 0  # goes on after bulk3
    assert "(bulk4)" in capsys.readouterr().out
    with unit_of_work(session_factory(engine)) as session:
        assert session.scalar(select(Game.seed).where(Game.slug == "bulk1")) == first_seed
        assert session.scalar(select(func.count()).select_from(Game)) == 4
        assert session.scalar(select(func.count()).select_from(OutboxMessage)) == 0  # all answered inline
    engine.dispose()


def test_bulk_games_refuses_a_wrong_player_count(tmp_path, capsys):
    database = tmp_path / "r.sqlite3"
    migrated_sqlite(str(database))
    config = tmp_path / "referee.toml"
    config.write_text(f'database = "{database}"\n')
    assert main(["--config", str(config), "host", "bulk-games", "--kind", "golden-strider", "--count", "2",
                 "--players", "99"]) == 2  # fmt: skip
    assert "not 99" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--config", str(config), "host", "bulk-games", "--count", "2"])  # --kind is required
