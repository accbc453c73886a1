"""The Golden Strider report (seed rule 15 layout) against golden files."""

from __future__ import annotations

import json
from pathlib import Path

from adjudicator.record import read_record, replay
from bot.core.messaging.rendering import render_report_body
from tests.adjudicator.golden_strider.scenario import RULES, play, runner, state
from tests.adjudicator.golden_strider.test_rulings import GS1_ORDERS, _round_one_field
from tests.golden import assert_golden

HERE = Path(__file__).parent
LONG_NAMES = [
    "Noureddine Morceli-Long", "Sebastian Coe", "Steve Ovett", "Said Aouita", "Peter Elliott",
    "Abdi Bile", "Jose Luis Gonzalez", "Joaquim Cruz", "John Walker", "Filbert Bayi",
]  # fmt: skip


def test_gs1_round_report_golden():
    result = play(_round_one_field(), GS1_ORDERS)
    text = render_report_body(RULES.kind, result.report, [e.text for e in result.events])
    assert_golden(text, HERE / "golden" / "gs1_round1.txt")


def test_ten_long_names_stay_aligned():
    """Ten long names: numbered, clipped rows with their columns at the same offsets, a legend, 78 columns."""
    field = [runner(name, square=i, hand="10/0 8/0 6/1 4/2 2/3") for i, name in enumerate(LONG_NAMES)]
    start = state(*field, round_number=4, steeplechase=True)
    result = play(start, {name: "play 10/0 bank 3" for name in LONG_NAMES[:9]})
    text = render_report_body(RULES.kind, result.report, [e.text for e in result.events])
    lines = text.splitlines()
    rows = [row for row in lines if row[:2].strip().isdigit() and "/" in row]
    header = next(row for row in lines if row.startswith("Player"))
    assert [int(row[:2]) for row in rows] == list(range(1, 11))
    column_of_d = header.index(" D ") + 1
    for row in rows:
        assert row[column_of_d - 1] == " "
        assert row[column_of_d].strip() in {"-", *"0123456789"}
    legend = " ".join(lines[lines.index(rows[-1]) + 2 :]).split("* ")[0]
    assert all(f"{n} = {name}" in legend for n, name in enumerate(LONG_NAMES, 1)), legend
    assert max(len(row) for row in lines) <= 78
    assert_golden(text, HERE / "golden" / "ten_long_names.txt")


def test_full_race_replay_report_golden():
    data = json.loads((HERE / "records" / "flat_race_6.json").read_text())
    played = replay(read_record(data))
    pages = [
        render_report_body(RULES.kind, turn.resolution.report, [e.text for e in turn.resolution.events])
        for turn in played.turns
    ]
    assert_golden("\n".join(pages), HERE / "golden" / "flat_race_6_reports.txt")
