"""One settings object, read from a TOML file and the environment, passed explicitly.

Precedence: environment (``REFEREE_*``) over the file over the defaults.  The
defaults are the embedded configuration: SQLite in the working directory, no
mail server, no Discord.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any


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

    @classmethod
    def load(cls, path: Path | None = None, environ: Mapping[str, str] | None = None) -> Settings:
        """Defaults, then the TOML file (``[referee]`` table or top level), then ``REFEREE_<FIELD>``."""
        environ = os.environ if environ is None else environ
        settings = cls()
        file = path or (Path(environ["REFEREE_CONFIG"]) if "REFEREE_CONFIG" in environ else None)
        if file is not None:
            with file.open("rb") as handle:
                data: dict[str, Any] = tomllib.load(handle)
            settings = settings.merged(data.get("referee", data))
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
            converted[name] = int(value) if isinstance(default, int) else str(value)
        return replace(self, **converted)
