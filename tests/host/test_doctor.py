"""``referee doctor`` against a real Dovecot, a real aiosmtpd with AUTH, and a fake Discord REST API.

One line per check, ok/warn/FAIL with the fix; the exit code is 1 when something is broken.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.email.maildir import deliver
from bot.host.cli import main
from bot.store.migrate import head_revision
from tests.email.pipeline import message
from tests.host import fake_discord
from tests.host.conftest import write_config
from tests.host.fake_discord import FakeDiscord
from tests.support.dovecot import PASSWORD, DovecotServer
from tests.support.smtp_sink import SmtpSink

pytestmark = pytest.mark.integration


@pytest.fixture
def discord() -> Iterator[FakeDiscord]:
    fake = FakeDiscord()
    fake.start()
    try:
        yield fake
    finally:
        fake.stop()


def mail_config(tmp_path: Path, dovecot: DovecotServer, user: str, smtp: SmtpSink, *extra: str) -> Path:
    config = write_config(
        tmp_path,
        'host_addresses = "secretary@example.org"',
        'game_masters = "gm@example.org, 123456789"',
        *extra,
        "[referee.imap]",
        f'host = "{dovecot.host}"', f"port = {dovecot.port}", 'security = "none"', f'user = "{user}"',
        "[referee.smtp]",
        f'host = "{smtp.host}"', f"port = {smtp.port}", 'security = "none"', 'user = "referee@example.com"',
    )  # fmt: skip
    text = config.read_text()  # the Maildir table write_config adds would be a second intake: take it out
    config.write_text(text[: text.index("[referee.maildir]")])
    return config


def doctor(config: Path, capsys: pytest.CaptureFixture[str], *more: str) -> tuple[int, list[str]]:
    code = main(["--config", str(config), "doctor", *more])
    return code, capsys.readouterr().out.splitlines()


def line(lines: list[str], name: str) -> str:
    found = [text for text in lines if text[5:].startswith(f"{name}:")]
    assert len(found) == 1, f"{name} in {lines}"
    return found[0]


@pytest.fixture
def secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REFEREE_IMAP_PASSWORD", PASSWORD)
    monkeypatch.setenv("REFEREE_SMTP_PASSWORD", "smtp-pass-123")


def test_everything_works_and_the_test_message_arrives(tmp_path, dovecot, smtp_with_login, secrets, capsys):
    user = dovecot.new_user()
    config = mail_config(tmp_path, dovecot, user, smtp_with_login)
    assert main(["--config", str(config), "db", "upgrade"]) == 0
    capsys.readouterr()
    code, lines = doctor(config, capsys, "--send-test")
    assert code == 0, "\n".join(lines)
    assert line(lines, "database").startswith("ok   database: reachable (")
    assert line(lines, "database schema").startswith("ok   database schema: at the newest revision")
    assert line(lines, "IMAP login") == f"ok   IMAP login: as {user}"
    assert line(lines, "IMAP folder") == "ok   IMAP folder: 'INBOX' exists"
    assert line(lines, "IMAP done folder") == "warn IMAP done folder: 'Processed' does not exist yet"
    assert line(lines, "IMAP IDLE").startswith("ok   IMAP IDLE: offered")
    assert line(lines, "IMAP MOVE").startswith("ok   IMAP MOVE: offered")
    assert line(lines, "SMTP AUTH") == "ok   SMTP AUTH: as referee@example.com"
    assert line(lines, "SMTP test message").startswith("ok   SMTP test message: sent to secretary@example.org")
    assert line(lines, "game masters") == (  # a warning: the exit code stays 0
        "warn game masters: 2 named: gm@example.org, 123456789; "
        "not reachable: 123456789 (Discord user ids, but Discord is not configured)"
    )
    assert lines[-1].endswith(" ok, 0 broken")
    (sent,) = smtp_with_login.messages()
    assert sent.recipients == ("secretary@example.org",) and sent.mail_from == "referee@example.com"
    assert sent.message["Subject"] == "referee doctor: test message"
    assert PASSWORD not in "\n".join(lines) and "smtp-pass-123" not in "\n".join(lines)


def test_wrong_passwords_a_missing_folder_and_an_unmigrated_database(
    tmp_path, dovecot, smtp_with_login, monkeypatch, capsys
):
    monkeypatch.setenv("REFEREE_IMAP_PASSWORD", "wrong-imap-pass")
    monkeypatch.setenv("REFEREE_SMTP_PASSWORD", "wrong-smtp-pass")
    config = mail_config(tmp_path, dovecot, dovecot.new_user(), smtp_with_login)
    (tmp_path / "referee.sqlite3").touch()  # a database file with no schema
    code, lines = doctor(config, capsys)
    text = "\n".join(lines)
    assert code == 1, text
    assert line(lines, "database schema").startswith(
        f"FAIL database schema: at revision none (empty), newest is {head_revision()}"
    )
    assert "fix: run `referee db upgrade` (before starting `referee serve`)" in text
    assert line(lines, "IMAP login").startswith("FAIL IMAP login: as user")
    assert "fix: check imap_user and the password in REFEREE_IMAP_PASSWORD" in text
    assert line(lines, "SMTP AUTH").startswith("FAIL SMTP AUTH: as referee@example.com: SMTPAuthenticationError")
    assert "wrong-imap-pass" not in text and "wrong-smtp-pass" not in text
    assert lines[-1].endswith(" broken") and not lines[-1].endswith(" 0 broken")

    monkeypatch.setenv("REFEREE_IMAP_PASSWORD", PASSWORD)
    config = mail_config(tmp_path, dovecot, dovecot.new_user(), smtp_with_login, 'imap_folder = "Orders"')
    code, lines = doctor(config, capsys)
    assert code == 1
    assert line(lines, "IMAP folder") == "FAIL IMAP folder: 'Orders' does not exist"


def test_servers_that_are_not_there(tmp_path, monkeypatch, capsys):
    config = write_config(tmp_path, "[referee.imap]", 'host = "127.0.0.1"', "port = 1", 'security = "none"',
                          'user = "u"', "[referee.smtp]", 'host = "127.0.0.1"', "port = 1", 'security = "none"')  # fmt: skip
    config.write_text(config.read_text()[: config.read_text().index("[referee.maildir]")])
    code, lines = doctor(config, capsys)
    assert code == 1
    assert line(lines, "settings") == "FAIL settings: imap_password is missing", "the line names the key"
    fix = lines[lines.index(line(lines, "settings")) + 1]
    assert fix == "       fix: set REFEREE_IMAP_PASSWORD (or REFEREE_IMAP_PASSWORD_FILE)"
    assert line(lines, "database").startswith("FAIL database: there is no SQLite database at")
    assert line(lines, "IMAP connect").startswith("FAIL IMAP connect: 127.0.0.1:1 (none): ConnectionRefusedError")
    assert line(lines, "SMTP connect").startswith("FAIL SMTP connect: 127.0.0.1:1 (none)")
    assert line(lines, "game masters").startswith("warn game masters: game_masters is empty")


def discord_config(tmp_path: Path, base: str, **ids: str) -> Path:
    values = {"guild_id": fake_discord.GUILD_ID, "forum_channel_id": fake_discord.FORUM_ID,
              "gm_role_id": fake_discord.GM_ROLE_ID} | ids  # fmt: skip
    config = write_config(tmp_path, "[referee.discord]", f'api_base = "{base}"',
                          *(f"{key} = {value}" for key, value in values.items()))  # fmt: skip
    assert main(["--config", str(config), "db", "upgrade"]) == 0
    return config


def test_discord_token_guild_forum_permissions_and_gm_role(tmp_path, discord, monkeypatch, capsys):
    monkeypatch.setenv("REFEREE_DISCORD_TOKEN", fake_discord.TOKEN)
    config = discord_config(tmp_path, discord.base)
    capsys.readouterr()
    code, lines = doctor(config, capsys)
    assert code == 0, "\n".join(lines)
    assert line(lines, "Maildir intake").startswith("warn Maildir intake: ") and "does not exist yet" in "\n".join(
        lines
    )
    assert line(lines, "Discord token") == "ok   Discord token: valid: logged in as referee-bot (4242)"
    assert line(lines, "Discord guild") == "ok   Discord guild: Postal Games Club (1001)"
    assert line(lines, "Discord forum") == "ok   Discord forum: #games is a forum channel"
    assert line(lines, "Discord permissions").startswith("ok   Discord permissions: in #games: View Channel")
    assert line(lines, "Discord GM role") == "ok   Discord GM role: role 3003 exists"
    assert fake_discord.TOKEN not in "\n".join(lines)

    # no Create Events nor Manage Events: a warning (the games run without their deadlines as events), not a failure
    assert line(lines, "Discord events").startswith(
        "warn Discord events: the bot lacks Create Events and Manage Events"
    )
    assert "fix: give the bot's role Create Events" in "\n".join(lines)
    discord.bot_role_permissions = fake_discord.NEEDED | (1 << 44)
    code, lines = doctor(config, capsys)
    assert code == 0 and line(lines, "Discord events") == (
        "ok   Discord events: the bot may keep each running game's next deadline as a server event (Create Events)"
    )
    discord.bot_role_permissions = fake_discord.NEEDED | (1 << 3)  # an administrator may do anything
    code, lines = doctor(config, capsys)
    assert line(lines, "Discord events").endswith("(Create Events and Manage Events)")
    discord.bot_role_permissions = fake_discord.NEEDED

    # the forum denies the bot's role Pin Messages (the status) and Create Public Threads
    discord.overwrites = [{"id": fake_discord.BOT_ROLE_ID, "type": 0, "allow": "0", "deny": str((1 << 51) | (1 << 35))}]
    code, lines = doctor(config, capsys)
    assert code == 1
    assert line(lines, "Discord permissions") == (
        "FAIL Discord permissions: in #games the bot lacks: Pin Messages, Create Public Threads"
    )
    discord.overwrites = []
    discord.forum_type = 0
    code, lines = doctor(config, capsys)
    assert code == 1 and line(lines, "Discord forum") == "FAIL Discord forum: #games is not a forum channel (type 0)"

    config = discord_config(tmp_path, discord.base, guild_id="999", gm_role_id="0")
    code, lines = doctor(config, capsys)
    assert code == 1 and line(lines, "Discord guild") == "FAIL Discord guild: guild 999: answered 404"

    monkeypatch.setenv("REFEREE_DISCORD_TOKEN", "a-revoked-token")
    code, lines = doctor(config, capsys)
    assert code == 1 and line(lines, "Discord token") == "FAIL Discord token: GET /users/@me answered 401"
    assert "fix: reset the token in the Developer Portal" in "\n".join(lines)


def test_the_game_masters_must_be_reachable_and_not_the_referee():
    from bot.host.doctor import game_master_check
    from bot.settings.loader import Settings

    mail_only = Settings().merged({"smtp_host": "smtp.example.org", "bot_address": "referee@example.org"})
    assert game_master_check(mail_only.merged({"game_masters": "gm@example.org"})).line() == (
        "ok   game masters: 1 named: gm@example.org"
    )
    discord_id = game_master_check(mail_only.merged({"game_masters": "gm@example.org, 123456789012345678"}))
    assert discord_id.ok and discord_id.warning
    assert "not reachable: 123456789012345678 (Discord user ids, but Discord is not configured)" in discord_id.line()
    no_mail = game_master_check(Settings().merged({"game_masters": "gm@example.org", "discord_token": "t" * 10}))
    assert no_mail.warning and "gm@example.org (addresses, but no outgoing mail is configured)" in no_mail.detail
    itself = game_master_check(mail_only.merged({"game_masters": "Referee@example.org"}))
    assert not itself.ok and "referee@example.org is the referee's own address" in itself.line()


def test_a_password_in_clear_to_another_machine_is_a_warning():
    from bot.email.doctor import in_clear_check

    (warned,) = in_clear_check("IMAP", "imap.example.org", "none", logs_in=True)
    assert warned.ok and warned.warning
    assert warned.line() == (
        "warn IMAP security: none: the password goes to imap.example.org unencrypted\n"
        "       fix: set imap_security to tls or starttls (none is meant for a server on this machine)"
    )
    assert in_clear_check("IMAP", "127.0.0.1", "none", logs_in=True) == []
    assert in_clear_check("IMAP", "localhost", "none", logs_in=True) == []
    assert in_clear_check("SMTP", "smtp.example.org", "starttls", logs_in=True) == []
    assert in_clear_check("SMTP", "relay.example.org", "none", logs_in=False) == [], "no AUTH: no password sent"


def test_the_doctor_says_when_no_sender_can_be_vouched_for():
    from bot.email.channel import EmailSettings
    from bot.email.doctor import sender_trust_check

    nobody = sender_trust_check(EmailSettings())
    assert nobody.warning and "--auth address games cannot be created" in nobody.line()
    assert "fix: set email_trusted_authserv_ids" in nobody.line()
    trusted = sender_trust_check(EmailSettings(email_trusted_authserv_ids=("mx.example.org", "mx2.example.org")))
    assert (
        trusted.line()
        == "ok   sender trust: Authentication-Results from mx.example.org, mx2.example.org vouch for senders"
    )


def test_send_test_with_a_maildir_outbox_writes_there_and_says_so(tmp_path, capsys):
    """The outbox is a Maildir: the test message goes where the referee's mail goes, and the line says
    where it is and that nothing went by SMTP (not the same lines as without --send-test)."""
    config = write_config(tmp_path, 'host_addresses = "secretary@example.org"', 'game_masters = "gm@example.org"')
    assert main(["--config", str(config), "db", "upgrade"]) == 0
    capsys.readouterr()
    code, lines = doctor(config, capsys, "--send-test")
    assert code == 0, "\n".join(lines)
    found = line(lines, "Maildir test message")
    written = sorted((tmp_path / "out" / "new").iterdir())
    assert len(written) == 1
    assert found.startswith(f"warn Maildir test message: written to {written[0]} (for secretary@example.org)")
    assert "nothing was sent by SMTP" in found
    raw = written[0].read_bytes()
    assert b"To: secretary@example.org" in raw and b"Subject: referee doctor: test message" in raw

    code, lines = doctor(config, capsys)  # without --send-test: nothing is written
    assert not any("test message" in text for text in lines)
    assert len(list((tmp_path / "out" / "new").iterdir())) == 1


def test_a_copy_of_the_example_with_its_maildir_paths_set_is_clean_and_serves_from_the_maildir(tmp_path, capsys):
    """The example settings copied, with only the database and the Maildir paths changed: its IMAP and
    SMTP sections still name imap.example.org and smtp.example.org, and nobody set their passwords.
    The Maildirs win (one rule, :func:`bot.email.channel.intake_kind`): the doctor reports the servers
    "not used" and tries neither, asks for no password, and ``serve`` reads and answers by the Maildirs."""
    example = (Path(__file__).resolve().parents[2] / "deploy" / "referee.toml.example").read_text()
    settings = {"database": tmp_path / "referee.sqlite3", "inbox": tmp_path / "in", "outbox": tmp_path / "out"}
    for key, value in settings.items():
        example, count = re.subn(rf'^{key} = "[^"\n]*"', f'{key} = "{value}"', example, count=1, flags=re.M)
        assert count == 1, key
    config = tmp_path / "referee.toml"
    config.write_text(example)
    assert 'host = "imap.example.org"' in example and 'host = "smtp.example.org"' in example
    assert main(["--config", str(config), "db", "upgrade"]) == 0
    capsys.readouterr()
    code, lines = doctor(config, capsys)
    text = "\n".join(lines)
    assert code == 0 and lines[-1].endswith(", 0 broken") and "FAIL" not in text, text
    assert line(lines, "settings") == "ok   settings: every setting a running bot needs is there"
    assert line(lines, "IMAP") == (
        "ok   IMAP: not used: maildir_inbox is set, so the Maildir is read (imap.example.org is not tried)"
    )
    assert line(lines, "SMTP") == (
        "ok   SMTP: not used: maildir_outbox is set, so mail is written to the Maildir (smtp.example.org is not tried)"
    )
    assert not any(text[5:].startswith(("IMAP connect", "SMTP connect")) for text in lines)

    deliver(tmp_path / "in", message("HELP\n", sender="ann@example.org", subject="help", message_id="<h@example.org>"))
    assert main(["--config", str(config), "serve", "--once"]) == 0
    [reply] = (tmp_path / "out" / "new").iterdir()
    raw = reply.read_bytes()
    assert b"To: ann@example.org" in raw and b"In-Reply-To: <h@example.org>" in raw
