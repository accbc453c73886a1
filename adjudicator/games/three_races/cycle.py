"""The card cycle (seed rules 3 and 10; rulings P6, P7).

Moves 1-4, 5-8, ... are cycles, in step for all three races.  Within a cycle
each runner plays each of its four cards once; when the cycle ends all four
come back.  A runner whose race has finished plays no more (its cards are
retired, P7).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from adjudicator.games.three_races.state import CYCLE, Team
from adjudicator.words import say


def is_cycle_start(move: int) -> bool:
    """Moves 1, 5, 9, ... start a cycle (ruling P4 allows readjustment there)."""
    return (move - 1) % CYCLE == 0


def ends_cycle(move: int) -> bool:
    """Moves 4, 8, 12, ... end a cycle: every runner gets its four cards back (seed rule 3)."""
    return move % CYCLE == 0


@dataclass(frozen=True)
class Pick:
    """The card a runner plays, and why it is not the card ordered (None when it is)."""

    card: int
    problem: str | None = None


def pick_card(team: Team, race: int, wanted: int | None) -> Pick:
    """The ordered card if the runner still holds it this cycle; otherwise its lowest
    available card (seed rule 10 and ruling P6: an illegal or missing card is an NMR
    for that runner and that move)."""
    available = team.available(race)
    if wanted is not None and wanted in available:
        return Pick(wanted)
    if wanted is None:
        return Pick(available[0], say("no card was ordered"))
    if wanted in team.hands[race]:
        return Pick(available[0], say("card {card} was already played this cycle", card=wanted))
    return Pick(available[0], say("the {race} runner does not hold card {card}", race=race, card=wanted))


def spend(team: Team, race: int, card: int) -> Team:
    """``team`` after its ``race`` runner plays ``card``."""
    spent = dict(team.spent)
    spent[race] = spent.get(race, frozenset()) | {card}
    return replace(team, spent=spent)


def refresh(team: Team) -> Team:
    """The end of a cycle: every card comes back (seed rule 3)."""
    return replace(team, spent={race: frozenset() for race in team.hands})
