"""The intake measured from outside, as the issue measures it: ``referee serve`` as a subprocess.

A league of password games (Golden Strider, 8 seats) on PostgreSQL, N order mails of seated
players (each with its seat's ``PASSWORD`` line) APPENDed to a throwaway Dovecot mailbox
before serve starts, replies to an aiosmtpd sink; the time runs from serve's first log line
until the sink has accepted the last reply.  The floor, on the same servers in the same run:
a bare imapclient loop with one ``FETCH RFC822`` and one ``MOVE`` a message over as many mails.
:meth:`Bench.crunch` runs serve on games all due at its start and times the reports' delivery.

``checkout`` runs serve from another checkout of the project (``PYTHONPATH`` and working
directory, its own CLI module: ``bot.host.cli``, or ``bot.cli`` before the host package), so that
commits can be measured alternately in one session.  For another checkout the league is built by
that checkout's own code (:mod:`bench.checkout_league`, run as a script in a subprocess with its
``PYTHONPATH``: its migrations on an empty database, its ``bench.world.build``), so an older commit
with another schema is measured as it was; each checkout gets its own league, built once.
``profile`` (a file) runs serve under py-spy (``pip install py-spy``), its reader process too
(``--subprocesses``), and writes the collapsed stacks there (:mod:`bench.stacks` sums them);
``BENCH_SPY`` in the environment adds py-spy options (``BENCH_SPY=--gil``: only the thread holding
the GIL is sampled, so the stacks are the interpreter's busy time, not its threads' waits).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email import policy
from email.message import EmailMessage
from email.utils import format_datetime, formataddr
from pathlib import Path

from imapclient import IMAPClient
from sqlalchemy import update

from bench import world
from bench.common import ROOT, Databases, quiet_machine
from bot.core.people.seat_secrets import hash_secret
from bot.store.db import make_engine, session_factory, unit_of_work
from bot.store.models import Game, Seat
from tests.support.dovecot import PASSWORD, DovecotServer, dovecot_binary
from tests.support.smtp_sink import Received, SmtpSink

SECRET = "amber-raven-4821"
"""Every seat's password (one hash for all: the check is the same work as with one each)."""
GAMES_PER_MAILS = 12
"""600 mails: 50 games, as the issue's run."""


@dataclass(frozen=True)
class Crunch:
    spread: float
    """Seconds from the first report at the sink to the last."""
    first: float
    """Seconds from serve's first log line (the deadlines had passed) to the first report."""
    mails: int
    size: int
    """The reports' mean size in bytes (the floor sends as many of that size)."""


@dataclass(frozen=True)
class Scale:
    wall: float
    """Seconds from the first serve's first log line until the sink held every report."""
    processes: int
    received: int
    twice: int
    """Message-IDs the sink received more than once."""
    missing: int
    """Reports (distinct Message-IDs) short of 9 a game."""
    size: int
    """The reports' mean size in bytes."""
    spread: float
    """Seconds from the first report at the sink to the last."""


@dataclass(frozen=True)
class Run:
    wall: float
    mails: int
    replies: int
    accepted: int
    latencies: tuple[float, ...] = ()
    """Each reply's seconds from serve's first log line (every mail was waiting then) to the sink."""

    @property
    def rate(self) -> float:
        return self.mails / self.wall


@dataclass(frozen=True)
class Trickle:
    """Order mails delivered one at a time to a running serve: each reply's seconds from the mail's
    delivery (its APPEND done) to the reply at the sink."""

    latencies: tuple[float, ...]
    replies: int


def order_mail(game: int, seat: int, addresses: int, number: int) -> bytes:
    """A valid ORDERS mail with the seat's password, from the address that holds the seat."""
    sender = world.address(world.seat_address(game, seat, addresses))
    mail = EmailMessage(policy=policy.SMTP)
    mail["From"] = formataddr((f"Seat {seat}", sender))
    mail["To"] = world.REFEREE
    mail["Subject"] = f"orders g{game}"
    mail["Date"] = format_datetime(datetime.now(UTC))
    mail["Message-ID"] = f"<serve-{number}-{time.monotonic_ns()}@bench.invalid>"
    mail.set_content(f"ORDERS g{game} AS S{seat}\n{world.SETUP}\nPASSWORD {SECRET}\n")
    return mail.as_bytes()


