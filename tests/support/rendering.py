"""Outcomes as a player reads them by email (``templates/email/``), for assertions on text."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bot.core.messaging.rendering import render_message
from bot.core.runtime.service import Applied
from bot.store.models import OutboxMessage


def reply_text(applied: Applied, context: Mapping[str, Any] | None = None) -> str | None:
    """The reply's body in the email form, or None when there was no reply."""
    if applied.reply is None:
        return None
    return render_message("email", applied.reply.template, {**applied.reply.data, "context": context or {}}).body


@dataclass(frozen=True)
class Row:
    """An outbox row with its email rendering (``subject``, ``body``); other attributes are the row's."""

    row: OutboxMessage
    subject: str
    body: str

    def __getattr__(self, name: str) -> Any:
        return getattr(self.row, name)


def rendered(row: OutboxMessage) -> Row:
    text = render_message("email", row.template, {**row.data, "context": row.context})
    return Row(row, text.title or "", text.body)
