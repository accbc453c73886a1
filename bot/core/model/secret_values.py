"""Secrets in outgoing messages: marked where they are made, gone from the outbox once sent.

A seat password, a GM password or a link code reaches its owner in one
message and rests nowhere in clear: the seats, games and pending links hold
keyed hashes (:mod:`bot.core.people.seat_secrets`), and the message that carries
one forgets it once delivered.  The handler that makes a secret puts it into
the message's data as a :class:`Secret` (a ``str``: templates and JSON see
the text).  A :class:`~bot.core.model.outcomes.Message` holding one says so
(``secret``), and its outbox row gets, beside ``data``, ``redacted_data``:
the same data with every secret replaced by :data:`REDACTED`.  Marking the
row sent, or parking it, puts the redacted data in place of the data in the
same statement (:mod:`bot.core.messaging.outbox`): a sent row still shows what was
sent, to whom and when, but not the secret.  Rows without a secret have no
redacted copy, and a sender marks them with the plain statement: marking
them costs what it did.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

REDACTED = "(removed once sent)"
"""What a sent or parked outbox row holds where its message had a secret."""


class Secret(str):
    """A value only its recipient may read: sent once, never kept once sent."""

    __slots__ = ()


def any_secret(values: Iterable[Any]) -> bool:
    """Whether one of ``values`` (a message's or a reply item's top-level values) is a :class:`Secret`."""
    return any(isinstance(value, Secret) for value in values)


def redacted(data: Any) -> Any:
    """``data`` (plain JSON data) with every :class:`Secret` in it replaced by :data:`REDACTED`."""
    if isinstance(data, Secret):
        return REDACTED
    if isinstance(data, Mapping):
        return {key: redacted(value) for key, value in data.items()}
    if isinstance(data, list | tuple):
        return [redacted(value) for value in data]
    return data
