"""A game created without a time zone takes the host's ``time_zone`` setting (the example config
says so), whether created from the command line, by mail (CREATE without ZONE) or elsewhere;
a zone the creator names wins."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from bot.core.model import commands as c
from bot.core.model.config import ServiceConfig
from bot.email.mail_reading import read_commands
from bot.host.cli import main
from bot.store.db import make_engine, session_factory, unit_of_work
from bot.store.models import Game
from tests.core.harness import GM_ADDRESS, Harness
from tests.support.database import migrated_sqlite


def zone_of(sessions, slug: str) -> str:
    with unit_of_work(sessions) as session:
        return session.scalars(select(Game.time_zone).where(Game.slug == slug)).one()


def test_the_command_line_takes_the_hosts_zone(tmp_path, capsys) -> None:
    database = tmp_path / "r.sqlite3"
    migrated_sqlite(str(database))
    config = tmp_path / "referee.toml"
    config.write_text(f'database = "{database}"\ntime_zone = "Europe/London"\n')
    gm = ["--config", str(config), "gm"]
    assert main([*gm, "create", "golden-strider", "cup", "--seats", "6"]) == 0
    assert "(Europe/London)" in capsys.readouterr().out
    assert main([*gm, "create", "golden-strider", "away", "--seats", "6", "--time-zone", "Asia/Tokyo"]) == 0
    engine = make_engine(str(database))
    try:
        sessions = session_factory(engine)
        assert zone_of(sessions, "cup") == "Europe/London"
        assert zone_of(sessions, "away") == "Asia/Tokyo"
    finally:
        engine.dispose()


@pytest.mark.parametrize(
    ("body", "zone"),
    [("SEATS 6", "Europe/London"), ("SEATS 6\nZONE America/New_York", "America/New_York")],
)
def test_create_by_mail_takes_the_hosts_zone_unless_it_names_one(sessions, body: str, zone: str) -> None:
    harness = Harness(sessions, config=ServiceConfig(game_masters=frozenset({GM_ADDRESS}),
                                                     default_time_zone="Europe/London"))  # fmt: skip
    commands = read_commands("CREATE g1 golden-strider", body + "\n").commands
    assert [type(command) for command in commands] == [c.CreateGame]
    assert harness.send("GM", *commands).applied.results == ("created",)
    assert zone_of(sessions, "g1") == zone
