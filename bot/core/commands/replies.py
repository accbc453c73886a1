"""The reply to one envelope, as data: what was done, what was not understood, what was ignored.

Handlers add *items* (``add("joined", game=..., seat=...)``) and *problems*
(``problem(line, "unknown_game", game=..., known=[...])``): a code and plain
data each.  The code names a phrase in ``templates/common/phrases.j2`` (a
channel may say it its own way in ``templates/<form>/phrases.j2``), so no
handler writes text for a channel.  A line an adapter could not read arrives
with the adapter's own reason and is kept as the problem ``as_given``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from bot.core.model.outcomes import Message
from bot.core.model.secret_values import any_secret

REPLY_TEMPLATE = "reply"


def receipt_for(source_id: str) -> str:
    """A short receipt id a player can quote, derived from the envelope's source id."""
    return "R" + hashlib.sha256(source_id.encode()).hexdigest()[:8].upper()


@dataclass
class ReplyBuilder:
    """Collects the outcome of each command of one envelope, in order."""

    receipt: str
    received_at: datetime
    items: list[dict[str, Any]] = field(default_factory=list)
    problems: list[dict[str, Any]] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    game_tag: str | None = None
    secret: bool = False
    """An item holds a :class:`~bot.core.model.secret_values.Secret` (its outbox row forgets it once sent)."""

    def add(self, code: str, **data: Any) -> None:
        """Something done or shown: the phrase ``code`` with ``data``."""
        self.items.append({"code": code, **data})
        if any_secret(data.values()):
            self.secret = True

    def problem(self, line: str, code: str, **data: Any) -> None:
        """A line that was refused or not understood, and why (the phrase ``code``)."""
        self.problems.append({"line": line, "code": code, **data})

    @property
    def codes(self) -> tuple[str, ...]:
        """The codes of the items, in order (what a caller may check without reading text)."""
        return tuple(item["code"] for item in self.items)

    def message(self) -> Message:
        return Message(
            REPLY_TEMPLATE,
            {
                "receipt": self.receipt,
                "received": self.received_at.isoformat(),
                "game": self.game_tag,
                "items": self.items,
                "problems": self.problems,
                "ignored": self.ignored,
            },
            self.secret,
        )
