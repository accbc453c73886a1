"""``referee gm unlink``: the host separates an address from the person it is linked to."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import select

from bot.core.model import commands as c
from bot.core.runtime.service import GameService
from bot.host.cli import main
from bot.store.db import make_engine, session_factory, unit_of_work
from bot.store.models import OutboxMessage
from tests.support.database import migrated_sqlite


def test_the_host_unlinks_an_address_from_the_command_line(tmp_path, capsys):
    database = tmp_path / "r.sqlite3"
    migrated_sqlite(str(database))
    config = tmp_path / "referee.toml"
    config.write_text(f'database = "{database}"\n')
    engine = make_engine(str(database))
    service = GameService(session_factory(engine))
    now = datetime.now(UTC)
    discord = c.Sender("discord", "1234", "Ann")
    asked = service.apply(c.Envelope(discord, (c.RequestLink("email", "ann@club.org"),), "d:1", now,
                                     trust=c.Trust.VERIFIED))  # fmt: skip
    assert asked.results == ("link_sent",)
    engine.dispose()
    assert main(["--config", str(config), "gm", "unlink", "ann@club.org", "--reason", "x"]) == 2
    assert "nobody here is known by ann@club.org (email)" in capsys.readouterr().err
    assert main(["--config", str(config), "gm", "unlink", "discord:1234", "--reason", "x"]) == 2
    assert "is the only address of its player" in capsys.readouterr().err

    engine = make_engine(str(database))
    sessions = session_factory(engine)
    with unit_of_work(sessions) as session:
        code = session.scalars(select(OutboxMessage.data).where(OutboxMessage.template == "link_code")).one()["code"]
    confirmed = GameService(sessions).apply(c.Envelope(discord, (c.ConfirmLink(code),), "d:2", now,
                                                       trust=c.Trust.VERIFIED))  # fmt: skip
    assert confirmed.results == ("linked",)
    engine.dispose()
    assert main(["--config", str(config), "gm", "unlink", "Ann@Club.org", "--reason", "wrong address"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "UNLINKED email ann@club.org" in out and "the seats stay with 1234 (discord)" in out
