"""One settings object, read from a TOML file and the environment, passed explicitly.

Precedence: environment (``REFEREE_*``) over the file over the defaults.  The
defaults are the embedded configuration: SQLite in the working directory, no
mail server, no Discord.

In the file, settings stand at the top level or in a ``[referee]`` table;
tables inside name a prefix: ``[imap] host = "..."`` is ``imap_host``.  Every
setting can come from the environment as ``REFEREE_<NAME>`` (for example
``REFEREE_IMAP_PASSWORD``), which is where passwords belong.  See
``deploy/referee.toml.example`` for every setting.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off", "")


@dataclass(frozen=True)
class Settings:
    """Everything the composition root needs; secrets come from the environment."""

    database: str = "referee.sqlite3"
    mail_domain: str = "referee.invalid"
    bot_address: str = "referee@referee.invalid"
    turn_minutes: int = 48 * 60
    offer_minutes: int = 12 * 60
    decision_minutes: int = 24 * 60
    time_zone: str = "UTC"
    game_masters: str = ""
    """Comma-separated addresses that may create games (the host always may, from the command line)."""
    host_addresses: str = ""
    """Comma-separated email addresses of the host: told of parked turns and other trouble."""
    turn_max_attempts: int = 5
    turn_retry_seconds: int = 30

    # -- seat secrets: the key of their hashes, kept outside the database ----
    secret_key: str = field(default="", repr=False)
    """At least 32 characters; best from ``REFEREE_SECRET_KEY``.  Empty: the key file is used."""
    secret_key_file: str = ""
    """Empty: ``<database>.key`` beside a SQLite database (created, mode 0600); required for PostgreSQL."""

    # -- email: who the referee is ----------------------------------------
    mail_from_name: str = "Referee"

    # -- email intake: IMAP (when imap_host is set) or a Maildir ------------
    imap_host: str = ""
    imap_port: int = 0
    imap_security: str = "tls"
    imap_user: str = ""
    imap_password: str = field(default="", repr=False)
    imap_folder: str = "INBOX"
    imap_done_folder: str = "Processed"
    imap_done_flag: str = "$RefereeDone"
    imap_idle: bool = True
    intake_poll_seconds: float = 60.0
    imap_ca_file: str = ""
    maildir_inbox: str = ""
    maildir_done_folder: str = "Processed"

    # -- email sending: SMTP (when smtp_host is set) or a Maildir -----------
    smtp_host: str = ""
    smtp_port: int = 0
    smtp_security: str = "starttls"
    smtp_user: str = ""
    smtp_password: str = field(default="", repr=False)
    smtp_ca_file: str = ""
    maildir_outbox: str = ""

    # -- email policy --------------------------------------------------------
    email_max_message_kb: int = 10 * 1024
    email_reply_limit: int = 20
    email_reply_window_minutes: int = 60
    inbound_max_attempts: int = 5
    inbound_retry_seconds: int = 30
    send_interval_seconds: float = 5.0
    deadline_check_seconds: float = 30.0

    # -- Discord (runs when discord_token is set; token from REFEREE_DISCORD_TOKEN) --
    discord_token: str = field(default="", repr=False)
    discord_guild_id: int = 0
    discord_forum_channel_id: int = 0
    discord_gm_role_id: int = 0
    discord_api_base: str = "https://discord.com/api/v10"
    discord_gateway_url: str = "wss://gateway.discord.gg/"
    discord_send_interval_seconds: float = 2.0
    # -- issue 11: deadlines wait for the intakes; who vouches for a sender ----
    intake_wait_seconds: float = 300.0
    """How long a due turn waits for an intake that has not read up to its deadline."""
    intake_settle_seconds: float = 1.0
    """The watermark's margin for saving time and clock skew (bot.email.intake)."""
    email_trusted_authserv_ids: str = ""
    """Comma-separated authserv-ids whose Authentication-Results vouch for a sender (bot.email.policy)."""

    @classmethod
    def load(cls, path: Path | None = None, environ: Mapping[str, str] | None = None) -> Settings:
        """Defaults, then the TOML file (``[referee]`` table or top level), then ``REFEREE_<FIELD>``."""
        environ = os.environ if environ is None else environ
        settings = cls()
        file = path or (Path(environ["REFEREE_CONFIG"]) if "REFEREE_CONFIG" in environ else None)
        if file is not None:
            with file.open("rb") as handle:
                data: dict[str, Any] = tomllib.load(handle)
            settings = settings.merged(_flatten(data.get("referee", data)))
        overrides = {
            f.name: environ[f"REFEREE_{f.name.upper()}"] for f in fields(cls) if f"REFEREE_{f.name.upper()}" in environ
        }
        return settings.merged(overrides)

    def merged(self, values: Mapping[str, Any]) -> Settings:
        """A copy with ``values`` applied, converted to each field's type; unknown keys are errors."""
        known = {f.name: f for f in fields(self)}
        unknown = sorted(set(values) - set(known))
        if unknown:
            raise ValueError(f"unknown setting(s): {', '.join(unknown)}")
        converted: dict[str, Any] = {}
        for name, value in values.items():
            default = getattr(self, name)
            if isinstance(default, bool):
                converted[name] = _boolean(name, value)
            elif isinstance(default, int):
                converted[name] = int(value)
            elif isinstance(default, float):
                converted[name] = float(value)
            else:
                converted[name] = str(value)
        return replace(self, **converted)


def _flatten(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            flat.update(_flatten(value, f"{name}_"))
        else:
            flat[name] = value
    return flat


def _boolean(name: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ValueError(f"{name} must be true or false, not {value!r}")
