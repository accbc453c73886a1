"""``referee status``: games and deadlines, inbox and outbox counts, parked turns, each worker's last error."""

from __future__ import annotations

import asyncio
import json
import logging
from datetime import timedelta
from pathlib import Path

import pytest

from bot.core.intake.inbox import Inbox
from bot.core.messaging.outbox import OutboxDrain, Outgoing, enqueue
from bot.core.runtime import supervisor
from bot.core.runtime.health import WorkerErrorLog, current_worker, record_worker_error, worker_health
from bot.core.runtime.logging_setup import SecretFilter
from bot.core.runtime.supervisor import Stage
from bot.host.cli import main
from bot.store.db import make_engine, session_factory, unit_of_work
from bot.store.models import Game
from tests.email.world import START, build_world
from tests.support.net import free_port


class Failing:
    """A worker that fails its first run, logging a seat password on the way (which must not be stored)."""

    name = "flaky"
    stage = Stage.SENDING

    def __init__(self) -> None:
        self.runs = 0

    async def prepare(self) -> None:
        """Nothing."""

    async def run(self, stop: asyncio.Event) -> None:
        self.runs += 1
        if self.runs == 1:
            logging.getLogger("bot.flaky").warning("server away; body had PASSWORD amber-raven-1001")
            raise ConnectionError("the server went away")
        await stop.wait()

    async def run_once(self) -> bool:
        return True


async def test_the_supervisor_keeps_each_workers_last_error(tmp_path: Path, maildir_config: Path):
    engine = make_engine(str(tmp_path / "referee.sqlite3"))
    sessions = session_factory(engine)
    handler = WorkerErrorLog(sessions)
    handler.addFilter(SecretFilter())
    logging.getLogger().addHandler(handler)
    logging.getLogger("bot.outside").error("not in a worker: not recorded")
    worker = Failing()
    stop = asyncio.Event()
    task = asyncio.create_task(supervisor.serve([worker], stop, restart_min=0.01))
    while worker.runs < 2:
        await asyncio.sleep(0.01)
    stop.set()
    await task
    logging.getLogger().removeHandler(handler)
    handler.close()
    (health,) = worker_health(sessions)
    assert health.worker == "flaky"
    assert health.error.startswith("ERROR flaky failed; restarting in 0.0 s")  # the crash came after the warning
    record_worker_error(sessions, "flaky", START, "WARNING one more")
    assert [(w.worker, w.at, w.error) for w in worker_health(sessions)] == [("flaky", START, "WARNING one more")]
    engine.dispose()


