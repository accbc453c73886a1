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


@dataclass(frozen=True)
class Sender:
    """Who sent an envelope: channel ("email", "discord", "demo", "cli") and address on it."""

    channel: str
    address: str
    display_name: str | None = None


class Trust(enum.Enum):
    """How far the channel vouches that :class:`Sender` is who it says (issue 11, item 6).

    ``VERIFIED``: the channel authenticated the person (a Discord user id, an
    in-process caller).  ``VOUCHED``: the receiving mail server vouches for the
    From address (DKIM/DMARC pass recorded by a trusted authserv-id, or the
    envelope sender is the From address itself).  ``CLAIMED``: a bare From
    header, which anyone can write.  The core reads only this, never the
    channel: a password game needs the seat password unless ``VERIFIED``; an
    address-only game needs it unless ``VERIFIED`` or ``VOUCHED``.
    """

    VERIFIED = "verified"
    VOUCHED = "vouched"
    CLAIMED = "claimed"


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
    ``trust`` says how far the channel vouches for the sender (:class:`Trust`).
    """

    sender: Sender
    commands: tuple[Command, ...]
    source_id: str
    received_at: datetime
    reply: ReplyContext = field(default_factory=ReplyContext)
    password: str | None = None
    ignored: tuple[str, ...] = ()
    automatic: bool = False
    trust: Trust = Trust.CLAIMED  # issue 11 item 6: the adapter says how far it vouches for the sender
