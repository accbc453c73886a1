"""What a channel declares, in one ``channel.py`` of its package (docs/architecture.md, "Channels").

A channel is one :class:`Channel` value: its name, its settings section (a
frozen dataclass, :mod:`bot.settings.fields`), its address syntax, whether it
gives each game a public place (and keeps a status board there), its doctor
checks, and the function that builds its supervised workers.  The settings,
``referee doctor``, the address parser, the core's configuration and
``referee serve`` all loop over :data:`bot.channels.registry.CHANNELS`; none of them
names a channel.

This module imports no channel (each channel imports it), so a channel stays
independent of the others.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    from sqlalchemy.orm import Session, sessionmaker

    from bot.core.basics.clock import Clock
    from bot.core.messaging.outbox_bell import OutboxBell
    from bot.core.runtime.service import GameService
    from bot.core.runtime.supervisor import Worker
    from bot.settings.core import IntakeSettings

S = TypeVar("S")


@dataclass(frozen=True)
class Check:
    """One line of ``referee doctor``; ``fix`` says what to do when it is not ok."""

    name: str
    ok: bool
    detail: str
    fix: str = ""
    warning: bool = False

    def line(self) -> str:
        mark = "ok  " if self.ok and not self.warning else ("warn" if self.ok else "FAIL")
        text = f"{mark} {self.name}: {self.detail}"
        return f"{text}\n       fix: {self.fix}" if self.fix and (not self.ok or self.warning) else text


def first_line(exc: BaseException) -> str:
    """An error's type and first line: what a doctor check shows of it."""
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}".rstrip(": ")


@dataclass(frozen=True)
class AddressSyntax:
    """How a person is written on a channel: ``read`` gives the address as the core keeps it, or None.

    Written ``<channel>:<address>`` anywhere an address of any channel is taken (``referee gm``,
    ``game_masters``, ``host_addresses``); a bare address belongs to the first channel of the
    list (:func:`bot.channels.registry.parse_address`).
    """

    read: Callable[[str], str | None]
    described: str
    """What such addresses are called, plural (``email addresses``), for messages; empty: the channel
    reaches nobody and reads no address (the web pages), and messages leave it out."""

    @classmethod
    def none(cls) -> AddressSyntax:
        """The syntax of a channel that reaches nobody: it reads no address."""
        return cls(lambda text: None, "")


@dataclass(frozen=True)
class Hints:
    """How a person does what a page invites them to, one line per channel that takes it (``By mail: send
    JOIN {game} to referee@club.org``, ``On Discord: /join game:{game}``), each with its placeholders
    (filled by whoever shows them, in one pass, so a seat's name is never read as one)."""

    join: tuple[str, ...] = ()
    """Join a forming game: ``{game}``."""
    take: tuple[str, ...] = ()
    """Take a seat up for a substitute: ``{game}`` and ``{seat}``."""
    standby: tuple[str, ...] = ()
    """Be offered the seats of a kind of game that need a substitute: ``{kind}``."""


@dataclass(frozen=True)
class Runtime:
    """What every channel's workers are built from, besides its own settings."""

    sessions: sessionmaker[Session]
    clock: Clock
    service: GameService
    intake: IntakeSettings
    """The core's intake section: attempts, retries, the watermark's margin."""
    bell: OutboxBell
    """This process's outbox bell: a sender waits on it, so rows committed here are sent at once."""
    read_address: Callable[[str], tuple[str, str]]
    """The one reader of every channel's addresses (:func:`bot.channels.registry.parse_address`), for a channel that
    reads addresses in what people write (a GM's ``ADD GM gs1 1234`` by mail)."""
    hints: Hints = Hints()
    """How a person joins a game, takes a seat up for a substitute, or stands by, on each channel (each
    channel's :attr:`Channel.join_hint` ...), for a channel that tells people (the web pages)."""


@dataclass(frozen=True)
class DoctorContext:
    """What a channel's doctor checks may use besides its own settings."""

    send_test: bool
    """``--send-test``: send a test message to ``host_addresses`` where the channel can."""
    host_addresses: tuple[tuple[str, str], ...]
    """The host's addresses as (channel, address): where a test message goes."""
    mail_domain: str


def _nothing(*section: Any) -> list[Any]:
    return []


def _no(section: Any) -> bool:
    return False


@dataclass(frozen=True)
class Channel(Generic[S]):
    """One channel's whole declaration."""

    name: str
    """As it stands in outbox rows, identities and ``<name>:<address>`` (lower case, one word)."""
    label: str
    """As people call it (``Email``, ``Discord``)."""
    settings: type[S]
    """Its settings section, a frozen dataclass whose defaults mean "not configured"."""
    prefix: str
    """Its settings' names are ``prefix + field``: ``discord_`` reads ``[discord] token`` as ``token``;
    empty when the fields carry their own table names (``imap_host``, ``smtp_host``, ...)."""
    address: AddressSyntax
    workers: Callable[[S, Runtime], list[Worker]]
    """Its supervised workers (none when it is not configured)."""
    doctor: Callable[[S, DoctorContext], list[Check]] = _nothing
    missing: Callable[[S], list[str]] = _nothing
    """What a running bot needs and the section lacks: ``key: missing: how to give it`` lines."""
    unreachable: Callable[[S], str] = field(default=lambda section: "")
    """Why people named by an address on it cannot be reached now (``Discord user ids, but Discord is
    not configured``), or empty."""
    reach_by: str = ""
    """The settings that make it reach people (``REFEREE_DISCORD_TOKEN``), for the doctor's fixes."""
    own_address: Callable[[S], str] = field(default=lambda section: "")
    """The referee's own address on it (never a game master: what it sends is never a command)."""
    public_place: Callable[[S], bool] = _no
    """Whether every game has a public place on it (reports, announcements)."""
    status_board: Callable[[S], bool] = _no
    """Whether its public place keeps a status board (a pinned status message)."""
    intakes: Callable[[S], tuple[str, ...]] = field(default=lambda section: ())
    """The watermark names of its intakes: each deadline waits for them."""
    log_quiet: tuple[str, ...] = ()
    """Loggers that write protocol traffic (message text, passwords) at DEBUG: held at INFO."""
    pages_url: Callable[[S], str] = field(default=lambda section: "")
    """Where it shows each game's page (``https://club.org``: a game is ``<url>/games/<slug>``), for links
    in every channel's messages; empty: it shows none."""
    join_hint: Callable[[S], str] = field(default=lambda section: "")
    """How a person joins a game on it, ``{game}`` standing for the game's name (``On Discord:
    /join game:{game}``), or empty: not configured, or it takes no joins."""
    take_hint: Callable[[S], str] = field(default=lambda section: "")
    """How a person takes a seat up for a substitute on it, ``{game}`` and ``{seat}`` standing for the
    game's and the seat's names, or empty."""
    standby_hint: Callable[[S], str] = field(default=lambda section: "")
    """How a person asks to be offered seats of a kind of game that need a substitute, ``{kind}`` standing
    for the kind, or empty."""

    @property
    def package(self) -> str:
        """The package it lives in (``bot.email``): the one whose ``channel.py`` declares its section."""
        return self.settings.__module__.rpartition(".")[0]

    def settings_name(self, field_name: str) -> str:
        """The setting's name in files and errors (``discord_token``): the prefix and the field."""
        return f"{self.prefix}{field_name}"
