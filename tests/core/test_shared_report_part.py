"""The shared part of a report (bot/core/messaging/rendering.py): rendered once per turn when no copy differs in it."""

from __future__ import annotations

from typing import Any

import pytest

import bot.core.messaging.rendering as rendering
from bot.core.messaging.rendering import render_report_body


@pytest.fixture
def renders(monkeypatch) -> list[str]:
    seen: list[str] = []
    original = rendering.render

    def counting(template: str, data: Any, form: str = "common") -> str:
        seen.append(template)
        return original(template, data, form)

    monkeypatch.setattr(rendering, "render", counting)
    monkeypatch.setattr(rendering, "_SHARED_BODIES", rendering._Recent(32))
    return seen


REPORT = {"kind": "round", "round": 3, "race_length": 60, "steeplechase": False, "finished": False,
          "lines": [{"seat": s, "cards": [{"label": "10/1", "played": True}], "D": 0, "M": 10, "B": 0, "R": 0,
                     "S": 10, "P": 1 + i, "O": 0, "cf": False} for i, s in enumerate(("Ann", "Ben"))],
          "positions": [{"place": 1, "seat": "Ann", "square": 10}, {"place": 2, "seat": "Ben", "square": 10}]}  # fmt: skip


def test_a_part_no_copy_differs_in_is_rendered_once_and_is_the_same_text(renders):
    public = render_report_body("golden-strider", REPORT, ["Ann moved"], None, None)
    copies = [render_report_body("golden-strider", REPORT, ["Ann moved"], seat, None) for seat in ("Ann", "Ben")]
    assert copies == [public, public] and "Round 3" in public
    assert renders == ["golden-strider/report.txt.j2"]
    other = render_report_body("golden-strider", {**REPORT, "round": 4}, ["Ann moved"], "Ann", None)
    assert "Round 4" in other and len(renders) == 2  # another turn: rendered again


def test_a_part_that_reads_the_seat_is_rendered_for_each_copy(renders):
    assert rendering._seat_independent("golden-strider/report.txt.j2")
    assert not rendering._seat_independent("three-races/report.txt.j2")  # it reads seat and private
    assert not rendering._seat_independent("strike-gold/report.txt.j2")  # it reads private


def test_data_that_is_not_plain_json_is_rendered_as_it_is(renders):
    odd = {**REPORT, "lines": tuple(REPORT["lines"]), "note": object()}
    assert "Round 3" in render_report_body("golden-strider", odd)
    assert "Round 3" in render_report_body("golden-strider", odd)
    assert len(renders) == 2
