"""The common command model: what every channel turns its input into.

An adapter (email, Discord, the host's command line, the demo's computer
players) builds one :class:`Envelope` per thing received: who sent it, how far
the channel vouches for that (:class:`Trust`), the commands in it, a source id
that makes applying it idempotent, and an opaque reply context the core hands
back untouched with the reply.  The core applies an envelope in one
transaction (:meth:`bot.core.runtime.service.GameService.apply`) and answers with
outcomes as template name + plain data (:mod:`bot.core.model.outcomes`).

Every command declares who may run it (:class:`Permission`); one pipeline
step checks it for every channel alike (:mod:`bot.core.commands.pipeline`).

Orders stay raw text here; the game's own parser reads them in the core.
User mistakes are not exceptions: a line the adapter could not read becomes
:class:`NotUnderstood` so the reply can quote it.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, ClassVar


class Trust(enum.Enum):
    """How far the channel vouches for the sender's identity.

    * ``VERIFIED``: the channel authenticated the person (Discord, the host's command line);
    * ``VOUCHED``: the receiving server vouches for the address (DMARC, or aligned DKIM or SPF,
      recorded by a server the host trusts: :mod:`bot.email.policy`);
    * ``CLAIMED``: only the sender's own word (a bare From header, whatever its envelope sender).

    Every permission above ``ANYONE`` needs a sender that is more than CLAIMED, or the matching
    secret (:func:`bot.core.commands.pipeline.authorise`): a password game needs the seat password unless
    the sender is VERIFIED; an address-only game needs it unless the sender is VERIFIED or
    VOUCHED; a game master's command needs the GM password unless the sender is VERIFIED;
    creating a game needs a sender who is VERIFIED or VOUCHED (there is no secret for it).
    """

    VERIFIED = "verified"
    VOUCHED = "vouched"
    CLAIMED = "claimed"


class Permission(enum.Enum):
    """Who may run a command (checked by :func:`bot.core.commands.pipeline.authorise`)."""

    ANYONE = "anyone"
    SEAT = "seat"
    """A seat of the named game, authenticated by identity and trust, or by the seat password."""
    GAME_MASTER = "game master"
    """A game master of the named game (or the host)."""
    CREATOR = "creator"
    """Someone the host allows to create games (``game_masters``), VERIFIED or VOUCHED, or the host."""
    HOST = "host"
    """The host only (the command line)."""


@dataclass(frozen=True)
class Sender:
    """Who sent an envelope: the adapter's channel label and the canonical address on it."""

    channel: str
    address: str
    display_name: str | None = None


@dataclass(frozen=True)
class ShowHelp:
    """``HELP [game]``: the command vocabulary, or one game's rules and order syntax."""

    permission: ClassVar[Permission] = Permission.ANYONE

    game: str | None = None


@dataclass(frozen=True)
class ListGames:
    """``LIST``: the games open to join or running."""

    permission: ClassVar[Permission] = Permission.ANYONE


@dataclass(frozen=True)
class JoinGame:
    """``JOIN <game> [AS <name>]``: take a seat; the reply carries the seat's secret."""

    permission: ClassVar[Permission] = Permission.ANYONE

    game: str
    name: str | None = None


@dataclass(frozen=True)
class SubmitOrders:
    """``GAME <game>`` / ``ORDERS <game>`` followed by order lines in the game's own syntax.

    A later submission for the same turn replaces the earlier one (last set wins).
    """

    permission: ClassVar[Permission] = Permission.SEAT

    game: str
    text: str


@dataclass(frozen=True)
class ShowStatus:
    """``STATUS <game>``: the phase, deadline, who has ordered, and the last report."""

    permission: ClassVar[Permission] = Permission.ANYONE

    game: str


@dataclass(frozen=True)
class ShowRecord:
    """``RECORD <game>``: a finished game's sealed record (the file ``referee verify`` reads)."""

    permission: ClassVar[Permission] = Permission.ANYONE

    game: str


@dataclass(frozen=True)
class Resign:
    """``RESIGN <game>``: leave the game; the seat gets no-moves-received orders from then on."""

    permission: ClassVar[Permission] = Permission.SEAT

    game: str


@dataclass(frozen=True)
class CreateGame:
    """Host/GM: create a game of ``kind`` named ``game`` (open for joining)."""

    permission: ClassVar[Permission] = Permission.CREATOR

    game: str
    kind: str
    options: dict[str, Any] = field(default_factory=dict)
    time_zone: str = ""
    """An IANA name; empty takes the host's default (the ``time_zone`` setting)."""
    turn_minutes: int = 0
    """The length of a turn's window; 0 takes the host's default (the ``turn_minutes`` setting)."""
    early_processing: bool = False
    auth: str = "password"
    seats: int | None = None
    """Seats the game starts with (START is refused until they are filled); None: any number the game allows."""
    max_seats: int | None = None
    """Open joining up to this many seats (at most the game's own maximum)."""
    schedule: str = ""
    """Deadline schedule (``48h``, ``every 3 days at 18:00``, ``mon,thu at 20:00``); empty: ``turn_minutes``."""
    min_gap: str = "0"
    """Minimum time between a report and the next deadline (``12h``)."""
    early_delay: str | None = None
    """Early processing: resolve this long after the last order (``30m``, ``0``); None: off unless early_processing."""
    grace: str = "0"
    reminders: str = "24h,1h"
    join: str = "anyone"
    """Who may join: ``anyone``, or ``invited`` (the addresses in ``invited``)."""
    invited: tuple[str, ...] = ()
    observers: bool = True
    absence_limit_days: int = 14
    game_masters: tuple[tuple[str, str], ...] = ()
    """(channel, address) of the game's GMs when someone else creates it for them (the host): the first is
    the game's GM, the others co-GMs; each is sent the GM password.  Empty: the creator is the GM."""


@dataclass(frozen=True)
class StartGame:
    """GM: close joining and start the game (its first phase and deadline)."""

    permission: ClassVar[Permission] = Permission.GAME_MASTER

    game: str


# ---- game masters: each names its game; overrides carry a reason ------------------------


@dataclass(frozen=True)
class SetJoining:
    """GM: open or close joining before the start."""

    permission: ClassVar[Permission] = Permission.GAME_MASTER

    game: str
    open: bool
    reason: str = ""


@dataclass(frozen=True)
class EndGame:
    """GM: end the game now (``abandon``: without a result), for a reason."""

    permission: ClassVar[Permission] = Permission.GAME_MASTER

    game: str
    reason: str
    abandon: bool = False


@dataclass(frozen=True)
class SetDeadline:
    """GM: set the deadline of the open turn: ``when`` is an ISO time (game's zone) or ``+2d3h`` from the deadline."""

    permission: ClassVar[Permission] = Permission.GAME_MASTER

    game: str
    when: str
    reason: str


@dataclass(frozen=True)
class PauseGame:
    """GM: stop the clock (optionally until a time: then the game resumes with a new deadline)."""

    permission: ClassVar[Permission] = Permission.GAME_MASTER

    game: str
    reason: str
    until: str | None = None


@dataclass(frozen=True)
class ResumeGame:
    """GM: start the clock again, with a new deadline (default: the game's schedule from now)."""

    permission: ClassVar[Permission] = Permission.GAME_MASTER

    game: str
    reason: str
    deadline: str | None = None


@dataclass(frozen=True)
class ProcessNow:
    """GM: resolve turn ``turn`` now; refused once that turn is resolved (a repeat can never process two)."""

    permission: ClassVar[Permission] = Permission.GAME_MASTER

    game: str
    turn: int
    reason: str


@dataclass(frozen=True)
class PreviewTurn:
    """GM: resolve the open turn privately with the orders so far; the GM sees the report, nothing changes."""

    permission: ClassVar[Permission] = Permission.GAME_MASTER

    game: str


@dataclass(frozen=True)
class EnterOrders:
    """GM: enter or change the orders of a seat (its player gets a copy)."""

    permission: ClassVar[Permission] = Permission.GAME_MASTER

    game: str
    seat: str
    text: str
    reason: str


@dataclass(frozen=True)
class ReplacePlayer:
    """GM: give a seat to someone else (``channel``/``address``): a fresh secret, the seat's private state."""

    permission: ClassVar[Permission] = Permission.GAME_MASTER

    game: str
    seat: str
    channel: str
    address: str
    reason: str
    extend: str | None = None
    """Also move the deadline (``+1d``, or an ISO time)."""


@dataclass(frozen=True)
class EjectPlayer:
    """GM: take a seat from its player; it gets the no-moves-received rule until replaced."""

    permission: ClassVar[Permission] = Permission.GAME_MASTER

    game: str
    seat: str
    reason: str


@dataclass(frozen=True)
class RollBack:
    """GM: go back to the start of turn ``to_turn`` (its orders stay on file) with a new deadline."""

    permission: ClassVar[Permission] = Permission.GAME_MASTER

    game: str
    to_turn: int
    reason: str
    deadline: str | None = None


@dataclass(frozen=True)
class Broadcast:
    """GM: a message to every seat, the observers and the game's public place."""

    permission: ClassVar[Permission] = Permission.GAME_MASTER

    game: str
    text: str


@dataclass(frozen=True)
class SetOption:
    """GM: change a game option before the start (``value`` as JSON, or a word)."""

    permission: ClassVar[Permission] = Permission.GAME_MASTER

    game: str
    name: str
    value: str
    reason: str


@dataclass(frozen=True)
class AddGameMaster:
    """GM: add a co-GM (``hand_over``: make them the GM and step back)."""

    permission: ClassVar[Permission] = Permission.GAME_MASTER

    game: str
    channel: str
    address: str
    reason: str
    hand_over: bool = False


@dataclass(frozen=True)
class ShowLog:
    """GM: the game's audit log."""

    permission: ClassVar[Permission] = Permission.GAME_MASTER

    game: str


# ---- players: waiting, observing, absence -------------------------------------------------------


@dataclass(frozen=True)
class WaitForDeadline:
    """``SET WAIT`` / ``SET NOWAIT``: this turn, do not process early (njudge's SET WAIT)."""

    permission: ClassVar[Permission] = Permission.SEAT

    game: str
    wait: bool = True


@dataclass(frozen=True)
class Observe:
    """``OBSERVE <game>``: get the public reports without a seat (``stop``: no longer)."""

    permission: ClassVar[Permission] = Permission.ANYONE

    game: str
    stop: bool = False


@dataclass(frozen=True)
class DeclareAbsence:
    """``ABSENT <game> <from> <to>``: days away; a deadline inside them moves to their end, within a limit."""

    permission: ClassVar[Permission] = Permission.SEAT

    game: str
    first: str
    last: str


# ---- one person across channels: see bot/core/commands/linking.py ------------------------------


@dataclass(frozen=True)
class RequestLink:
    """Link another channel's address to the sender: a code is sent there, to be given back (:class:`ConfirmLink`).

    ``channel`` and ``address`` are the target's, in the target channel's
    canonical form (the adapter's word: the core never names a channel).  The
    sender must be authenticated by their channel (``Trust.VERIFIED``): the code
    proves the other side.
    """

    permission: ClassVar[Permission] = Permission.ANYONE

    channel: str
    address: str


@dataclass(frozen=True)
class ConfirmLink:
    """The code sent by :class:`RequestLink`, given back by the same sender: the two addresses become one person."""

    permission: ClassVar[Permission] = Permission.ANYONE

    code: str


@dataclass(frozen=True)
class UnlinkIdentity:
    """Host: separate (channel, address) from the person it is linked to; it becomes a player with no seat.

    What a player refused with ``link_taken`` is told to ask for.  The seats stay
    with the person's other addresses.
    """

    permission: ClassVar[Permission] = Permission.HOST

    channel: str
    address: str
    reason: str


@dataclass(frozen=True)
class NotUnderstood:
    """A line the adapter could not read as a command, quoted back in the reply."""

    permission: ClassVar[Permission] = Permission.ANYONE

    line: str
    reason: str


Command = (
    ShowHelp | ListGames | JoinGame | SubmitOrders | ShowStatus | ShowRecord | Resign | CreateGame | StartGame
    | SetJoining | EndGame | SetDeadline | PauseGame | ResumeGame | ProcessNow | PreviewTurn | EnterOrders
    | ReplacePlayer | EjectPlayer | RollBack | Broadcast | SetOption | AddGameMaster | ShowLog
    | WaitForDeadline | Observe | DeclareAbsence | RequestLink | ConfirmLink
    | UnlinkIdentity | NotUnderstood
)  # fmt: skip


@dataclass(frozen=True)
class Envelope:
    """Everything one received message asks for.

    ``source_id`` is the idempotency key (``imap:<uidvalidity>:<uid>``, a
    Message-ID, a Discord interaction id): applying the same envelope twice is a
    no-op the second time.  ``password`` is the seat secret given in the
    message (``PASSWORD ...``), if any; it is checked, never stored or echoed.
    ``automatic`` marks machine-sent mail: it is recorded but never answered.
    ``answer_if_proven`` (the mail adapter's reply limit for a sender nobody
    vouches for): answered only when the message proved its sender with a
    password (orders accepted, or a password given and nothing refused);
    a forger knows no password, so a forged victim gets no reply.
    ``trust``, ``as_host`` and ``may_create`` are the adapter's word on who the
    sender is; the core never asks which channel a message came from.
    """

    sender: Sender
    commands: tuple[Command, ...]
    source_id: str
    received_at: datetime
    reply_context: Mapping[str, Any] = field(default_factory=dict)
    """Whatever the adapter needs to answer (subject and Message-ID, an interaction id): never read by the core."""
    password: str | None = None
    ignored: tuple[str, ...] = ()
    automatic: bool = False
    answer_if_proven: bool = False
    trust: Trust = Trust.CLAIMED
    as_host: bool = False
    """The host's own command line: a game master of every game."""
    may_create: bool = False
    """The channel knows the sender may create games (a Discord GM role); ``game_masters`` is checked too."""
    unverified_reason: str = ""
    """Why the adapter could not vouch for a CLAIMED sender, said in a refusal (never a secret)."""
