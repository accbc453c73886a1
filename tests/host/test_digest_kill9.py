"""A player's daily digest across a ``kill -9`` of the ``referee serve`` process that was writing it.

Ann plays in three games with ``DIGEST DAILY`` at a time that has just passed; the other seats sent
her press in all three and one declared an absence (a notice), an hour before (the core's service on
the same SQLite file, with a simulated clock).  Then ``referee serve`` runs against a real aiosmtpd:
first a process that SIGKILLs itself inside the digest pass's transaction, before its commit
(tests/host/digest_runner.py), then one that dies right after the commit, before sending, then a
plain one until the digest is received.  At the SMTP server: exactly one digest mail for Ann, holding
every press message and the notice exactly once, and none of them sent to her on its own.
"""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import func, select

from bot.core.basics.clock import SimulatedClock
from bot.core.model import commands as c
from bot.core.model.config import ServiceConfig
from bot.host.cli import main
from bot.store.db import make_engine, session_factory, unit_of_work
from bot.store.models import DigestItem, OutboxMessage
from tests.core.harness import GM_ADDRESS, SEATS, Harness
from tests.support.smtp_sink import Received, SmtpSink

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
GAMES = ("dg1", "dg2", "dg3")
ANN = "ann@example.org"
MESSAGE_ID = re.compile(rb"^Message-ID:\s*(\S+)", re.IGNORECASE | re.MULTILINE)
DIGEST_SUBJECT = b"Subject: [referee] your daily digest"
PRESS_CODE = re.compile(r"\[(dg\d) press ([A-Z0-9]{4})\]")


def write_config(directory: Path, smtp: SmtpSink) -> Path:
    config = directory / "referee.toml"
    config.write_text(
        "\n".join([
            "[referee]",
            f'database = "{directory / "referee.sqlite3"}"',
            'bot_address = "referee@example.com"',
            'mail_domain = "example.com"',
            f'game_masters = "{GM_ADDRESS}"',
            "[referee.smtp]", f'host = "{smtp.host}"', f"port = {smtp.port}", 'security = "none"',
            "[referee.maildir]", f'inbox = "{directory / "in"}"',
            "[referee.send]", "interval_seconds = 0.1",
            "[referee.deadline]", "check_seconds = 0.2",
        ]) + "\n"
    )  # fmt: skip
    assert main(["--config", str(config), "db", "upgrade"]) == 0
    return config


def prepare(database: Path, now: datetime) -> set[str]:
    """Three games, Ann's digest at the minute just passed, press and a notice for her an hour ago;
    returns the press codes she was sent."""
    engine = make_engine(str(database))
    try:
        harness = Harness(session_factory(engine), clock=SimulatedClock(now - timedelta(hours=1)),
                          config=ServiceConfig(game_masters=frozenset({GM_ADDRESS}), message_domain="example.com"))  # fmt: skip
        for slug in GAMES:
            create = c.CreateGame(slug, "golden-strider", {}, "Europe/Paris", 24 * 60, False, "address", press="white")
            assert harness.send("GM", create).applied.problems == ()
            for name in SEATS:
                assert harness.send(name, c.JoinGame(slug, name)).applied.problems == ()
            assert "STARTED" in (harness.send("GM", c.StartGame(slug)).reply or "")
        due = now - timedelta(minutes=1)
        assert harness.send("Ann", c.SetDigest(f"DAILY {due:%H:%M}")).applied.problems == ()
        codes: set[str] = set()
        for slug in GAMES:
            for who in ("Ben", "Cat"):
                sent = harness.send(who, c.SendPress(slug, ("ann",), f"{who} to Ann in {slug}"))
                assert sent.applied.problems == () and sent.reply is not None
                found = re.search(r"its code is ([A-Z0-9]{4})", sent.reply)
                assert found is not None, sent.reply
                codes.add(f"{slug}:{found.group(1)}")
        assert harness.send("Dan", c.DeclareAbsence("dg2", "2026-12-24", "2026-12-26")).applied.problems == ()
        with unit_of_work(harness.sessions) as session:
            assert session.scalar(select(func.count()).select_from(DigestItem)) == len(codes) + 1
        return codes
    finally:
        engine.dispose()


def serve(config: Path, log: Path, point: str | None) -> subprocess.Popen[bytes]:
    module = ["-m", "bot.host.cli"] if point is None else ["-m", "tests.host.digest_runner", point]
    return subprocess.Popen([sys.executable, *module, "--config", str(config), "serve"], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=log.open("ab"))  # fmt: skip


def wait_until(condition: Callable[[], bool], log: Path, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out; the log:\n{log.read_text()[-3000:]}")
        time.sleep(0.05)


def digests_to_ann(smtp: SmtpSink) -> list[Received]:
    return [r for r in smtp.messages() if ANN in r.recipients and DIGEST_SUBJECT in r.raw]


def test_one_daily_digest_holds_everything_once_across_kill_9(tmp_path: Path):
    smtp = SmtpSink()
    smtp.start()
    try:
        config = write_config(tmp_path, smtp)
        database = tmp_path / "referee.sqlite3"
        codes = prepare(database, datetime.now(UTC))
        log = tmp_path / "serve.log"
        for point in ("mid-pass", "after-commit"):
            process = serve(config, log, point)
            assert process.wait(timeout=60) == -signal.SIGKILL, log.read_text()[-3000:]
        engine = make_engine(str(database))
        try:
            with unit_of_work(session_factory(engine)) as session:
                digest_rows = session.scalars(select(OutboxMessage).where(OutboxMessage.template == "digest")).all()
                assert len(digest_rows) == 1, "the first died before its commit, the second after"
                assert session.scalar(select(func.count()).select_from(DigestItem)) == 0
        finally:
            engine.dispose()
        process = serve(config, log, None)
        try:
            wait_until(lambda: len(digests_to_ann(smtp)) >= 1, log)
            time.sleep(1.0)  # a few more passes of the deadline worker and the sender: nothing more comes
            process.send_signal(signal.SIGTERM)
            assert process.wait(timeout=30) == 0, log.read_text()[-3000:]
        finally:
            if process.poll() is None:
                process.kill()
        [digest] = digests_to_ann(smtp)
        body = digest.message.get_body(("plain",)).get_content()
        found = [f"{game}:{code}" for game, code in PRESS_CODE.findall(body)]
        assert sorted(found) == sorted(codes), "every press message once"
        for slug in GAMES:
            for who in ("Ben", "Cat"):
                assert body.count(f"{who} to Ann in {slug}") == 1
        assert body.count("Dan in dg2 is away from 2026-12-24 to 2026-12-26") == 1
        alone = [r for r in smtp.messages() if ANN in r.recipients and b" press " in r.raw.split(b"\n\n")[0]
                 and DIGEST_SUBJECT not in r.raw]  # fmt: skip
        assert alone == [], "no press sent to Ann on its own"
        ids = [m.group(1) for r in smtp.messages() if (m := MESSAGE_ID.search(r.raw))]
        assert len(ids) == len(set(ids)), "no mail received twice"
    finally:
        smtp.close()
