"""The fixed-width report (golden files), the replay --json document, and hidden information."""

from __future__ import annotations

import json
from pathlib import Path

from adjudicator.record import read_record, replay, replay_document
from adjudicator.rng import rng_for
from bot.core.messaging.rendering import render_report_body
from tests.adjudicator.dragon_stripes.scenario import RULES, new, play, position
from tests.golden import assert_golden

HERE = Path(__file__).parent


def _render(result, seat=None):
    private = result.private.get(seat) if seat else None
    return render_report_body(RULES.kind, result.report, [e.text for e in result.events], seat, private)


def test_ds9_takeover_report_golden():
    """DS-9's take-over, as B's copy: the offers, the take-over, B's compulsory F4, the table."""
    game = new("AB", deck="F4 F3 F2 F4 F1")
    game = play(play(game, {"A": "reveal"}).state, {"A": "reveal"}).state
    held = play(game, {"A": "hold"})
    taken = play(held.state, {"B": "take\ntake over if 25 or more beside"})
    assert_golden(_render(taken, "B"), HERE / "golden" / "ds9_takeover.txt")


def test_game_over_report_golden():
    """A run to the dragon's head with a stop and a silent player on the way; final standings."""
    table = position(
        {"Alice": 40, "Bartholomew Longname": 52, "Carol": 40},
        active="Carol",
        knight=14,
        beside=30,
        seen="D D F4 F4 F4 F2",
        deck="F4",
    )
    result = play(table, {"Carol": "reveal"})
    assert_golden(_render(result), HERE / "golden" / "game_over.txt")


def test_playing_on_report_golden():
    """One resolution that plays on: a run order holds, standing offers pass, a stop, a danger card."""
    table = position(
        {"Alice": 40, "Bob": 40, "Christopher": 40}, active="Alice", knight=5, beside=7, seen="F2 F3", deck="F1 S D F2"
    )
    table = table.with_player(1, offer=50).with_player(2, offer=50)
    result = play(table, {"Alice": "reveal until 10 beside"})
    assert_golden(_render(result, "Bob"), HERE / "golden" / "playing_on.txt")


def test_report_lines_fit_a_mail_client():
    names = ["Alexandra Featherstonehaugh", "B", "Christopher", "Dee", "Ezekiel Obadiah", "F"]
    state = RULES.new_game(names, {"deck": "F4 F3 S F2 D F1 F1 D F4"}, rng_for("w", -1))
    rng = rng_for("w", 0)
    while RULES.phase(state) is not None:
        phase = RULES.phase(state)
        orders = {
            seat: RULES.parse_orders(state, seat, RULES.example_orders(state, seat, rng)).orders for seat in phase.owing
        }
        result = play(state, {seat: RULES.format_orders(state, seat, o) for seat, o in orders.items()})
        for seat in (None, *names):
            for line in _render(result, seat).splitlines():
                assert len(line) <= 80, line
        state = result.state


def test_replay_json_document_has_the_required_keys():
    record = read_record(
        {
            "game": "dragon-stripes",
            "seed": "replay-test",
            "seats": ["A", "B"],
            "options": {"deck": "F4 F3 F2 F4 F1"},
            "turns": [{"A": "reveal"}, {"A": "reveal"}, {"A": "hold"}, {"B": "take"}, {"B": "hold"}, {}],
        }
    )
    played = replay(record)
    document = replay_document(played)
    state = document["state"]
    assert state["gems"] == {"A": 60, "B": 53}
    assert state["hoard"] == 366 and state["knight"] == 1 and state["beside"] == 1 and state["dangers"] == 0
    assert document["standings"] == [{"seat": "A", "place": 1, "score": 60}, {"seat": "B", "place": 2, "score": 53}]
    assert [turn["phase"] for turn in document["turns"]] == [
        "decision",
        "decision",
        "decision",
        "offer",
        "decision",
        "offer",
    ]
    assert document["turns"][5]["defaulted"] == ["A"]
    assert document["turns"][5]["events"][0]["kind"] == "nmr"
    assert json.loads(json.dumps(document)) == document


def test_deck_order_is_never_public():
    """The remaining deck order is hidden: not in reports, public_state or events."""
    state = new("ABC", deck="F1 F2 F3 F4 S D F4 F3")
    assert "deck" in RULES.dump_state(state)
    result = play(state, {"A": "reveal"})
    public = RULES.public_state(result.state)
    assert "deck" not in public and public["cards_left"] == len(result.state.deck)
    text = json.dumps([result.report, public, [e.text for e in result.events]])
    assert "F4 S D" not in text and '"deck"' not in text
    assert public["cards_seen"] == ["F1", "F2"]
