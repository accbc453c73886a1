"""Property tests: in any legal game all 150 cards are accounted for, and nothing public
(report, events, public state, the rendered report) depends on a face-down card or the deck order."""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import replace
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from adjudicator.api import Resolution
from adjudicator.games.strike_gold import StrikeGold
from adjudicator.games.strike_gold.cards import COLUMNS, full_deck
from adjudicator.games.strike_gold.grid import Cell, cards, face_down_slots, live_slots, public_rows
from adjudicator.games.strike_gold.orders import TurnOrder
from adjudicator.games.strike_gold.state import Source, Stage, State
from adjudicator.options import resolve_options
from adjudicator.record import read_record, replay, replay_document
from adjudicator.rng import rng_for
from adjudicator.turn import advance
from bot.core.messaging.rendering import render_report_body

RULES = StrikeGold()

OPTIONS = st.fixed_dictionaries(
    {
        "game_to": st.just(50),
        "row_wipe": st.booleans(),
        "row_wipe_mode": st.sampled_from(["full_row", "any_three"]),
        "out_player_final_turn": st.booleans(),
        "discard_pick_must_keep": st.booleans(),
        "out_penalty": st.sampled_from(["double", "zero", "none"]),
        "clear_on_final_reveal": st.booleans(),
        "later_round_starter": st.sampled_from(["highest_reveal", "previous_out_player"]),
    }
)


def _slot(slot: int) -> str:
    return f"r{slot // COLUMNS + 1}c{slot % COLUMNS + 1}"


def _random_action(state: State, seat: str, source: Source, rng: random.Random, fallback: bool) -> str:
    grid = state.grid(seat)
    down = face_down_slots(grid)
    must_keep = source is Source.DISCARD and state.options.discard_pick_must_keep
    options = [f"keep {_slot(s)}" for s in live_slots(grid)]
    if not must_keep:
        options += [f"flip {_slot(s)}" for s in down]
        if not down:
            options.append("discard")
    if not fallback:
        options.append("keep where it clears a column")
    return rng.choice(options)


def random_order(state: State, seat: str, rng: random.Random) -> str:
    """Any legal order (half the time the computer player's), including conditional and draw-alone ones."""
    if rng.random() < 0.5:
        return RULES.example_orders(state, seat, rng)
    grid = state.grid(seat)
    if state.stage is Stage.SETUP:
        flips = 2 if state.round == 1 else 1
        return "flip " + " ".join(_slot(s) for s in rng.sample(face_down_slots(grid), flips))
    if state.stage is Stage.DECIDE:
        assert state.pending is not None
        return _random_action(state, seat, state.pending.source, rng, True)
    source = rng.choice([Source.DECK, Source.DISCARD])
    if rng.random() < 0.15:
        return f"draw {source.value}"
    parts = [f"draw {source.value}"]
    for _ in range(rng.randint(0, 2)):
        low = rng.randint(-2, 11)
        high = rng.randint(max(low, -1) if low == -2 else low, 11 if low == -2 else 12)
        parts.append(f"if {low} to {high} {_random_action(state, seat, source, rng, False)}")
    parts.append("else " + _random_action(state, seat, source, rng, True))
    return "; ".join(parts)


def _held(state: State) -> list[int]:
    held = [*state.deck, *state.discard, *(c for g in state.grids for c in cards(g))]
    return held + ([state.pending.value] if state.pending is not None else [])


def _public(result: Resolution[State], mover: str | None) -> str:
    """Everything everyone may see after a resolution, as one string."""
    events = [(e.kind, e.seat, e.text) for e in result.events]
    body = render_report_body("strike-gold", result.report, [e.text for e in result.events], None, None)
    others = [
        render_report_body("strike-gold", result.report, [], seat, result.private.get(seat))
        for seat in result.state.seats
        if seat != mover
    ]
    return json.dumps([result.report, events, RULES.public_state(result.state), body, others], sort_keys=True)


def _scramble(state: State, after: State, draws_alone: bool, rng: random.Random) -> State:
    """``state`` with the cards that stay secret through this resolution shuffled among themselves:
    face-down cards still face down afterwards (same round) and the deck below the card drawn."""
    same_round = after.round == state.round and after.stage is not Stage.OVER
    spots = [
        (i, s)
        for i, grid in enumerate(state.grids)
        for s in face_down_slots(grid)
        if same_round and s in face_down_slots(after.grids[i])
    ]
    start = 0 if draws_alone else 1
    values = [state.grids[i][s].value for i, s in spots] + list(state.deck[start:])  # type: ignore[union-attr]
    rng.shuffle(values)
    grids = [list(g) for g in state.grids]
    for (i, s), value in zip(spots, values, strict=False):
        grids[i][s] = Cell(value, False)
    deck = (*state.deck[:start], *values[len(spots) :])
    return replace(state, grids=tuple(tuple(g) for g in grids), deck=deck)


