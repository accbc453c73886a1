"""Autocomplete of a game kind's option names and values, for ``/gm create options:``.

``options`` is one string, ``name=value`` pairs separated by spaces (read by
:func:`bot.discord.gm_commands.parse_options`).  While it is typed, the
suggestions are what is typed so far followed by:

* after a space (or at the start), or inside a name: each option of the kind
  named in the ``kind`` option that is not given yet and whose name starts
  with what is typed, as ``name=<its default>``, its help beside it;
* after ``name=``: that option's documented choices (``true``/``false`` for a
  yes-or-no option, else its default) that start with what is typed.

Every suggestion reads back, through ``parse_options``, as the value shown
(a string that would read as another JSON value is quoted).  An unknown kind
or option offers nothing; the game's own option checker refuses it at
``create`` with its reason.  A suggestion longer than Discord's 100
characters for a choice's value is left out.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from discord import app_commands

from adjudicator import registry
from adjudicator.api import OptionSpec
from bot.core.basics import linear
from bot.core.basics.engine_words import said_text
from bot.core.basics.translation import gettext
from bot.discord.choices import MAX_CHOICES

CHOICE_LIMIT = 100
"""Discord's limit on a choice's name and value."""
_LAST = linear.compile(r"^(?P<head>.*[,\s])?(?P<last>[^,\s]*)$", re.DOTALL)
_NAME = linear.compile(r"(?:^|[,\s])([A-Za-z_][\w-]*)\s*=")
_NEEDS_QUOTES = linear.compile(r"[\s,\"'\[\]{}=]")


def value_text(value: Any) -> str:
    """``value`` as written after ``name=``: a plain word for a string that reads as itself, else JSON."""
    if isinstance(value, str) and value and not _NEEDS_QUOTES.search(value):
        try:
            json.loads(value)
        except ValueError:
            return value
    return json.dumps(value, separators=(",", ":"))


def specs_of(kind: str) -> Sequence[OptionSpec]:
    """The options of ``kind`` (none for a kind the registry does not know)."""
    if kind not in registry.kinds():
        return ()
    return registry.get_rules(kind).options()


def option_choices(kind: str, current: str) -> list[app_commands.Choice[str]]:
    """The suggestions for the ``options`` text ``current`` of a game of ``kind`` (see the module docstring);
    what each means in the language being spoken (the member's Discord's: the caller's ``speaking``)."""
    specs = {spec.name: spec for spec in specs_of(kind)}
    match = _LAST.match(current)
    if not specs or match is None:
        return []
    head, last = (match["head"] or ""), match["last"]
    prefix = head.strip()
    prefix = f"{prefix} " if prefix else ""
    given = set(_NAME.findall(head))
    pairs: list[tuple[str, str]] = []  # (the pair, what it means)
    if "=" in last:
        name, _, typed = last.partition("=")
        spec = specs.get(name)
        if spec is None:
            return []
        for value in _values(spec):
            text = value_text(value)
            if text.startswith(typed):
                pairs.append((f"{name}={text}", gettext("default") if value == spec.default else said_text(spec.help)))
    else:
        for spec in specs.values():
            if spec.name.startswith(last) and spec.name not in given:
                pairs.append((f"{spec.name}={value_text(spec.default)}", said_text(spec.help)))
    choices = []
    for pair, meaning in pairs:
        value = prefix + pair
        if len(value) <= CHOICE_LIMIT:
            choices.append(app_commands.Choice(name=f"{pair}  ({meaning})"[:CHOICE_LIMIT], value=value))
    return choices[:MAX_CHOICES]


def _values(spec: OptionSpec) -> list[Any]:
    """The values to offer for ``spec``: its choices, ``true``/``false``, or its default; the default first."""
    if spec.choices:
        values = list(spec.choices)
    elif isinstance(spec.default, bool):
        values = [True, False]
    else:
        values = [spec.default]
    return sorted(values, key=lambda v: v != spec.default)
