"""The bench measures an older commit: its league is built and migrated by its own code (bench/checkout_league.py).

An export of 539bfa8 (before the core's packages and the host package: another schema, ``bot.cli``) is
served end to end by :meth:`bench.serve.Bench.bot`; before the league was built by the checkout's own
code, its serve found this checkout's schema and failed.  Not a timed test: counts are asserted."""

from __future__ import annotations

import subprocess
import tarfile
from io import BytesIO
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from bench.common import ROOT
from bench.serve import Bench, cli_module
from bot.store.migrate import head_revision
from tests.support.dovecot import dovecot_binary
from tests.support.postgres import _bindir

pytestmark = pytest.mark.integration

OLD = "539bfa8"
"""Before the trust and season work (issue 42's first row); its CLI is ``bot.cli``."""


def export(commit: str, into: Path) -> Path:
    """A clean tree of ``commit`` of this repository (``git archive``), or skip when the history lacks it."""
    found = subprocess.run(["git", "-C", str(ROOT), "archive", commit], capture_output=True, check=False)
    if found.returncode != 0:
        pytest.skip(f"{commit} is not in this repository's history")
    with tarfile.open(fileobj=BytesIO(found.stdout)) as archive:
        archive.extractall(into, filter="data")
    return into


def test_the_cli_module_is_the_checkouts_own(tmp_path: Path):
    assert cli_module(ROOT) == "bot.host.cli"
    assert cli_module(export(OLD, tmp_path / OLD)) == "bot.cli"


def test_an_older_commit_is_served_on_a_league_its_own_code_built(tmp_path: Path):
    if dovecot_binary() is None or _bindir() is None:
        pytest.skip("Dovecot and PostgreSQL are needed")
    old = export(OLD, tmp_path / OLD)
    bench = Bench(16)
    try:
        run = bench.bot(old, timeout=300)
        assert (run.replies, run.accepted) == (16, 16)  # every order mail answered ORDERS ACCEPTED
        league = bench.databases.built[("serve", str(bench.games), str(bench.addresses), str(old.resolve()))]
        engine = create_engine(league)
        with engine.connect() as connection:
            revision = connection.execute(text("SELECT version_num FROM alembic_version")).scalar_one()
            games = connection.execute(text("SELECT count(*) FROM games WHERE auth_mode = 'password'")).scalar_one()
        engine.dispose()
        assert revision != head_revision()  # migrated by the old commit's code, not this checkout's
        assert games == bench.games
    finally:
        bench.close()
