"""What the Strike Gold player to move may see, and the order text each button sends.

The hand is read from the seat view of the player to move (Strike Gold's
``report.seat_view``: ``grids`` by seat, rows of a value, null face down or
``"x"`` cleared; the ``slots`` names; ``stage``; ``next``; ``discard_top``;
``drawn``, the card that seat alone drew; ``discard_pick_must_keep``), and
the prompt from the public view.  The engine decides what the seat may see
(docs/rules/strike-gold.md 3.1): its own face-up values, which of its slots are face down or
cleared (never a face-down value), the discard pile's top card, and the card
it has drawn alone.  A view without them offers no buttons; the game is
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
TURN, DECIDE = "turn", "decide"
"""The stages in which one player owes a move: draw (or take), or decide on the card drawn alone."""
DECK, DISCARD = "deck", "discard"
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
    row_count: int

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
        return [[s.shown for s in self.grid[r * self.columns : (r + 1) * self.columns]] for r in range(self.row_count)]

    @property
    def columns(self) -> int:
        return len(self.grid) // self.row_count

    def slot_names(self) -> tuple[str, ...]:
        return tuple(slot.name for slot in self.grid)


def mover_of(view: GameView) -> str | None:
    """The seat to move of a running Strike Gold game's view (its turn or its decision), else None."""
    shown: dict[str, Any] = view.shown or {}
    upcoming = shown.get("next") or {}
    if view.kind != KIND or view.phase is None or shown.get("stage") not in (TURN, DECIDE):
        return None
    seat = upcoming.get("seat")
    return str(seat) if seat is not None else None


def hand_of(view: GameView) -> Hand | None:
    """The view's seat's hand when it is the player to move of a running Strike Gold game, else None
    (the public view, another seat's view, or a view without the grids)."""
    shown: dict[str, Any] = view.shown or {}
    seat = view.seat
    phase = view.phase
    if seat is None or phase is None or mover_of(view) != seat or "slots" not in shown:
        return None
    names = [name for row in shown["slots"] for name in row]
    cells = [cell for row in shown["grids"][seat] for cell in row]
    drawn = shown.get("drawn") if shown["stage"] == DECIDE else None
    return Hand(
        game=view.slug,
        turn=phase.number,
        seat=seat,
        stage=str(shown["stage"]),
        grid=tuple(_slot(name, cell) for name, cell in zip(names, cells, strict=True)),
        discard_top=_number(shown.get("discard_top")),
        card=int(drawn["value"]) if drawn else None,
        source=str(drawn["source"]) if drawn else None,
        must_keep=bool(shown.get("discard_pick_must_keep", True)),
        row_count=len(shown["slots"]),
    )


def _number(value: Any) -> int | None:
    return None if value is None else int(value)


def _slot(name: str, cell: Any) -> Slot:
    if cell == CLEARED:
        return Slot(name, CLEARED)
    return Slot(name, FACE_DOWN if cell is None else str(int(cell)))


def order_text(stage: str, action: str, slot: str | None = None, slots: tuple[str, ...] = ()) -> str | None:
    """The order a button sends in ``stage``, or None when the action sends none (``take``, ``show``).

    ``action`` is ``draw``, ``keep`` (with ``slot``, one of ``slots``: the hand's), ``flip`` (with
    ``slot``) or ``discard``; in the TURN stage a keep, flip or discard is of the discard pile's
    top card, taken now.
    """
    taken = "draw discard, " if stage == TURN else ""
    if action == "draw":
        return "draw deck" if stage == TURN else None
    if action in ("keep", "flip") and slot in slots:
        return f"{taken}{action} {slot}"
    if action == "discard":
        return f"{taken}discard"
    return None
