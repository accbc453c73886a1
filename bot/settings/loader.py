"""One settings object, read from a TOML file and the environment, passed explicitly.

Precedence: environment (``REFEREE_*``) over the file over the defaults.  The
defaults are the embedded configuration: SQLite in the working directory, no
mail server, no Discord.

:class:`Settings` is sections: the core's (:mod:`bot.settings.core`) and one
per channel of :data:`bot.channels.registry.CHANNELS`, declared in the channel's
``channel.py``.  Each setting keeps one flat name (``imap_host``,
``discord_token``, ``turn_minutes``): the section's prefix and the field.  In
the file, settings stand at the top level or in a ``[referee]`` table; tables
inside name a prefix: ``[imap] host = "..."`` is ``imap_host``.  Every
setting can come from the environment as ``REFEREE_<NAME>`` (for example
``REFEREE_IMAP_PASSWORD``), which is where passwords belong, or from a file
named by ``REFEREE_<NAME>_FILE`` (systemd credentials, container secrets).  A
list is a TOML array or one comma-separated string (the environment's form).
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
import tomllib
from collections.abc import Mapping
from dataclasses import Field, dataclass, field, fields, replace
from pathlib import Path
from typing import Any, TypeVar, cast
from urllib.parse import unquote, urlsplit

from bot.channels import registry as channels
from bot.channels.contract import Channel
from bot.settings.core import GameSettings, HostSettings, IntakeSettings, LogSettings, StoreSettings
from bot.settings.fields import Bad, convert, is_secret

ENV_PREFIX = "REFEREE_"
NOT_SETTINGS = frozenset({"REFEREE_CONFIG", "REFEREE_UPDATE_GOLDEN"})
"""``REFEREE_*`` environment variables that are not settings."""

S = TypeVar("S")


class SettingsError(ValueError):
    """Every problem found in the settings, one per line, each naming the key and the expected form."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("; ".join(problems) if len(problems) == 1 else "\n  " + "\n  ".join(problems))


CORE_SECTIONS: dict[str, tuple[type[Any], str]] = {
    "game": (GameSettings, ""),
    "host": (HostSettings, ""),
    "store": (StoreSettings, ""),
    "intake": (IntakeSettings, ""),
    "log": (LogSettings, "log_"),
}
"""The core's sections: attribute of :class:`Settings` -> (its dataclass, the prefix of its settings' names)."""


def _channel_sections() -> dict[str, Any]:
    return {channel.name: channel.settings() for channel in channels.CHANNELS}


@dataclass(frozen=True)
class Settings:
    """Everything the composition root needs, by section; secrets come from the environment."""

    game: GameSettings = field(default_factory=GameSettings)
    host: HostSettings = field(default_factory=HostSettings)
    store: StoreSettings = field(default_factory=StoreSettings)
    intake: IntakeSettings = field(default_factory=IntakeSettings)
    log: LogSettings = field(default_factory=LogSettings)
    channels: Mapping[str, Any] = field(default_factory=_channel_sections, hash=False)
    """Each channel's section, by the channel's name (read it with :meth:`of`)."""

    def of(self, channel: Channel[S]) -> S:
        """``channel``'s section (its defaults when these settings were made without it)."""
        return cast(S, self.channels.get(channel.name) or channel.settings())

    def with_section(self, channel: Channel[S], section: S) -> Settings:
        """A copy with ``channel``'s section replaced."""
        return replace(self, channels={**self.channels, channel.name: section})

    @classmethod
    def load(cls, path: Path | None = None, environ: Mapping[str, str] | None = None) -> Settings:
        """Defaults, then the TOML file (``[referee]`` table or top level), then ``REFEREE_<NAME>``.

        Raises :class:`SettingsError` listing every unknown or malformed key (``OSError`` if the
        file cannot be read).
        """
        environ = os.environ if environ is None else environ
        file = path or (Path(environ["REFEREE_CONFIG"]) if "REFEREE_CONFIG" in environ else None)
        problems: list[str] = []
        values: dict[str, Any] = {}
        origins: dict[str, str] = {}
        known = _slots()
        if file is not None:
            with file.open("rb") as handle:
                try:
                    data: dict[str, Any] = tomllib.load(handle)
                except tomllib.TOMLDecodeError as exc:
                    raise SettingsError([f"{file}: not valid TOML: {exc}"]) from None
            for name, (value, where) in _from_file(data, known, problems).items():
                values[name], origins[name] = value, f"{where} in {file}"
        for name, (value, where) in _from_environment(environ, known, problems).items():
            values[name], origins[name] = value, where
        settings, more = cls()._converted(values, origins, known)
        problems += more
        if problems:
            raise SettingsError(problems)
        return settings

    def merged(self, values: Mapping[str, Any]) -> Settings:
        """A copy with ``values`` (by setting name) applied, converted; any unknown key or bad value is an error."""
        known = _slots()
        problems = [_unknown(name, name, known) for name in sorted(set(values) - set(known))]
        settings, more = self._converted({k: v for k, v in values.items() if k in known}, {}, known)
        if problems + more:
            raise SettingsError(problems + more)
        return settings

    def _converted(
        self, values: Mapping[str, Any], origins: Mapping[str, str], known: Mapping[str, _Slot]
    ) -> tuple[Settings, list[str]]:
        changes: dict[str, dict[str, Any]] = {}
        problems: list[str] = []
        for name, value in values.items():
            slot = known[name]
            try:
                converted = convert(slot.field, value)
                if name in ADDRESS_LISTS:
                    converted = _channel_addresses(converted)
            except Bad as bad:
                shown = f"a value of {len(str(value))} characters" if is_secret(slot.field) else repr(value)
                where = f" ({origins[name]})" if name in origins else ""
                problems.append(f"{name}: expected {bad.expected}, got {shown}{where}")
                continue
            changes.setdefault(slot.section, {})[slot.field.name] = converted
        core = {key: replace(getattr(self, key), **changes[key]) for key in CORE_SECTIONS if key in changes}
        sections = {
            channel.name: replace(self.of(channel), **changes.get(channel.name, {})) for channel in channels.CHANNELS
        }
        return replace(self, channels=sections, **core), problems

    def missing(self) -> list[str]:
        """What a running bot needs and these settings lack: one line per key, saying how to give it."""
        found = list(self.store.missing())
        for channel in channels.CHANNELS:
            found += channel.missing(self.of(channel))
        return found

    def require_complete(self) -> None:
        """Raise :class:`SettingsError` when :meth:`missing` finds anything."""
        if self.missing():
            raise SettingsError(self.missing())

    def secrets(self) -> list[str]:
        """The configured secret values (for the log filter that masks them), with the database URL's password."""
        sections = [getattr(self, key) for key in CORE_SECTIONS] + [self.of(c) for c in channels.CHANNELS]
        found = [getattr(s, f.name) for s in sections for f in fields(s) if is_secret(f) and getattr(s, f.name)]
        if "://" in self.store.database:
            password = urlsplit(self.store.database).password
            if password:
                found += sorted({password, unquote(password)})
        return found


