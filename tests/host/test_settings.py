"""Configuration that fails clearly: every unknown, missing or malformed key is named, with the form wanted.

And the example configurations document every setting and load, so they cannot rot.
"""

from __future__ import annotations

import tomllib
from dataclasses import fields
from pathlib import Path

import pytest

from bot.channels import registry as channels
from bot.discord.channel import CHANNEL as DISCORD
from bot.email.channel import CHANNEL as EMAIL
from bot.host.cli import main
from bot.settings.loader import Settings, SettingsError, secret_names
from tests.support.addresses import expected_addresses

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = [ROOT / "deploy" / "referee.toml.example", ROOT / "deploy" / "referee-postgresql.toml.example"]


def problems_of(text: str, environ: dict[str, str] | None = None, tmp_path: Path | None = None) -> list[str]:
    assert tmp_path is not None
    config = tmp_path / "referee.toml"
    config.write_text(text)
    with pytest.raises(SettingsError) as caught:
        Settings.load(config, environ or {})
    return caught.value.problems


def test_a_malformed_port_names_the_key_the_form_and_the_source(tmp_path):
    (problem,) = problems_of('[referee.imap]\nport = "abc"\n', tmp_path=tmp_path)
    assert problem.startswith("imap_port: expected a whole number from 0 to 65535")
    assert "got 'abc'" in problem and "port in [referee.imap]" in problem
    with pytest.raises(
        SettingsError, match=r"smtp_port: expected a whole number .* got '70000' \(from REFEREE_SMTP_PORT\)"
    ):
        Settings.load(None, {"REFEREE_SMTP_PORT": "70000"})


def test_every_problem_is_reported_at_once(tmp_path):
    found = problems_of(
        '[referee]\ntime_zone = "Mars/Olympus"\nturn_minutes = 0\nbot_address = "nobody"\n'
        '[referee.imap]\nhots = "x"\nidle = "maybe"\nsecurity = "ssl"\n[referee.smpt]\nhost = "y"\n',
        tmp_path=tmp_path,
    )
    text = "\n".join(found)
    assert len(found) == 7, text
    assert "time_zone: expected an IANA time zone name" in text
    assert "turn_minutes: expected a whole number of at least 1, got 0" in text
    assert "bot_address: expected an email address" in text
    assert "imap_hots: unknown setting (hots in [referee.imap]); did you mean imap_host?" in text
    assert "imap_idle: expected true or false, got 'maybe'" in text
    assert "imap_security: expected one of tls, starttls, none, got 'ssl'" in text
    assert "smpt: unknown setting ([referee.smpt]); did you mean smtp?" in text


def test_a_near_miss_in_the_environment_is_an_error_other_variables_are_not():
    with pytest.raises(
        SettingsError, match="REFEREE_IMAP_PASWORD: unknown setting; did you mean REFEREE_IMAP_PASSWORD"
    ):
        Settings.load(None, {"REFEREE_IMAP_PASWORD": "hunter2"})
    assert Settings.load(None, {"REFEREE_UPDATE_GOLDEN": "1", "REFEREE_SOMETHING_ELSE": "x"}) == Settings()


def test_a_secret_is_never_echoed(tmp_path):
    secret = "hunter2-correct-horse"
    with pytest.raises(SettingsError) as caught:
        Settings.load(None, {"REFEREE_IMAP_PASWORD": secret, "REFEREE_SMTP_PASSWORD_FILE": "/nonexistent"})
    assert secret not in str(caught.value)
    config = tmp_path / "referee.toml"
    config.write_text(f'[referee.imap]\npassword = 12\n[referee.discord]\ntoken = ["{secret}"]\n')
    with pytest.raises(SettingsError) as caught:
        Settings.load(config, {})
    assert "imap_password: expected a string (in quotes), got a value of 2 characters" in str(caught.value)
    assert secret not in str(caught.value)
    settings = Settings.load(None, {"REFEREE_IMAP_PASSWORD": secret, "REFEREE_DISCORD_TOKEN": secret})
    assert settings.of(EMAIL).imap_password == secret and secret not in repr(settings) and secret not in str(settings)
    assert settings.of(DISCORD).token == secret
    assert secret_names() == {"imap_password", "smtp_password", "discord_token", "secret_key"}  # every repr=False


def test_a_secret_from_a_file_named_in_the_environment(tmp_path):
    (tmp_path / "token").write_text("s3cret-token\n")
    settings = Settings.load(None, {"REFEREE_DISCORD_TOKEN_FILE": str(tmp_path / "token")})
    assert settings.of(DISCORD).token == "s3cret-token"
    assert (
        Settings.load(None, {"REFEREE_DISCORD_TOKEN_FILE": str(tmp_path / "token"), "REFEREE_DISCORD_TOKEN": "env"})
        .of(DISCORD)
        .token
        == "env"
    )
    with pytest.raises(SettingsError, match="discord_token: cannot read the file REFEREE_DISCORD_TOKEN_FILE names"):
        Settings.load(None, {"REFEREE_DISCORD_TOKEN_FILE": str(tmp_path / "absent")})


