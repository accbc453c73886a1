"""Which phrase words an announced command in a report: the one its declaration names.

A report, the game's page and its feed say each game master's action (and each seat a substitute
took) with the code ``gm_action`` (``phrase("gm_action", action)`` in a template, or the
``phrase`` global): that code is no macro of its own but the phrase the command's declaration
names (:class:`bot.core.model.declaration.Announcement`), looked up by the command's name as the
audit log keeps it, so a stored report is worded by today's declarations.  An action of a command
no longer declared is said by ``announce_undeclared`` (its bare name): a command still declared
always has its words, since :func:`check_announced` stops the pipeline's import otherwise.
"""

from __future__ import annotations

from collections.abc import Iterable

from bot.core.model.declaration import Declared, announcement_of
from bot.resources import TEMPLATES_DIR

GM_ACTION = "gm_action"
"""The code a template says an announced action with."""
UNDECLARED = "announce_undeclared"
"""The phrase of an action whose command is no longer declared (a stored report's)."""
CATALOGUE = "common/phrases.j2"
"""Where every announcement's phrase is (a form may word it its own way in its own ``phrases.j2``)."""


def announcement_phrase(action: str) -> str:
    """The phrase that words ``action`` (a command's name) in a report."""
    said = announcement_of(action)
    return said.phrase if said is not None else UNDECLARED


def missing_announcements(kinds: Iterable[type[Declared]], catalogue: str | None = None) -> list[str]:
    """The commands of ``kinds`` declared announced whose phrase ``templates/common/phrases.j2`` (or
    ``catalogue``, its text) has no macro for: a plain search of the text, cheap enough for every start."""
    text = (TEMPLATES_DIR / CATALOGUE).read_text() if catalogue is None else catalogue
    return [kind.__name__ for kind in kinds
            if (said := kind.declaration.announced) is not None and f"{{% macro {said.phrase}(" not in text]  # fmt: skip


def check_announced(kinds: Iterable[type[Declared]]) -> None:
    """Raise TypeError naming every announced command of ``kinds`` whose phrase is missing (as a command without a
    handler stops the start: :func:`bot.core.commands.registry.check_complete`)."""
    missing = missing_announcements(kinds)
    if missing:
        raise TypeError(f"announced commands without their phrase in templates/{CATALOGUE}: {', '.join(missing)}")
