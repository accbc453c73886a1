"""How a settings section declares its fields, and how a written value becomes a field's value.

A section is a frozen dataclass (the core's in :mod:`bot.settings.core`, each
channel's in its ``channel.py``).  Each field's type says how a value is read:
``bool`` (true/false, yes/no, 1/0), ``int``, ``float`` (seconds above 0),
``str``, or ``tuple[str, ...]`` (a TOML array, or one comma-separated string:
the form an environment variable has).  A field may add a rule with
:func:`setting` (a range, a set of choices, a check of its own) and is a
secret with :func:`secret` (never shown in ``repr`` nor in an error).

Nothing here knows which sections exist: :mod:`bot.settings.loader` gathers them.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bot.core.basics import linear

Check = Callable[[Any], Any]
"""A value (already of the field's type) -> the value kept; raises :class:`Bad` when it is refused."""


class Bad(Exception):
    """A value refused; ``expected`` says the form wanted (shown after ``expected``)."""

    def __init__(self, expected: str) -> None:
        super().__init__(expected)
        self.expected = expected


def setting(default: Any, check: Check | None = None, *, secret: bool = False) -> Any:
    """A field with a default, an optional rule, and whether it is a secret (``repr=False``)."""
    return dataclasses.field(default=default, repr=not secret, metadata={"check": check} if check else {})


def secret(default: str = "", check: Check | None = None) -> Any:
    """A password or token: never in ``repr``, in an error only as its length."""
    return setting(default, check, secret=True)


def is_secret(field: dataclasses.Field[Any]) -> bool:
    return not field.repr


# -- rules -----------------------------------------------------------------------------------


def whole(least: int = 1, greatest: int | None = None, expected: str = "") -> Check:
    """A whole number in a range; ``expected`` says it in words (default: "a whole number of at least N")."""
    said = expected or f"a whole number of at least {least}"

    def check(number: int) -> int:
        if number < least or (greatest is not None and number > greatest):
            raise Bad(said)
        return number

    check.expected = said  # type: ignore[attr-defined]
    return check


PORT = whole(0, 65535, "a whole number from 0 to 65535 (0: the usual port for the security)")


def choice(*options: str, upper: bool = False) -> Check:
    """One of ``options``, compared without case (kept lower-case, or upper-case with ``upper``)."""

    def check(text: str) -> str:
        wanted = text.upper() if upper else text.lower()
        if wanted not in options:
            raise Bad("one of " + ", ".join(options))
        return wanted

    return check


def not_empty(text: str) -> str:
    if not text.strip():
        raise Bad("a non-empty value")
    return text


def url(*schemes: str) -> Check:
    def check(text: str) -> str:
        if not text.startswith(schemes):
            raise Bad(f"a URL starting with {' or '.join(schemes)}")
        return text

    return check


EMAIL_ADDRESS = linear.compile(r"^[^@\s,]+@[^@\s,]+\.[^@\s,]+$|^[^@\s,]+@localhost$")
"""An email address, in a setting and in what a GM writes (the mail channel reads its addresses with it)."""


def email_address(text: str) -> str:
    if not EMAIL_ADDRESS.match(text.strip()):
        raise Bad("an email address such as referee@example.org")
    return text.strip()


def iana_zone(text: str) -> str:
    try:
        ZoneInfo(text)
    except (ZoneInfoNotFoundError, ValueError):
        raise Bad("an IANA time zone name such as UTC or Europe/London") from None
    return text


def lower_case(items: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(item.lower() for item in items)


# -- reading a written value -------------------------------------------------------------------

_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off", "")
LIST_FORM = '["a@example.org", "b@example.org"] (or one string "a, b")'


def convert(field: dataclasses.Field[Any], value: Any) -> Any:
    """``value`` (from TOML or the environment) as ``field``'s type, its rule applied; raises :class:`Bad`."""
    default = field.default
    rule: Check | None = field.metadata.get("check")
    if isinstance(default, bool):
        converted: Any = _boolean(value)
    elif isinstance(default, int):
        converted = _whole(value, getattr(rule, "expected", "a whole number of at least 1"))
        if rule is None:
            rule = whole()
    elif isinstance(default, float):
        converted = _seconds(value)
    elif isinstance(default, tuple):
        converted = _items(value)
    elif not isinstance(value, str):
        raise Bad("a string (in quotes)")
    else:
        converted = value
    return rule(converted) if rule is not None else converted


def _boolean(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise Bad("true or false")


def _whole(value: Any, expected: str) -> int:
    if isinstance(value, (bool, float)):
        raise Bad(expected)
    if isinstance(value, int):
        return value
    text = str(value).strip()
    if not re.fullmatch(r"[+-]?\d+", text):
        raise Bad(expected)
    return int(text)


def _seconds(value: Any) -> float:
    expected = "a number of seconds above 0 (e.g. 30 or 0.5)"
    if isinstance(value, bool):
        raise Bad(expected)
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        raise Bad(expected) from None
    if not seconds > 0 or seconds == float("inf"):
        raise Bad(expected)
    return seconds


def _items(value: Any) -> tuple[str, ...]:
    """A TOML array of strings, or one comma-separated string; empty entries dropped."""
    if isinstance(value, list):
        if not all(isinstance(item, str) and "," not in item for item in value):
            raise Bad(f"a list of strings, e.g. {LIST_FORM}")
        value = ",".join(value)
    if not isinstance(value, str):
        raise Bad(f"a list, e.g. {LIST_FORM}")
    return tuple(item.strip() for item in value.split(",") if item.strip())
