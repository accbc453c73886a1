"""The reply to one envelope: sections of what was done, what was not understood, what was ignored."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime

from bot.core.rendering import render


def receipt_for(source_id: str) -> str:
    """A short receipt id a player can quote, derived from the envelope's source id."""
    return "R" + hashlib.sha256(source_id.encode()).hexdigest()[:8].upper()


@dataclass
class ReplyBuilder:
    """Collects the outcome of each command of one envelope, in order."""

    receipt: str
    received_at: datetime
    sections: list[dict[str, object]] = field(default_factory=list)
    not_understood: list[dict[str, str]] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    game_tag: str | None = None

    def section(self, heading: str, *lines: str) -> None:
        self.sections.append({"heading": heading, "lines": [f"  {line}" for line in lines]})

    def error(self, line: str, reason: str) -> None:
        self.not_understood.append({"line": line, "reason": reason})

    def render(self) -> str:
        return render(
            "common/reply.txt.j2",
            {
                "receipt": self.receipt,
                "received": self.received_at.strftime("%Y-%m-%d %H:%M UTC"),
                "sections": self.sections,
                "not_understood": self.not_understood,
                "ignored": self.ignored,
            },
        )
