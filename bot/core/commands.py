"""The common command model: what every channel turns its input into.

An adapter (email, Discord, the demo's computer players) builds one
:class:`Envelope` per thing received: who sent it, the commands in it, a source
id that makes applying it idempotent, and how to reply.  The core applies an
envelope in one transaction (:meth:`bot.core.service.GameService.apply`) and
answers with outgoing messages as template name + plain data.

Orders stay raw text here; the game's own parser reads them in the core.
User mistakes are not exceptions: a line the adapter could not read becomes
:class:`NotUnderstood` so the reply can quote it.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any


class Trust(enum.Enum):
    """How sure the adapter is that the sender is who the address says.

    ``VERIFIED``: the channel authenticated the sender (a Discord interaction
    carries the user Discord logged in); ``VOUCHED``: a trusted relay vouches
    for it (e.g. DKIM/SPF passed); ``CLAIMED``: only the message says so.
    """

    VERIFIED = "verified"
    VOUCHED = "vouched"
    CLAIMED = "claimed"


@dataclass(frozen=True)
class Sender:
    """Who sent an envelope: channel ("email", "discord", "demo", "cli") and address on it."""

    channel: str
    address: str
    display_name: str | None = None


@dataclass(frozen=True)
class ReplyContext:
    """What a reply must carry to thread with the message it answers (email headers, Discord ids)."""

    subject: str = ""
    message_id: str | None = None
    references: tuple[str, ...] = ()
    channel_target: str | None = None


@dataclass(frozen=True)
class ShowHelp:
    """``HELP [game]``: the command vocabulary, or one game's rules and order syntax."""

    game: str | None = None


@dataclass(frozen=True)
class ListGames:
    """``LIST``: the games open to join or running."""


@dataclass(frozen=True)
class JoinGame:
    """``JOIN <game> [AS <name>]``: take a seat; the reply carries the seat's secret."""

    game: str
    name: str | None = None


@dataclass(frozen=True)
class SubmitOrders:
    """``GAME <game>`` / ``ORDERS <game>`` followed by order lines in the game's own syntax.

    A later submission for the same turn replaces the earlier one (last set wins).
    """

    game: str
    text: str


@dataclass(frozen=True)
class ShowStatus:
    """``STATUS <game>``: the phase, deadline, who has ordered, and the last report."""

    game: str


@dataclass(frozen=True)
class Resign:
    """``RESIGN <game>``: leave the game; the seat gets no-moves-received orders from then on."""

    game: str


@dataclass(frozen=True)
class CreateGame:
    """Host/GM: create a game of ``kind`` named ``game`` (open for joining)."""

    game: str
    kind: str
    options: dict[str, Any] = field(default_factory=dict)
    time_zone: str = "UTC"
    turn_minutes: int = 48 * 60
    early_processing: bool = False
    auth: str = "password"


@dataclass(frozen=True)
class StartGame:
    """GM: close joining and start the game (its first phase and deadline)."""

    game: str


@dataclass(frozen=True)
class NotUnderstood:
    """A line the adapter could not read as a command, quoted back in the reply."""

    line: str
    reason: str


Command = ShowHelp | ListGames | JoinGame | SubmitOrders | ShowStatus | Resign | CreateGame | StartGame | NotUnderstood


@dataclass(frozen=True)
class Envelope:
    """Everything one received message asks for.

    ``source_id`` is the idempotency key (``imap:<uidvalidity>:<uid>``, a
    Message-ID, a Discord interaction id): applying the same envelope twice is a
    no-op the second time.  ``password`` is the seat secret given in the
    message (``PASSWORD ...``), if any; it is checked, never stored or echoed.
    ``automatic`` marks machine-sent mail: it is recorded but never answered.
    """

    sender: Sender
    commands: tuple[Command, ...]
    source_id: str
    received_at: datetime
    reply: ReplyContext = field(default_factory=ReplyContext)
    password: str | None = None
    ignored: tuple[str, ...] = ()
    automatic: bool = False
    trust: Trust = Trust.CLAIMED