def test_status_shows_games_queues_parked_turns_and_worker_errors(tmp_path: Path, maildir_config: Path, capsys):
    engine = make_engine(str(tmp_path / "referee.sqlite3"))
    sessions = session_factory(engine)
    build_world(sessions)
    deadline = START + timedelta(days=2)
    with unit_of_work(sessions) as session:
        for game in session.query(Game).all():
            game.deadline_at = deadline if game.slug == "demo" else None
            if game.slug == "club":
                game.turn_parked_at, game.turn_failures, game.turn_error = START, 5, "KeyError: 'x'\nTraceback"
    inbox = Inbox(sessions, max_attempts=1)
    inbox.store("email", "k1", "<a@x>", b"Subject: a\n\nLIST\n", START)
    parked = inbox.store("email", "k2", "<b@x>", b"Subject: b\n\nLIST\n", START)
    inbox.mark_failed(parked.id, START, "boom")
    drain = OutboxDrain(sessions)
    before = drain.waiting_by_channel()
    with unit_of_work(sessions) as session:
        rows = [enqueue(session, Outgoing(channel, "someone", "reply", "reply", {}, f"k{i}"), START)
                for i, channel in enumerate(["email", "email", "discord"])]  # fmt: skip
    drain.park(rows[1].id, START, "550 no such user")
    record_worker_error(sessions, "email-intake", START, "WARNING IMAP intake interrupted (OSError: refused)")
    engine.dispose()

    assert main(["--config", str(maildir_config), "status", "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    demo = next(g for g in status["games"] if g["slug"] == "demo")
    assert demo["kind"] == "golden-strider" and demo["status"] == "running" and demo["turn"] == 0
    assert demo["next_deadline"] == deadline.isoformat()
    assert status["inbox"] == {"pending": 1, "parked": 1}
    email_before = before.get("email", 0)
    assert status["outbox"]["email"] == {"pending": email_before + 1, "parked": 1}
    assert status["outbox"]["discord"] == {"pending": 1, "parked": 0}
    (turn,) = status["parked_turns"]
    assert (turn["game"], turn["attempts"]) == ("club", 5) and turn["error"].startswith("KeyError")
    assert status["workers"] == [
        {
            "worker": "email-intake",
            "at": START.isoformat(),
            "error": "WARNING IMAP intake interrupted (OSError: refused)",
        }
    ]

    assert main(["--config", str(maildir_config), "status"]) == 0
    text = capsys.readouterr().out
    assert "demo             golden-strider   running   turn 0   next deadline 2026-03-04 11:00 UTC" in text
    assert "inbox: 1 pending, 1 parked" in text and "outbox discord: 1 pending, 0 parked" in text
    assert "club turn 0: 5 attempts: KeyError: 'x'" in text
    assert "email-intake   2026-03-02 11:00 UTC: WARNING IMAP intake interrupted" in text


def test_status_refuses_an_unmigrated_database(tmp_path: Path, capsys):
    config = tmp_path / "referee.toml"
    config.write_text(f'database = "{tmp_path / "empty.sqlite3"}"\n')
    assert main(["--config", str(config), "status"]) == 2
    assert "run `referee db upgrade`" in capsys.readouterr().err


@pytest.mark.parametrize("form", ["{}", "sqlite:///{}"])
def test_serve_status_and_doctor_create_no_database_file(tmp_path: Path, capsys, form: str):
    missing = tmp_path / "not-yet.sqlite3"
    config = tmp_path / "referee.toml"
    config.write_text(f'database = "{form.format(missing)}"\n')
    for command in (["serve", "--once"], ["status"]):
        assert main(["--config", str(config), *command]) == 2, command
        assert f"there is no SQLite database at {missing}: run `referee db upgrade`" in capsys.readouterr().err
    assert main(["--config", str(config), "doctor"]) == 1
    assert f"FAIL database: there is no SQLite database at {missing}" in capsys.readouterr().out
    assert list(tmp_path.iterdir()) == [config], "nothing is touched before the database exists"


def test_an_unreachable_database_server_exits_75_so_systemd_restarts(tmp_path: Path, capsys):
    from bot.host.cli_host import EXIT_UNAVAILABLE
    from tests.host.test_deploy import DEPLOY, unit

    config = tmp_path / "referee.toml"
    config.write_text(f'database = "postgresql+psycopg://referee@127.0.0.1:{free_port()}/referee"\n'
                      f'secret_key = "{"k" * 32}"\n')  # fmt: skip
    for command in (["serve", "--once"], ["status"]):
        assert main(["--config", str(config), *command]) == EXIT_UNAVAILABLE == 75, command
        assert "cannot open the database" in capsys.readouterr().err
    prevented = unit(DEPLOY / "referee.service")["Service"]["RestartPreventExitStatus"][-1].split()
    assert str(EXIT_UNAVAILABLE) not in prevented and "2" in prevented


def test_a_paused_game_shows_no_deadline_and_errors_are_cut_at_a_word(tmp_path: Path, maildir_config: Path, capsys):
    engine = make_engine(str(tmp_path / "referee.sqlite3"))
    sessions = session_factory(engine)
    build_world(sessions)
    with unit_of_work(sessions) as session:
        for game in session.query(Game).all():
            if game.slug == "demo":
                game.status, game.deadline_at, game.paused_until = "paused", START + timedelta(days=2), None
    long = "WARNING IMAP intake interrupted (OSError: the connection was refused by the server at imap.example.org)"
    record_worker_error(sessions, "email-intake", START, long)
    engine.dispose()
    assert main(["--config", str(maildir_config), "status"]) == 0
    text = capsys.readouterr().out
    line = next(x for x in text.splitlines() if x.strip().startswith("demo "))
    assert line.endswith("paused: no deadline") and "next deadline" not in line
    worker = next(x for x in text.splitlines() if "email-intake" in x)
    assert worker.endswith(" ...") and worker.split(": ", 1)[1][:-4] in long  # whole words only
    assert long.startswith(worker.split(": ", 1)[1][:-4] + " ")
    assert main(["--config", str(maildir_config), "status", "--json"]) == 0
    demo = next(g for g in json.loads(capsys.readouterr().out)["games"] if g["slug"] == "demo")
    assert demo["next_deadline"] is None and demo["paused_until"] is None


def test_a_refused_command_is_not_a_workers_error(tmp_path: Path, maildir_config: Path):
    engine = make_engine(str(tmp_path / "referee.sqlite3"))
    sessions = session_factory(engine)
    handler = WorkerErrorLog(sessions)
    logging.getLogger().addHandler(handler)
    token = current_worker.set("email-intake")
    try:
        logging.getLogger("bot.email.transport").warning("mail server unavailable; retrying")
        logging.getLogger("bot.core.commands.pipeline").warning("refused SetDeadline from email:ann@example.org (x)")
    finally:
        current_worker.reset(token)
        logging.getLogger().removeHandler(handler)
        handler.close()
    assert [w.error for w in worker_health(sessions)] == ["WARNING mail server unavailable; retrying"]
    engine.dispose()
