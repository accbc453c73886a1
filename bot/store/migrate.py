"""Bringing a database to the latest alembic revision (``referee db upgrade``)."""

from __future__ import annotations

from alembic import command
from alembic.config import Config

from bot.resources import MIGRATIONS_DIR
from bot.store.db import database_url


def alembic_config(target: str) -> Config:
    """An alembic configuration for ``target`` (URL or SQLite path), without an ini file.

    The migrations are found through :mod:`bot.resources` (the installed package's
    copy, else the checkout's ``migrations/``).  Alembic's options go through
    ``configparser`` interpolation, so a ``%`` in either path is doubled.
    """
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR).replace("%", "%%"))
    config.set_main_option("sqlalchemy.url", database_url(target).replace("%", "%%"))
    return config


def upgrade(target: str, revision: str = "head") -> None:
    """Apply every migration up to ``revision``."""
    command.upgrade(alembic_config(target), revision)


def current_revision(target: str) -> str | None:
    """The revision the database is at, or None for an empty database."""
    from alembic.runtime.migration import MigrationContext

    from bot.store.db import make_engine

    engine = make_engine(target)
    try:
        with engine.connect() as connection:
            return MigrationContext.configure(connection).get_current_revision()
    finally:
        engine.dispose()


def head_revision() -> str | None:
    """The newest revision the migrations define."""
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(alembic_config("sqlite://")).get_current_head()


def is_up_to_date(target: str) -> bool:
    """True when ``target`` is at the newest revision (False for an empty or older database)."""
    return current_revision(target) == head_revision()
