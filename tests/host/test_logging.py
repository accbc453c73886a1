"""Logs: JSON one object per line or readable text, with the ids passed by ``extra=``; secrets masked."""

from __future__ import annotations

import io
import json
import logging
import subprocess
import sys
import threading
import time
from pathlib import Path

from bot.core.runtime.logging_setup import (
    MASK,
    PASSWORD_VALUES,
    SEAT_PASSWORD,
    RepeatFilter,
    SecretFilter,
    configure,
)
from bot.email.maildir import deliver
from tests.email.pipeline import message

ROOT = Path(__file__).resolve().parents[2]


def written(stream: io.StringIO) -> str:
    """What was logged to ``stream`` so far: the handlers write in a thread of their own, so wait for them."""
    for handler in logging.getLogger().handlers:
        handler.flush()
    return stream.getvalue()


def logged(log_format: str, secrets: tuple[str, ...] = ()) -> tuple[logging.Logger, io.StringIO]:
    stream = io.StringIO()
    configure(log_format, "INFO", secrets, stream=stream)
    return logging.getLogger("bot.test"), stream


def test_json_is_one_object_per_line_with_the_ids():
    log, stream = logged("json")
    log.info("turn %d resolved\nsecond line", 3, extra={"game": "gs1", "turn": 3, "message_id": "<m@x>"})
    log.warning("no ids here")
    first, second = (json.loads(line) for line in written(stream).splitlines())
    assert first["level"] == "INFO" and first["logger"] == "bot.test"
    assert first["message"] == "turn 3 resolved\nsecond line"
    assert (first["game"], first["turn"], first["message_id"]) == ("gs1", 3, "<m@x>")
    assert first["time"].endswith("Z") and first["time"][:2] == "20"
    assert "game" not in second and second["level"] == "WARNING"


def test_text_is_readable():
    log, stream = logged("text")
    log.info("deadline passed", extra={"game": "gs1", "interaction": 99})
    line = written(stream).strip()
    assert line.endswith("INFO bot.test: deadline passed [game=gs1 interaction=99]"), line


def test_seat_passwords_and_configured_secrets_are_masked_everywhere():
    log, stream = logged("json", secrets=("imap-hunter2",))
    log.info("body: %s", "ORDERS gs1\nPASSWORD amber-raven-4821\nplay 6/0")
    log.error("login as bot with imap-hunter2 failed", extra={"game": "violet-tundra-0007"})
    try:
        raise RuntimeError("seat password birch-dune-0420 rejected")
    except RuntimeError:
        log.exception("handling failed")
    text = written(stream)
    for secret in ("amber-raven-4821", "imap-hunter2", "birch-dune-0420", "violet-tundra-0007"):
        assert secret not in text, secret
    first, second, third = (json.loads(line) for line in text.splitlines())
    assert first["message"] == f"body: ORDERS gs1\nPASSWORD {MASK}\nplay 6/0"
    assert second["message"] == f"login as bot with {MASK} failed" and second["game"] == MASK
    assert "RuntimeError: seat password *** rejected" in third["exception"]


def test_the_filter_keeps_ordinary_text():
    mask = SecretFilter(["s3cret"]).mask
    assert mask("game gs1 turn 4 resolved at 2026-12-01 10:00") == "game gs1 turn 4 resolved at 2026-12-01 10:00"
    assert mask("a s3cret and PASSWORD: x") == f"a {MASK} and PASSWORD: {MASK}"
    assert mask("Subject: hi\n> password Tr0ub4dor\nthe password in the env") == (
        f"Subject: hi\n> password {MASK}\nthe password in the env"
    )