@dataclass(frozen=True)
class _Slot:
    section: str
    """The attribute of a core section, or a channel's name."""
    field: Field[Any]


def _slots() -> dict[str, _Slot]:
    """Every setting's name -> where it is kept, from the core's sections and the channels' now."""
    found: dict[str, _Slot] = {}
    owners = [(key, kind, prefix) for key, (kind, prefix) in CORE_SECTIONS.items()]
    owners += [(channel.name, channel.settings, channel.prefix) for channel in channels.CHANNELS]
    for key, kind, prefix in owners:
        for item in fields(kind):
            name = f"{prefix}{item.name}"
            if name in found:
                raise TypeError(f"the setting {name} is declared by both {found[name].section} and {key}")
            found[name] = _Slot(key, item)
    return found


def secret_names() -> frozenset[str]:
    """Settings whose values are never shown: passwords and tokens (``repr=False``)."""
    return frozenset(name for name, slot in _slots().items() if is_secret(slot.field))


ADDRESS_LISTS = frozenset({"game_masters", "host_addresses"})
"""Settings listing people: each item an address on a channel (``<channel>:<address>``, or bare)."""


def _channel_addresses(items: tuple[str, ...]) -> tuple[str, ...]:
    for item in items:
        try:
            channels.parse_address(item)
        except ValueError:
            kinds = [channel.address.described for channel in channels.CHANNELS if channel.address.described]
            others = f" (or {', '.join(kinds[1:])})" if kinds[1:] else ""
            raise Bad(f"{kinds[0]}{others}, as a list or one comma-separated string") from None
    return items


# -- reading the sources -----------------------------------------------------------


def _from_file(data: Mapping[str, Any], known: Mapping[str, _Slot], problems: list[str]) -> dict[str, tuple[Any, str]]:
    found: dict[str, tuple[Any, str]] = {}
    outside = {key: value for key, value in data.items() if key != "referee"}
    _flatten(outside, "", "", known, found, problems)
    if isinstance(data.get("referee"), Mapping):
        # Settings may stand at the top level, in a [referee] table, or both (top-level keys then
        # [referee.imap] ... tables is what people write); the same setting in both places is an error.
        inside: dict[str, tuple[Any, str]] = {}
        _flatten(data["referee"], "", "referee", known, inside, problems)
        for name in sorted(set(found) & set(inside)):
            problems.append(f"{name}: given twice ({found[name][1]} and {inside[name][1]}); keep one")
        found.update(inside)
    return found


def _flatten(
    data: Mapping[str, Any],
    prefix: str,
    table: str,
    known: Mapping[str, _Slot],
    found: dict[str, tuple[Any, str]],
    problems: list[str],
) -> None:
    for key, value in data.items():
        name = f"{prefix}{key}"
        where = f"{key} in [{table}]" if table else key
        if isinstance(value, Mapping):
            if not any(setting.startswith(f"{name}_") for setting in known):
                problems.append(_unknown(name, f"[{table + '.' if table else ''}{key}]", _prefixes(known)))
                continue
            _flatten(value, f"{name}_", f"{table}.{key}" if table else key, known, found, problems)
        elif name not in known:
            problems.append(_unknown(name, where, known))
        else:
            found[name] = (value, where)


def _prefixes(known: Mapping[str, _Slot]) -> dict[str, None]:
    """Table names a key can stand in (``imap``, ``email_reply``, ...), for suggestions."""
    return {"_".join(n.split("_")[:i]): None for n in known for i in range(1, n.count("_") + 1)}


def _from_environment(
    environ: Mapping[str, str], known: Mapping[str, _Slot], problems: list[str]
) -> dict[str, tuple[Any, str]]:
    """``REFEREE_<NAME>`` and ``REFEREE_<NAME>_FILE``; a near miss of a setting's name is an error."""
    found: dict[str, tuple[Any, str]] = {}
    env_names = {f"{ENV_PREFIX}{name.upper()}": name for name in known}
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
