"""Strike Gold rounds: the deal, the default setup, and the end-of-round scoring.

Seed "Setup", "Ending a Round", "The Scoring Twist", "Winning"; rulings S2, S3, S3b, S5, S6, S9, S11.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace

from adjudicator.api import Event
from adjudicator.games.strike_gold.cards import SLOTS, full_deck
from adjudicator.games.strike_gold.grid import (
    Grid,
    LineClear,
    clear_lines,
    face_down_slots,
    new_grid,
    reveal_all,
    score,
)
from adjudicator.games.strike_gold.options import Options
from adjudicator.games.strike_gold.orders import SetupOrder
from adjudicator.games.strike_gold.state import Stage, State
from adjudicator.words import say


def flips_due(round_number: int) -> int:
    """Cards each player turns face up at the start of a round: 2 in round 1, 1 later (seed "Setup")."""
    return 2 if round_number == 1 else 1


def deal(seat_count: int, cards: Sequence[int]) -> tuple[tuple[Grid, ...], tuple[int, ...], tuple[int, ...]]:
    """Deal ``cards`` (top first): seat by seat, 12 each filling r1c1 ... r3c4, then one card
    starts the discard pile, and the rest is the draw pile (top first)."""
    grids = tuple(new_grid(list(cards[SLOTS * i : SLOTS * (i + 1)])) for i in range(seat_count))
    used = SLOTS * seat_count
    return grids, (cards[used],), tuple(cards[used + 1 :])


def shuffled_deck(rng: random.Random) -> list[int]:
    cards = list(full_deck())
    rng.shuffle(cards)
    return cards


def new_state(options: Options, seats: tuple[str, ...], rng: random.Random) -> State:
    """Round 1 dealt from the ``deck`` option when given, else from a deck shuffled with ``rng``."""
    cards = list(options.deck) if options.deck is not None else shuffled_deck(rng)
    grids, discard, deck = deal(len(seats), cards)
    zeros = tuple(0 for _ in seats)
    return State(options, seats, grids, deck, discard, zeros, zeros, zeros)


def default_setup(grid: Grid, flips: int) -> SetupOrder:
    """Ruling S10: flip the first face-down slots in reading order."""
    return SetupOrder(face_down_slots(grid)[:flips])


@dataclass(frozen=True)
class RoundResult:
    """One round's scoring: the revealed grids, raw and counted scores, and the out-player ruling."""

    round: int
    grids: tuple[Grid, ...]
    raw: tuple[int, ...]
    scores: tuple[int, ...]
    out: int | None
    note: str
    reveal_clears: tuple[tuple[LineClear, ...], ...]


def out_player_score(options: Options, raw: Sequence[int], out: int, seat: str) -> tuple[int, str]:
    """The out player's round score and the note that says why, naming ``seat`` (seed "The Scoring
    Twist"; S2, S3, S3b)."""
    mine = raw[out]
    others = [s for i, s in enumerate(raw) if i != out]
    lowest = mine <= min(others) if options.out_lowest_tie_counts else mine < min(others)
    if lowest and mine == min(others):
        return mine, say(
            "{seat} went out with the lowest score (tied, which counts as lowest: ruling S2): scores {score}",
            seat=seat,
            score=mine,
        )
    if lowest:
        return mine, say("{seat} went out with the lowest score: scores {score}", seat=seat, score=mine)
    if options.penalty == "zero":
        return 0, say(
            "{seat} went out without the lowest score: {score} becomes 0 (out player scores 0 option)",
            seat=seat,
            score=mine,
        )
    if options.penalty == "none":
        return mine, say(
            "{seat} went out without the lowest score: scores {score} (out_penalty 'none')", seat=seat, score=mine
        )
    if options.double_only_positive and mine <= 0:
        return mine, say(
            "{seat} went out without the lowest score, but {score} is not above 0: not doubled (ruling S3)",
            seat=seat,
            score=mine,
        )
    return 2 * mine, say(
        "{seat} went out without the lowest score: {score} doubled to {doubled}",
        seat=seat,
        score=mine,
        doubled=2 * mine,
    )