def test_serve_log_format_json(maildir_config: Path, tmp_path: Path):
    deliver(tmp_path / "in", message("HELP\n", subject="help", message_id="<help@example.org>"))
    deliver(tmp_path / "in", message("STATUS nosuch\n", subject="status", message_id="<status@example.org>"))
    done = subprocess.run(
        [sys.executable, "-m", "bot.host.cli", "--config", str(maildir_config), "serve", "--once", "--log-format", "json"],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    entries = [json.loads(line) for line in done.stderr.splitlines()]
    assert entries, "serve logs something"
    assert {"time", "level", "logger", "message"} <= set(entries[0])
    intake = [e for e in entries if e.get("worker") == "email-intake"]
    assert intake and any("2 stored" in e["message"] for e in intake), entries
    # The lines logged while a mail is handled carry its Message-ID, and the game it names.
    answered = [e for e in intake if e["message"].startswith("inbox #")]
    assert {e.get("message_id") for e in answered} == {"<help@example.org>", "<status@example.org>"}, answered
    assert [e.get("game") for e in answered if e["message_id"] == "<status@example.org>"] == ["nosuch"]
    text = subprocess.run(
        [sys.executable, "-m", "bot.host.cli", "--config", str(maildir_config), "serve", "--once"],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    ).stderr  # fmt: skip
    assert " INFO bot.email.runtime: intake: 0 stored" in text and not text.lstrip().startswith("{")


def test_serve_in_process_leaves_the_logging_as_it_found_it(maildir_config: Path):
    from bot.host.cli import main

    root = logging.getLogger()
    before = (list(root.handlers), root.level)
    assert main(["--config", str(maildir_config), "serve", "--once"]) == 0
    assert (list(root.handlers), root.level) == before


def test_the_database_password_is_never_shown(tmp_path: Path, capsys):
    from bot.host.cli import main
    from bot.settings.loader import Settings
    from tests.support.net import free_port

    url = f"postgresql+psycopg://referee:db-Pass%40word-77@127.0.0.1:{free_port()}/referee"
    settings = Settings().merged({"database": url})
    assert {"db-Pass%40word-77", "db-Pass@word-77"} <= set(settings.secrets()), "the log filter masks it"
    log, stream = logged("json", secrets=tuple(settings.secrets()))
    log.error("cannot reach %s", url)
    assert "Pass" not in written(stream) and "referee:***@127.0.0.1" in written(stream)
    config = tmp_path / "referee.toml"
    config.write_text(f'database = "{url}"\nsecret_key = "{"k" * 32}"\n')
    for command in (["serve", "--once"], ["status"], ["db", "upgrade"], ["db", "backup", str(tmp_path / "b")]):
        main(["--config", str(config), *command])
        captured = capsys.readouterr()
        shown = captured.out + captured.err
        assert "referee:***@127.0.0.1" in shown or "pg_dump" in shown, (command, shown)
        assert "Pass" not in shown, (command, shown)


def test_a_repeated_error_is_logged_once_per_interval_with_a_count():
    """Ten thousand failures of one kind write two lines: the first, and after the interval the next,
    saying how many were held back; a warning of another kind, and INFO lines, pass as they come."""
    now = [0.0]
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    repeats = RepeatFilter(interval=60, clock=lambda: now[0])
    handler.addFilter(repeats)
    log = logging.getLogger("bot.test.repeats")
    log.addHandler(handler)
    log.propagate = False
    log.setLevel(logging.INFO)
    try:
        for number in range(10_000):
            now[0] = number * 0.001
            log.error("accept failed: %s", f"EMFILE #{number}")
            if number < 3:
                log.info("served %d", number)
        log.warning("another kind")
        now[0] = 61.0
        log.error("accept failed: %s", "EMFILE again")
        for _ in range(5):
            log.error("accept failed: %s", "and again")
        now[0] = 122.0
        repeats.flush()
        repeats.flush()
    finally:
        log.removeHandler(handler)
        log.propagate = True
    lines = written(stream).splitlines()
    assert lines == [
        "accept failed: EMFILE #0", "served 0", "served 1", "served 2", "another kind",
        "accept failed: EMFILE again (9999 more like it in the last 61 s, not logged one by one)",
        "accept failed: and again (5 more like it in the last 61 s, not logged one by one)",
    ]  # fmt: skip


def test_the_referees_own_log_holds_back_a_fault_that_repeats():
    """serve's handler (configure) lets one line of a repeated fault through a minute: an intake whose
    server is away fails every 2 s, and a flood of one error, are not a line each."""
    stream = io.StringIO()
    handler = configure("text", "INFO", stream=stream)
    log = logging.getLogger("referee.test.repeats")
    try:
        for attempt in range(500):
            log.warning("the IMAP server refused the login (attempt %d)", attempt)
        log.info("an ordinary line")
    finally:
        logging.getLogger().removeHandler(handler)
        handler.close()
    lines = stream.getvalue().splitlines()
    assert sum("refused the login" in line for line in lines) == 1, lines[:5]
    assert any("ordinary line" in line for line in lines)


class BlockedStream(io.StringIO):
    """A stream whose writes wait until ``opened`` is set (serve's stdout when nobody reads the pipe).

    A write from the thread that logs (``logger``) is noted in ``stalled`` and let through, so that a
    handler writing in its caller fails the test instead of hanging it."""

    def __init__(self) -> None:
        super().__init__()
        self.opened = threading.Event()
        self.logger = threading.get_ident()
        self.stalled = False

    def write(self, text: str) -> int:
        if threading.get_ident() == self.logger:
            self.stalled = True
        else:
            self.opened.wait()
        return super().write(text)


def test_a_blocked_stream_does_not_stall_the_work_that_logs():
    """A pass logs its lines and goes on while the stream is blocked; once it opens, every line is
    written, in order."""
    stream = BlockedStream()
    handler = configure("text", "INFO", stream=stream)
    log = logging.getLogger("bot.test.blocked")
    try:
        started = time.monotonic()
        for number in range(2_000):  # a pass over 1,000 mails: a line in, a line out
            log.info("mail %d", number)
        logging_took = time.monotonic() - started
        assert not stream.stalled and stream.getvalue() == ""  # nothing could be written yet
        stream.opened.set()
        handler.flush()
    finally:
        logging.getLogger().removeHandler(handler)
        handler.close()
    assert logging_took < 5, logging_took  # a write that waits would wait forever here
    assert [line.rsplit(" ", 1)[1] for line in stream.getvalue().splitlines()] == [str(n) for n in range(2_000)]


def test_a_slow_stream_gets_every_line_at_a_normal_stop():
    """A process that logs and ends (sys.exit, the handler never closed by hand) writes every line,
    in order, even through a stream slower than the logging; so does one stopped by closing it."""
    script = (
        "import logging, sys, time\n"
        "class Slow:\n"
        "    def write(self, text):\n"
        "        time.sleep(0.0005)\n"
        "        return sys.stdout.write(text)\n"
        "    def flush(self):\n"
        "        sys.stdout.flush()\n"
        "from bot.core.runtime.logging_setup import configure\n"
        "handler = configure('text', 'INFO', stream=Slow())\n"
        "log = logging.getLogger('bot.test.stop')\n"
        "for number in range(1500):\n"
        "    log.info('line %d', number)\n"
        "if sys.argv[1] == 'close':\n"
        "    logging.getLogger().removeHandler(handler)\n"
        "    handler.close()\n"
        "sys.exit(0)\n"
    )
    for how in ("exit", "close"):
        done = subprocess.run(
            [sys.executable, "-c", script, how], cwd=ROOT, capture_output=True, text=True, timeout=60, check=True
        )
        numbers = [line.rsplit(" ", 1)[1] for line in done.stdout.splitlines()]
        assert numbers == [str(n) for n in range(1500)], (how, numbers[-3:], done.stderr[-500:])


def test_masking_skips_no_line_a_pattern_would_change():
    """The cheap checks before each pattern (the word "password", two hyphens) skip only lines the patterns
    leave as they are: the same lines masked with and without them, odd cases and folds included."""
    masking = SecretFilter(["imap-hunter2"])
    lines = [
        "inbox #1 (imap:x/INBOX:1:1) from p0@bench.invalid [SubmitOrders accepted]",
        "sent <6f1c@bench.invalid> (reply) to p195@bench.invalid",
        "PASSWORD amber-raven-4821",
        "  > password: hunter2",
        "Pa\u017f\u017fword = x",
        "PASSWORD\tsecret",
        "my passwords are x",
        "amber-raven-4821 alone",
        "AMBER-RAVEN-4821",
        "a-b-1234",
        "a-b",
        "x-y-123",
        "the imap-hunter2 secret",
        "PASSWORD",
        "pass word x",
        "\u212aey-word-1234",
        "p\u0041ssword z",
        "no-such-thing-9999 end",
    ]
    for line in lines:
        unchecked = line
        for secret in masking.secrets:
            unchecked = unchecked.replace(secret, MASK)
        for pattern in PASSWORD_VALUES:
            unchecked = pattern.sub(lambda m: m.group(1) + MASK, unchecked)
        unchecked = SEAT_PASSWORD.sub(MASK, unchecked)
        assert masking.mask(line) == unchecked, line
    assert masking.mask("Pa\u017f\u017fword = x") == f"Pa\u017f\u017fword = {MASK}"


def test_a_line_after_a_quiet_spell_is_written_at_once():
    """The writer sleeps between batches, but the first line after it has written everything wakes it:
    serve's first line, or a line after a quiet minute, is not held back for a batch."""
    stream = io.StringIO()
    handler = configure("text", "INFO", stream=stream)
    log = logging.getLogger("bot.test.prompt")
    waits = []
    try:
        for number in range(5):
            time.sleep(0.1)  # quiet: the writer has written everything and waits
            started = time.monotonic()
            log.info("line %d", number)
            while f"line {number}" not in stream.getvalue() and time.monotonic() - started < 5:
                time.sleep(0.001)
            waits.append(time.monotonic() - started)
    finally:
        logging.getLogger().removeHandler(handler)
        handler.close()
    assert sorted(waits)[2] < 0.3, waits  # the median; unwoken, the writer looks again only after 0.5 s
