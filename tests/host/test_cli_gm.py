"""``referee gm ...`` (bot/host/cli_gm.py): the host runs a game from the command line, one line per effect, exit 2 refused."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from bot.core.games.stored import find_game
from bot.core.messaging.outbox import OutboxDrain
from bot.core.model import commands as c
from bot.core.runtime.service import GameService
from bot.host.cli import main
from bot.store.db import make_engine, session_factory, unit_of_work
from tests.support.database import migrated_sqlite

SEATS = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay"]


def test_the_host_runs_a_game_from_the_command_line(tmp_path, capsys):
    database = tmp_path / "r.sqlite3"
    migrated_sqlite(str(database))
    config = tmp_path / "referee.toml"
    config.write_text(f'database = "{database}"\n')
    gm = ["--config", str(config), "gm"]

    assert main([*gm, "create", "golden-strider", "cup", "--seats", "6", "--time-zone", "Europe/London",
                 "--schedule", "48h", "--gm", "gm@club.org"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert "CREATED cup" in out and "Deadlines: 2d (Europe/London); seats: 6." in out
    assert main([*gm, "start", "cup"]) == 2
    assert "has 0 of its 6 seats filled" in capsys.readouterr().err

    engine = make_engine(str(database))
    service = GameService(session_factory(engine))
    now = datetime.now(UTC)
    for i, name in enumerate(SEATS):
        sender = c.Sender("email", f"{name.lower()}@club.org", name)
        envelope = c.Envelope(sender, (c.JoinGame("cup", name),), f"join:{i}", now, trust=c.Trust.VERIFIED)
        assert service.apply(envelope).results == ("joined",)
    engine.dispose()

    assert main([*gm, "start", "cup"]) == 0
    assert "STARTED cup" in capsys.readouterr().out
    engine = make_engine(str(database))
    waiting = OutboxDrain(session_factory(engine)).waiting_by_channel()
    engine.dispose()
    assert "cli" not in waiting and waiting["email"] > 0  # the host reads its answers at once: nothing queued
    assert main([*gm, "status", "cup", "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["turn"] == 0 and status["waiting"] == SEATS and status["status"] == "running"
    assert main([*gm, "deadline", "cup", "+1d", "--reason", "a public holiday"]) == 0
    assert "DEADLINE cup" in capsys.readouterr().out
    with pytest.raises(SystemExit) as refused:  # --reason is required: argparse's usage error, exit 2
        main([*gm, "deadline", "cup", "+1d"])
    assert refused.value.code == 2 and "--reason" in capsys.readouterr().err
    assert main([*gm, "orders", "cup", "Ann", "cards 10 8 6 4 2", "--reason", "by phone"]) == 0
    assert "ORDERS ENTERED for cup, seat Ann" in capsys.readouterr().out
    assert main([*gm, "process", "cup", "--turn", "3", "--reason", "typo"]) == 2
    assert "turn 3 of cup is not open (turn 0 is)" in capsys.readouterr().err
    assert main([*gm, "process", "cup", "--turn", "0", "--reason", "everyone agreed"]) == 0
    assert "PROCESSED cup" in capsys.readouterr().out
    assert main([*gm, "process", "cup", "--turn", "0", "--reason", "a repeat"]) == 2  # never two turns
    capsys.readouterr()
    assert main([*gm, "log", "cup", "--json"]) == 0
    entries = json.loads(capsys.readouterr().out)["entries"]
    assert [e["action"] for e in entries] == ["CreateGame", "StartGame", "SetDeadline", "EnterOrders", "ProcessNow"]
    assert all(e["channel"] == "cli" and e["actor"] == "host" for e in entries)
    assert main([*gm, "rollback", "cup", "--to-turn", "0", "--same-draw", "--reason", "the wrong seat"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "ROLLED BACK cup to the start of turn 0" in out and "The same draw" in out, out
    assert main([*gm, "process", "cup", "--turn", "0", "--reason", "as it was"]) == 0
    capsys.readouterr()
    assert main([*gm, "end", "cup", "--reason", "the club closed"]) == 0
    capsys.readouterr()
    assert main(["--config", str(config), "export", "cup"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["game"] == "golden-strider" and len(record["turns"]) == 1


def test_address_authentication_needs_a_trusted_mail_server(tmp_path, capsys):
    """Where the host names no server whose Authentication-Results vouch for senders, no sender can
    ever be vouched for: ``--auth address`` is refused with what to configure; password games work."""
    database = tmp_path / "r.sqlite3"
    migrated_sqlite(str(database))
    config = tmp_path / "referee.toml"
    config.write_text(f'database = "{database}"\n')
    gm = ["--config", str(config), "gm", "create", "golden-strider"]
    assert main([*gm, "open", "--auth", "address"]) == 2
    refusal = capsys.readouterr().err
    assert "email_trusted_authserv_ids names none" in refusal and "deploy/HOSTING.md, Trust" in refusal
    assert main([*gm, "locked", "--auth", "password"]) == 0
    config.write_text(f'database = "{database}"\nemail_trusted_authserv_ids = "mx.club.org"\n')
    assert main([*gm, "open", "--auth", "address"]) == 0
    assert "CREATED open" in capsys.readouterr().out


@pytest.mark.parametrize("abandon", [False, True])
def test_a_game_ended_by_its_gm_exports_replays_and_verifies(tmp_path, capsys, abandon):
    """Ending a game (or abandoning it) reveals its seed as a natural end does; the replay says who ended it."""
    database = tmp_path / "r.sqlite3"
    migrated_sqlite(str(database))
    config = tmp_path / "referee.toml"
    config.write_text(f'database = "{database}"\n')
    gm = ["--config", str(config), "gm"]
    assert main([*gm, "create", "golden-strider", "cup", "--seats", "6"]) == 0
    engine = make_engine(str(database))
    service = GameService(session_factory(engine))
    now = datetime.now(UTC)
    for i, name in enumerate(SEATS):
        sender = c.Sender("email", f"{name.lower()}@club.org", name)
        service.apply(c.Envelope(sender, (c.JoinGame("cup", name),), f"join:{i}", now, trust=c.Trust.VERIFIED))
    engine.dispose()
    assert main([*gm, "start", "cup"]) == 0
    assert main([*gm, "orders", "cup", "Ann", "cards 10 8 6 4 2", "--reason", "by phone"]) == 0
    assert main([*gm, "process", "cup", "--turn", "0", "--reason", "go"]) == 0
    assert main([*gm, "end", "cup", "--reason", "the club closed", *(["--abandon"] if abandon else [])]) == 0
    capsys.readouterr()
    assert main(["--config", str(config), "export", "cup"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["ended"]["by"] == "game master" and record["ended"]["abandoned"] is abandon
    path = tmp_path / "cup.json"
    path.write_text(json.dumps(record))
    assert main(["verify", str(path)]) == 0
    capsys.readouterr()
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    said = "(abandoned by the game master)" if abandon else "(ended by the game master)"
    assert f"=== Standings {said}" in out and "not finished" not in out


def test_gm_help_is_for_users(capsys):
    with pytest.raises(SystemExit):
        main(["gm", "--help"])
    out = capsys.readouterr().out
    assert "Examples:" in out and "+2d3h" in out
    for developer in ("issue", ":mod:", "``", "Trust.VERIFIED", "bot.core"):
        assert developer not in out


def test_the_host_creates_games_with_their_press(tmp_path, capsys):
    """``--press`` (none, white, grey), ``--no-press-gm-copies`` and ``--press-in-record`` are the game's; a
    game without them has white press with GM copies and no texts kept; another word is refused by argparse."""
    database = tmp_path / "r.sqlite3"
    migrated_sqlite(str(database))
    config = tmp_path / "referee.toml"
    config.write_text(f'database = "{database}"\n')
    gm = ["--config", str(config), "gm", "create", "golden-strider"]
    assert main([*gm, "plain"]) == 0
    assert main([*gm, "grey", "--press", "grey", "--no-press-gm-copies", "--press-in-record"]) == 0
    with pytest.raises(SystemExit) as refused:
        main([*gm, "loud", "--press", "loud"])
    assert refused.value.code == 2 and "--press" in capsys.readouterr().err
    engine = make_engine(str(database))
    with unit_of_work(session_factory(engine)) as session:
        plain, grey = find_game(session, "plain"), find_game(session, "grey")
        assert plain is not None and grey is not None
        assert (plain.press, plain.press_gm_copies, plain.press_in_record) == ("white", True, False)
        assert (grey.press, grey.press_gm_copies, grey.press_in_record) == ("grey", False, True)
        assert find_game(session, "loud") is None
    engine.dispose()


def test_the_host_creates_a_game_with_a_ready_check_and_confirms_a_seat(tmp_path, capsys):
    """``--ready-check 24h`` at creation; ``referee gm ready GAME SEAT --reason`` confirms a seat (logged),
    and START waits until every seat has confirmed."""
    database = tmp_path / "r.sqlite3"
    migrated_sqlite(str(database))
    config = tmp_path / "referee.toml"
    config.write_text(f'database = "{database}"\n')
    gm = ["--config", str(config), "gm"]
    assert main([*gm, "create", "three-races", "tr1", "--seats", "4", "--ready-check", "soon"]) == 2
    assert "ready:" in capsys.readouterr().err
    assert main([*gm, "create", "three-races", "tr1", "--seats", "4", "--ready-check", "24h"]) == 0
    capsys.readouterr()
    engine = make_engine(str(database))
    service = GameService(session_factory(engine))
    now = datetime.now(UTC)
    for i, name in enumerate(SEATS[:4]):
        sender = c.Sender("email", f"{name.lower()}@club.org", name)
        envelope = c.Envelope(sender, (c.JoinGame("tr1", name),), f"join:{i}", now, trust=c.Trust.VERIFIED)
        assert service.apply(envelope).results == ("joined",)
    for i, name in enumerate(SEATS[:3]):  # the check begins when the fourth seat is taken
        sender = c.Sender("email", f"{name.lower()}@club.org", name)
        envelope = c.Envelope(sender, (c.ConfirmReady("tr1"),), f"ready:{i}", now, trust=c.Trust.VERIFIED)
        assert service.apply(envelope).results == ("ready_confirmed",)
    engine.dispose()
    assert main([*gm, "start", "tr1"]) == 2
    assert "still to confirm: Dan" in capsys.readouterr().err
    assert main([*gm, "ready", "tr1", "Nobody", "--reason", "x"]) == 2
    assert "has no seat 'Nobody'" in capsys.readouterr().err
    assert main([*gm, "ready", "tr1", "Dan", "--reason", "he said so by phone"]) == 0
    out = capsys.readouterr().out
    assert "READY tr1" in out and "confirmed by the game master" in out
    assert main([*gm, "ready", "tr1", "Dan", "--reason", "again"]) == 2
    assert "already confirmed" in capsys.readouterr().err
    assert main([*gm, "log", "tr1"]) == 0
    assert "he said so by phone" in capsys.readouterr().out
    assert main([*gm, "start", "tr1"]) == 0
    assert "STARTED tr1" in capsys.readouterr().out


def test_create_takes_a_minimum_reliability_and_join_answers_with_it(tmp_path, capsys):
    """``referee gm create --min-reliability 80``: stored on the game, a JOIN of a player below it (after five
    turns owed, all missed) refused with the figure and the minimum; out of 0-100 refused at creation."""
    database = tmp_path / "r.sqlite3"
    migrated_sqlite(str(database))
    config = tmp_path / "referee.toml"
    config.write_text(f'database = "{database}"\n')
    gm = ["--config", str(config), "gm"]
    assert main([*gm, "create", "golden-strider", "old", "--seats", "6"]) == 0
    assert main([*gm, "create", "golden-strider", "picky", "--min-reliability", "80"]) == 0
    assert main([*gm, "create", "golden-strider", "bad", "--min-reliability", "120"]) == 2
    assert "min-reliability: a percentage from 0 to 100, not 120" in capsys.readouterr().err

    engine = make_engine(str(database))
    service = GameService(session_factory(engine))
    now = datetime.now(UTC)

    def send(name: str, command: c.Command, key: str):
        sender = c.Sender("email", f"{name.lower()}@club.org", name)
        return service.apply(c.Envelope(sender, (command,), key, now, trust=c.Trust.VERIFIED))

    for name in SEATS:
        assert send(name, c.JoinGame("old", name), f"join:{name}").results == ("joined",)
    engine.dispose()
    assert main([*gm, "start", "old"]) == 0
    for turn in range(5):  # nobody orders: each turn processed by the host
        assert main([*gm, "process", "old", "--turn", str(turn), "--reason", "nobody ordered"]) == 0
    engine = make_engine(str(database))
    service = GameService(session_factory(engine))
    refused = send("Ann", c.JoinGame("picky", "Ann"), "join:picky")
    engine.dispose()
    assert refused.problems == ("below_min_reliability",)


def test_the_host_puts_a_seat_up_for_a_substitute_and_accepts_the_first_taker(tmp_path, capsys):
    """``--substitute-after 2`` at creation; ``referee gm substitute GAME SEAT`` offers a seat to the standby
    list, ``... accept`` gives it to the first who asked (logged), a mistyped action is refused by argparse."""
    database = tmp_path / "s.sqlite3"
    migrated_sqlite(str(database))
    config = tmp_path / "referee.toml"
    config.write_text(f'database = "{database}"\n')
    gm = ["--config", str(config), "gm"]
    assert main([*gm, "create", "three-races", "tr1", "--seats", "4", "--substitute-after", "99"]) == 2
    assert "substitute after" in capsys.readouterr().err
    assert main([*gm, "create", "three-races", "tr1", "--seats", "4", "--substitute-after", "2"]) == 0
    capsys.readouterr()
    engine = make_engine(str(database))
    service = GameService(session_factory(engine))
    now = datetime.now(UTC)

    def send(name: str, command: c.Command, n: int) -> tuple[str, ...]:
        sender = c.Sender("email", f"{name.lower()}@club.org", name)
        return service.apply(c.Envelope(sender, (command,), f"{name}:{n}", now, trust=c.Trust.VERIFIED)).results

    for i, name in enumerate(SEATS[:4]):
        assert send(name, c.JoinGame("tr1", name), i) == ("joined",)
    assert send("Zed", c.SetStandby("three-races"), 9) == ("standby_set",)
    assert main([*gm, "start", "tr1"]) == 0
    assert main([*gm, "substitute", "tr1", "Ben", "--reason", "Ben is moving house"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "Seat Ben is up for a substitute: 1 player on the standby list was told" in out
    assert main([*gm, "substitute", "tr1", "Ben", "accept"]) == 2
    assert "nobody has offered to take seat Ben" in capsys.readouterr().err
    assert send("Zed", c.TakeSeat("tr1", "Ben"), 10) == ("take_waiting",)
    engine.dispose()
    with pytest.raises(SystemExit):
        main([*gm, "substitute", "tr1", "Ben", "maybe"])
    capsys.readouterr()
    assert main([*gm, "substitute", "tr1", "Ben", "accept", "--reason", "Zed plays well"]) == 0
    assert "now belongs to Zed" in " ".join(capsys.readouterr().out.split())
    assert main([*gm, "log", "tr1"]) == 0
    assert "Ben is moving house" in capsys.readouterr().out