def test_a_short_seat_secret_key_is_refused_at_load_without_showing_it():
    with pytest.raises(SettingsError) as caught:
        Settings.load(None, {"REFEREE_SECRET_KEY": "too-short-key"})
    (problem,) = caught.value.problems
    assert problem.startswith("secret_key: expected at least 32 characters")
    assert "got a value of 13 characters (from REFEREE_SECRET_KEY)" in problem and "too-short-key" not in problem
    assert Settings.load(None, {"REFEREE_SECRET_KEY": "k" * 32}).store.secret_key == "k" * 32


def test_a_server_database_needs_a_configured_seat_secret_key():
    url = "postgresql+psycopg://referee@db.example.org/referee"
    (problem,) = Settings.load(None, {"REFEREE_DATABASE": url}).missing()
    assert problem.startswith("secret_key: missing: the database is not a SQLite file")
    assert Settings.load(None, {"REFEREE_DATABASE": url, "REFEREE_SECRET_KEY": "k" * 32}).missing() == []
    assert Settings.load(None, {"REFEREE_DATABASE": url}).merged({"secret_key_file": "/etc/k"}).missing() == []
    assert Settings.load(None, {"REFEREE_DATABASE": "/var/lib/referee/referee.sqlite3"}).missing() == []


def test_missing_what_a_running_bot_needs():
    settings = Settings.load(None, {"REFEREE_IMAP_HOST": "imap.example.org", "REFEREE_DISCORD_TOKEN": "t"})
    missing = "\n".join(settings.missing())
    assert "imap_user: missing" in missing and "imap_password: missing: set REFEREE_IMAP_PASSWORD" in missing
    assert "discord_guild_id: missing" in missing and "discord_forum_channel_id: missing" in missing
    assert Settings().missing() == []


def test_serve_refuses_bad_settings_before_touching_anything(tmp_path, capsys):
    database = tmp_path / "never.sqlite3"
    config = tmp_path / "referee.toml"
    config.write_text(f'database = "{database}"\nimap_port = "abc"\n')
    assert main(["--config", str(config), "serve", "--once"]) == 2
    assert "imap_port: expected a whole number" in capsys.readouterr().err
    # Top-level keys and [referee...] tables mix (what people write); the same key in both is an error.
    config.write_text(f'database = "{database}"\n[referee.imap]\nhost = "imap.example.org"\n')
    assert main(["--config", str(config), "serve", "--once"]) == 2
    err = capsys.readouterr().err
    assert "imap_user" in err and "unknown setting" not in err, err
    config.write_text(f'database = "{database}"\n[referee]\ndatabase = "other.sqlite3"\n')
    assert main(["--config", str(config), "serve", "--once"]) == 2
    err = capsys.readouterr().err
    assert "database: given twice (database and database in [referee]); keep one" in err, err
    config.write_text(f'[referee]\ndatabase = "{database}"\n[referee.imap]\nhost = "imap.example.org"\nuser = "u"\n')
    assert main(["--config", str(config), "serve", "--once"]) == 2
    assert "imap_password: missing: set REFEREE_IMAP_PASSWORD" in capsys.readouterr().err
    assert not database.exists(), "nothing is touched before the settings are right"


def documented_keys(path: Path) -> set[str]:
    def flatten(data: dict, prefix: str = "") -> set[str]:  # type: ignore[type-arg]
        names: set[str] = set()
        for key, value in data.items():
            names |= flatten(value, f"{prefix}{key}_") if isinstance(value, dict) else {f"{prefix}{key}"}
        return names

    data = tomllib.loads(path.read_text())
    return flatten(data.get("referee", data))


def setting_names() -> set[str]:
    """Every setting's name: the core's sections' and each channel's (prefix and field)."""
    from bot.settings.loader import CORE_SECTIONS

    names = {f"{prefix}{f.name}" for kind, prefix in CORE_SECTIONS.values() for f in fields(kind)}
    return names | {c.settings_name(f.name) for c in channels.CHANNELS for f in fields(c.settings)}


def test_the_example_documents_every_setting():
    text = EXAMPLES[0].read_text()
    keys = documented_keys(EXAMPLES[0])
    names = setting_names()
    assert len(names) > 55 and {"imap_host", "discord_token", "turn_minutes", "log_format"} <= names
    assert keys <= names
    undocumented = sorted(names - keys - secret_names())
    assert undocumented == [], f"add these to {EXAMPLES[0].name}: {undocumented}"
    for secret in sorted(secret_names()):
        assert f"REFEREE_{secret.upper()}" in text, f"{EXAMPLES[0].name} must say where {secret} comes from"
        assert secret not in keys, "a secret is never written in the example"


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_the_examples_load(path):
    settings = Settings.load(path, {"REFEREE_SECRET_KEY": "k" * 64} if "postgresql" in path.name else {})
    assert settings.of(EMAIL).imap_host and settings.of(EMAIL).smtp_host and settings.store.database
    assert settings.missing() == [
        "imap_password: missing: set REFEREE_IMAP_PASSWORD (or REFEREE_IMAP_PASSWORD_FILE)",
        "smtp_password: missing: smtp_user is set, so set REFEREE_SMTP_PASSWORD",
    ]
    secrets = {"REFEREE_IMAP_PASSWORD": "a", "REFEREE_SMTP_PASSWORD": "b", "REFEREE_DISCORD_TOKEN": "c"}
    if "postgresql" in path.name:
        (key,) = Settings.load(path, secrets).missing()
        assert key.startswith("secret_key: missing: the database is not a SQLite file, so set REFEREE_SECRET_KEY")
        assert "REFEREE_SECRET_KEY" in path.read_text(), "the example says where the key comes from"
        secrets["REFEREE_SECRET_KEY"] = "k" * 64
    assert Settings.load(path, secrets).missing() == ([] if "postgresql" in path.name else [
        "discord_guild_id: missing: discord_token is set, so the server (guild) id is needed",
        "discord_forum_channel_id: missing: discord_token is set, so the forum channel id is needed",
    ])  # fmt: skip


