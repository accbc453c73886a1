"""One settings object, read from a TOML file and the environment, passed explicitly.

Precedence: environment (``REFEREE_*``) over the file over the defaults.  The
defaults are the embedded configuration: SQLite in the working directory, no
mail server, no Discord.

In the file, settings stand at the top level or in a ``[referee]`` table;
tables inside name a prefix: ``[imap] host = "..."`` is ``imap_host``.  Every
setting can come from the environment as ``REFEREE_<NAME>`` (for example
``REFEREE_IMAP_PASSWORD``), which is where passwords belong, or from a file
named by ``REFEREE_<NAME>_FILE`` (systemd credentials, container secrets).
See ``deploy/referee.toml.example`` for every setting.

Validation happens at load, before anything is touched: every
unknown key (with the nearest known name), every malformed value (with the
expected form) is reported, all at once, in one :class:`SettingsError`.
:meth:`Settings.missing` adds what a running bot needs on top (a password
for a configured server, ...).  A secret's value never appears in an error
or in ``repr``.
"""

from __future__ import annotations

import difflib
import os
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bot.core.people.seat_secrets import MIN_KEY_BYTES, needs_configured_key

_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off", "")
ENV_PREFIX = "REFEREE_"
NOT_SETTINGS = frozenset({"REFEREE_CONFIG", "REFEREE_UPDATE_GOLDEN"})
"""``REFEREE_*`` environment variables that are not settings."""


