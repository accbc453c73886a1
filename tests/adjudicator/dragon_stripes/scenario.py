"""Building Dragon Stripes games and positions for the rulings' worked examples."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from adjudicator.api import Resolution
from adjudicator.games.dragon_stripes import DragonStripes
from adjudicator.games.dragon_stripes.cards import composition, parse_deck
from adjudicator.games.dragon_stripes.options import Options
from adjudicator.games.dragon_stripes.state import STARTING_GEMS, Player, State, Step
from adjudicator.options import resolve_options
from adjudicator.record import start_game
from adjudicator.rng import rng_for
from adjudicator.turn import advance, parse_turn_orders

RULES = DragonStripes()


def new(seats: str | list[str] = "AB", deck: str = "", **options: Any) -> State:
    """A new game through the same path as the bot (options resolved, setup generator)."""
    return start_game(RULES, list(seats), {"deck": deck, **options}, "test")


def position(
    gems: Mapping[str, int],
    *,
    active: str,
    owner: str | None = None,
    knight: int = 0,
    beside: int = 0,
    seen: str = "",
    deck: str = "",
    step: Step = Step.DECIDE,
    **options: Any,
) -> State:
    """A mid-game position; the hoard is what is left of the gems in play, the deck after ``deck`` is
    the rest of the cards in a fixed shuffled order."""
    opts = Options.from_mapping(resolve_options(RULES.options(), options))
    seen_cards = parse_deck(seen, opts.footprint_counts)
    top = parse_deck(deck, opts.footprint_counts)
    rest = list(composition(opts.footprint_counts))
    for card in (*seen_cards, *top):
        rest.remove(card)
    random.Random(0).shuffle(rest)
    seats = list(gems)
    total = STARTING_GEMS * len(seats) + opts.hoard_initial
    hoard = total - sum(gems.values()) - beside
    return State(
        opts,
        tuple(Player(seat, n) for seat, n in gems.items()),
        hoard,
        (*top, *rest),
        seen_cards,
        knight=knight,
        beside=beside,
        owner=seats.index(owner or active),
        active=seats.index(active),
        step=step,
    )


def play(current: State, texts: Mapping[str, str] | None = None) -> Resolution[State]:
    """Resolve one phase from order texts (missing owing seats get the no-moves-received rule)."""
    orders, errors = parse_turn_orders(RULES, current, texts or {})
    assert not errors, errors
    return advance(RULES, current, orders, rng_for("test", current.turn))


def gems(state: State) -> dict[str, int]:
    return {p.seat: p.gems for p in state.players}


def lines(resolution: Resolution[State], kind: str | None = None) -> list[dict[str, Any]]:
    return [dict(line) for line in resolution.report["lines"] if kind is None or line["kind"] == kind]


def cards(resolution: Resolution[State]) -> list[str]:
    """The cards revealed in a resolution, as they came, with who revealed them: ``A:F2``."""
    return [f"{line['seat']}:{line['card']}" for line in lines(resolution, "card")]
