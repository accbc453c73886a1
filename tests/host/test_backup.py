"""``referee db backup PATH``: an online SQLite copy that restores to the same games; PostgreSQL refused with pg_dump."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

from bot.core.views import GameViews
from bot.host.cli import main
from bot.store.backup import BackupRefused, backup, pg_dump_command
from bot.store.db import make_engine, session_factory
from bot.store.migrate import is_up_to_date
from tests.email.world import build_world


def test_a_backup_taken_while_a_connection_writes_restores_the_games(tmp_path: Path, maildir_config: Path, capsys):
    live = tmp_path / "referee.sqlite3"
    engine = make_engine(str(live))
    build_world(session_factory(engine))
    writer = sqlite3.connect(live)  # the bot is running: WAL mode, a transaction in progress
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("UPDATE games SET turn_minutes = 99 WHERE slug = 'demo'")
    copy = tmp_path / "backups" / "referee-copy.sqlite3"
    copy.parent.mkdir()
    assert main(["--config", str(maildir_config), "db", "backup", str(copy)]) == 0
    assert f"backed up to {copy}" in capsys.readouterr().out
    writer.rollback()
    writer.close()
    engine.dispose()

    restored = tmp_path / "restored" / "referee.sqlite3"
    restored.parent.mkdir()
    shutil.copyfile(copy, restored)  # restoring is putting the file back in place
    assert is_up_to_date(str(restored))
    engine = make_engine(str(restored))
    views = GameViews(session_factory(engine))
    for slug in ("demo", "club", "newgame"):
        game = views.game(slug)
        assert game is not None and game.kind == "golden-strider"
    demo = views.game("demo")
    assert demo is not None and len(demo.seats) == 6
    with sqlite3.connect(restored) as check:
        assert check.execute("SELECT turn_minutes FROM games WHERE slug = 'demo'").fetchone()[0] != 99
    engine.dispose()
    assert main(["--config", str(maildir_config), "db", "backup", str(copy)]) == 2
    assert "exists already" in capsys.readouterr().err


def test_postgresql_is_refused_with_the_pg_dump_command(capsys):
    url = "postgresql+psycopg://referee:SECRET@db.example.org:5433/games"
    with pytest.raises(BackupRefused) as refused:
        backup(url, Path("/tmp/never"))
    assert "pg_dump --format=custom" in str(refused.value) and "SECRET" not in str(refused.value)
    assert pg_dump_command(url).endswith("--host=db.example.org --port=5433 --username=referee games")
    assert main(["db", "backup", "--db", url, "/tmp/never"]) == 2
    assert "postgresql is backed up with its own tool: pg_dump" in capsys.readouterr().err


@pytest.mark.integration
def test_the_pg_dump_line_it_prints_backs_up_and_restores(tmp_path: Path, postgres, postgres_template, capsys):
    from tests.support.database import fresh_postgres_database

    url = fresh_postgres_database(postgres, postgres_template)
    engine = make_engine(url)
    build_world(session_factory(engine))
    engine.dispose()
    assert main(["db", "backup", "--db", url, str(tmp_path / "unused")]) == 2
    line = capsys.readouterr().err.split("its own tool: ", 1)[1].strip()
    assert line.startswith("pg_dump ")
    bindir = postgres.bindir
    done = subprocess.run(["bash", "-c", line], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={"PATH": f"{bindir}:/usr/bin:/bin"})  # fmt: skip
    assert done.returncode == 0, done.stderr
    (dump,) = tmp_path.glob("referee-*.dump")
    postgres.execute("CREATE DATABASE restored")
    restore = subprocess.run(
        [str(bindir / "pg_restore"), "--host=127.0.0.1", f"--port={postgres.port}", "--username=postgres",
         "--dbname=restored", str(dump)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert restore.returncode == 0, restore.stderr
    engine = make_engine(postgres.url("restored"))
    views = GameViews(session_factory(engine))
    assert [views.game(slug) is not None for slug in ("demo", "club", "newgame")] == [True, True, True]
    assert is_up_to_date(postgres.url("restored"))
    engine.dispose()