class SettingsError(ValueError):
    """Every problem found in the settings, one per line, each naming the key and the expected form."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("; ".join(problems) if len(problems) == 1 else "\n  " + "\n  ".join(problems))


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
    # -- logs ------------------------------------------------------------------
    log_format: str = "text"
    """``text`` (one readable line per event) or ``json`` (one object per line)."""
    log_level: str = "INFO"

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
    smtp_connections: int = 1
    """SMTP sessions a sending pass uses at once (1 to 8; one recipient's mail all on one, in order; a
    kill -9 re-sends at most one mail per session)."""
    maildir_outbox: str = ""

    # -- email policy --------------------------------------------------------
    email_max_message_kb: int = 10 * 1024
    email_reply_limit: int = 20
    email_reply_window_minutes: int = 60
    email_reader_processes: int = 1
    """Processes that read fetched mail beside the intake (bot.email.mail_reader): 1 reads the next
    batch while the intake applies the one before (two cores or more); 0 reads inline."""
    email_max_header_kb: int = 256
    """A mail whose header block is longer is not read, only answered (bot.email.prescreen)."""
    email_max_header_fields: int = 1000
    """A mail with more header fields is not read, only answered."""
    email_max_addresses: int = 1000
    """A mail with more addresses in its address fields (To, Cc, ...) is not read, only answered."""
    email_max_multiparts: int = 100
    """A mail with more (nested) multipart containers is not read, only answered."""
    email_max_nested_lines: int = 20_000_000
    """A mail whose multipart containers times its lines is more is not read, only answered (the
    parser checks each line against every boundary around it)."""
    email_read_seconds: float = 20.0
    """The longest one mail may take to read in the reader process; past it the mail is parked
    unread and the reader goes on (bot.email.mail_reader; needs email_reader_processes = 1)."""
    email_read_memory_mb: int = 1024
    """The reader process's address space; a mail that needs more is parked unread."""
    inbound_max_attempts: int = 5
    inbound_retry_seconds: int = 30
    inbound_raw_retention_days: int = 21
    """How long a processed message's raw bytes are kept (already without its secrets) for replay
    and support; then they are emptied (bot.core.runtime.housekeeping)."""
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
    # -- deadlines wait for the intakes; who vouches for a sender -----------
    intake_wait_seconds: float = 300.0
    """How long a due turn waits for an intake that has not read up to its deadline."""
    intake_settle_seconds: float = 1.0
    """The watermark's margin for saving time and clock skew (bot.email.intake)."""
    email_trusted_authserv_ids: str = ""
    """Comma-separated authserv-ids whose Authentication-Results vouch for a sender (bot.email.policy);
    empty: nobody is vouched for, and games with address-only authentication cannot be created."""

    @classmethod
    def load(cls, path: Path | None = None, environ: Mapping[str, str] | None = None) -> Settings:
        """Defaults, then the TOML file (``[referee]`` table or top level), then ``REFEREE_<FIELD>``.

        Raises :class:`SettingsError` listing every unknown or malformed key (``OSError`` if the
        file cannot be read).
        """
        environ = os.environ if environ is None else environ
        file = path or (Path(environ["REFEREE_CONFIG"]) if "REFEREE_CONFIG" in environ else None)
        problems: list[str] = []
        values: dict[str, Any] = {}
        origins: dict[str, str] = {}
        if file is not None:
            with file.open("rb") as handle:
                try:
                    data: dict[str, Any] = tomllib.load(handle)
                except tomllib.TOMLDecodeError as exc:
                    raise SettingsError([f"{file}: not valid TOML: {exc}"]) from None
            for name, (value, where) in _from_file(data, problems).items():
                values[name], origins[name] = value, f"{where} in {file}"
        for name, (value, where) in _from_environment(environ, problems).items():
            values[name], origins[name] = value, where
        settings, more = cls()._converted(values, origins)
        problems += more
        if problems:
            raise SettingsError(problems)
        return settings

    def merged(self, values: Mapping[str, Any]) -> Settings:
        """A copy with ``values`` applied, converted to each field's type; any unknown key or bad value is an error."""
        problems = [_unknown(name, name, _KNOWN) for name in sorted(set(values) - set(_KNOWN))]
        settings, more = self._converted({k: v for k, v in values.items() if k in _KNOWN}, {})
        if problems + more:
            raise SettingsError(problems + more)
        return settings

    def _converted(self, values: Mapping[str, Any], origins: Mapping[str, str]) -> tuple[Settings, list[str]]:
        converted: dict[str, Any] = {}
        problems: list[str] = []
        for name, value in values.items():
            try:
                converted[name] = _convert(name, getattr(self, name), value)
            except _Bad as bad:
                shown = f"a value of {len(str(value))} characters" if name in SECRETS else repr(value)
                where = f" ({origins[name]})" if name in origins else ""
                problems.append(f"{name}: expected {bad.expected}, got {shown}{where}")
        return replace(self, **converted), problems

    def missing(self) -> list[str]:
        """What a running bot needs and these settings lack: one line per key, saying how to give it."""
        found: list[str] = []
        if self.imap_host:
            if not self.imap_user:
                found.append("imap_user: missing: imap_host is set, so the IMAP login name is needed")
            if not self.imap_password:
                found.append("imap_password: missing: set REFEREE_IMAP_PASSWORD (or REFEREE_IMAP_PASSWORD_FILE)")
        if self.smtp_host and self.smtp_user and not self.smtp_password:
            found.append("smtp_password: missing: smtp_user is set, so set REFEREE_SMTP_PASSWORD")
        if not self.secret_key and not self.secret_key_file and needs_configured_key(self.database):
            found.append(
                f"secret_key: missing: the database is not a SQLite file, so set REFEREE_SECRET_KEY (at least "
                f"{MIN_KEY_BYTES} characters) or secret_key_file (the key of the seat passwords' hashes)"
            )
        if self.discord_token and not self.discord_guild_id:
            found.append("discord_guild_id: missing: discord_token is set, so the server (guild) id is needed")
        if self.discord_token and not self.discord_forum_channel_id:
            found.append("discord_forum_channel_id: missing: discord_token is set, so the forum channel id is needed")
        return found

    def require_complete(self) -> None:
        """Raise :class:`SettingsError` when :meth:`missing` finds anything."""
        if self.missing():
            raise SettingsError(self.missing())

    def secrets(self) -> list[str]:
        """The configured secret values (for the log filter that masks them), with the database URL's password."""
        found = [value for value in (getattr(self, name) for name in sorted(SECRETS)) if value]
        if "://" in self.database:
            password = urlsplit(self.database).password
            if password:
                found += sorted({password, unquote(password)})
        return found


SECRETS = frozenset(f.name for f in fields(Settings) if not f.repr)
"""Settings whose values are never shown: passwords and tokens (``repr=False``)."""
_KNOWN = {f.name: f for f in fields(Settings)}
_PREFIXES = {"_".join(n.split("_")[:i]): None for n in _KNOWN for i in range(1, n.count("_") + 1)}
"""Table names a key can stand in (``imap``, ``email_reply``, ...), for suggestions."""


