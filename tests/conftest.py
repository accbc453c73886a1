"""Shared fixtures.  Under CI (``CI`` set), a skipped test fails the run: the
integration tests must really run there."""

from __future__ import annotations

import os

import pytest

pytest_plugins = [
    "tests.support.postgres",
    "tests.support.database",
    "tests.support.dovecot",
    "tests.support.smtp_sink",
]
"""Fixtures for every package: the PostgreSQL cluster, the databases, the session's Dovecot (``dovecot``),
an aiosmtpd sink (``smtp``)."""


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if not os.environ.get("CI"):
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = len(reporter.stats.get("skipped", [])) if reporter is not None else 0
    if skipped:
        if reporter is not None:
            reporter.write_line(f"CI: {skipped} test(s) were skipped; under CI every test must run", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
