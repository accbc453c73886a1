"""``python -m bench rss [--games N]``: serve's peak memory at 0, 1,000 and N open games (issue 42).

The games are built on PostgreSQL by the host's bulk path (:func:`bot.host.bulk_games.bulk_games`:
Golden Strider games of 8, each created, joined and started by the core's own commands), in steps,
in one database.  At each size ``referee serve`` runs as a subprocess (:meth:`bench.serve.Bench._serve`)
with a deadline pass every 0.2 s and some intake: ``MAILS`` order mails with a wrong password, each
from an address of its own, for games spread over the league; it runs until the sink has a reply to
each, and ``LINGER`` seconds more.  Meanwhile the resident memory of serve's process tree (serve and
every process under it) is sampled from /proc every 50 ms; the figures are the peak of the tree's sum,
and serve's own high-water mark (``VmHWM``).  Nothing asserts a time or a size: it prints.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from email import policy
from email.message import EmailMessage
from email.utils import format_datetime, formataddr
from pathlib import Path

from imapclient import IMAPClient

from bench import world
from bench.serve import Bench
from bot.core.model.config import ServiceConfig
from bot.host.bulk_games import bulk_games
from bot.store.db import make_engine, session_factory
from tests.support.dovecot import PASSWORD

MAILS = 40
LINGER = 3.0
"""Seconds serve goes on after the last reply (deadline passes over an idle league)."""
PREFIX = "bulk"


@dataclass(frozen=True)
class Sample:
    games: int
    tree_peak_mb: float
    """The peak of the sum of VmRSS over serve's process tree, sampled every 50 ms."""
    serve_hwm_mb: float
    """Serve's own VmHWM (its peak resident set, kept by the kernel) when last read."""
    processes: int
    """The most processes seen in the tree at once."""
    wall: float


def _status(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM of ``pid`` in kB (empty when it is gone)."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return {}
    found: dict[str, int] = {}
    for line in text.splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            found[name] = int(value.split()[0])
    return found


def _tree(root: int) -> list[int]:
    """``root`` and every process under it (/proc's children lists)."""
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        for task in Path(f"/proc/{pid}/task").glob("*") if Path(f"/proc/{pid}/task").exists() else ():
            try:
                todo.extend(int(child) for child in (task / "children").read_text().split())
            except OSError:
                continue
    return found


class Sampler:
    """Samples a process tree's resident memory in a thread until :meth:`stop`."""

    def __init__(self) -> None:
        self.peak_kb = 0
        self.hwm_kb = 0
        self.processes = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def watch(self, root: int) -> None:
        self._thread = threading.Thread(target=self._run, args=(root,), daemon=True)
        self._thread.start()

    def _run(self, root: int) -> None:
        while not self._stop.is_set():
            pids = _tree(root)
            statuses = [_status(pid) for pid in pids]
            self.peak_kb = max(self.peak_kb, sum(s.get("VmRSS", 0) for s in statuses))
            self.hwm_kb = max(self.hwm_kb, _status(root).get("VmHWM", 0))
            self.processes = max(self.processes, sum(bool(s) for s in statuses))
            time.sleep(0.05)

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)


def wrong_password_mail(game: int, number: int) -> bytes:
    """ORDERS for seat S1 of ``bulk<game>`` with a wrong password, from an address of its own."""
    sender = f"stranger{number}@{world.DOMAIN}"
    mail = EmailMessage(policy=policy.SMTP)
    mail["From"] = formataddr((f"Stranger {number}", sender))
    mail["To"] = world.REFEREE
    mail["Subject"] = f"orders {PREFIX}{game}"
    mail["Date"] = format_datetime(datetime.now(UTC))
    mail["Message-ID"] = f"<rss-{number}-{time.monotonic_ns()}@bench.invalid>"
    mail.set_content(f"ORDERS {PREFIX}{game} AS S1\n{world.SETUP}\nPASSWORD not-the-one-{number}\n")
    return mail.as_bytes()


def _mailbox(bench: Bench, games: int) -> str:
    user = bench.dovecot.new_user("rss")
    raws = [wrong_password_mail(1 + (n * 7919) % max(1, games), n) for n in range(MAILS)]
    client = IMAPClient(bench.dovecot.host, port=bench.dovecot.port, ssl=False, timeout=60)
    client.login(user, PASSWORD)
    client.multiappend("INBOX", raws)
    client.logout()
    return user


def rss(games: int) -> list[Sample]:
    """Build up to ``games`` open games and measure serve at 0, 1,000 (if fewer, half) and ``games``."""
    sizes = sorted({0, min(1000, games // 2 if games < 2000 else 1000), games})
    bench = Bench(MAILS)
    samples: list[Sample] = []
    try:
        database = bench.databases.fresh()
        engine = make_engine(database)
        sessions = session_factory(engine)
        config = ServiceConfig(message_domain=world.DOMAIN, game_masters=frozenset({world.GM}), secret_key=world.KEY)
        built = 0
        for size in sizes:
            if size > built:
                start = time.perf_counter()
                bulk_games(sessions, config, "golden-strider", size - built, 8, PREFIX, out=_quiet)
                spent = time.perf_counter() - start
                print(f"built {size - built} games in {spent:.1f} s ({1000 * spent / (size - built):.1f} ms a game)")
                built = size
            engine.dispose()  # no connection of ours while serve runs
            sampler = Sampler()
            user = _mailbox(bench, size)
            start = time.perf_counter()
            try:
                bench._serve(database, user, MAILS, Path(__file__).resolve().parents[1], None, 600,
                             watch=sampler.watch, linger=LINGER)  # fmt: skip
            finally:
                sampler.stop()
            sample = Sample(size, sampler.peak_kb / 1024, sampler.hwm_kb / 1024, sampler.processes,
                            time.perf_counter() - start)  # fmt: skip
            samples.append(sample)
            print(f"{size:>6} open games: serve tree peak {sample.tree_peak_mb:.1f} MB, serve VmHWM "
                  f"{sample.serve_hwm_mb:.1f} MB, {sample.processes} processes, {sample.wall:.1f} s", flush=True)  # fmt: skip
    finally:
        bench.close()
    if len(samples) > 1 and samples[0].tree_peak_mb:
        last, first = samples[-1], samples[0]
        print(f"ratio {last.games} vs 0 games: tree peak {last.tree_peak_mb / first.tree_peak_mb:.2f}, "
              f"serve VmHWM {last.serve_hwm_mb / first.serve_hwm_mb:.2f}")  # fmt: skip
    return samples


def _quiet(line: str) -> None:
    if line.split("/")[0].endswith("000"):  # a progress line every 1,000 games
        print(line, flush=True)
