"""A throwaway PostgreSQL cluster for the test session (initdb + postgres in a temp dir).

The cluster lives in memory (``/dev/shm``) when that has room (:data:`MEMORY_ROOM`), else in
``/tmp``: every test database is a copy of a template (``CREATE DATABASE ... TEMPLATE``, about
13 MB), which costs a quarter as much in memory as on disk, and nothing of it needs to survive.
As root, the cluster runs as the
``postgres`` user (initdb refuses root).  If no PostgreSQL binaries are found
the tests that need it are skipped, and under CI a skip fails the run.
"""

from __future__ import annotations

import glob
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest


def _bindir() -> Path | None:
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)
    for directory in candidates:
        if Path(directory, "initdb").exists():
            return Path(directory)
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


MEMORY_ROOM = 8 * 1024**3
"""The free space ``/dev/shm`` must have for a cluster to live there (a test's database is dropped after it,
but a few tests keep theirs; a test run's cluster stays under a couple of GB)."""


def _cluster_parent() -> str:
    """Where a cluster's folder goes: ``/dev/shm`` when it has :data:`MEMORY_ROOM` free, else ``/tmp``."""
    try:
        if shutil.disk_usage("/dev/shm").free >= MEMORY_ROOM:
            return "/dev/shm"
    except OSError:
        pass
    return "/tmp"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class PostgresCluster:
    """One running cluster; ``url(db)`` gives a psycopg URL for a database in it."""

    def __init__(self, bindir: Path) -> None:
        self.bindir = bindir
        self.root = Path(tempfile.mkdtemp(prefix="refpg-", dir=_cluster_parent()))
        self.port = _free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self.user = "postgres" if os.geteuid() == 0 else None

    def start(self) -> None:
        data = self.root / "data"
        if self.user:
            shutil.chown(self.root, self.user)
        subprocess.run(
            [str(self.bindir / "initdb"), "-D", str(data), "-U", "postgres", "-A", "trust", "-E", "UTF8",
             "--locale=C.UTF-8", "--no-sync", "--no-instructions"],
            check=True, capture_output=True, user=self.user,
        )  # fmt: skip
        self.process = subprocess.Popen(
            [str(self.bindir / "postgres"), "-D", str(data), "-p", str(self.port), "-c", "listen_addresses=127.0.0.1",
             "-c", f"unix_socket_directories={self.root}", "-c", "fsync=off", "-c", "synchronous_commit=off",
             "-c", "full_page_writes=off"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, user=self.user, start_new_session=True,
        )  # fmt: skip
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            ready = subprocess.run(
                [str(self.bindir / "pg_isready"), "-h", "127.0.0.1", "-p", str(self.port), "-q"], check=False
            )
            if ready.returncode == 0:
                return
            time.sleep(0.1)
        raise RuntimeError("PostgreSQL did not become ready in 30 s")

    def url(self, database: str = "postgres") -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{database}"

    def execute(self, sql: str) -> None:
        import psycopg

        with psycopg.connect(f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres", autocommit=True) as conn:
            conn.execute(sql)  # type: ignore[arg-type]

    def stop(self) -> None:
        """Stop the server at once and remove the cluster.  SIGINT is PostgreSQL's fast shutdown: it
        ends the sessions still open (SIGTERM's smart shutdown would wait for every pooled connection
        a test left behind, up to the 10 s allowed here) and nothing is kept anyway."""
        if self.process is not None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
        shutil.rmtree(self.root, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresCluster]:
    bindir = _bindir()
    if bindir is None:
        pytest.skip("PostgreSQL binaries (initdb) not installed")
    cluster = PostgresCluster(bindir)
    cluster.start()
    try:
        yield cluster
    finally:
        cluster.stop()