def build_due(database: str, games: int) -> None:
    """``games`` running games of 8 whose deadlines have passed (:func:`bench.world.build` dates them in the past)."""
    engine = make_engine(database)
    world.build(session_factory(engine), games)
    engine.dispose()  # the database is a template: no session may stay on it


def build_league(database: str, games: int, addresses: int) -> None:
    """``games`` running password games whose deadlines are a month away, every seat's password SECRET."""
    engine = make_engine(database)
    sessions = session_factory(engine)
    world.build(sessions, games, addresses)
    with unit_of_work(sessions) as session:
        session.execute(update(Game).values(deadline_at=datetime.now(UTC) + timedelta(days=30), auth_mode="password"))
        session.execute(update(Seat).values(secret_hash=hash_secret(SECRET, world.KEY)))
    engine.dispose()  # the database is a template: no session may stay on it


LEAGUE_SCRIPT = Path(__file__).with_name("checkout_league.py")


def build_in(checkout: Path, *args: str) -> None:
    """Run :mod:`bench.checkout_league` with ``checkout``'s code (``args``: its command line); raise if it fails."""
    done = subprocess.run(
        [sys.executable, "-P", str(LEAGUE_SCRIPT), *args],
        cwd=checkout,
        env=dict(os.environ, PYTHONPATH=str(checkout)),
        capture_output=True,
        text=True,
        timeout=3600,
        check=False,
    )
    if done.returncode != 0 or not done.stdout.startswith("built "):
        raise RuntimeError(f"building the league with {checkout}'s code failed:\n{done.stderr[-4000:]}")


_COMPILED: set[Path] = set()


def compiled(checkout: Path) -> None:
    """Compile ``checkout``'s own packages to bytecode once, as ``pip install`` does: a checkout run from
    its sources under ``PYTHONDONTWRITEBYTECODE`` (set on some machines) would compile every module it
    imports at every start, its mail reader's too, whose start falls inside the timed window."""
    if checkout.resolve() in _COMPILED:
        return
    packages = [str(checkout / name) for name in ("bot", "adjudicator", "bench") if (checkout / name).is_dir()]
    subprocess.run([sys.executable, "-m", "compileall", "-q", "-j", "0", *packages], check=True,
                   stdout=subprocess.DEVNULL)  # fmt: skip
    _COMPILED.add(checkout.resolve())


def cli_module(checkout: Path) -> str:
    """The module that is ``referee`` in ``checkout``: ``bot.host.cli``, or ``bot.cli`` in older commits."""
    return "bot.host.cli" if (checkout / "bot" / "host" / "cli.py").exists() else "bot.cli"


def _own(checkout: Path) -> bool:
    return checkout.resolve() == ROOT.resolve()


