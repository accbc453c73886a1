"""Fixtures of the fault tests: a Dovecot for the session (skipped without the binary; CI fails a skip)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.dovecot import DovecotServer, dovecot_binary


@pytest.fixture(scope="session")
def dovecot() -> Iterator[DovecotServer]:
    binary = dovecot_binary()
    if binary is None:
        pytest.skip("Dovecot is not installed (apt-get install dovecot-imapd)")
    server = DovecotServer(binary)
    server.start()
    try:
        yield server
    finally:
        server.stop()
