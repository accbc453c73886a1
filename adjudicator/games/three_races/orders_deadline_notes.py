"""The notes a deadline's orders draw (adjudicator/games/three_races/orders_deadline.py): the readjustment,
how each case of a move was read, and the races a move's plain line gives no card (rule 10, ruling P6).
"""

from __future__ import annotations

from collections.abc import Callable

from adjudicator.games.three_races.conditions import explain, format_condition
from adjudicator.games.three_races.orders import Case, DeadlineOrders, card_of, format_cards
from adjudicator.games.three_races.plan import move_numbers
from adjudicator.games.three_races.readjust import describe
from adjudicator.games.three_races.state import State
from adjudicator.words import Said, say


def explained(state: State, orders: DeadlineOrders, shown: Callable[[int], int]) -> list[Said]:
    """The notes on ``orders``: the readjustment, each condition as read, and the runners left to rule 10
    (``shown``: a move of the deadline as the game numbers it)."""
    notes: list[Said] = []
    if orders.readjust is not None:
        notes.append(
            say(
                "readjustment ({description}), before the first move of the cycle",
                description=describe(orders.readjust),
            )
        )
    running = state.running()
    played = list(move_numbers(state))
    for index, move in enumerate(orders.moves):
        number = shown(index + 1)
        if index >= len(played):
            if move.cases or move.cards:
                notes.append(say("move {move} will not be played: the game stops at max_moves", move=number))
            continue
        for k, case in enumerate(move.cases, start=1):
            fill = [str(r) for r in running if card_of(case.cards, r) is None]
            notes.append(case_note(number, k, case, ", ".join(fill)))
        missing = [str(r) for r in running if card_of(move.cards, r) is None]
        if missing:
            notes.append(missing_note(number, ", ".join(missing), len(missing) > 1, bool(move.cases)))
    return notes


def case_note(number: int, k: int, case: Case, fill: str) -> Said:
    """How case ``k`` of move ``number`` was read; ``fill``: the races it takes the plain card for."""
    values = {
        "move": number,
        "case": k,
        "condition": format_condition(case.condition),
        "meaning": explain(case.condition),
        "cards": format_cards(case.cards),
        "races": fill,
    }
    if case.cards and fill:
        return say(
            'move {move}, case {case}: "{condition}" read as: if {meaning}, play {cards} '
            "(for {races}: the plain move {move} card)",
            **values,
        )
    if case.cards:
        return say('move {move}, case {case}: "{condition}" read as: if {meaning}, play {cards}', **values)
    if fill:
        return say(
            'move {move}, case {case}: "{condition}" read as: if {meaning}, play the plain cards '
            "(for {races}: the plain move {move} card)",
            **values,
        )
    return say('move {move}, case {case}: "{condition}" read as: if {meaning}, play the plain cards', **values)


def missing_note(number: int, races: str, several: bool, cases: bool) -> Said:
    """The note for the races a move's plain line gives no card (``cases``: only when no case holds)."""
    if several and cases:
        return say(
            "move {move}: no card for the {races} races when no case holds; the referee will play "
            "the lowest card left there (rule 10, ruling P6)",
            move=number,
            races=races,
        )
    if several:
        return say(
            "move {move}: no card for the {races} races; the referee will play the lowest card left "
            "there (rule 10, ruling P6)",
            move=number,
            races=races,
        )
    if cases:
        return say(
            "move {move}: no card for the {race} race when no case holds; the referee will play "
            "the lowest card left there (rule 10, ruling P6)",
            move=number,
            race=races,
        )
    return say(
        "move {move}: no card for the {race} race; the referee will play the lowest card left "
        "there (rule 10, ruling P6)",
        move=number,
        race=races,
    )
