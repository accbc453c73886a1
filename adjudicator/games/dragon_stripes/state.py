"""Dragon Stripes state: players, standing orders, the knight, the hoard and the deck.

Everything is public except ``deck`` (the order of the cards not yet revealed,
docs/rules/dragon-stripes.md 4.1) and each seat's standing orders (a player's intentions, shown only
to that player).  ``turn`` counts resolved phases.  ``step`` is what the game
waits for: the active player's decision, the take-over window after a hold,
the holder's choice between several offers, or nothing (game over).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from adjudicator.games.dragon_stripes.cards import Card, CardKind, parse_card
from adjudicator.games.dragon_stripes.options import STRIPES, Options
from adjudicator.words import Said

STARTING_GEMS = 40
"""Seed: each player starts with 40 gems."""

HEAD = STRIPES + 1
"""The knight's position once it has passed stripe 17: the dragon's head (ruling D9)."""

STATE_VERSION = 1


class Step(enum.Enum):
    """What the game waits for.  REVEAL is transient: a compulsory card (turn start, after a take-over)."""

    REVEAL = "reveal"
    DECIDE = "decide"
    OFFER = "offer"
    CHOOSE = "choose"
    OVER = "over"


@dataclass(frozen=True)
class RunOrder:
    """A standing order for the seat's own decisions: reveal, and hold as soon as one condition holds.

    ``beside``: hold when at least this many gems are beside the knight;
    ``stripe``: hold when the knight stands on this stripe or beyond;
    ``reveals``: reveal this many more cards, then hold.  ``used`` becomes true
    once the order has answered a decision; a used order is discarded when the
    seat's run ends (hold, stop or danger), an unused one waits for the seat's
    next run.
    """

    beside: int | None = None
    stripe: int | None = None
    reveals: int | None = None
    used: bool = False

    def holds(self, knight: int, beside: int) -> bool:
        return (
            (self.beside is not None and beside >= self.beside)
            or (self.stripe is not None and knight >= self.stripe)
            or (self.reveals is not None and self.reveals <= 0)
        )

    def answered(self, revealed: bool) -> RunOrder:
        """The order after answering one decision (one reveal fewer to go when it revealed)."""
        left = self.reveals - 1 if revealed and self.reveals is not None else self.reveals
        return replace(self, reveals=left, used=True)


@dataclass(frozen=True)
class Player:
    """One seat: its gems and its standing orders (``offer``: take over when at least this many beside)."""

    seat: str
    gems: int = STARTING_GEMS
    run: RunOrder | None = None
    offer: int | None = None


@dataclass(frozen=True)
class Line:
    """One line of a report: a card revealed, a decision, the take-over offers, a new turn.

    ``kind`` is "turn", "card", "hold", "offers", "takeover", "collect" or "choose";
    ``card`` the label of the card revealed (card lines only); the numbers are
    the knight, gems beside it, the hoard and the seat's own gems after the line.
    """

    seat: str
    kind: str
    text: str
    knight: int
    beside: int
    hoard: int
    gems: int
    card: str = ""


@dataclass(frozen=True)
class State:
    """The whole game.  ``owner`` and ``active`` are indexes into ``players``."""

    options: Options
    players: tuple[Player, ...]
    hoard: int
    deck: tuple[Card, ...]
    seen: tuple[Card, ...] = ()
    knight: int = 0
    beside: int = 0
    owner: int = 0
    active: int = 0
    step: Step = Step.REVEAL
    takers: tuple[int, ...] = ()
    turn: int = 0
    unreported: tuple[Line, ...] = ()

    @property
    def dangers(self) -> int:
        """Danger cards revealed so far (0-3)."""
        return sum(1 for card in self.seen if card.kind is CardKind.DANGER)

    @property
    def doubling(self) -> bool:
        """After the second danger card placements are doubled and stops cost half (seed; D4)."""
        return self.dangers >= 2

    @property
    def finished(self) -> bool:
        return self.step is Step.OVER

    @property
    def total(self) -> int:
        """The gems in play: constant for the whole game."""
        return STARTING_GEMS * len(self.players) + self.options.hoard_initial

    @property
    def active_player(self) -> Player:
        return self.players[self.active]

    def index(self, seat: str) -> int:
        for i, player in enumerate(self.players):
            if player.seat == seat:
                return i
        raise KeyError(seat)

    def with_player(self, index: int, **changes: Any) -> State:
        players = list(self.players)
        players[index] = replace(players[index], **changes)
        return replace(self, players=tuple(players))


def _dump_run(run: RunOrder | None) -> dict[str, Any] | None:
    if run is None:
        return None
    return {"beside": run.beside, "stripe": run.stripe, "reveals": run.reveals, "used": run.used}


def _load_run(data: Mapping[str, Any] | None) -> RunOrder | None:
    if data is None:
        return None
    return RunOrder(data["beside"], data["stripe"], data["reveals"], data["used"])


def _dump_line(line: Line) -> dict[str, Any]:
    return {name: _dump_words(getattr(line, name)) for name in Line.__dataclass_fields__}


def _dump_words(value: Any) -> Any:
    """A line's text said by the engine (:class:`~adjudicator.words.Said`) as plain JSON that keeps its
    pattern (the form bot/core/basics/engine_words.py keeps): the lines ``new_game`` leaves for the first
    report are stored with the state and said in each reader's language when reported."""
    if isinstance(value, Said):
        return {
            "said": value.pattern,
            "values": {k: _dump_words(v) for k, v in value.values.items()},
            "text": str(value),
        }
    return value


def _load_words(value: Any) -> Any:
    if isinstance(value, dict) and value.keys() == {"said", "values", "text"}:
        return Said(value["said"], {k: _load_words(v) for k, v in value["values"].items()})
    return value


def _card(label: str) -> Card:
    card = parse_card(label)
    if card is None:
        raise ValueError(f"not a card label in a dragon-stripes state: {label!r}")
    return card


def dump(state: State) -> dict[str, Any]:
    """Versioned JSON of the whole state, the deck order included (for the database only)."""
    return {
        "version": STATE_VERSION,
        "options": state.options.as_dict(),
        "players": [{"seat": p.seat, "gems": p.gems, "run": _dump_run(p.run), "offer": p.offer} for p in state.players],
        "hoard": state.hoard,
        "deck": [card.label for card in state.deck],
        "seen": [card.label for card in state.seen],
        "knight": state.knight,
        "beside": state.beside,
        "owner": state.owner,
        "active": state.active,
        "step": state.step.value,
        "takers": list(state.takers),
        "turn": state.turn,
        "unreported": [_dump_line(line) for line in state.unreported],
    }


def load(data: Mapping[str, Any]) -> State:
    if data.get("version") != STATE_VERSION:
        raise ValueError(f"unsupported dragon-stripes state version {data.get('version')!r}")
    opts = dict(data["options"])
    options = Options(
        **{
            **opts,
            "footprint_counts": tuple(opts["footprint_counts"]),
            "stripe_values": tuple(opts["stripe_values"]),
        }
    )
    return State(
        options=options,
        players=tuple(Player(p["seat"], p["gems"], _load_run(p["run"]), p["offer"]) for p in data["players"]),
        hoard=data["hoard"],
        deck=tuple(_card(label) for label in data["deck"]),
        seen=tuple(_card(label) for label in data["seen"]),
        knight=data["knight"],
        beside=data["beside"],
        owner=data["owner"],
        active=data["active"],
        step=Step(data["step"]),
        takers=tuple(data["takers"]),
        turn=data["turn"],
        unreported=tuple(Line(**{k: _load_words(v) for k, v in line.items()}) for line in data["unreported"]),
    )
