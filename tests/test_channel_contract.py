"""A channel added through the contract alone: its channel.py and one entry of the list of channels.

The dummy channel (tests/support/dummy_channel) is added to ``bot.channels.registry.CHANNELS``
and nothing else: the settings read its section from the file and the
environment, the doctor runs its checks, ``dummy:xyz`` is an address wherever
a channel's address is taken, the core's configuration gives games a public
place on it, and ``referee serve``'s wiring builds and runs its workers; a
message sent on it is applied and its reply comes back on it, a game its
game master creates is announced in its public place, and a game played on it
sends each seat its turn report (through the core's intake runner and sender
loop: the channel brings only its source, understanding and transport).
"""

from __future__ import annotations

import asyncio
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.channels import registry as channels
from bot.core.basics.clock import SimulatedClock
from bot.core.model import commands as c
from bot.core.runtime import supervisor
from bot.host.doctor import run_checks
from bot.host.wiring import public_channels, service_config, status_channels, workers
from bot.settings.loader import Settings, SettingsError, secret_names
from bot.store.db import make_engine, session_factory
from tests.support.addresses import expected_addresses
from tests.support.database import migrated_sqlite
from tests.support.dummy_channel.channel import DummySettings, Line, dummy_channel


@pytest.fixture
def line(monkeypatch: pytest.MonkeyPatch) -> Line:
    """A line of the dummy channel's own, its channel added to the list (the one change a channel needs)."""
    line = Line()
    monkeypatch.setattr(channels, "CHANNELS", (*channels.CHANNELS, dummy_channel(line)))
    return line


def dummy(settings: Settings) -> DummySettings:
    section = settings.channels["dummy"]
    assert isinstance(section, DummySettings)
    return section


def test_its_section_is_read_from_the_file_and_the_environment(line: Line, tmp_path: Path) -> None:
    config = tmp_path / "referee.toml"
    config.write_text("[referee.dummy]\nenabled = true\npoll_seconds = 0.5\n")
    settings = Settings.load(config, {"REFEREE_DUMMY_TOKEN": "dummy-secret-42", "REFEREE_DUMMY_BATCH": "3"})
    assert dummy(settings) == DummySettings(enabled=True, token="dummy-secret-42", poll_seconds=0.5, batch=3)
    assert "dummy-secret-42" not in repr(settings) and "dummy-secret-42" in settings.secrets()
    assert "dummy_token" in secret_names()
    assert Settings.load(config, {}).missing() == ["dummy_token: missing: set REFEREE_DUMMY_TOKEN"]
    assert dummy(Settings()) == DummySettings(), "its defaults, when nothing names it"

    config.write_text("[referee.dummy]\nenabeld = true\nbatch = 0\n[referee.dumy]\nx = 1\n")
    with pytest.raises(SettingsError) as caught:
        Settings.load(config, {"REFEREE_DUMMY_TOKN": "dummy-secret-42"})
    problems = "\n".join(caught.value.problems)
    assert "dummy_enabeld: unknown setting (enabeld in [referee.dummy]); did you mean dummy_enabled?" in problems
    assert "dummy_batch: expected a whole number from 1 to 100, got 0" in problems
    assert "dumy: unknown setting ([referee.dumy]); did you mean dummy?" in problems
    assert "REFEREE_DUMMY_TOKN: unknown setting; did you mean REFEREE_DUMMY_TOKEN?" in problems
    assert "dummy-secret-42" not in problems


def test_without_it_in_the_list_its_settings_are_unknown(tmp_path: Path) -> None:
    config = tmp_path / "referee.toml"
    config.write_text("[referee.dummy]\nenabled = true\n")
    with pytest.raises(SettingsError, match=r"dummy: unknown setting \(\[referee.dummy\]\)"):
        Settings.load(config, {})


def test_the_doctor_runs_its_checks(line: Line, tmp_path: Path) -> None:
    settings = Settings().merged({"database": str(tmp_path / "absent.sqlite3"), "dummy_enabled": True})
    lines = [check.line() for check in run_checks(settings)]
    assert "ok   dummy line: 0 waiting" in lines
    assert "settings: dummy_token is missing" in "\n".join(lines)


