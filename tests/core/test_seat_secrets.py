"""Seat secrets: keyed hashes (HMAC-SHA256, key outside the database), old PBKDF2 rows, the key's sources."""

from __future__ import annotations

import hashlib
import re
import stat
from dataclasses import replace
from pathlib import Path

import pytest
from sqlalchemy import select

from bot.core.model import commands as c
from bot.core.people.seat_secrets import (
    SecretKeyError,
    check_secret,
    hash_secret,
    load_secret_key,
    needs_rehash,
    new_secret,
)
from bot.core.runtime.service import GameService
from bot.host.cli import main
from bot.host.wiring import service_config
from bot.settings.loader import Settings
from bot.store.db import unit_of_work
from bot.store.models import Seat
from tests.core.harness import Harness
from tests.support.database import fresh_postgres_database

KEY = b"k" * 32
OTHER_KEY = b"o" * 32


def old_pbkdf2_row(secret: str, iterations: int = 1000, salt: str = "0123456789abcdef") -> str:
    """A row as the PBKDF2 scheme wrote it before the keyed hash (computed here, independently)."""
    normalised = "".join(secret.split()).lower().encode()
    return f"pbkdf2${iterations}${salt}${hashlib.pbkdf2_hmac('sha256', normalised, salt.encode(), iterations).hex()}"


def test_a_keyed_hash_checks_its_secret_and_nothing_else():
    secret = new_secret()
    stored = hash_secret(secret, KEY)
    assert re.fullmatch(r"hmac-sha256\$[0-9a-f]{16}\$[0-9a-f]{64}", stored)
    assert check_secret(secret, stored, KEY)
    assert check_secret(f"  {secret.upper()} ", stored, KEY), "case and spaces are ignored"
    assert not check_secret(secret + "x", stored, KEY)
    assert not check_secret("", stored, KEY)
    assert not needs_rehash(stored)


def test_without_the_key_a_stored_row_is_useless():
    secret = "amber-raven-4821"
    stored = hash_secret(secret, KEY)
    assert not check_secret(secret, stored, OTHER_KEY)
    assert secret not in stored and hashlib.sha256(secret.encode()).hexdigest() not in stored
    assert hash_secret(secret, KEY) != stored, "each row has its own salt"
    with pytest.raises(SecretKeyError):
        hash_secret(secret, b"")


def test_old_pbkdf2_rows_still_verify_and_ask_to_be_rehashed():
    secret = "birch-cobalt-1002"
    stored = old_pbkdf2_row(secret)
    assert check_secret(secret, stored, KEY) and check_secret(secret.upper(), stored, OTHER_KEY)
    assert not check_secret("birch-cobalt-1003", stored, KEY)
    assert needs_rehash(stored)


@pytest.mark.parametrize(
    "stored",
    ["", "plain", "pbkdf2$x$salt$digest", "pbkdf2$0$salt$digest", "pbkdf2$1000$salt", "hmac-sha256$salt",
     "hmac-sha256$a$b$c", "bcrypt$12$abc", "pbkdf2$99999999999$s$d"],
)  # fmt: skip
def test_a_malformed_row_matches_nothing_and_raises_nothing(stored):
    assert check_secret("amber-raven-4821", stored, KEY) is False


def test_a_configured_key_is_used_as_given_and_must_be_long(tmp_path):
    assert load_secret_key(" " + "s" * 40 + "\n", "", str(tmp_path / "db.sqlite3")) == b"s" * 40
    assert not (tmp_path / "db.sqlite3.key").exists(), "a configured key makes no file"
    with pytest.raises(SecretKeyError, match="secret_key"):
        load_secret_key("short", "", str(tmp_path / "db.sqlite3"))


@pytest.mark.parametrize("form", ["path", "url"])
def test_a_sqlite_database_gets_a_private_key_file_beside_it(tmp_path, form):
    database = tmp_path / "referee.sqlite3"
    target = str(database) if form == "path" else f"sqlite:///{database}"
    key = load_secret_key("", "", target)
    path = tmp_path / "referee.sqlite3.key"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert re.fullmatch(rb"[0-9a-f]{64}", key) and path.read_bytes().strip() == key
    assert load_secret_key("", "", target) == key, "the second start reads the same key"
    assert [p.name for p in tmp_path.iterdir()] == ["referee.sqlite3.key"], "no temporary file is left"


def test_a_named_key_file_is_created_or_read(tmp_path):
    path = tmp_path / "keys" / "seat.key"
    with pytest.raises(SecretKeyError, match=r"secret_key_file.*cannot create"):
        load_secret_key("", str(path), "postgresql+psycopg://u@db/referee")
    path.parent.mkdir()
    key = load_secret_key("", str(path), "postgresql+psycopg://u@db/referee")
    assert len(key) == 64 and stat.S_IMODE(path.stat().st_mode) == 0o600
    path.write_text("too short\n")
    with pytest.raises(SecretKeyError, match="fewer than 32 bytes"):
        load_secret_key("", str(path), "x.sqlite3")


@pytest.mark.parametrize("database", ["postgresql+psycopg://referee:hunter2@db.example.org/referee", "sqlite://"])
def test_a_database_without_a_file_needs_the_key_configured(database):
    with pytest.raises(SecretKeyError, match=r"set secret_key \(env REFEREE_SECRET_KEY\) or secret_key_file") as caught:
        load_secret_key("", "", database)
    assert "hunter2" not in str(caught.value)