def score_round(state: State) -> tuple[RoundResult, tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """Reveal every grid, clear on the reveal only with ``clear_on_final_reveal`` (S5), score, and apply
    the out-player rule.  Returns the result and the new column and row clear counts and discard pile."""
    options = state.options
    grids: list[Grid] = []
    reveal_clears: list[tuple[LineClear, ...]] = []
    columns = list(state.columns_cleared)
    rows = list(state.rows_cleared)
    discard = list(state.discard)
    for i, grid in enumerate(state.grids):
        shown = reveal_all(grid)
        lines: tuple[LineClear, ...] = ()
        if options.clear_on_final_reveal:
            shown, lines, removed = clear_lines(shown, options.row_mode)
            discard.extend(removed)
            columns[i] += sum(1 for line in lines if line.kind == "column")
            rows[i] += sum(1 for line in lines if line.kind == "row")
        grids.append(shown)
        reveal_clears.append(lines)
    raw = tuple(score(g) for g in grids)
    scores = list(raw)
    note = ""
    if state.out is not None:
        scores[state.out], note = out_player_score(options, raw, state.out, state.seats[state.out])
    result = RoundResult(state.round, tuple(grids), raw, tuple(scores), state.out, note, tuple(reveal_clears))
    return result, tuple(columns), tuple(rows), tuple(discard)


def end_round(state: State, rng: random.Random) -> tuple[State, RoundResult, tuple[Event, ...]]:
    """Score the round; then end the game (a total reached the target, S6) or deal the next round."""
    result, columns, rows, discard = score_round(state)
    totals = tuple(t + s for t, s in zip(state.totals, result.scores, strict=True))
    events = [Event("round", say("round {round} is over; every face-down card is revealed", round=state.round))]
    for i, lines in enumerate(result.reveal_clears):
        for line in lines:
            events.append(
                Event(
                    "clear",
                    say("{seat}: {line} cleared on the reveal (S5 option)", seat=state.seats[i], line=line.label),
                    state.seats[i],
                )
            )
    scored = replace(
        state,
        grids=result.grids,
        discard=discard,
        totals=totals,
        columns_cleared=columns,
        rows_cleared=rows,
        history=(*state.history, result.scores),
        pending=None,
        final_turns=(),
        turn=state.turn + 1,
    )
    options = state.options
    if any(options.reached(t) for t in totals) or state.round >= options.max_rounds:
        if not any(options.reached(t) for t in totals):
            why = say("the game is over: {rounds} rounds were played (max_rounds)", rounds=options.max_rounds)
        elif options.target_comparison == "reach":
            why = say("the game is over: a total reached {target}", target=options.game_to)
        else:
            why = say("the game is over: a total passed {target}", target=options.game_to)
        events.append(Event("finish", why))
        return replace(scored, stage=Stage.OVER), result, tuple(events)
    grids, new_discard, deck = deal(len(state.seats), shuffled_deck(rng))
    dealt = replace(
        scored,
        grids=grids,
        discard=new_discard,
        deck=deck,
        round=state.round + 1,
        stage=Stage.SETUP,
        out=None,
        previous_out=state.out,
        current=0,
    )
    events.append(
        Event("deal", say("round {round} is dealt: every player turns 1 card face up", round=state.round + 1))
    )
    return dealt, result, tuple(events)


def redeal(state: State, rng: random.Random) -> State:
    """The cards nobody has seen dealt again (what the state hides from every player: the draw pile and every
    face-down card): shuffled together with ``rng``, then back face down into the same slots, grid by grid in
    reading order, and the rest is the draw pile.  A face-up card, the discard pile and a card drawn alone
    stay as they are."""
    places = [(index, slot) for index, grid in enumerate(state.grids) for slot in face_down_slots(grid)]
    pool = [state.grids[index][slot].value for index, slot in places]  # type: ignore[union-attr]
    pool += state.deck
    rng.shuffle(pool)
    grids = [list(grid) for grid in state.grids]
    for (index, slot), value in zip(places, pool, strict=False):
        grids[index][slot] = replace(grids[index][slot], value=value)  # type: ignore[type-var]
    return replace(state, grids=tuple(tuple(grid) for grid in grids), deck=tuple(pool[len(places) :]))
