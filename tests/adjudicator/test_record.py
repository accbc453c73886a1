"""Game records: replay, the --json document, errors naming turn and seat, verify."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest

from adjudicator.record import UNCOMMITTED_ORDERS, RecordError, read_record, replay, replay_document, verify
from adjudicator.rng import commitment, rng_for, verify_commitment
from tests.adjudicator.test_order_commitments import independent

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
        (lambda d: d.update(options={"race_length": "far"}), "option race_length must be a number"),
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


# ---- version 2: the orders' commitments ---------------------------------------------------------


def version_2(data: dict, slug: str = "gs1") -> dict:
    """``data`` (a version 1 record) as the referee exports it now: each turn's orders committed to."""
    upgraded = copy.deepcopy(data)
    upgraded["version"] = 2
    upgraded["slug"] = slug
    upgraded["order_commitments"] = [
        {seat: independent(data["seed"], slug, number, seat, text) for seat, text in turn.items()}
        for number, turn in enumerate(data["turns"])
    ]
    return upgraded


def test_a_version_2_record_verifies_with_its_order_commitments():
    data = version_2(load("flat_race_6.json"))
    result = verify(read_record(data))
    assert result.ok and result.complete and result.unchecked == ()
    assert ("every turn's orders match the commitments the reports published", True) in result.checks
    assert read_record(data).to_json() == data  # written back as read


def test_an_old_record_without_version_still_verifies_as_before_and_says_what_it_could_not_check():
    data = load("flat_race_6.json")
    assert "version" not in data
    record = read_record(data)
    assert record.version == 1 and verify(record).ok
    assert not verify(record).complete and verify(record).unchecked == (UNCOMMITTED_ORDERS,)
    assert "version" not in record.to_json()
    assert [name for name, _ in verify(record).checks] == [
        "the revealed seed matches the commitment",
        "replaying gives the recorded standings",
        "replaying gives the recorded reports (digest)",
    ]


def _first_seat(data: dict, turn: int) -> str:
    return next(iter(data["turns"][turn]))


@pytest.mark.parametrize(
    ("tamper", "turn", "message"),
    [
        # one order changed: refused before it is played
        (lambda d, s: d["turns"][3].update({s(3): "play 1/0"}), 3, "the orders do not match the commitment"),
        (lambda d, s: d["order_commitments"][3].update({s(3): "0" * 64}), 3, "the orders do not match"),
        (lambda d, s: d["turns"][3].pop(s(3)), 3, "a commitment was published but the record holds no orders"),
        (lambda d, s: d["order_commitments"][3].pop(s(3)), 3, "the record holds orders but no commitment"),
        (lambda d, s: d.update(slug="gs2"), 0, "the orders do not match"),
        (lambda d, s: d.update(seed=d["seed"] + "x"), 0, "the orders do not match"),
    ],
)
def test_a_tampered_version_2_record_is_refused_naming_turn_and_seat(tamper, turn, message):
    data = version_2(load("flat_race_6.json"))
    seat = _first_seat(data, turn)
    tamper(data, lambda number: _first_seat(data, number))
    record = read_record(data)
    with pytest.raises(RecordError) as caught:
        replay(record)
    assert str(caught.value).startswith(f"turn {turn}, seat {seat}: {message}")
    assert "\n" not in str(caught.value)
    result = verify(record)
    assert not result.ok
    assert any(not ok and message in name for name, ok in result.checks)


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.update(version=4), "record version 4 is newer than this referee reads (3)"),
        (lambda d: d.update(version=3), "a version 3 record needs 'draws', one number per turn"),
        (lambda d: d.update(version=3, draws=[0]), "a version 3 record needs 'draws', one number per turn"),
        (lambda d: d.update(version=3, draws=[0] * (len(d["turns"]) - 1) + [-1]), "its draw must be a whole number"),
        (lambda d: d.update(version=3, draws=[False] * len(d["turns"])), "its draw must be a whole number"),
        (lambda d: d.update(version="2"), "'version' must be a whole number"),
        (lambda d: d.update(version=True), "'version' must be a whole number"),
        (lambda d: d.pop("slug"), "needs 'slug'"),
        (lambda d: d.update(order_commitments=d["order_commitments"][:-1]), "one object per turn"),
        (lambda d: d["order_commitments"].__setitem__(2, ["x"]), "turn 2: its commitments must be an object"),
        (lambda d: d["order_commitments"][2].update(Nobody="00"), "turn 2, seat Nobody: a commitment for no such"),
        (lambda d: d["order_commitments"][2].update({d["seats"][0]: 7}), "the commitment must be a string"),
    ],
)
def test_malformed_version_2_records_get_one_line_errors(mutate, message):
    data = version_2(load("flat_race_6.json"))
    mutate(data)
    with pytest.raises(RecordError, match=re.escape(message)):
        read_record(data)
