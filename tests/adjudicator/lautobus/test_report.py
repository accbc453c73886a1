"""The L'autobus report (golden files) and a whole game through the registry and the record replayer."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from adjudicator import registry
from adjudicator.games.lautobus import Lautobus
from adjudicator.games.lautobus.scoring import penalty
from adjudicator.record import read_record, replay, replay_document, result_digest
from adjudicator.rng import SETUP_TURN, rng_for
from adjudicator.turn import advance, parse_turn_orders
from bot.core.messaging.rendering import render_report_body
from tests.golden import assert_golden

GOLDEN = Path(__file__).parent / "golden"
SEATS = ["alice", "bob", "carol", "dave", "eve"]
FIRST_TURN = {
    "alice": "1: 6, 2: 4, 3: 2, 4: 2, 5: 1",
    "bob": "rider 1 plays 6\nrider 2 plays 4\nrider 3 plays 3",
    "carol": "6 4 3 2 1",
    "dave": "R1 5; R2 9; R3 1; R4 2; R5 sprint",
    "eve": "1=3 2=3 3=3 4=3 5=3",
}


def render(result: Any) -> str:
    return render_report_body("lautobus", result.report, [e.text for e in result.events])


def check_golden(name: str, text: str) -> None:
    assert_golden(text, GOLDEN / name)
    assert max(len(line) for line in text.splitlines()) <= 80


def test_golden_first_turn_from_the_LA_11_start() -> None:
    """Turn 1 from the LA-11 start: slipstreams, an illegal card, a special on turn 1 and
    missing riders (ruling L8), rendered for a plain-text mail client."""
    rules = Lautobus()
    state = rules.new_game(SEATS, {}, rng_for("golden", SETUP_TURN))
    orders, errors = parse_turn_orders(rules, state, FIRST_TURN)
    assert errors == {}
    result = advance(rules, state, orders, rng_for("golden", 0))
    check_golden("first_turn.txt", render(result))


def whole_game(seed: str) -> dict[str, Any]:
    """A record of a whole race played by the example player (eve never writes: ruling L8)."""
    rules = Lautobus()
    state = rules.new_game(SEATS, {}, rng_for(seed, SETUP_TURN))
    player = random.Random(seed)
    turns: list[dict[str, str]] = []
    while (phase := rules.phase(state)) is not None:
        texts = {s: rules.example_orders(state, s, player) for s in phase.owing if s != "eve"}
        turns.append(texts)
        orders, _ = parse_turn_orders(rules, state, texts)
        state = advance(rules, state, orders, rng_for(seed, phase.number)).state
    return {"game": "lautobus", "seed": seed, "seats": SEATS, "options": {}, "turns": turns}


def test_whole_game_through_the_registry_and_replay() -> None:
    """replay --json: state.cyclists [{team, rider, space, cards}], standings [{seat, place, score}]
    with score = the team's penalty total; a replay gives the same document."""
    assert isinstance(registry.get_rules("LAUTOBUS"), Lautobus)
    record = read_record(json.loads(json.dumps(whole_game("tour-de-test"))))
    played = replay(record)
    assert played.finished
    document = replay_document(played)
    assert document["finished"] is True
    cyclists = document["state"]["cyclists"]
    assert len(cyclists) == 25
    assert all({"team", "rider", "space", "cards"} <= set(c) and c["cards"] == [] for c in cyclists)
    assert {c["team"] for c in cyclists} == set(SEATS)
    final = played.final_state
    totals = {seat: sum(penalty(c, final.cyclists) for c in final.team(seat)) for seat in SEATS}
    standings = document["standings"]
    assert [set(s) for s in standings] == [{"seat", "place", "score"}] * 5
    assert {s["seat"]: s["score"] for s in standings} == totals
    assert [s["score"] for s in standings] == sorted(totals.values())
    assert standings[0]["place"] == 1
    assert any(e["kind"] == "nmr" and e["seat"] == "eve" for e in document["turns"][0]["events"])
    assert [t["number"] for t in document["turns"]] == list(range(len(record.turns)))
    json.dumps(document)
    assert result_digest(replay_document(replay(record))) == result_digest(document)


def test_golden_final_turn() -> None:
    """The last report: the road after the finishing bonuses, the bonuses and the result."""
    played = replay(read_record(whole_game("tour-de-test")))
    last = played.turns[-1].resolution
    assert last.report["finished"] is True and len(last.report["bonuses"]) == 3
    check_golden("final_turn.txt", render(last))
