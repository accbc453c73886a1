"""Migrations: upgrading an empty database to head gives exactly the models' schema."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory

from bot.store.db import make_engine
from bot.store.migrate import alembic_config, current_revision
from bot.store.models import Base


def test_upgrade_to_head_matches_the_models(database_url):
    """database_url is already upgraded to head (SQLite file, or a PostgreSQL database)."""
    head = ScriptDirectory.from_config(alembic_config(database_url)).get_current_head()
    assert current_revision(database_url) == head
    engine = make_engine(database_url)
    try:
        with engine.connect() as connection:
            context = MigrationContext.configure(connection, opts={"compare_type": True})
            differences = compare_metadata(context, Base.metadata)
    finally:
        engine.dispose()
    assert differences == []


def test_upgrade_is_idempotent(tmp_path):
    from bot.store.migrate import upgrade

    target = str(tmp_path / "twice.sqlite3")
    upgrade(target)
    upgrade(target)
    assert current_revision(target) is not None


def test_migrations_never_import_the_models():
    from bot.resources import MIGRATIONS_DIR

    for version in (MIGRATIONS_DIR / "versions").glob("*.py"):
        text = version.read_text()
        assert "bot.store" not in text and "import bot" not in text, version.name
