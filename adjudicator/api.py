"""The contract every rules engine implements, and the value types they share.

An engine is pure: it imports the standard library only, reads no clock, opens
no file or socket, and draws randomness only from the ``random.Random`` it is
handed (see :mod:`adjudicator.rng`).  The bot stores orders as *text* and hands
that text back to :meth:`GameRules.parse_orders` when a turn resolves, so an
engine's orders never need to be serialised; its state does, through
:meth:`GameRules.dump_state` / :meth:`GameRules.load_state`.

Vocabulary: a *seat* is one player's place in a game, named by a short string
("A", "alice", "team 3").  A *phase* is what the game waits for now: which
seats owe orders and of what kind (setup, a simultaneous turn, one player's
decision, a take-over offer window).  Each resolved phase is one *turn* of the
game record, numbered from 0.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

JSON = Any
"""A value made only of dict, list, str, int, float, bool and None."""

StateT = TypeVar("StateT")
OrdersT = TypeVar("OrdersT")


class PhaseKind(enum.Enum):
    """What sort of answer a phase asks for."""

    SETUP = "setup"
    TURN = "turn"
    DECISION = "decision"
    OFFER = "offer"


@dataclass(frozen=True)
class Phase:
    """What the game waits for now.

    ``number`` is the turn number this phase will have in the game record
    (0 for the first phase).  ``owing`` lists the seats that owe orders; a seat
    not listed may not submit.  ``window`` names the deadline length the bot
    should use ("turn" for the game's ordinary schedule, "offer" for a short
    take-over window, "decision" for a sequential move).  When
    ``resolve_when_complete`` is true the phase resolves as soon as every owing
    seat has ordered (sequential games); otherwise it waits for the deadline
    unless the game's host allows early processing.
    """

    number: int
    kind: PhaseKind
    owing: tuple[str, ...]
    title: str
    window: str = "turn"
    resolve_when_complete: bool = False


@dataclass(frozen=True)
class OrderError:
    """One line of a player's text that could not be used, and why."""

    line: str
    message: str

    def __str__(self) -> str:
        return f'"{self.line}": {self.message}'


