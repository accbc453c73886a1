"""Fixtures of the season tests: an aiosmtpd with AUTH for each test (Dovecot: the session's)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.smtp_sink import SmtpSink


@pytest.fixture
def smtp_with_login() -> Iterator[SmtpSink]:
    sink = SmtpSink(login=("referee@example.com", "smtp-pass-123"))
    sink.start()
    try:
        yield sink
    finally:
        sink.close()