def test_its_addresses_are_taken_where_channel_addresses_are(line: Line) -> None:
    assert channels.parse_address("dummy:Xyz") == ("dummy", "xyz")
    assert channels.parse_address("ann@club.org") == ("email", "ann@club.org"), "the others' stay theirs"
    with pytest.raises(ValueError, match="dummy names"):
        channels.parse_address("dummy:x y")
    settings = Settings().merged({"game_masters": ["dummy:xyz", "gm@club.org"], "host_addresses": "dummy:host"})
    config = service_config(settings)
    assert config.game_masters == {"xyz", "gm@club.org"}
    assert config.host_recipients == (("dummy", "host"),)
    assert expected_addresses().endswith(", dummy names)"), "the dummy's words, last of the list"
    with pytest.raises(SettingsError, match=re.escape(expected_addresses())):
        Settings().merged({"game_masters": ["dummy:x y"]})


def test_its_public_place_is_the_games(line: Line) -> None:
    assert public_channels(Settings().merged({"dummy_enabled": True})) == ()
    public = Settings().merged({"dummy_enabled": True, "dummy_public": True})
    assert public_channels(public) == ("dummy",) and service_config(public).public_channels == ("dummy",)
    assert status_channels(public) == (), "it keeps no status board"


def test_its_workers_run_under_the_supervisor_and_a_reply_comes_back(line: Line, tmp_path: Path) -> None:
    database = str(tmp_path / "referee.sqlite3")
    migrated_sqlite(database)
    engine = make_engine(database)
    try:
        sessions = session_factory(engine)
        settings = Settings().merged({"database": database, "dummy_enabled": True, "dummy_token": "t"})
        clock = SimulatedClock(datetime(2026, 5, 1, 12, tzinfo=UTC))
        assert [w.name for w in workers(Settings().merged({"database": database}), sessions, clock)] == ["deadlines"]
        found = workers(settings, sessions, clock)
        assert [w.name for w in found][-2:] == ["dummy-intake", "dummy-sender"]
        line.inbound.append(("1", "xyz", "HELP"))
        assert asyncio.run(supervisor.run_once(found))
        (reply,) = line.delivered
        assert (reply.channel, reply.recipient, reply.kind) == ("dummy", "xyz", "reply")
        assert line.acknowledged == {"1"}, "stored, then acknowledged"

        line.acknowledged.clear()  # the line forgot: the same message is listed again, and applied once only
        line.inbound.append(("2", "abc", "HELP"))

        async def serve_a_while() -> None:
            stop = asyncio.Event()
            task = asyncio.create_task(supervisor.serve(found, stop))
            for _ in range(200):
                if len(line.delivered) == 2:
                    break
                await asyncio.sleep(0.02)
            stop.set()
            await asyncio.wait_for(task, 5)

        asyncio.run(serve_a_while())
        assert [row.recipient for row in line.delivered] == ["xyz", "abc"]
    finally:
        engine.dispose()


def test_a_game_master_on_it_creates_a_game_announced_in_its_public_place(line: Line, tmp_path: Path) -> None:
    database = str(tmp_path / "referee.sqlite3")
    migrated_sqlite(database)
    engine = make_engine(database)
    try:
        settings = Settings().merged({
            "database": database, "dummy_enabled": True, "dummy_token": "t", "dummy_public": True,
            "game_masters": ["dummy:gail"],
        })  # fmt: skip
        found = workers(settings, session_factory(engine), SimulatedClock(datetime(2026, 5, 1, 12, tzinfo=UTC)))
        line.inbound.extend([("1", "gail", "CREATE gs1 golden-strider"), ("2", "ann", "JOIN gs1 Ann")])
        assert asyncio.run(supervisor.run_once(found))
        replies = {row.recipient: row.data for row in line.delivered if row.kind == "reply"}
        assert replies["gail"]["items"][0]["code"] == "created", replies["gail"]
        assert replies["ann"]["items"][0]["code"] == "joined", replies["ann"]
        sent = {(row.recipient, row.kind) for row in line.delivered}
        assert sent == {("public:gs1", "report"), ("gail", "reply"), ("ann", "reply"), ("gail", "notice")}
        [told] = [row.data for row in line.delivered if row.kind == "notice"]
        assert told["seat"] == "Ann" and told["owed"] == 0, "the game master hears of the JOIN, with the record"
    finally:
        engine.dispose()