class Bench:
    """The servers of one session: Dovecot, PostgreSQL, the SMTP sink; and the league, built once."""

    def __init__(self, mails: int) -> None:
        binary = dovecot_binary()
        if binary is None:
            raise SystemExit("Dovecot is not installed")
        self.mails = mails
        self.games = max(1, mails // GAMES_PER_MAILS)
        self.addresses = max(world.SEATS, self.games * world.SEATS // 2)
        self.dovecot = DovecotServer(binary)
        self.dovecot.start()
        self.databases = Databases(True)
        self.sink = SmtpSink()
        self.sink.start()
        self.directory = Path(tempfile.mkdtemp(prefix="serve", dir="/tmp"))
        self.runs = 0
        self.last_log: list[tuple[float, bytes]] = []
        """The last serve's log lines, each with its second after the first."""
        self.last_logs: list[list[tuple[float, bytes]]] = []
        """The last :meth:`scale`'s log lines, a list a process, each with its second after the first line."""
        self.last_window: tuple[float, float] = (0.0, 0.0)
        """The last serve's timed window (``time.perf_counter``): its first log line, the last mail expected."""

    def close(self) -> None:
        self.sink.close()
        self.databases.close()
        self.dovecot.stop()

    def _mailbox(self) -> str:
        """A new Dovecot user whose INBOX holds the N order mails."""
        user = self.dovecot.new_user("serve")
        raws = [
            order_mail(n % self.games, (n // self.games) % world.SEATS, self.addresses, n) for n in range(self.mails)
        ]
        client = IMAPClient(self.dovecot.host, port=self.dovecot.port, ssl=False, timeout=60)
        client.login(user, PASSWORD)
        for start in range(0, len(raws), 200):
            client.multiappend("INBOX", raws[start : start + 200])
        client.logout()
        return user

    def floor(self) -> Run:
        """The bare loop: one FETCH RFC822 and one MOVE a message, over a mailbox of N mails."""
        user = self._mailbox()
        client = IMAPClient(self.dovecot.host, port=self.dovecot.port, ssl=False, timeout=60)
        quiet_machine()
        start = time.perf_counter()
        client.login(user, PASSWORD)
        client.create_folder("Done")
        client.select_folder("INBOX")
        fetched = 0
        for uid in client.search(["ALL"]):
            fetched += len(client.fetch([uid], ["RFC822"])[uid][b"RFC822"]) > 0
            client.move([uid], "Done")
        client.logout()
        return Run(time.perf_counter() - start, self.mails, fetched, fetched)

    def bot(self, checkout: Path = ROOT, profile: Path | None = None, timeout: float = 600) -> Run:
        """The intake: ``referee serve`` from ``checkout`` until the sink holds a reply to every mail."""
        user = self._mailbox()
        database = self.league(checkout)
        served = self._serve(database, user, self.mails, checkout, profile, timeout)
        accepted = sum(b"ORDERS ACCEPTED" in r.raw for r in served.received)
        latencies = tuple(sorted(r.at - served.started for r in served.received))
        return Run(served.wall, self.mails, len(served.received), accepted, latencies)

    def trickle(self, mails: int = 20, spacing: float = 0.25, checkout: Path = ROOT, timeout: float = 120) -> Trickle:
        """``mails`` order mails delivered to a running serve ``spacing`` seconds apart (after it has
        been up a second), as players' mail comes in: each reply's latency from its mail's delivery."""
        user = self.dovecot.new_user("trickle")  # an empty mailbox: serve idles on it first
        database = self.league(checkout)
        raws = [
            order_mail(n % self.games, (n // self.games) % world.SEATS, self.addresses, 10_000 + n)
            for n in range(mails)
        ]
        delivered: dict[bytes, float] = {}

        def deliver() -> None:
            client = IMAPClient(self.dovecot.host, port=self.dovecot.port, ssl=False, timeout=60)
            client.login(user, PASSWORD)
            time.sleep(1.5)  # serve's start: its first pass, then IDLE
            for raw in raws:
                client.append("INBOX", raw)
                delivered[_message_id(raw)] = time.perf_counter()
                time.sleep(spacing)
            client.logout()

        sender = threading.Thread(target=deliver, daemon=True)
        served = self._serve(database, user, mails, checkout, None, timeout, watch=lambda _pid: sender.start())
        sender.join(10)
        latencies = []
        for received in served.received:
            header = received.message["In-Reply-To"]
            sent = delivered.get(str(header).strip().encode()) if header else None
            if sent is not None:
                latencies.append(received.at - sent)
        return Trickle(tuple(sorted(latencies)), len(served.received))

    def crunch(self, games: int, checkout: Path = ROOT, timeout: float = 600) -> Crunch:
        """The crunch: ``games`` games of 8 all due at serve's start (their deadlines passed), every
        report (9 a game) delivered to the sink; timed from the first report to the last, and from
        serve's first log line to the first report."""
        user = self.dovecot.new_user("crunch")  # an empty mailbox
        database = self.due(checkout, games)
        served = self._serve(database, user, games * world.SEATS + games, checkout, None, timeout)
        size = sum(len(r.raw) for r in served.received) // max(1, len(served.received))
        return Crunch(served.wall - served.first, served.first, len(served.received), size)

    def scale(self, games: int, processes: int, checkout: Path = ROOT, timeout: float = 600) -> Scale:
        """The crunch with ``processes`` ``referee serve`` processes on one PostgreSQL database, started
        together: ``games`` games of 8 due, until the sink holds their 9 reports a game; timed from the
        first serve's first log line to the last report; Message-IDs received twice and missing counted."""
        user = self.dovecot.new_user("scale")  # an empty mailbox, shared (each serve polls it)
        database = self.due(checkout, games)
        expected = games * (world.SEATS + 1)
        before = self.sink.count()
        command = [sys.executable, "-m", cli_module(checkout), "--config", str(self._config(database, user)), "serve"]
        started: list[float] = []
        quiet_machine()
        served = [
            subprocess.Popen(
                command, cwd=checkout, env=self._environ(checkout), stdout=subprocess.PIPE, stderr=subprocess.STDOUT
            )
            for _ in range(processes)
        ]
        lines: list[list[bytes]] = [[] for _ in served]
        self.last_logs = [[] for _ in served]

        def read(index: int) -> None:
            stream = served[index].stdout
            assert stream is not None
            for line in stream:
                if not started:
                    started.append(time.perf_counter())
                lines[index].append(line)
                self.last_logs[index].append((time.perf_counter() - started[0], line))

        readers = [threading.Thread(target=read, args=(n,), daemon=True) for n in range(processes)]
        for reader in readers:
            reader.start()
        try:
            deadline = time.perf_counter() + timeout
            first_mail = 0.0
            while (count := self.sink.count() - before) < expected:
                if count and not first_mail:
                    first_mail = time.perf_counter() - started[0]
                if any(process.poll() is not None for process in served):
                    raise RuntimeError(
                        "a referee serve ended:\n"
                        + b"".join([line for each in lines for line in each][-40:]).decode(errors="replace")
                    )
                if time.perf_counter() > deadline:
                    raise RuntimeError(f"{self.sink.count() - before} of {expected} mails in {timeout} s")
                time.sleep(0.002)
            wall = time.perf_counter() - started[0]
            time.sleep(1.0)  # a mail sent twice would come now
        finally:
            for process in served:
                process.send_signal(signal.SIGTERM)
            for process in served:
                try:
                    process.wait(60)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
            for reader in readers:
                reader.join(5)
        received = self.sink.messages()[before:]
        ids = Counter(r.message["Message-ID"] for r in received)
        size = sum(len(r.raw) for r in received) // max(1, len(received))
        return Scale(wall, processes, sum(ids.values()), sum(1 for n in ids.values() if n > 1),
                     expected - len(ids), size, wall - first_mail)  # fmt: skip

    def league(self, checkout: Path = ROOT) -> str:
        """A fresh copy of the password league for the intake, built by ``checkout``'s code (once)."""
        key = ("serve", str(self.games), str(self.addresses))
        if _own(checkout):
            return self.databases.copy_of(key, lambda fresh: build_league(fresh, self.games, self.addresses))
        return self.databases.copy_of(
            (*key, str(checkout.resolve())),
            lambda blank: build_in(checkout, "league", blank, str(self.games), str(self.addresses), SECRET),
            blank=True,
        )

    def due(self, checkout: Path, games: int) -> str:
        """A fresh copy of ``games`` due games for the crunch, built by ``checkout``'s code (once)."""
        if _own(checkout):
            return self.databases.copy_of(("due", str(games)), lambda fresh: build_due(fresh, games))
        return self.databases.copy_of(
            ("due", str(games), str(checkout.resolve())),
            lambda blank: build_in(checkout, "due", blank, str(games)),
            blank=True,
        )

    def _config(self, database: str, user: str) -> Path:
        """A settings file for one serve: this database, this IMAP user, the sink; quick passes."""
        self.runs += 1
        config = self.directory / f"referee{self.runs}.toml"
        config.write_text(
            "\n".join([
                "[referee]", f'database = "{database}"', f'bot_address = "{world.REFEREE}"',
                f'mail_domain = "{world.DOMAIN}"', f'game_masters = "{world.GM}"',
                "[referee.imap]", f'host = "{self.dovecot.host}"', f"port = {self.dovecot.port}",
                'security = "none"', f'user = "{user}"',
                "[referee.smtp]", f'host = "{self.sink.host}"', f"port = {self.sink.port}",
                'security = "none"', 'user = ""',
                "[referee.intake]", "poll_seconds = 5",
                "[referee.send]", "interval_seconds = 0.2",
                "[referee.deadline]", "check_seconds = 0.2",
            ]) + "\n"
        )  # fmt: skip
        return config

    def _environ(self, checkout: Path) -> dict[str, str]:
        compiled(checkout)
        return dict(os.environ, PYTHONPATH=str(checkout), REFEREE_IMAP_PASSWORD=PASSWORD,
                    REFEREE_SECRET_KEY=world.KEY.decode())  # fmt: skip

    def _serve(
        self,
        database: str,
        user: str,
        expected: int,
        checkout: Path,
        profile: Path | None,
        timeout: float,
        watch: Callable[[int], object] | None = None,
        linger: float = 0.0,
    ) -> _Served:
        """Run ``referee serve`` from ``checkout`` until the sink has ``expected`` more mails (then ``linger``
        seconds more); ``watch`` is called with serve's process id once it runs."""
        config = self._config(database, user)
        environ = self._environ(checkout)
        command = [sys.executable, "-m", cli_module(checkout), "--config", str(config), "serve"]
        if profile is not None:
            spy = [
                str(Path(sys.executable).parent / "py-spy"),
                "record",
                "--subprocesses",
                "--threads",
                "--format",
                "raw",
                *os.environ.get("BENCH_SPY", "").split(),
            ]
            command = [*spy, "--rate", "250", "--output", str(profile), "--", *command]
        before = self.sink.count()
        quiet_machine()
        process = subprocess.Popen(command, cwd=checkout, env=environ, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if watch is not None:
            watch(process.pid)
        first = threading.Event()
        started: list[float] = []
        log: list[bytes] = []
        self.last_log = []

        def read() -> None:
            assert process.stdout is not None
            for line in process.stdout:
                if not started:
                    started.append(time.perf_counter())
                    first.set()
                log.append(line)
                self.last_log.append((time.perf_counter() - started[0], line))

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        first_mail: float | None = None
        try:
            if not first.wait(60):
                raise RuntimeError("referee serve wrote no log line in 60 s")
            deadline = started[0] + timeout
            while (count := self.sink.count() - before) < expected:
                if count and first_mail is None:
                    first_mail = time.perf_counter() - started[0]
                if process.poll() is not None:
                    raise RuntimeError("referee serve ended:\n" + b"".join(log[-40:]).decode(errors="replace"))
                if time.perf_counter() > deadline:
                    raise RuntimeError(f"{count} of {expected} mails in {timeout} s")
                time.sleep(0.002)
            wall = time.perf_counter() - started[0]
            self.last_window = (started[0], started[0] + wall)
            time.sleep(linger)
        finally:
            _serve_process(process, profile is not None).send_signal(signal.SIGTERM)
            try:
                process.wait(60)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            reader.join(5)
        return _Served(wall, wall if first_mail is None else first_mail, self.sink.messages()[before:], started[0])


@dataclass(frozen=True)
class _Served:
    wall: float
    """From serve's first log line to the last mail expected at the sink."""
    first: float
    """From serve's first log line to the first mail at the sink."""
    received: list[Received]
    started: float
    """Serve's first log line (``time.perf_counter``)."""


def _message_id(raw: bytes) -> bytes:
    """The Message-ID of a mail this module wrote (one line, as :func:`order_mail` writes it)."""
    head = raw.split(b"\n\n", 1)[0].replace(b"\r", b"")
    line = next(line for line in head.split(b"\n") if line.lower().startswith(b"message-id:"))
    return line.split(b":", 1)[1].strip()


class _Pid:
    def __init__(self, pid: int) -> None:
        self.pid = pid

    def send_signal(self, number: int) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, number)


def _serve_process(process: subprocess.Popen[bytes], spied: bool) -> subprocess.Popen[bytes] | _Pid:
    """The serve process itself: under py-spy, py-spy's child (py-spy writes its file once it ends)."""
    if not spied:
        return process
    children = Path(f"/proc/{process.pid}/task/{process.pid}/children").read_text().split()
    return _Pid(int(children[0])) if children else process