def test_the_postgresql_example_is_postgresql_with_json_logs():
    settings = Settings.load(EXAMPLES[1], {})
    assert settings.store.database.startswith("postgresql+psycopg://") and settings.log.format == "json"
    assert settings.of(DISCORD).guild_id == 123456789012345678


def test_config_may_follow_the_command_as_the_issue_writes_it(tmp_path, capsys):
    # `referee serve --config referee.toml`, `referee doctor --config referee.toml`: the forms a host types
    config = tmp_path / "referee.toml"
    config.write_text(f'database = "{tmp_path / "r.sqlite3"}"\nimap_port = "abc"\n')
    for command in (["serve", "--once"], ["doctor"], ["status"], ["db", "upgrade"], ["inbox", "list"]):
        assert main([*command, "--config", str(config)]) == 2, command
        assert "imap_port: expected a whole number" in capsys.readouterr().err, command
    good = tmp_path / "good.toml"
    good.write_text(f'database = "{tmp_path / "r.sqlite3"}"\n')
    assert main(["--config", str(config), "db", "upgrade", "--config", str(good)]) == 0, "after the command wins"
    assert main(["--config", str(good), "status"]) == 0, "before the command still works"
    capsys.readouterr()


def test_the_intake_limits_and_reading_budget_are_checked_together(tmp_path):
    """The screen before parsing and the reader's budget (bot.email.prescreen, bot.email.mail_reader)."""
    found = problems_of(
        "[referee.email]\nmax_header_kb = 0\nmax_addresses = -5\nmax_header_fields = 1.5\nmax_multiparts = 'x'\n"
        "read_seconds = 0\nread_memory_mb = 64\nmax_adresses = 10\n",
        tmp_path=tmp_path,
    )
    text = "\n".join(found)
    assert len(found) == 7, text
    for name in ("email_max_header_kb", "email_max_addresses", "email_max_header_fields", "email_max_multiparts"):
        assert f"{name}: expected a whole number of at least 1" in text
    assert "email_read_seconds: expected a number of seconds above 0" in text
    assert "email_read_memory_mb: expected a whole number of megabytes, at least 256, got 64" in text
    assert "did you mean email_max_addresses?" in text
    defaults = Settings().of(EMAIL)
    assert (defaults.email_max_addresses, defaults.email_read_seconds, defaults.email_read_memory_mb) == (
        1000,
        20,
        1024,
    )


def test_lists_are_toml_arrays_and_the_string_form_stays(tmp_path):
    config = tmp_path / "referee.toml"
    config.write_text('[referee]\ngame_masters = ["GM@club.org", "123456789"]\nhost_addresses = ["me@club.org"]\n')
    settings = Settings.load(config, {})
    assert settings.host.game_masters == ("gm@club.org", "123456789")
    assert settings.host.host_addresses == ("me@club.org",)
    config.write_text('[referee]\ngame_masters = "gm@club.org, 123456789"\n')
    assert Settings.load(config, {}).host.game_masters == ("gm@club.org", "123456789")
    from_env = Settings.load(None, {"REFEREE_GAME_MASTERS": "a@x.org,b@y.org"})
    assert from_env.host.game_masters == ("a@x.org", "b@y.org")
    config.write_text('[referee.email]\ntrusted_authserv_ids = ["MX.example.org", "mx2.example.org"]\n')
    assert Settings.load(config, {}).of(EMAIL).email_trusted_authserv_ids == ("mx.example.org", "mx2.example.org")
    from_env = Settings.load(None, {"REFEREE_EMAIL_TRUSTED_AUTHSERV_IDS": "mx.example.org, mx2.example.org"})
    assert from_env.of(EMAIL).email_trusted_authserv_ids == ("mx.example.org", "mx2.example.org")
    bad = problems_of('[referee]\ngame_masters = ["gm@club.org", 3]\n', tmp_path=tmp_path)
    assert bad[0].startswith('game_masters: expected a list of strings, e.g. ["a@example.org", "b@example.org"]')
    bad = problems_of('[referee]\ngame_masters = ["not an address"]\n', tmp_path=tmp_path)
    assert bad[0].startswith(f"game_masters: expected {expected_addresses()}, as a list")