def game_master_list(settings: Settings) -> list[str]:
    """The ``game_masters`` setting as a list of lower-cased addresses (empty entries dropped)."""
    return [item.strip().lower() for item in settings.game_masters.split(",") if item.strip()]


def address_list(text: str) -> list[str]:
    return [item.strip().lower() for item in text.split(",") if item.strip()]


# -- reading the sources -----------------------------------------------------------


def _from_file(data: Mapping[str, Any], problems: list[str]) -> dict[str, tuple[Any, str]]:
    found: dict[str, tuple[Any, str]] = {}
    outside = {key: value for key, value in data.items() if key != "referee"}
    _flatten(outside, "", "", found, problems)
    if isinstance(data.get("referee"), Mapping):
        # Settings may stand at the top level, in a [referee] table, or both (top-level keys then
        # [referee.imap] ... tables is what people write); the same setting in both places is an error.
        inside: dict[str, tuple[Any, str]] = {}
        _flatten(data["referee"], "", "referee", inside, problems)
        for name in sorted(set(found) & set(inside)):
            problems.append(f"{name}: given twice ({found[name][1]} and {inside[name][1]}); keep one")
        found.update(inside)
    return found


def _flatten(
    data: Mapping[str, Any], prefix: str, table: str, found: dict[str, tuple[Any, str]], problems: list[str]
) -> None:
    for key, value in data.items():
        name = f"{prefix}{key}"
        where = f"{key} in [{table}]" if table else key
        if isinstance(value, Mapping):
            if not any(known.startswith(f"{name}_") for known in _KNOWN):
                problems.append(_unknown(name, f"[{table + '.' if table else ''}{key}]", _PREFIXES))
                continue
            _flatten(value, f"{name}_", f"{table}.{key}" if table else key, found, problems)
        elif name not in _KNOWN:
            problems.append(_unknown(name, where, _KNOWN))
        else:
            found[name] = (value, where)


def _from_environment(environ: Mapping[str, str], problems: list[str]) -> dict[str, tuple[Any, str]]:
    """``REFEREE_<NAME>`` and ``REFEREE_<NAME>_FILE``; a near miss of a setting's name is an error."""
    found: dict[str, tuple[Any, str]] = {}
    env_names = {f"{ENV_PREFIX}{name.upper()}": name for name in _KNOWN}
    for variable in sorted(environ):
        if not variable.startswith(ENV_PREFIX) or variable in NOT_SETTINGS:
            continue
        if variable in env_names:
            found[env_names[variable]] = (environ[variable], f"from {variable}")
        elif variable.endswith("_FILE") and variable[: -len("_FILE")] in env_names:
            name = env_names[variable[: -len("_FILE")]]
            if name in found:
                continue  # REFEREE_<NAME> itself wins
            try:
                found[name] = (Path(environ[variable]).read_text(encoding="utf-8").strip(), f"from {variable}")
            except OSError as exc:
                problems.append(f"{name}: cannot read the file {variable} names: {exc.strerror}")
        else:
            close = difflib.get_close_matches(variable, list(env_names), n=1, cutoff=0.85)
            if close:
                problems.append(f"{variable}: unknown setting; did you mean {close[0]}?")
    return found


def _unknown(name: str, where: str, known: Mapping[str, Any]) -> str:
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]}?" if close else "; see deploy/referee.toml.example for every setting"
    return f"{name}: unknown setting ({where}){hint}"


# -- converting and checking each value ------------------------------------------


class _Bad(Exception):
    def __init__(self, expected: str) -> None:
        self.expected = expected


_CHOICES: dict[str, tuple[str, ...]] = {
    "imap_security": ("tls", "starttls", "none"),
    "smtp_security": ("tls", "starttls", "none"),
    "log_format": ("json", "text"),
    "log_level": ("DEBUG", "INFO", "WARNING", "ERROR"),
}
_ADDRESS = re.compile(r"^[^@\s,]+@[^@\s,]+\.[^@\s,]+$|^[^@\s,]+@localhost$")


def _whole(value: Any) -> int:
    if isinstance(value, (bool, float)):
        raise ValueError
    if isinstance(value, int):
        return value
    text = str(value).strip()
    if not re.fullmatch(r"[+-]?\d+", text):
        raise ValueError
    return int(text)


