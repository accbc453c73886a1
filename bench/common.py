"""What the benchmarks share: databases, child processes that report JSON, the table."""

from __future__ import annotations

import json
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bot.store.migrate import upgrade

ROOT = Path(__file__).resolve().parents[1]


def peak_rss_mb() -> float:
    """This process's peak resident set size (Linux reports kilobytes)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class Timer:
    """Sums the seconds spent in named stages."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - start


def child(module: str, *args: str, timeout: float = 3600) -> dict[str, Any]:
    """Run ``python -m module args``; its last stdout line is a JSON object."""
    done = subprocess.run(
        [sys.executable, "-m", module, *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"{module} {' '.join(args)} failed:\n{done.stderr[-4000:]}")
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def start_children(module: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", module, *args], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def collect(process: subprocess.Popen[str], timeout: float = 3600) -> dict[str, Any]:
    out, err = process.communicate(timeout=timeout)
    if process.returncode != 0:
        raise RuntimeError(f"a benchmark worker failed:\n{err[-4000:]}")
    return dict(json.loads(out.strip().splitlines()[-1]))


def report(payload: dict[str, Any]) -> None:
    print(json.dumps(payload), flush=True)


def _cpu_ticks() -> tuple[int, int]:
    """(busy, all) CPU ticks of the whole machine since boot (``/proc/stat``'s first line)."""
    with open("/proc/stat") as stat:
        ticks = [int(value) for value in stat.readline().split()[1:]]
    idle = ticks[3] + ticks[4]  # idle and iowait
    return sum(ticks) - idle, sum(ticks)


def quiet_machine(busy_below: float = 0.15, window: float = 0.25, longest: float = 10.0) -> float:
    """Wait until the machine is quiet: less than ``busy_below`` of its CPU busy over ``window``
    seconds (at most ``longest`` seconds in all); the busy share of the last window.

    Each timed run of a set (a floor, a serve) starts after this, so none pays for what the one
    before it left running (a serve's exit, PostgreSQL's autovacuum and checkpoint after a run's
    writes, the sink's garbage): without it the floor, run first in each round right after the
    last serve, ranged 194 to 510 msg/s in one set of three.  Where ``/proc/stat`` is missing, no wait.
    """
    deadline = time.monotonic() + longest
    share = 0.0
    while True:
        try:
            busy0, all0 = _cpu_ticks()
            time.sleep(window)
            busy1, all1 = _cpu_ticks()
        except OSError:
            return 0.0
        share = (busy1 - busy0) / max(1, all1 - all0)
        if share < busy_below or time.monotonic() > deadline:
            return share


class Databases:
    """Fresh migrated databases: SQLite files in a temp dir, or PostgreSQL databases cloned from a
    template; and copies of a league built once (:meth:`copy_of`)."""

    def __init__(self, postgres: bool) -> None:
        self.directory = Path(tempfile.mkdtemp(prefix="bench", dir="/tmp"))
        self.cluster: Any = None
        self.count = 0
        self.built: dict[tuple[str, ...], str] = {}
        if postgres:
            from tests.support.postgres import PostgresCluster, _bindir

            bindir = _bindir()
            if bindir is None:
                raise SystemExit("PostgreSQL binaries (initdb) are not installed")
            self.cluster = PostgresCluster(bindir)
            self.cluster.start()
            self.cluster.execute("CREATE DATABASE bench_template")
            upgrade(self.cluster.url("bench_template"))

    def fresh(self) -> str:
        """An empty, migrated database."""
        return self._new(None)

    def blank(self) -> str:
        """An empty PostgreSQL database, not migrated (for another checkout's code to migrate)."""
        if self.cluster is None:
            raise ValueError("blank databases are PostgreSQL's (Databases(True))")
        self.count += 1
        name = f"bench_{self.count}"
        self.cluster.execute(f"CREATE DATABASE {name} TEMPLATE template0")
        return str(self.cluster.url(name))

    def copy_of(self, key: tuple[str, ...], build: Callable[[str], object], blank: bool = False) -> str:
        """A fresh copy of the database that ``build(database)`` makes from a fresh one: built the first
        time ``key`` is asked for, then copied (a PostgreSQL ``CREATE DATABASE ... TEMPLATE``, SQLite's
        backup), so each run of a benchmark starts from the same league, without building it again.
        ``blank``: ``build`` is given an empty database (:meth:`blank`), not one migrated by this checkout."""
        if key not in self.built:
            self.built[key] = self.blank() if blank else self.fresh()
            build(self.built[key])
        return self._new(self.built[key])

    def _new(self, original: str | None) -> str:
        """A new database: a copy of ``original`` (one of ours), or empty and migrated when None."""
        self.count += 1
        if self.cluster is None:
            path = self.directory / f"db{self.count}.sqlite3"
            if original is None:
                upgrade(str(path))
            else:
                with sqlite3.connect(original) as source, sqlite3.connect(path) as target:
                    source.backup(target)
            return str(path)
        template = "bench_template" if original is None else original.rsplit("/", 1)[1]
        name = f"bench_{self.count}"
        self.cluster.execute(f"CREATE DATABASE {name} TEMPLATE {template}")
        return str(self.cluster.url(name))

    def close(self) -> None:
        if self.cluster is not None:
            self.cluster.stop()


def min_median(values: list[float]) -> str:
    return f"{min(values):.2f} / {statistics.median(values):.2f}"
