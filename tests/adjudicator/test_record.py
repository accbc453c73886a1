"""Game records: replay, the --json document, errors naming turn and seat, verify."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from adjudicator.record import RecordError, read_record, replay, replay_document, verify
from adjudicator.rng import commitment, rng_for, verify_commitment

RECORDS = Path(__file__).parent / "golden_strider" / "records"


def load(name: str) -> dict:
    return json.loads((RECORDS / name).read_text())


@pytest.mark.parametrize("name", ["flat_race_6.json", "steeplechase_10.json"])
def test_full_recorded_race_replays_to_its_recorded_result(name):
    data = load(name)
    played = replay(read_record(data))
    document = replay_document(played)
    assert played.finished
    assert document["standings"] == data["result"]["standings"]
    assert verify(read_record(data)).ok


def test_replay_json_has_the_documented_shape():
    document = replay_document(replay(read_record(load("flat_race_6.json"))))
    assert set(document) >= {"game", "turns", "finished", "standings", "state"}
    runner = document["state"]["runners"][0]
    assert set(runner) >= {"seat", "square", "position", "owed", "hand"}
    assert all("/" in card for card in runner["hand"]) and len(runner["hand"]) == 5
    assert {"seat", "place"} <= set(document["standings"][0])


def test_replay_is_deterministic():
    data = load("steeplechase_10.json")
    first = json.dumps(replay_document(replay(read_record(data))), sort_keys=True)
    second = json.dumps(replay_document(replay(read_record(copy.deepcopy(data)))), sort_keys=True)
    assert first == second


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.pop("seed"), "the record has no 'seed'"),
        (lambda d: d.update(seats="ABCDEF"), "'seats' must be a list"),
        (lambda d: d.update(game="chess"), "unknown game kind 'chess'"),
        (lambda d: d["turns"][2].update(Nobody="play 1/0"), "turn 2, seat Nobody: no such seat"),
        (lambda d: d["turns"][0].update({d["seats"][1]: "cards 10 10 10 10 10"}), "turn 0, seat Sebastian Coe:"),
        (
            lambda d: d["turns"][3].update({d["seats"][0]: "play 99/0"}),
            'turn 3, seat Steve Ovett: "play 99/0": you hold no card 99/0',
        ),
        (lambda d: d["turns"].append({d["seats"][0]: "play 1/0"}), "was already over"),
        (lambda d: d["turns"].__setitem__(1, ["play"]), "turn 1: must be an object"),
        (lambda d: d.update(options={"race_length": "far"}), "option race_length must be int"),
        (lambda d: d.update(seats=d["seats"][:3], turns=[]), "needs 6 to 10 runners"),
    ],
)
def test_bad_records_get_one_line_errors_naming_turn_and_seat(mutate, message):
    data = load("flat_race_6.json")
    mutate(data)
    with pytest.raises(RecordError) as caught:
        replay(read_record(data))
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_absent_seat_gets_no_moves_received():
    data = load("flat_race_6.json")
    absent = data["seats"][2]
    del data["turns"][5][absent]
    played = replay(read_record(data))
    assert absent in played.turns[5].resolution.defaulted


def test_verify_detects_a_wrong_seed_and_a_changed_order():
    data = load("flat_race_6.json")
    wrong_seed = dict(data, seed="not-the-seed")
    checks = dict(verify(read_record(wrong_seed)).checks)
    assert checks["the revealed seed matches the commitment"] is False
    changed = copy.deepcopy(data)
    del changed["turns"][-1][changed["seats"][0]]
    result = verify(read_record(changed))
    assert not result.ok
    assert dict(result.checks)["replaying gives the recorded reports (digest)"] is False
    broken = copy.deepcopy(data)
    broken["turns"][0][broken["seats"][0]] = "cards 10 10 5 5 0"
    result = verify(read_record(broken))
    assert not result.ok
    assert any(name.startswith("the record replays: turn 1, seat Steve Ovett") for name, _ in result.checks)


def test_seed_commitment_and_per_turn_generators():
    assert commitment("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    assert verify_commitment("abc", commitment("abc").upper())
    assert not verify_commitment("abd", commitment("abc"))
    assert rng_for("s", 3).random() == rng_for("s", 3).random()
    assert rng_for("s", 3).random() != rng_for("s", 4).random()