@dataclass(frozen=True)
class ParsedOrders(Generic[OrdersT]):
    """What a player's text was read as.

    ``orders`` is None when nothing usable was found (then ``errors`` says
    why).  ``canonical`` is the orders written back in the game's own canonical
    syntax: the bot stores it, echoes it to the player, and parses it again at
    resolution, so ``parse_orders(state, seat, canonical)`` must give the same
    orders.  ``notes`` tell the player how something was understood (for
    example "move not given: 4 after restitution") or warn of a rule that will
    override the order; they are not errors.
    """

    orders: OrdersT | None
    canonical: str = ""
    errors: tuple[OrderError, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def accepted(self) -> bool:
        return self.orders is not None


@dataclass(frozen=True)
class Event:
    """Something that happened while a turn resolved, for reports and logs.

    ``kind`` is a short machine name ("nmr", "override", "finish", ...);
    ``text`` is one line a player can read; ``seat`` is who it concerns.
    """

    kind: str
    text: str
    seat: str | None = None


@dataclass(frozen=True)
class Standing:
    """One seat's place in the final (or current) standings; 1 is best."""

    seat: str
    place: int
    score: float | int | None = None


@dataclass(frozen=True)
class Resolution(Generic[StateT]):
    """The result of resolving one phase.

    ``report`` is the plain data the game's template renders for everyone;
    ``private`` maps a seat to extra data only that seat may see (its own
    hidden hand, the card it drew).  ``defaulted`` lists the seats whose orders
    were filled in by the no-moves-received rule.
    """

    state: StateT
    events: tuple[Event, ...]
    report: Mapping[str, JSON]
    private: Mapping[str, Mapping[str, JSON]] = field(default_factory=dict)
    defaulted: tuple[str, ...] = ()


@dataclass(frozen=True)
class OptionSpec:
    """A documented game option: its default and what it means."""

    name: str
    default: JSON
    help: str
    choices: tuple[JSON, ...] = ()


class GameError(Exception):
    """Base class for errors an engine reports about its inputs (not bugs)."""


class SetupError(GameError):
    """The seats or options cannot start a game (wrong seat count, bad option)."""


class IllegalOrders(GameError):
    """Orders handed to ``resolve`` are not legal in this state (a caller bug or a bad record)."""

    def __init__(self, seat: str, message: str) -> None:
        super().__init__(f"seat {seat}: {message}")
        self.seat = seat
        self.message = message


class InvariantViolation(AssertionError):
    """An engine's state broke one of its own invariants: always a bug."""


class GameRules(Protocol[StateT, OrdersT]):
    """The protocol one game implements; see the module docstring.

    Every method is pure.  ``rng`` arguments are seeded by the caller
    (:func:`adjudicator.rng.rng_for`), one fresh generator per turn, so a game
    replays identically from its record.
    """

    kind: str
    title: str
    min_seats: int
    max_seats: int
    default_orders_public: bool
    """May the no-moves-received orders be named in the public report?  False when
    they would reveal hidden information (a secret hand's unplayed cards)."""

    def options(self) -> Sequence[OptionSpec]:
        """Every option the game accepts, with defaults (documented in help)."""
        ...

    def new_game(self, seats: Sequence[str], options: Mapping[str, JSON], rng: random.Random) -> StateT:
        """Start a game; raise :class:`SetupError` for a bad seat count or option."""
        ...

    def phase(self, state: StateT) -> Phase | None:
        """What the game waits for now; None once it is finished."""
        ...

    def parse_orders(self, state: StateT, seat: str, text: str) -> ParsedOrders[OrdersT]:
        """Read a player's free text for the current phase; never raises on bad text."""
        ...

    def format_orders(self, state: StateT, seat: str, orders: OrdersT) -> str:
        """Orders in canonical text: ``parse_orders(state, seat, format_orders(...))`` gives them back."""
        ...

    def default_orders(self, state: StateT, seat: str) -> OrdersT:
        """The game's own no-moves-received rule for ``seat`` in the current phase."""
        ...

    def resolve(self, state: StateT, orders: Mapping[str, OrdersT], rng: random.Random) -> Resolution[StateT]:
        """Resolve the current phase; ``orders`` has an entry for every owing seat."""
        ...

    def redeal(self, state: StateT, rng: random.Random) -> StateT:
        """``state`` with everything chance put there that no player has seen dealt again with ``rng``: the
        order of a draw pile, face-down cards (shuffled together, back into the same places); never what any
        player saw (a card drawn alone, a hand, the discard pile), so every player's view is unchanged.

        A game master's rollback with a fresh draw calls it before the turn is played again
        (:func:`adjudicator.turn.advance_drawn`): the superseded turns showed cards that the state before them
        still holds where they were, and playing on with them would let players who may change their orders
        know what comes.  A game whose hidden state holds no chance (all of it is drawn from the turn's
        generator, or there is none) returns ``state`` as it is."""
        ...

    def check_invariants(self, state: StateT) -> None:
        """Raise :class:`InvariantViolation` if the state is inconsistent."""
        ...

    def standings(self, state: StateT) -> tuple[Standing, ...]:
        """Places (final once the game is finished, provisional before)."""
        ...

    def public_state(self, state: StateT) -> dict[str, JSON]:
        """What every player may see (``replay --json``'s "state", a game's public screens):
        nothing hidden from any player; each game's ``report.py``."""
        ...

    def seat_view(self, state: StateT, seat: str) -> dict[str, JSON]:
        """What ``seat`` may see: every key of :meth:`public_state`, plus that seat's own
        secrets (its hand, the card it alone has drawn, its standing orders) and what a
        screen needs to offer its moves; never another seat's secret nor what is hidden
        from every player (the deck).  Each game's ``report.py``.  Adapters get this and
        :meth:`public_state`, never :meth:`dump_state`."""
        ...

    def dump_state(self, state: StateT) -> dict[str, JSON]:
        """Versioned JSON of the whole state, secrets included (for the database)."""
        ...

    def load_state(self, data: Mapping[str, JSON]) -> StateT:
        """Inverse of :meth:`dump_state`."""
        ...

    def example_orders(self, state: StateT, seat: str, rng: random.Random) -> str:
        """Free text a simple computer player could send now (demo and tests); each game's ``computer.py``."""
        ...

    def help_text(self, options: Mapping[str, JSON] | None = None) -> str:
        """The order syntax and options, as plain text for players within 78 columns; each
        game's ``help.py``.  With ``options`` (one game's resolved options) the options
        shown are that game's; without, the defaults."""
        ...
