"""The ``referee`` command: replay, verify, db upgrade, demo; user errors exit 2 in one line."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bot.host.cli import main
from bot.store.migrate import head_revision

RECORDS = Path(__file__).parent.parent / "adjudicator" / "golden_strider" / "records"


def test_replay_prints_every_round_and_the_standings(capsys):
    assert main(["replay", str(RECORDS / "flat_race_6.json")]) == 0
    out = capsys.readouterr().out
    assert "=== Golden Strider: turn 0, setup" in out
    assert "Round 23 of a 60-square race" in out
    assert "=== Standings" in out and "1. Steve Ovett  (63)" in out


def test_replay_json(capsys):
    assert main(["replay", str(RECORDS / "steeplechase_10.json"), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["game"] == "golden-strider" and document["finished"] is True
    assert len(document["state"]["runners"]) == 10
    assert document["standings"][0] == {"seat": "Joaquim Cruz", "place": 1, "score": 71}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "is not valid JSON"),
        ('{"game": "golden-strider"}', "the record has no 'seed'"),
        (None, "turn 3, seat Steve Ovett"),
    ],
)
def test_replay_errors_are_one_line_with_exit_code_2(tmp_path, capsys, content, message):
    path = tmp_path / "record.json"
    if content is None:
        data = json.loads((RECORDS / "flat_race_6.json").read_text())
        data["turns"][3]["Steve Ovett"] = "play 42/0"
        content = json.dumps(data)
    path.write_text(content)
    assert main(["replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_missing_file_is_a_user_error(capsys):
    assert main(["replay", "/nonexistent/record.json"]) == 2
    assert "cannot read /nonexistent/record.json" in capsys.readouterr().err


def test_verify_passes_and_fails(tmp_path, capsys):
    assert main(["verify", str(RECORDS / "flat_race_6.json")]) == 3  # version 1: its orders are not checked
    assert "ok   the revealed seed matches the commitment" in capsys.readouterr().out
    data = json.loads((RECORDS / "flat_race_6.json").read_text())
    data["seed"] = "0" * 32
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    assert main(["verify", str(bad)]) == 1
    assert "FAIL the revealed seed matches the commitment" in capsys.readouterr().out


def test_db_upgrade_sqlite_path(tmp_path, capsys):
    target = tmp_path / "x.sqlite3"
    assert main(["db", "upgrade", "--db", str(target)]) == 0
    assert "at revision" in capsys.readouterr().out and target.exists()


def test_db_upgrade_postgresql(postgres, capsys):
    postgres.execute("CREATE DATABASE cli_upgrade")
    assert main(["db", "upgrade", "--db", postgres.url("cli_upgrade")]) == 0
    assert capsys.readouterr().out.strip().endswith(f"at revision {head_revision()}")


def test_demo_plays_a_whole_race(tmp_path, capsys):
    assert main(["demo", "--players", "7", "--seed", "3", "--dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "Golden Strider -- game demo has started" in out
    assert "Round 1 of a 60-square race" in out and "GAME OVER" in out and "Seed revealed:" in out
    assert "ok   replaying gives the recorded reports (digest)" in out
    assert (tmp_path / "record.json").exists()


def test_demo_steeplechase_with_ten_runners(tmp_path, capsys):
    assert main(["demo", "--players", "10", "--steeplechase", "--dir", str(tmp_path)]) == 0
    assert "Round 1 of a 70-square steeplechase" in capsys.readouterr().out


def test_demo_refuses_a_wrong_player_count(tmp_path, capsys):
    assert main(["demo", "--players", "3", "--dir", str(tmp_path)]) == 2
    assert "takes 6 to 10 players" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("nosuch=1", "unknown option(s) nosuch; known: "),
        ("race_length=abc", "option race_length must be a number, not abc"),
    ],
)
def test_demo_says_what_is_wrong_with_an_option(tmp_path, capsys, option, message):
    """A bad --option is the host's mistake, told as ``gm create`` tells it, not a player's failed join."""
    assert main(["demo", "--option", option, "--dir", str(tmp_path)]) == 2
    out = capsys.readouterr().out
    assert message in out
    assert "could not join" not in out and "unknown_game" not in out


def test_a_listing_read_by_head_ends_quietly(tmp_path):
    """``referee replay ... | head -1``: the reader stops early; no BrokenPipeError traceback."""
    script = shutil.which("referee", path=str(Path(sys.executable).parent))
    assert script is not None
    record = str(RECORDS / "flat_race_6.json")
    listing = subprocess.Popen([script, "replay", record, "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert listing.stdout is not None and listing.stderr is not None
    assert listing.stdout.read(1) == b"{"  # the listing has started (it is far longer than a pipe holds) ...
    listing.stdout.close()  # ... and its reader goes away
    errors = listing.stderr.read().decode()
    assert listing.wait(timeout=60) == 141
    assert errors == ""


def test_console_script_gives_no_traceback(tmp_path):
    script = shutil.which("referee", path=str(Path(sys.executable).parent))
    assert script is not None, "the referee console script is installed with the package"
    broken = tmp_path / "broken.json"
    broken.write_text("[1, 2")
    done = subprocess.run([script, "replay", str(broken)], capture_output=True, text=True, check=False)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and "is not valid JSON" in done.stderr


def test_serve_refuses_a_database_that_is_not_migrated(tmp_path, capsys, monkeypatch):
    (tmp_path / "empty.sqlite3").touch()  # an empty SQLite database (a missing one is refused too: test_status)
    monkeypatch.setenv("REFEREE_DATABASE", str(tmp_path / "empty.sqlite3"))
    assert main(["serve", "--once"]) == 2
    assert "is not at the latest schema: run `referee db upgrade`" in capsys.readouterr().err


def test_demo_by_email_of_a_sequential_game_twice_in_one_directory(tmp_path, capsys):
    """Moves that resolve on arrival must not trip the per-address reply limit (players take
    time over a move), and a second demo in the same directory starts with fresh mailboxes."""
    for _ in range(2):
        assert main(["demo", "--via", "email", "--game", "strike-gold", "--dir", str(tmp_path)]) == 0
        out = capsys.readouterr().out
        assert "ok   every message was applied and every reply and report was sent" in out
        assert "applied without a reply" not in out


def test_the_demo_record_verifies_its_order_commitments_and_a_changed_order_is_refused(tmp_path, capsys):
    """``referee demo`` exports a version 2 record; verify checks every turn's orders against the
    commitments the reports published, and refuses the record with one order changed (exit 2)."""
    assert main(["demo", "--seed", "3", "--dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "Orders used (commitments, as each seat's confirmation showed them):" in out
    assert "no orders: the no-moves-received rule applied" in out  # seed 3 misses some orders
    record = tmp_path / "record.json"
    assert main(["verify", str(record)]) == 0
    out = capsys.readouterr().out
    assert "ok   every turn's orders match the commitments the reports published" in out and "FAIL" not in out
    data = json.loads(record.read_text())
    assert data["version"] == 2 and len(data["order_commitments"]) == len(data["turns"])
    seat = next(iter(data["turns"][4]))
    data["turns"][4][seat] = next(text for s, text in data["turns"][4].items() if text != data["turns"][4][seat])
    record.write_text(json.dumps(data))
    assert main(["verify", str(record)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        f"referee: {record}: turn 4, seat {seat}: the orders do not match the commitment the report published\n"
    )


def test_a_record_stripped_back_to_version_1_does_not_pass_silently(tmp_path, capsys):
    """The attack: a version 2 record with one order changed is refused; stripped of its version and its
    order commitments (version 1) it replays, and its result can be made to match.  verify then says
    what it checked and that the orders were not checked against commitments, and exits 3, not 0."""
    assert main(["demo", "--seed", "3", "--dir", str(tmp_path)]) == 0
    capsys.readouterr()
    record = tmp_path / "record.json"
    data = json.loads(record.read_text())
    for key in ("version", "slug", "order_commitments"):
        del data[key]
    stripped = tmp_path / "stripped.json"
    stripped.write_text(json.dumps(data))
    assert main(["verify", str(stripped)]) == 3
    out = capsys.readouterr().out
    assert "ok   the revealed seed matches the commitment" in out and "ok   replaying gives the recorded" in out
    assert "FAIL" not in out
    assert "not checked: every turn's orders against the commitments the reports published: a version 1 " in out
    assert main(["verify", str(record)]) == 0  # the record as the referee wrote it: everything checked
    assert "not checked" not in capsys.readouterr().out