def test_reading_the_list_and_the_settings_loads_no_channel_library() -> None:
    """Every ``referee`` command reads the settings (so the list of channels): a channel.py imports its
    adapter and libraries only when its workers or doctor checks are built."""
    import subprocess
    import sys

    code = (
        "import sys, bot.host.cli, bot.channels.registry, bot.settings.loader; bot.settings.loader.Settings.load(None, {}); "
        "print(sorted(m for m in ('discord', 'imapclient', 'aiosmtplib', 'aiohttp', 'sqlalchemy') if m in sys.modules))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "[]"


def test_each_channel_is_named_as_its_adapter_names_it() -> None:
    from bot.discord import understand as conversion
    from bot.discord.channel import CHANNEL as DISCORD
    from bot.email import transport
    from bot.email.channel import CHANNEL as EMAIL

    assert (EMAIL.name, DISCORD.name) == (transport.CHANNEL, conversion.CHANNEL)


@pytest.mark.parametrize("written", ["1234", "discord:1234", "Ann@Club.org", "email:ann@club.org", "<ann@club.org>"])
def test_mail_and_referee_gm_read_an_address_alike(written: str) -> None:
    """One parser of every channel's addresses (bot.channels.registry.parse_address): a GM's ``ADD GM`` by mail,
    read as ``referee serve`` reads it, names the same person as ``referee gm add-gm`` (bare digits:
    a Discord user id; an address with an @: an email address)."""
    from bot.email.mail_reading import read_commands
    from bot.host.cli_gm import _address
    from bot.text.gm_vocabulary import addresses_read_by

    with addresses_read_by(channels.parse_address):
        (command,) = read_commands("", f"ADD GM gs1 {written}\nREASON help").commands
    assert isinstance(command, c.AddGameMaster)
    assert (command.channel, command.address) == _address(written.strip("<>"))


def test_mail_says_an_address_no_channel_reads_and_does_nothing() -> None:
    from bot.email.mail_reading import read_commands
    from bot.text.gm_vocabulary import addresses_read_by

    with addresses_read_by(channels.parse_address):
        (command,) = read_commands("", "ADD GM gs1 fax:0123\nREASON help").commands
    assert isinstance(command, c.NotUnderstood) and "nothing was done" in command.reason, command


def test_referee_serve_reads_mail_addresses_with_the_list_of_channels(tmp_path: Path) -> None:
    """The email intake ``referee serve`` builds reads GM addresses with the channels' one parser."""
    database = str(tmp_path / "referee.sqlite3")
    migrated_sqlite(database)
    engine = make_engine(database)
    try:
        settings = Settings().merged({"database": database, "maildir_inbox": str(tmp_path / "in")})
        found = workers(settings, session_factory(engine), SimulatedClock(datetime(2026, 5, 1, 12, tzinfo=UTC)))
        (intake,) = [w for w in found if w.name == "email-intake"]
        policy = intake.intake.intake.processor.policy  # type: ignore[attr-defined]
        assert policy.read_address is channels.parse_address
    finally:
        engine.dispose()


def test_a_game_played_on_it_sends_each_seat_the_turn_report(line: Line, tmp_path: Path) -> None:
    """Two players join and the game master starts a game on the dummy line; at the deadline the
    turn resolves by the game's rule for seats that sent nothing, and its report reaches each seat
    and the public place through the channel's transport."""
    database = str(tmp_path / "referee.sqlite3")
    migrated_sqlite(database)
    engine = make_engine(database)
    try:
        settings = Settings().merged({
            "database": database, "dummy_enabled": True, "dummy_token": "t", "dummy_public": True,
            "game_masters": ["dummy:gail"],
        })  # fmt: skip
        clock = SimulatedClock(datetime(2026, 5, 1, 12, tzinfo=UTC))
        found = workers(settings, session_factory(engine), clock)
        line.inbound.extend([("1", "gail", "CREATE sg1 strike-gold"), ("2", "ann", "JOIN sg1 Ann"),
                             ("3", "bob", "JOIN sg1 Bob")])  # fmt: skip
        assert asyncio.run(supervisor.run_once(found))
        line.inbound.append(("4", "gail", "START sg1"))
        assert asyncio.run(supervisor.run_once(found))
        started = [row.data for row in line.delivered if row.recipient == "gail" and row.kind == "reply"][-1]
        assert started["items"][0]["code"] == "started", started
        reports_before = [row for row in line.delivered if row.kind == "report"]

        clock.advance(timedelta(days=3))  # past the first deadline: nobody sent orders
        assert asyncio.run(supervisor.run_once(found))

        reports = [row for row in line.delivered if row.kind == "report" and row not in reports_before]
        assert {"ann", "bob", "public:sg1"} <= {row.recipient for row in reports}, [r.recipient for r in reports]
    finally:
        engine.dispose()