@settings(max_examples=40, deadline=None)
@given(seats=st.integers(2, 8), seed=st.integers(0, 2**32 - 1), options=OPTIONS)
def test_cards_are_accounted_for_and_secrets_stay_hidden(seats: int, seed: int, options: dict[str, Any]) -> None:
    """All 150 cards are always in the deck, the discard pile (cleared lines go there, and S8 shuffles
    it back into the deck), a grid, or the hand of a player deciding; reports, events, the public state
    and the rendered report hold no face-down value nor the deck order (the same game with those
    secrets shuffled reads the same)."""
    rng = random.Random(seed)
    names = [f"Player{i}" for i in range(1, seats + 1)]
    state = RULES.new_game(names, resolve_options(RULES.options(), options), random.Random(seed))
    for resolved in range(150):
        phase = RULES.phase(state)
        if phase is None:
            break
        assert phase.number == resolved
        orders = {}
        for seat in phase.owing:
            text = random_order(state, seat, rng)
            parsed = RULES.parse_orders(state, seat, text)
            assert parsed.errors == (), (text, parsed.errors)
            assert RULES.parse_orders(state, seat, parsed.canonical).orders == parsed.orders
            orders[seat] = parsed.orders
        turn_seed = rng.randrange(2**32)
        result = advance(RULES, state, orders, random.Random(turn_seed))
        after = result.state
        held = _held(after)
        assert len(held) == 150 and Counter(held) == Counter(full_deck())
        if result.report["kind"] != "round":
            assert [g["rows"] for g in result.report["grids"]] == [public_rows(g) for g in after.grids]
        mover = phase.owing[0] if phase.kind.value == "decision" else None
        draws_alone = any(
            isinstance(o, TurnOrder) and not o.choices and o.source is Source.DECK for o in orders.values()
        )
        twin = _scramble(state, after, draws_alone, rng)
        twin_result = advance(RULES, twin, orders, random.Random(turn_seed))
        assert _public(twin_result, mover) == _public(result, mover)
        assert RULES.load_state(json.loads(json.dumps(RULES.dump_state(after)))) == after
        state = after


@settings(max_examples=8, deadline=None)
@given(seats=st.integers(2, 6), seed=st.integers(0, 2**32 - 1))
def test_whole_games_replay_from_their_record(seats: int, seed: int) -> None:
    """The computer player's games always finish; the record replays to the same end, and
    ``replay --json`` carries the state and standings the issue asks for."""
    names = [chr(ord("A") + i) for i in range(seats)]
    record = {"game": "strike-gold", "options": {"game_to": 50}, "seed": f"seed-{seed}", "seats": names, "turns": []}
    rng = random.Random(seed)
    state = replay(read_record(record)).final_state
    turns: list[dict[str, str]] = []
    while (phase := RULES.phase(state)) is not None:
        texts = {seat: RULES.example_orders(state, seat, rng) for seat in phase.owing}
        orders = {seat: RULES.parse_orders(state, seat, text).orders for seat, text in texts.items()}
        state = advance(RULES, state, orders, rng_for(record["seed"], phase.number)).state  # type: ignore[arg-type]
        turns.append(texts)
        assert len(turns) < 3000
    record["turns"] = turns
    played = replay(read_record(record))
    assert played.finished and played.final_state == state
    document = replay_document(played)
    state = document["state"]
    assert set(state["grids"]) == set(names)
    for rows in state["grids"].values():
        assert len(rows) == 3 and all(len(row) == 4 for row in rows)
        assert all(cell is None or cell == "x" or isinstance(cell, int) for row in rows for cell in row)
    assert isinstance(state["discard_top"], int)
    assert set(state["totals"]) == set(names) and max(state["totals"].values()) >= 50
    assert state["round"] >= 1
    standings = document["standings"]
    assert [s["seat"] for s in standings] != [] and {"seat", "place", "score"} <= set(standings[0])
    assert standings[0]["score"] == min(state["totals"].values())
    assert [t["number"] for t in document["turns"]] == list(range(len(turns)))
