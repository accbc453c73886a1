"""Reading budgets per sender, across mails: no sender, and no crowd of strangers, holds up a seat's mail.

A channel's reader gives each message a wall-clock budget (the email reader
kills its reader process past it).  A budget per *message* bounds what one
message costs, not what many cost: twenty costly messages from twenty new
addresses, sent just before a deadline, would hold the intake twenty budgets
long, and a seated player's orders that arrived after them would be read
after the turn resolved.  So reading time is also accounted per sender, over
a sliding window (:class:`SenderBudgetLimits`):

* **A sender the referee knows** (an address that holds a seat in a game not
  over, or runs one as a game master: :func:`known_addresses`) may spend
  ``per_sender_seconds`` a window on its mails at the full per-message
  budget; past it, each of its mails still gets ``floor_seconds``, so a
  stranger who forges a player's From line to spend the player's budget
  cannot stop the player's own mail from being read (a real mail reads in
  milliseconds).
* **Every sender the referee does not know shares one budget**,
  ``unknown_seconds`` a window, besides its own: addresses cost an outsider
  nothing, so the strangers together are what is bounded.  Once it is spent,
  a stranger's mail is not read at all (allowance 0): the channel parks it
  for the host (``referee inbox requeue``) and answers it when its sender can
  be read cheaply, so nothing is dropped silently, and the intake goes on at
  once to the next message.

What is spent is the time reading actually took (measured by the channel's
reader), so ordinary mail (a few milliseconds) never comes near a budget:
5 s a window is over a thousand ordinary mails from strangers.

The accounting lives in the intake's process, in memory: a restart starts
every sender afresh, which costs an attacker nothing they could not get by
waiting for a window to pass.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from sqlalchemy import select, union
from sqlalchemy.orm import Session, sessionmaker

from bot.core.games.stored import FORMING, PAUSED, RUNNING
from bot.store.models import Game, GameMaster, Identity, Seat


@dataclass(frozen=True)
class SenderBudgetLimits:
    """How much reading time senders may spend, per ``window_seconds`` (module docstring)."""

    per_sender_seconds: float = 10.0
    unknown_seconds: float = 5.0
    floor_seconds: float = 2.0
    window_seconds: float = 600.0
    least_seconds: float = 0.25
    """A stranger's mail is read only when at least this much of the strangers' budget is left
    (starting one to stop it at once would cost a reader restart for nothing)."""


@dataclass
class _Spent:
    """Reading time spent, as (moment, seconds) pairs inside the window."""

    entries: deque[tuple[float, float]] = field(default_factory=deque)
    total: float = 0.0

    def add(self, moment: float, seconds: float) -> None:
        self.entries.append((moment, seconds))
        self.total += seconds

    def since(self, start: float) -> float:
        while self.entries and self.entries[0][0] < start:
            self.total -= self.entries.popleft()[1]
        return max(self.total, 0.0)


class SenderBudgets:
    """What reading one more mail from a sender may cost now (:meth:`allowance`), and what it did
    cost (:meth:`spend`).  ``known`` gives the addresses the referee knows (cached by the caller);
    ``clock`` is monotonic seconds."""

    def __init__(
        self,
        limits: SenderBudgetLimits,
        known: Callable[[], frozenset[str]],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.limits = limits
        self.known = known
        self.clock = clock
        self._by_sender: dict[str, _Spent] = {}
        self._strangers = _Spent()
        self.refused = 0
        """Mails not read because the strangers' budget was spent."""

    def allowance(self, sender: str | None, per_message: float) -> float:
        """Seconds reading a mail from ``sender`` (a lower-cased address read from raw bytes, None
        when none reads cheaply) may take now; 0: do not read it now."""
        start = self.clock() - self.limits.window_seconds
        own = self._left(self._by_sender.get(sender or ""), start, self.limits.per_sender_seconds)
        if sender is not None and sender in self.known():
            return min(per_message, max(self.limits.floor_seconds, own))
        pool = self.limits.unknown_seconds - self._strangers.since(start)
        left = min(per_message, own, pool)
        return left if left >= self.limits.least_seconds else 0.0

    def spend(self, sender: str | None, seconds: float) -> None:
        """Reading a mail from ``sender`` took ``seconds``."""
        now = self.clock()
        self._prune(now - self.limits.window_seconds)
        self._by_sender.setdefault(sender or "", _Spent()).add(now, seconds)
        if sender is None or sender not in self.known():
            self._strangers.add(now, seconds)

    def _left(self, spent: _Spent | None, start: float, budget: float) -> float:
        return budget if spent is None else budget - spent.since(start)

    def _prune(self, start: float) -> None:
        """Forget senders with nothing spent inside the window (memory stays bounded by the window)."""
        if len(self._by_sender) < 1024:
            return
        for key in [key for key, spent in self._by_sender.items() if spent.since(start) == 0.0]:
            del self._by_sender[key]


def known_addresses(session: Session, channel: str) -> frozenset[str]:
    """The addresses on ``channel`` (lower-cased) of every player who holds a seat in a game not
    over, or is a game master of one: the senders whose mail a turn waits for."""
    live = (FORMING, RUNNING, PAUSED)
    seated = select(Seat.player_id).join(Game, Game.id == Seat.game_id).where(Game.status.in_(live), ~Seat.resigned)
    creators = select(Game.gm_player_id).where(Game.status.in_(live))
    masters = select(GameMaster.player_id).join(Game, Game.id == GameMaster.game_id).where(Game.status.in_(live))
    players = union(seated, creators, masters).subquery()
    query = select(Identity.address).where(Identity.channel == channel, Identity.player_id.in_(select(players.c[0])))
    return frozenset(address.lower() for address in session.scalars(query))


class KnownAddresses:
    """:func:`known_addresses` read again at most every ``seconds`` (a seat taken a moment ago is
    known within that time; until then its player's mail counts as a stranger's, which costs it
    nothing while the strangers' budget lasts)."""

    def __init__(
        self,
        sessions: sessionmaker[Session],
        channel: str,
        seconds: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.sessions = sessions
        self.channel = channel
        self.seconds = seconds
        self.clock = clock
        self._read_at: float | None = None
        self._known: frozenset[str] = frozenset()

    def __call__(self) -> frozenset[str]:
        now = self.clock()
        if self._read_at is None or now - self._read_at >= self.seconds:
            with self.sessions() as session:
                self._known = known_addresses(session, self.channel)
            self._read_at = now
        return self._known
