"""Readjustments (seed rule 8, ruling P4).

A readjustment moves one card out of each of two runners (a swap) or of three
runners (a rotation), so every runner keeps exactly four cards, three of them
its own.  Written ``swap 25:10 55:11`` (the 25 runner's 10 goes to the 55
runner and the 55 runner's 11 to the 25 runner) or ``rotate 25:10 55:11
85:12`` (each card goes to the next race listed, the last to the first).
Bare cards (``swap 10 11``) are found in the team's hands.  At most two per
game; not in a finished race (P7); by default only before the first move of a
cycle (``readjust_timing``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from adjudicator.games.three_races.cycle import is_cycle_start
from adjudicator.games.three_races.state import RACES, READJUSTMENTS, State, Team
from adjudicator.text import tight
from adjudicator.words import Said, say

KEYWORDS = frozenset({"swap", "exchange", "trade", "readjust", "readjustment", "rotate", "rotation", "cycle"})
SYNTAX = say(
    "{swap} (two runners) or {rotate} (three runners)", swap="swap 25:10 55:11", rotate="rotate 25:10 55:11 85:12"
)


@dataclass(frozen=True)
class Readjust:
    """Each ``(race, card)`` gives its card to the next entry's race; the last gives to the first.

    Built with :func:`make` so that equal readjustments compare equal.
    """

    transfers: tuple[tuple[int, int], ...]

    def moves(self) -> tuple[tuple[int, int, int], ...]:
        """``(card, from race, to race)`` for each card moved."""
        n = len(self.transfers)
        return tuple((card, race, self.transfers[(k + 1) % n][0]) for k, (race, card) in enumerate(self.transfers))


def make(transfers: list[tuple[int, int]]) -> Readjust:
    """The same rotation written from the lowest race."""
    start = transfers.index(min(transfers))
    return Readjust(tuple(transfers[start:] + transfers[:start]))


def format_readjust(readjust: Readjust) -> str:
    word = "swap" if len(readjust.transfers) == 2 else "rotate"
    return word + " " + " ".join(f"{race}:{card}" for race, card in readjust.transfers)


def describe(readjust: Readjust) -> Said:
    """Where each card goes, in words: "10 from the 25 runner to the 55 runner, 11 from ..."."""
    (card, race, other), (card2, race2, other2), *rest = readjust.moves()
    if not rest:
        return say(
            "{card} from the {race} runner to the {other} runner, {card2} from the {race2} runner to the {other2} runner",
            card=card,
            race=race,
            other=other,
            card2=card2,
            race2=race2,
            other2=other2,
        )
    card3, race3, other3 = rest[0]
    return say(
        "{card} from the {race} runner to the {other} runner, {card2} from the {race2} runner to the {other2} "
        "runner, {card3} from the {race3} runner to the {other3} runner",
        card=card,
        race=race,
        other=other,
        card2=card2,
        race2=race2,
        other2=other2,
        card3=card3,
        race3=race3,
        other3=other3,
    )


def parse_readjust(rest: str, team: Team) -> tuple[Readjust | None, str]:
    """Read what follows the keyword: the readjustment, or None and the reason."""
    text = tight(rest.lower(), ":=", ":")
    text = re.sub(r"<->|->|<>|\b(?:with|and|for|from|to|race|cards?)\b|[,;/]", " ", text)
    transfers: list[tuple[int, int]] = []
    for word in text.split():
        labelled = re.fullmatch(r"r?(\d+):(\d+)", word)
        if labelled:
            race, card = int(labelled.group(1)), int(labelled.group(2))
            if race not in RACES:
                return None, say("there is no {race} race; expected {syntax}", race=race, syntax=SYNTAX)
        elif word.isdecimal():
            card = int(word)
            holders = [r for r in RACES if card in team.hands.get(r, ())]
            if not holders:
                return None, say("card {card} is not one of 1-12; expected {syntax}", card=card, syntax=SYNTAX)
            race = holders[0]
        else:
            return None, say("did not understand '{word}'; expected {syntax}", word=word, syntax=SYNTAX)
        transfers.append((race, card))
    races = [race for race, _ in transfers]
    if len(transfers) not in (2, 3):
        return None, say(
            "name two runners (a swap) or three (a rotation), one card each; expected {syntax}", syntax=SYNTAX
        )
    if len(set(races)) != len(races):
        return None, say("no more than one card may leave any one runner (seed rule 8)")
    return make(transfers), ""


def readjust_index(state: State) -> int | None:
    """At which move of the coming deadline (0-based) a readjustment takes effect, if any (P4)."""
    if state.options.readjust_timing == "any_move":
        return 0
    for index in range(state.options.moves_per_deadline):
        if is_cycle_start(state.moves + 1 + index):
            return index
    return None


def readjust_problem(state: State, team: Team, readjust: Readjust) -> str | None:
    """Why ``readjust`` cannot be made at the coming deadline, or None (seed rule 8, P4, P7)."""
    if team.readjustments >= READJUSTMENTS:
        return say("you have used both of your {count} readjustments (seed rule 8)", count=READJUSTMENTS)
    index = readjust_index(state)
    if index is None:
        first, last = state.moves + 1, state.moves + state.options.moves_per_deadline
        return say(
            "a readjustment is made only before the first move of a cycle (moves 1, 5, 9, ...; ruling P4); "
            "this deadline plays moves {first}-{last}",
            first=first,
            last=last,
        )
    running = state.running()
    for race, card in readjust.transfers:
        if race not in running:
            return say("the {race} race has finished; its cards are retired (ruling P7)", race=race)
        if card not in team.hands[race]:
            return say("your {race} runner does not hold card {card}", race=race, card=card)
    if index == 0 and len({card in team.spent[race] for race, card in readjust.transfers}) > 1:
        return say(
            "a card keeps its 'played this cycle' status when it moves, so exchange only played or only unplayed cards"
        )
    return None


def apply_readjust(team: Team, readjust: Readjust) -> Team:
    """``team`` after the readjustment; a moved card keeps its spent status (P4)."""
    hands = {race: list(cards) for race, cards in team.hands.items()}
    spent = {race: set(cards) for race, cards in team.spent.items()}
    for card, src, dst in readjust.moves():
        hands[src].remove(card)
        hands[dst].append(card)
        if card in spent[src]:
            spent[src].discard(card)
            spent[dst].add(card)
    return replace(
        team,
        hands={race: tuple(sorted(cards)) for race, cards in hands.items()},
        spent={race: frozenset(cards) for race, cards in spent.items()},
        readjustments=team.readjustments + 1,
    )
