"""Dragon Stripes orders: the order types and their canonical text.

Answers: ``reveal`` / ``hold`` (the active player's decision), ``take`` /
``pass`` (a take-over offer window), ``choose B`` (the holder picks a taker,
``takeover_selection = holder_chooses``).  Standing orders, kept per seat in
the state:

* a run order for the seat's own decisions, until its run ends:
  ``reveal until 30 beside``, ``hold at stripe 12``, ``reveal 3 then hold``
  (several lines combine: hold as soon as one is met);
* a take-over offer, until withdrawn: ``take over if 25 or more beside``
  (``always take over`` = from 0);
* ``withdraw`` (both), ``withdraw run``, ``withdraw offer``.

Reading a message is :mod:`parse` (lines) and :mod:`phrases` (words).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from adjudicator.games.dragon_stripes.state import RunOrder, Step


class Answer(enum.Enum):
    REVEAL = "reveal"
    HOLD = "hold"
    TAKE = "take"
    PASS = "pass"


@dataclass(frozen=True)
class Orders:
    """One seat's orders for the current phase; ``run`` and ``offer`` are new standing orders."""

    answer: Answer | None = None
    choose: str | None = None
    run: RunOrder | None = None
    offer: int | None = None
    withdraw_run: bool = False
    withdraw_offer: bool = False


@dataclass(frozen=True)
class Context:
    """What the parser needs to know about the phase and the seat."""

    step: Step
    seat: str
    holder: str
    knight: int
    beside: int
    bounty: int
    takers: tuple[str, ...] = ()
    has_run: bool = False
    has_offer: bool = False


def run_lines(run: RunOrder) -> list[str]:
    """A run order in canonical syntax, one line per condition."""
    lines = []
    if run.beside is not None:
        lines.append(f"reveal until {run.beside} beside")
    if run.stripe is not None:
        lines.append(f"hold at stripe {run.stripe}")
    if run.reveals is not None:
        lines.append(f"reveal {run.reveals} then hold")
    return lines


def offer_line(threshold: int) -> str:
    return "always take over" if threshold == 0 else f"take over if {threshold} or more beside"


def format_orders(orders: Orders) -> str:
    """Canonical text: withdrawals, the answer, then the new standing orders."""
    lines = []
    if orders.withdraw_run:
        lines.append("withdraw run")
    if orders.withdraw_offer:
        lines.append("withdraw offer")
    if orders.choose is not None:
        lines.append(f"choose {orders.choose}")
    if orders.answer is not None:
        lines.append(orders.answer.value)
    if orders.run is not None:
        lines.extend(run_lines(orders.run))
    if orders.offer is not None:
        lines.append(offer_line(orders.offer))
    return "\n".join(lines)
