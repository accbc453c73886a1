"""The core's settings sections: games' defaults, the people the host names, the store, intake, logs.

Each is a frozen dataclass read by :mod:`bot.settings.loader` (the fields' forms:
:mod:`bot.settings.fields`); a field's name is its setting's name
(``turn_minutes``; the log section's prefix makes ``format`` the setting
``log_format``, written ``[log] format``).  The channels' sections are in
their ``channel.py``.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.core.people.seat_secrets import MIN_KEY_BYTES, needs_configured_key
from bot.settings.fields import Bad, choice, iana_zone, lower_case, not_empty, secret, setting


@dataclass(frozen=True)
class GameSettings:
    """Defaults of every game, and how a failing turn is retried."""

    mail_domain: str = setting("referee.invalid", not_empty)
    """The domain of the stable Message-IDs of outgoing messages (every channel's)."""
    turn_minutes: int = 48 * 60
    offer_minutes: int = 12 * 60
    decision_minutes: int = 24 * 60
    time_zone: str = setting("UTC", iana_zone)
    turn_max_attempts: int = 5
    turn_retry_seconds: int = 30
    deadline_check_seconds: float = 30.0


@dataclass(frozen=True)
class HostSettings:
    """The people the host names, each an address on a channel (:func:`bot.channels.registry.parse_address`)."""

    game_masters: tuple[str, ...] = setting((), lower_case)
    """Who may create games (the host always may, from the command line)."""
    host_addresses: tuple[str, ...] = setting((), lower_case)
    """The host: told of parked turns and other trouble; ``doctor --send-test`` writes to them."""


def _secret_key(value: str) -> str:
    if value.strip() and len(value.strip().encode("utf-8")) < MIN_KEY_BYTES:
        raise Bad(f"at least {MIN_KEY_BYTES} characters (e.g. the output of `openssl rand -hex 32`)")
    return value


@dataclass(frozen=True)
class StoreSettings:
    """The database, and the key of the seat secrets' hashes (kept outside it)."""

    database: str = setting("referee.sqlite3", not_empty)
    secret_key: str = secret("", _secret_key)
    """At least 32 characters; best from ``REFEREE_SECRET_KEY``.  Empty: the key file is used."""
    secret_key_file: str = ""
    """Empty: ``<database>.key`` beside a SQLite database (created, mode 0600); required for PostgreSQL."""

    def missing(self) -> list[str]:
        if self.secret_key or self.secret_key_file or not needs_configured_key(self.database):
            return []
        return [
            f"secret_key: missing: the database is not a SQLite file, so set REFEREE_SECRET_KEY (at least "
            f"{MIN_KEY_BYTES} characters) or secret_key_file (the key of the seat passwords' hashes)"
        ]


@dataclass(frozen=True)
class IntakeSettings:
    """Every channel's intake: retries of a failing message, and how deadlines wait for the intakes."""

    inbound_max_attempts: int = 5
    inbound_retry_seconds: int = 30
    inbound_raw_retention_days: int = 21
    """How long a processed message's raw bytes are kept (already without its secrets) for replay
    and support; then they are emptied (bot.core.runtime.housekeeping)."""
    intake_wait_seconds: float = 300.0
    """How long a due turn waits for an intake that has not read up to its deadline."""
    intake_settle_seconds: float = 1.0
    """The watermark's margin for saving time and clock skew."""


@dataclass(frozen=True)
class LogSettings:
    """The log lines (prefix ``log_``: ``[log] format`` is ``log_format``)."""

    format: str = setting("text", choice("json", "text"))
    """``text`` (one readable line per event) or ``json`` (one object per line)."""
    level: str = setting("INFO", choice("DEBUG", "INFO", "WARNING", "ERROR", upper=True))
