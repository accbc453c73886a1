"""Golden Strider's board: one lane per runner along the track, the steeplechase's obstacles across
every lane (seed rules 4, 9-11; barriers at 10, 30, 40, 60 and water jumps at 20, 50)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.core.basics.translation import gettext as _
from bot.core.basics.translation import ngettext, pgettext
from bot.pictures.picture import Picture
from bot.pictures.svg import alt_name, alt_text, fit, joined, ordinal, render, seat_mark

BARRIERS = (10, 30, 40, 60)
WATER_JUMPS = (20, 50)
"""The steeplechase's obstacles (the seed's variant; the engine's track.py holds the same)."""

TOP = 96
LANE = 30
NAME_X, NAME_W = 44, 150
TRACK_X0, TRACK_X1 = 214, 676
FONT = 16


def _x(square: int, length: int) -> float:
    """Where ``square`` is drawn on the track (a runner past the finish stands a little beyond it)."""
    past = min(max(square, 0), length + 3)
    return round(TRACK_X0 + (TRACK_X1 - TRACK_X0) * past / (length + 3), 1)


def draw(board: Mapping[str, Any]) -> Picture:
    """The track after the rounds played (``board["round"]`` is the next one): each runner's square and place."""
    length = int(board["race_length"])
    steeple = bool(board["steeplechase"])
    runners = list(board["runners"])
    lanes = []
    for i, runner in enumerate(runners):
        y = TOP + i * LANE + LANE // 2
        lanes.append(
            {
                "y": y,
                "mark": seat_mark(i),
                "name": fit(str(runner["seat"]), NAME_W, FONT),
                "x": _x(int(runner["square"]), length),
                "place": ordinal(int(runner["position"])),
                "square": int(runner["square"]),
                "owed": int(runner["owed"]),
            }
        )
    bottom = TOP + len(runners) * LANE
    barrier, water = pgettext("a barrier, one letter", "B"), pgettext("a water jump, one letter", "W")
    obstacles = (
        [{"x": _x(s, length), "kind": "barrier", "label": barrier} for s in BARRIERS if s <= length]
        + [{"x": _x(s, length), "kind": "water", "label": water} for s in WATER_JUMPS if s <= length]
        if steeple
        else []
    )
    ticks = [{"x": _x(s, length), "label": str(s)} for s in range(0, length + 1, 10)]
    played = int(board["round"]) - 1  # the board's round is the one the next resolution plays
    name = _("Golden Strider steeplechase") if steeple else "Golden Strider"
    title = (
        _("%(name)s, after round %(round)s") % {"name": name, "round": played}
        if played > 0
        else (_("%(name)s, the start") % {"name": name})
    )
    if any(int(r["square"]) >= length for r in runners):
        title = _("%(title)s (race over)") % {"title": title}
    svg = render(
        "golden-strider",
        title=title,
        subtitle=_("%(length)s squares to the finish; the place and square of each runner at the right")
        % {"length": length},
        lanes=lanes,
        top=TOP,
        bottom=bottom,
        lane=LANE,
        height=bottom + (56 if steeple else 30),
        track=(TRACK_X0, TRACK_X1),
        finish=_x(length, length),
        ticks=ticks,
        obstacles=obstacles,
        steeple=steeple,
        barrier=barrier,
        water=water,
        name_x=NAME_X,
    )
    return Picture(svg, _alt(title, length, runners))


def _alt(title: str, length: int, runners: list[Any]) -> str:
    ranked = sorted(runners, key=lambda r: (int(r["position"]), runners.index(r)))
    leaders = [alt_name(str(r["seat"])) for r in ranked if int(r["position"]) == 1]
    lines = [_("%(title)s: %(runners)s runners on a %(length)s-square track.")
             % {"title": title, "runners": len(runners), "length": length}]  # fmt: skip
    if ranked and int(ranked[0]["square"]) > 0:
        lines.append(ngettext("%(leaders)s leads on square %(square)s.", "%(leaders)s lead on square %(square)s.",
                              len(leaders)) % {"leaders": joined(leaders), "square": ranked[0]["square"]})  # fmt: skip
    lines += [_("%(place)s %(seat)s, square %(square)s.")
              % {"place": ordinal(int(r["position"])), "seat": alt_name(str(r["seat"])), "square": r["square"]}
              for r in ranked]  # fmt: skip
    return alt_text(lines)
