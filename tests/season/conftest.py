"""Fixtures of the season tests: the host tests' aiosmtpd with AUTH (Dovecot: the session's)."""

from tests.host.conftest import smtp_with_login

__all__ = ["smtp_with_login"]