def _int_rule(name: str) -> tuple[int, int | None, str]:
    """(least, greatest or None, how to say it) for an integer setting."""
    if name.endswith("_port"):
        return 0, 65535, "a whole number from 0 to 65535 (0: the usual port for the security)"
    if name.startswith("discord_") and name.endswith("_id"):
        return 0, None, "a Discord id (a whole number; 0: none)"
    if name == "smtp_connections":
        return 1, 8, "a whole number from 1 to 8"
    if name == "email_reader_processes":
        return 0, 1, "0 (read mail in the intake's process) or 1 (in a process of its own)"
    if name == "email_read_memory_mb":
        return 256, None, "a whole number of megabytes, at least 256"
    return 1, None, "a whole number of at least 1"


def _convert(name: str, default: Any, value: Any) -> Any:
    if isinstance(default, bool):
        return _boolean(value)
    if isinstance(default, int):
        least, greatest, expected = _int_rule(name)
        try:
            number = _whole(value)
        except ValueError:
            raise _Bad(expected) from None
        if number < least or (greatest is not None and number > greatest):
            raise _Bad(expected)
        return number
    if isinstance(default, float):
        expected = "a number of seconds above 0 (e.g. 30 or 0.5)"
        if isinstance(value, bool):
            raise _Bad(expected)
        try:
            seconds = float(value)
        except (TypeError, ValueError):
            raise _Bad(expected) from None
        if not seconds > 0 or seconds == float("inf"):
            raise _Bad(expected)
        return seconds
    if name in LISTS and isinstance(value, list):
        if not all(isinstance(item, str) and "," not in item for item in value):
            raise _Bad('a list of strings, e.g. ["a@example.org", "b@example.org"] (or one string "a, b")')
        value = ", ".join(item.strip() for item in value)
    if not isinstance(value, str):
        raise _Bad(
            'a list, e.g. ["a@example.org", "b@example.org"] (or one string "a, b")' if name in LISTS
            else "a string (in quotes)"
        )  # fmt: skip
    return _CHECKS.get(name, _any_text)(name, value)


LISTS = frozenset({"game_masters", "host_addresses", "email_trusted_authserv_ids"})
"""Settings that hold several values: a TOML array (``["a@x", "b@y"]``), or one comma-separated string
(the form an environment variable has)."""


def _boolean(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise _Bad("true or false")


def _any_text(name: str, value: str) -> str:
    if name in _CHOICES:
        wanted = value.upper() if name == "log_level" else value.lower()
        if wanted not in _CHOICES[name]:
            raise _Bad("one of " + ", ".join(_CHOICES[name]))
        return wanted
    return value


def _time_zone(name: str, value: str) -> str:
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError):
        raise _Bad("an IANA time zone name such as UTC or Europe/London") from None
    return value


def _address(name: str, value: str) -> str:
    if not _ADDRESS.match(value.strip()):
        raise _Bad("an email address such as referee@example.org")
    return value.strip()


def _addresses(name: str, value: str) -> str:
    for item in address_list(value):
        if not _ADDRESS.match(item) and not item.isdigit():
            raise _Bad("email addresses (or Discord user ids), as a list or one comma-separated string")
    return value


def _not_empty(name: str, value: str) -> str:
    if not value.strip():
        raise _Bad("a non-empty value")
    return value


def _secret_key(name: str, value: str) -> str:
    if value.strip() and len(value.strip().encode("utf-8")) < MIN_KEY_BYTES:
        raise _Bad(f"at least {MIN_KEY_BYTES} characters (e.g. the output of `openssl rand -hex 32`)")
    return value


def _url(name: str, value: str) -> str:
    schemes = ("ws://", "wss://") if name.endswith("gateway_url") else ("http://", "https://")
    if not value.startswith(schemes):
        raise _Bad(f"a URL starting with {' or '.join(schemes)}")
    return value


_CHECKS: dict[str, Callable[[str, str], str]] = {
    "time_zone": _time_zone,
    "bot_address": _address,
    "game_masters": _addresses,
    "host_addresses": _addresses,
    "database": _not_empty,
    "mail_domain": _not_empty,
    "imap_folder": _not_empty,
    "secret_key": _secret_key,
    "discord_api_base": _url,
    "discord_gateway_url": _url,
}