def test_the_settings_reach_the_service_config(tmp_path):
    settings = Settings.load(None, {"REFEREE_DATABASE": str(tmp_path / "r.sqlite3")})
    from_file = service_config(settings).secret_key
    assert from_file == (tmp_path / "r.sqlite3.key").read_bytes().strip()
    configured = Settings.load(None, {"REFEREE_SECRET_KEY": "e" * 32, "REFEREE_DATABASE": "postgresql://u@h/d"})
    assert service_config(configured).secret_key == b"e" * 32 and "e" * 32 not in repr(configured)
    with pytest.raises(ValueError, match="secret_key"):
        service_config(replace(configured, store=replace(configured.store, secret_key="")))


def _seat_rows(harness: Harness, slug: str = "gs1") -> dict[str, str]:
    with unit_of_work(harness.sessions) as session:
        return {s.name: s.secret_hash for s in session.scalars(select(Seat)).all() if s.game.slug == slug}


def _passwords(harness: Harness) -> dict[str, str]:
    found = {}
    for message in harness.outbox("reply"):
        match = re.search(r"Your seat password: (\S+)", message.body)
        if match:
            found[message.recipient.split("@")[0].title()] = match.group(1)
    return found


def test_seats_are_stored_under_the_service_key(sessions):
    harness = Harness(sessions)
    harness.service = GameService(sessions, replace(harness.service.config, secret_key=KEY))
    harness.golden_strider_game(auth="password")
    rows, passwords = _seat_rows(harness), _passwords(harness)
    assert set(passwords) == set(rows) and len(rows) == 6
    assert all(check_secret(passwords[name], row, KEY) for name, row in rows.items())
    assert not any(check_secret(passwords[name], row, OTHER_KEY) for name, row in rows.items())
    harness.service = GameService(sessions, replace(harness.service.config, secret_key=OTHER_KEY))
    reply = harness.send("Ann", c.SubmitOrders("gs1", "cards 10 8 6 4 2"), password=passwords["Ann"]).reply
    assert reply is not None and "wrong password for game gs1" in reply, "another key knows no seat"


def test_an_old_pbkdf2_seat_is_rehashed_once_its_password_is_proven(sessions):
    harness = Harness(sessions)
    harness.service = GameService(sessions, replace(harness.service.config, secret_key=KEY))
    harness.golden_strider_game(auth="password")
    with unit_of_work(sessions) as session:
        for seat in session.scalars(select(Seat)).all():
            seat.secret_hash = old_pbkdf2_row(f"{seat.name.lower()}-old-1234")
    before = _seat_rows(harness)

    wrong = harness.send("Ann", c.SubmitOrders("gs1", "cards 10 8 6 4 2"), password="ann-old-9999").reply
    assert wrong is not None and "wrong password" in wrong
    assert _seat_rows(harness) == before, "a failed check rewrites nothing"

    accepted = harness.send("Ann", c.SubmitOrders("gs1", "cards 10 8 6 4 2"), password="ANN-old-1234").reply
    assert accepted is not None and "ORDERS ACCEPTED for gs1" in accepted and "seat Ann" in accepted
    after = _seat_rows(harness)
    assert after["Ann"].startswith("hmac-sha256$") and check_secret("ann-old-1234", after["Ann"], KEY)
    assert {n: r for n, r in after.items() if n != "Ann"} == {n: r for n, r in before.items() if n != "Ann"}

    again = harness.send("Ann", c.SubmitOrders("gs1", "cards 9 8 7 4 2"), password="ann-old-1234").reply
    assert again is not None and "ORDERS ACCEPTED for gs1" in again
    assert _seat_rows(harness)["Ann"] == after["Ann"], "a keyed row is not rewritten"


def _serve_config(tmp_path: Path, database: str) -> Path:
    config = tmp_path / "referee.toml"
    config.write_text(
        f'[referee]\ndatabase = "{database}"\nbot_address = "referee@example.com"\n'
        f'[referee.maildir]\ninbox = "{tmp_path / "in"}"\noutbox = "{tmp_path / "out"}"\n'
    )
    for sub in ("new", "cur", "tmp"):
        (tmp_path / "in" / sub).mkdir(parents=True, exist_ok=True)
    return config


def test_serve_on_postgresql_without_a_key_says_which_setting(
    tmp_path, postgres, postgres_template, monkeypatch, capsys
):
    monkeypatch.delenv("REFEREE_SECRET_KEY", raising=False)
    monkeypatch.delenv("REFEREE_SECRET_KEY_FILE", raising=False)
    config = _serve_config(tmp_path, fresh_postgres_database(postgres, postgres_template))
    assert main(["--config", str(config), "serve", "--once"]) == 2
    error = capsys.readouterr().err
    assert "secret_key: missing: the database is not a SQLite file" in error, "refused with the settings check"
    assert "set REFEREE_SECRET_KEY (at least 32 characters) or secret_key_file" in error and "Traceback" not in error
    monkeypatch.setenv("REFEREE_SECRET_KEY", "p" * 40)
    assert main(["--config", str(config), "serve", "--once"]) == 0


def test_serve_on_sqlite_keeps_its_key_beside_the_database(tmp_path, monkeypatch):
    monkeypatch.delenv("REFEREE_SECRET_KEY", raising=False)
    monkeypatch.delenv("REFEREE_SECRET_KEY_FILE", raising=False)
    database = tmp_path / "referee.sqlite3"
    config = _serve_config(tmp_path, str(database))
    assert main(["--config", str(config), "db", "upgrade"]) == 0
    assert main(["--config", str(config), "serve", "--once"]) == 0
    key_file = tmp_path / "referee.sqlite3.key"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    key = key_file.read_bytes().strip()
    assert main(["--config", str(config), "serve", "--once"]) == 0
    assert key_file.read_bytes().strip() == key == service_config(Settings.load(config, {})).secret_key, "kept"
