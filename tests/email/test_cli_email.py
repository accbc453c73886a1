"""The email side of the ``referee`` command: serve (Maildir in and out), inbox list/show/requeue, demo --via email."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from datetime import timedelta
from email import message_from_bytes, policy
from pathlib import Path

import pytest

from bot.core.intake.inbox import Inbox
from bot.core.intake.watermarks import Watermarks
from bot.email.channel import CHANNEL
from bot.email.maildir import deliver
from bot.host.cli import main
from bot.settings.loader import Settings
from bot.store.db import make_engine, session_factory
from tests.email.pipeline import message
from tests.email.world import START

ROOT = Path(__file__).resolve().parents[2]


def write_config(tmp_path: Path, **extra: object) -> Path:
    lines = [
        "[referee]",
        f'database = "{tmp_path / "referee.sqlite3"}"',
        'bot_address = "referee@example.com"',
        "send_interval_seconds = 0.1",
        "intake_poll_seconds = 0.1",
        "deadline_check_seconds = 0.5",
        "[referee.maildir]",
        f'inbox = "{tmp_path / "in"}"',
        f'outbox = "{tmp_path / "out"}"',
        *(f"{key} = {value!r}".replace("'", '"') for key, value in extra.items()),
    ]
    config = tmp_path / "referee.toml"
    config.write_text("\n".join(lines) + "\n")
    assert main(["--config", str(config), "db", "upgrade"]) == 0
    return config


def replies(tmp_path: Path) -> list:  # type: ignore[type-arg]
    folder = tmp_path / "out" / "new"
    if not folder.exists():
        return []
    return [message_from_bytes(path.read_bytes(), policy=policy.default) for path in sorted(folder.iterdir())]


def test_serve_once_reads_a_maildir_and_answers_into_one(tmp_path, capsys):
    config = write_config(tmp_path)
    deliver(tmp_path / "in", message("HELP\n", subject="help", message_id="<help@example.org>"))
    assert main(["--config", str(config), "serve", "--once"]) == 0
    (reply,) = replies(tmp_path)
    assert reply["In-Reply-To"] == "<help@example.org>" and reply["To"] == "ann@example.org"
    assert "REFEREE -- commands" in reply.get_content()
    assert list((tmp_path / "in" / "new").iterdir()) == []
    assert [p.name.endswith(":2,S") for p in (tmp_path / "in" / ".Processed" / "cur").iterdir()] == [True]
    assert main(["--config", str(config), "serve", "--once"]) == 0
    assert len(replies(tmp_path)) == 1, "nothing is read or sent twice"


def test_serve_runs_until_sigterm(tmp_path):
    config = write_config(tmp_path)
    process = subprocess.Popen(
        [sys.executable, "-m", "bot.host.cli", "--config", str(config), "serve"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        time.sleep(0.5)
        deliver(tmp_path / "in", message("LIST\n", subject="list", message_id="<list@example.org>"))
        deadline = time.monotonic() + 15
        while not replies(tmp_path) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [r["In-Reply-To"] for r in replies(tmp_path)] == ["<list@example.org>"]
    finally:
        process.send_signal(signal.SIGTERM)
        output, _ = process.communicate(timeout=15)
    assert process.returncode == 0, output
    assert "referee stopped" in output


def test_serve_once_says_when_the_mail_server_is_away(tmp_path):
    config = write_config(tmp_path)
    with_imap = tmp_path / "imap.toml"
    maildir_inbox = f'inbox = "{tmp_path / "in"}"\n'  # taken out: a Maildir inbox set wins over IMAP
    assert maildir_inbox in config.read_text()
    with_imap.write_text(
        config.read_text().replace(maildir_inbox, "")
        + '[referee.imap]\nhost = "127.0.0.1"\nport = 1\nsecurity = "none"\nuser = "bot"\npassword = "not-needed"\n'
    )
    assert main(["--config", str(with_imap), "serve", "--once"]) == 1


def test_inbox_list_show_and_requeue(tmp_path, capsys):
    config = write_config(tmp_path)
    engine = make_engine(str(tmp_path / "referee.sqlite3"))
    inbox = Inbox(session_factory(engine), max_attempts=1)
    raw = message("STATUS nosuchgame\n", subject="parked one", message_id="<parked@example.org>")
    row = inbox.store("email", "maildir:parked", "<parked@example.org>", raw, START)
    assert inbox.mark_failed(row.id, START + timedelta(minutes=1), "RuntimeError: boom\nTraceback ...") == "parked"
    engine.dispose()

    assert main(["--config", str(config), "inbox", "list"]) == 0
    out = capsys.readouterr().out
    assert "0 new, 0 done, 0 failed, 1 parked" in out and "<parked@example.org>" in out and "RuntimeError: boom" in out
    assert main(["--config", str(config), "inbox", "show", str(row.id)]) == 0
    out = capsys.readouterr().out
    assert "Subject: parked one" in out and "Return-Path: <ann@example.org>" in out and "Traceback ..." in out
    assert main(["--config", str(config), "inbox", "show", "999"]) == 2
    assert main(["--config", str(config), "inbox", "requeue", str(row.id)]) == 0
    assert f"#{row.id} requeued" in capsys.readouterr().out
    assert main(["--config", str(config), "inbox", "requeue", str(row.id)]) == 2
    assert "not parked or failed" in capsys.readouterr().err
    assert main(["--config", str(config), "serve", "--once"]) == 0
    (reply,) = replies(tmp_path)
    assert "there is no game called 'nosuchgame'" in reply.get_content()
    assert main(["--config", str(config), "inbox", "list", "--status", "all"]) == 0
    assert "1 done" in capsys.readouterr().out


def test_inbox_list_and_show_say_why_automatic_mail_was_not_answered(tmp_path, capsys):
    """A skipped message is "done" with its reason, not just "done"."""
    config = write_config(tmp_path)
    deliver(tmp_path / "in", (Path(__file__).parent / "corpus" / "auto_submitted_ooo.eml").read_bytes())
    deliver(tmp_path / "in", message("STATUS nosuchgame\n", subject="status", message_id="<status@example.org>"))
    assert main(["--config", str(config), "serve", "--once"]) == 0
    capsys.readouterr()
    assert main(["--config", str(config), "inbox", "list", "--status", "done"]) == 0
    listing = capsys.readouterr().out.splitlines()
    assert any("recorded, not answered: Auto-Submitted: auto-replied" in line for line in listing), listing
    assert any("<status@example.org>" in line and "ShowStatus" in line for line in listing), listing
    skipped = next(line for line in listing if "Auto-Submitted" in line)
    assert main(["--config", str(config), "inbox", "show", skipped.split()[0]]) == 0
    assert "Outcome: recorded, not answered: Auto-Submitted: auto-replied" in capsys.readouterr().out
    engine = make_engine(str(tmp_path / "referee.sqlite3"))
    (mark,) = Watermarks(session_factory(engine)).all()
    engine.dispose()
    assert mark.name == f"maildir:{(tmp_path / 'in').resolve()}" and mark.read_until is not None


def test_demo_via_email(tmp_path, capsys):
    assert main(["demo", "--via", "email", "--dir", str(tmp_path), "--option", "race_length=15"]) == 0
    out = capsys.readouterr().out
    assert "Playing by email" in out
    assert "ok   every message was applied and every reply and report was sent" in out
    assert "  ok   replaying gives the recorded standings" in out
    inbox = list((tmp_path / "mail" / "inbox" / ".Processed" / "cur").iterdir())
    outbox = list((tmp_path / "mail" / "outbox" / "new").iterdir())
    assert inbox and len(outbox) > len(inbox)


def test_settings_from_tables_and_the_environment(tmp_path):
    config = tmp_path / "referee.toml"
    config.write_text(
        '[referee]\nbot_address = "ref@example.com"\n[referee.imap]\nhost = "imap.example.com"\nidle = false\n'
        '[referee.intake]\npoll_seconds = 1.5\n[referee.smtp]\nhost = "smtp.example.com"\nport = 465\nsecurity = "tls"\n'
    )
    loaded = Settings.load(config, {"REFEREE_IMAP_PASSWORD": "hunter2", "REFEREE_SMTP_PASSWORD": "sekrit"})
    settings = loaded.of(CHANNEL)
    assert (settings.imap_host, settings.imap_idle, settings.smtp_port, settings.smtp_security) == (
        "imap.example.com", False, 465, "tls",
    )  # fmt: skip
    assert settings.intake_poll_seconds == 1.5
    assert settings.imap_password == "hunter2" and "hunter2" not in repr(loaded) and "sekrit" not in repr(loaded)
    assert settings.bot_address == "ref@example.com"
    assert Settings.load(None, {"REFEREE_IMAP_IDLE": "yes"}).of(CHANNEL).imap_idle is True
    with pytest.raises(ValueError, match="imap_idle: expected true or false"):
        Settings.load(None, {"REFEREE_IMAP_IDLE": "maybe"})
    config.write_text("[referee.imap]\nhots = 'x'\n")
    with pytest.raises(ValueError, match="unknown setting"):
        Settings.load(config, {})


def test_the_example_configuration_is_valid():
    settings = Settings.load(ROOT / "deploy" / "referee.toml.example", {}).of(CHANNEL)
    assert settings.imap_host and settings.smtp_host and not settings.imap_password
