"""The explicit list of games: kind name -> rules object (no package scanning)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from adjudicator.api import GameRules
from adjudicator.games.dragon_stripes import DragonStripes
from adjudicator.games.golden_strider import GoldenStrider
from adjudicator.games.lautobus import Lautobus
from adjudicator.games.strike_gold import StrikeGold
from adjudicator.games.three_races import ThreeRaces

AnyRules = GameRules[Any, Any]

_GAMES: dict[str, AnyRules] = {
    rules.kind: rules
    for rules in (
        DragonStripes(),
        GoldenStrider(),
        Lautobus(),
        StrikeGold(),
        ThreeRaces(),
    )
}


class UnknownGame(KeyError):
    """No game of that kind is registered."""

    def __str__(self) -> str:
        return f"unknown game kind {self.args[0]!r}; known: {', '.join(sorted(_GAMES))}"


def get_rules(kind: str) -> AnyRules:
    """The rules for ``kind`` (case-insensitive); raise :class:`UnknownGame`."""
    try:
        return _GAMES[kind.strip().lower()]
    except KeyError:
        raise UnknownGame(kind) from None


def kinds() -> list[str]:
    """Every registered kind, sorted."""
    return sorted(_GAMES)


def all_rules() -> Iterator[AnyRules]:
    """Every registered rules object, by kind."""
    for kind in kinds():
        yield _GAMES[kind]
