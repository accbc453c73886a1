"""SIGTERM and SIGHUP on a real `referee serve` process, with Maildir in and out.

SIGTERM in the middle of a burst of mail: the process finishes the message it
is on, exits 0, and a second run carries on, so every message gets exactly one
reply and none is lost.  SIGHUP re-reads the settings file and restarts the
workers with it; refused settings leave the old workers running.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Callable
from email import message_from_bytes, policy
from pathlib import Path

from sqlalchemy import select

from bot.email.maildir import deliver
from bot.host.cli import main
from bot.store.db import make_engine, session_factory, unit_of_work
from bot.store.models import InboundMessage
from tests.email.pipeline import message
from tests.host.conftest import write_config

ROOT = Path(__file__).resolve().parents[2]
BURST = 120


def replies_to(directory: Path) -> list[str]:
    folder = directory / "out" / "new"
    if not folder.exists():
        return []
    found = [message_from_bytes(p.read_bytes(), policy=policy.default) for p in folder.iterdir()]
    return [str(m["In-Reply-To"]) for m in found]


def start(config: Path, log: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "bot.host.cli", "--config", str(config), "serve"], cwd=ROOT,
        stdout=subprocess.DEVNULL, stderr=log.open("wb"),
    )  # fmt: skip


def wait_until(condition: Callable[[], bool], log: Path, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out; the log:\n{log.read_text()[-3000:]}")
        time.sleep(0.01)


def test_sigterm_mid_burst_exits_0_and_loses_nothing(tmp_path: Path, maildir_config: Path):
    write_config(tmp_path, f"email_reply_limit = {BURST}")  # one sender: let every message have its reply
    ids = [f"<burst{i}@example.org>" for i in range(BURST)]
    for i, message_id in enumerate(ids):
        deliver(tmp_path / "in", message(f"STATUS demo{i}\n", subject=f"status {i}", message_id=message_id))
    log = tmp_path / "serve.log"
    process = start(maildir_config, log)
    try:
        wait_until(lambda: len(replies_to(tmp_path)) >= 1, log)
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0, log.read_text()
    finally:
        if process.poll() is None:
            process.kill()
    output = log.read_text()
    assert "SIGTERM: finishing the current work, then stopping" in output and "referee stopped" in output
    answered_at_stop = len(replies_to(tmp_path))
    print(f"at SIGTERM: {answered_at_stop} of {BURST} answered")
    assert answered_at_stop < BURST, "the signal came mid-run (the sender sends at most 100 a pass)"

    assert main(["--config", str(maildir_config), "serve", "--once"]) == 0
    assert sorted(replies_to(tmp_path)) == sorted(ids), "every message answered exactly once"
    assert list((tmp_path / "in" / "new").iterdir()) == []
    engine = make_engine(str(tmp_path / "referee.sqlite3"))
    with unit_of_work(session_factory(engine)) as session:
        statuses = session.scalars(select(InboundMessage.status)).all()
    engine.dispose()
    assert len(statuses) == BURST and set(statuses) == {"done"}


def test_sighup_rereads_the_settings_and_restarts_the_workers(tmp_path: Path, maildir_config: Path):
    log = tmp_path / "serve.log"
    process = start(maildir_config, log)
    try:
        wait_until(lambda: "referee serving (deadlines, email-intake, email-sender)" in log.read_text(), log)
        write_config(tmp_path, 'log_format = "json"', "imap_prot = 993")  # a mistake: refused, the old go on
        process.send_signal(signal.SIGHUP)
        wait_until(lambda: "the new settings are refused" in log.read_text(), log)
        assert "imap_prot: unknown setting (imap_prot in [referee]); did you mean imap_port?" in log.read_text()
        deliver(tmp_path / "in", message("LIST\n", subject="list", message_id="<one@example.org>"))
        wait_until(lambda: replies_to(tmp_path) == ["<one@example.org>"], log)

        write_config(tmp_path, 'log_format = "json"', "turn_minutes = 60")
        process.send_signal(signal.SIGHUP)
        wait_until(lambda: "settings re-read; workers restarted" in log.read_text(), log)
        deliver(tmp_path / "in", message("LIST\n", subject="list", message_id="<two@example.org>"))
        wait_until(lambda: len(replies_to(tmp_path)) == 2, log)
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()
    lines = log.read_text().splitlines()
    reread = next(i for i, line in enumerate(lines) if "settings re-read; workers restarted" in line)
    assert lines[reread].startswith('{"time": '), "the new settings (JSON logs) are in force"
    assert not lines[0].startswith("{"), "the old ones were text"
    assert sum("referee serving" in line for line in lines) == 3, "started, kept after the refusal, restarted"
