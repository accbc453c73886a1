"""What the Strike Gold player to move may see, and the order text each button sends.

The hand is read from the game's state as stored (Strike Gold's state
format, version 1: ``seats``, ``grids`` of ``[value, face_up]`` or null,
``discard`` bottom first, ``stage``, ``current``, ``pending`` and
``options``), like Golden Strider's ``/play`` reads its hands.  The stored
state holds every secret, so :func:`hand_of` keeps only what the seat to move
may see (RULINGS 3.1): its own face-up values, which of its slots are face
down or cleared (never a face-down value), the discard pile's top card, and
the card it has drawn alone, which is that seat's alone until it is placed
or discarded.  Another version of the state offers no buttons; the game is
still played with ``/orders``.

The buttons send the game's own canonical orders (see the game's help):

* the turn: ``draw deck`` (drawn alone: the card is shown to its drawer,
  who decides in the next phase; the draw cannot be undone), or
  ``draw discard, keep r2c3`` (the discard pile's top card is public, so
  taking it is one order);
* with a card drawn alone: ``keep r2c3``, ``flip r1c4`` or ``discard``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.core.views import GameView

KIND = "strike-gold"
STATE_VERSION = 1
TURN, DECIDE = "turn", "decide"
"""The stages in which one player owes a move: draw (or take), or decide on the card drawn alone."""
DECK, DISCARD = "deck", "discard"
ROWS, COLUMNS = 3, 4
SLOT_NAMES = tuple(f"r{r}c{c}" for r in range(1, ROWS + 1) for c in range(1, COLUMNS + 1))
"""The twelve slots in reading order (the game's own names)."""
FACE_DOWN, CLEARED = "?", "x"


@dataclass(frozen=True)
class Slot:
    """One grid slot as its owner sees it: ``shown`` is the face-up value, ``?`` (face down) or ``x`` (cleared)."""

    name: str
    shown: str

    @property
    def face_down(self) -> bool:
        return self.shown == FACE_DOWN

    @property
    def cleared(self) -> bool:
        return self.shown == CLEARED


@dataclass(frozen=True)
class Hand:
    """The player to move's view: ``card`` is the card in hand (drawn alone; DECIDE) or None (TURN)."""

    game: str
    turn: int
    seat: str
    stage: str
    grid: tuple[Slot, ...]
    discard_top: int | None
    card: int | None
    source: str | None
    must_keep: bool
    """Ruling S1 (option ``discard_pick_must_keep``): a card taken from the discard pile must be kept."""

    @property
    def offered(self) -> tuple[int, str] | None:
        """The card the chooser is about, and where from: the one drawn alone, or the discard pile's top card."""
        if self.stage == DECIDE and self.card is not None and self.source is not None:
            return self.card, self.source
        if self.stage == TURN and self.discard_top is not None:
            return self.discard_top, DISCARD
        return None

    def may_let_go(self) -> bool:
        """May the card go to the discard pile?  Not one taken from it (ruling S1, unless the option is off)."""
        offered = self.offered
        return offered is not None and (offered[1] == DECK or not self.must_keep)

    def may_flip(self) -> bool:
        """Discard the card and turn a face-down one face up ("discard & flip")."""
        return self.may_let_go() and any(s.face_down for s in self.grid)

    def may_discard(self) -> bool:
        """Just discard it: only with no face-down card left (seed "On Your Turn")."""
        return self.may_let_go() and not any(s.face_down for s in self.grid)

    def rows(self) -> list[list[str]]:
        return [[s.shown for s in self.grid[r * COLUMNS : (r + 1) * COLUMNS]] for r in range(ROWS)]


def hand_of(view: GameView, seat: str) -> Hand | None:
    """``seat``'s hand when it is the player to move of a running Strike Gold game (state version 1), else None."""
    state: dict[str, Any] = view.state or {}
    phase = view.phase
    if view.kind != KIND or state.get("version") != STATE_VERSION or phase is None:
        return None
    stage = state.get("stage")
    seats = list(state.get("seats", []))
    if stage not in (TURN, DECIDE) or seat not in seats or seats.index(seat) != state.get("current"):
        return None
    grid = tuple(_slot(name, cell) for name, cell in zip(SLOT_NAMES, state["grids"][seats.index(seat)], strict=True))
    discard = state.get("discard") or []
    pending = state.get("pending") if stage == DECIDE else None
    return Hand(
        game=view.slug,
        turn=phase.number,
        seat=seat,
        stage=stage,
        grid=grid,
        discard_top=int(discard[-1]) if discard else None,
        card=int(pending["value"]) if pending else None,
        source=str(pending["source"]) if pending else None,
        must_keep=bool(state.get("options", {}).get("discard_pick_must_keep", True)),
    )


def _slot(name: str, cell: Any) -> Slot:
    if cell is None:
        return Slot(name, CLEARED)
    value, face_up = cell
    return Slot(name, str(int(value)) if face_up else FACE_DOWN)


def order_text(stage: str, action: str, slot: str | None = None) -> str | None:
    """The order a button sends in ``stage``, or None when the action sends none (``take``, ``show``).

    ``action`` is ``draw``, ``keep`` (with ``slot``), ``flip`` (with ``slot``) or ``discard``; in the
    TURN stage a keep, flip or discard is of the discard pile's top card, taken now.
    """
    taken = "draw discard, " if stage == TURN else ""
    if action == "draw":
        return "draw deck" if stage == TURN else None
    if action in ("keep", "flip") and slot in SLOT_NAMES:
        return f"{taken}{action} {slot}"
    if action == "discard":
        return f"{taken}discard"
    return None
