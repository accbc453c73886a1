"""The three-race card game's board: the three races' tracks (25, 55 and 85 squares), one lane per
team in each, with each race's places and points and the teams' totals (seed rule 1)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.core.basics.translation import gettext as _
from bot.core.basics.translation import ngettext, pgettext
from bot.pictures.picture import Picture
from bot.pictures.svg import alt_name, alt_text, fit, joined, ordinal, render, seat_mark

TOP = 70
LANE = 26
RACE_GAP = 40
NAME_X, NAME_W = 44, 150
TRACK_X0, TRACK_X1 = 214, 640
FONT = 15


def _x(square: int, length: int) -> float:
    past = min(max(square, 0), length)
    return round(TRACK_X0 + (TRACK_X1 - TRACK_X0) * past / length, 1)


def _ticks(length: int) -> list[int]:
    """Every fifth or tenth square, and the finish."""
    marks = range(0, length, 5 if length < 40 else 10)
    return [*(m for m in marks if length - m >= 4), length]


def _points(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def draw(board: Mapping[str, Any]) -> Picture:
    """Each race's track after move ``board["move"]``: the teams' squares, places and points."""
    totals = dict(board["points"])
    seats = list(totals)
    marks = {seat: seat_mark(i) for i, seat in enumerate(seats)}
    races = []
    y = TOP
    for length_text, race in sorted(board["races"].items(), key=lambda item: int(item[0])):
        length = int(length_text)
        state = "finished" if race["finished"] else ("stopped" if race["stopped"] else "running")
        header_y = y + 20
        lanes = []
        for i, seat in enumerate(seats):
            lane_y = header_y + 14 + i * LANE + LANE // 2
            square = int(race["squares"][seat])
            place = int(race["places"][seat])
            points = race["points"].get(seat)
            lanes.append(
                {
                    "y": lane_y,
                    "mark": marks[seat],
                    "name": fit(seat, NAME_W, FONT),
                    "x": _x(square, length),
                    "square": square,
                    "place": ordinal(place),
                    "points": pgettext("board picture", "%(points)s pt") % {"points": _points(points)}
                    if points is not None
                    else "",
                }
            )
        races.append(
            {
                "length": length,
                "state": state,
                "header_y": header_y,
                "top": header_y + 14,
                "bottom": header_y + 14 + len(seats) * LANE,
                "lanes": lanes,
                "ticks": [{"x": _x(s, length), "label": str(s)} for s in _ticks(length)],
                "finish": _x(length, length),
            }
        )
        y = header_y + 14 + len(seats) * LANE + RACE_GAP - 20
    ranked = sorted(seats, key=lambda s: (-float(totals[s]), seats.index(s)))
    move = int(board["move"])
    title = _("Three races, move %(move)s") % {"move": move} if move else _("Three races, the start")
    summary = [{"mark": marks[s], "name": fit(s, 118, 13), "points": _points(totals[s])} for s in seats]
    svg = render(
        "three-races",
        title=title,
        subtitle=_("deadline %(deadline)s; each race's place, square and points at the right")
        % {"deadline": board["deadline"]},
        races=races,
        track=(TRACK_X0, TRACK_X1),
        name_x=NAME_X,
        lane=LANE,
        totals_y=y + 14,
        summary=summary,
        height=y + 44,
    )
    return Picture(svg, _alt(title, board, seats, ranked, totals))


def _alt(title: str, board: Mapping[str, Any], seats: list[str], ranked: list[str], totals: dict[str, Any]) -> str:
    lines = [_("%(title)s: %(teams)s teams in three races.") % {"title": title, "teams": len(seats)}]
    for length_text, race in sorted(board["races"].items(), key=lambda item: int(item[0])):
        order = sorted(seats, key=lambda s: (int(race["places"][s]), seats.index(s)))
        where = ", ".join(_("%(team)s square %(square)s") % {"team": alt_name(s), "square": race["squares"][s]}
                          for s in order)  # fmt: skip
        said = (
            _("Race to %(length)s (finished): %(where)s.") if race["finished"] else _("Race to %(length)s: %(where)s.")
        )
        lines.append(said % {"length": length_text, "where": where})
    best = max(float(v) for v in totals.values())
    if best > 0:
        leaders = [alt_name(s) for s in ranked if float(totals[s]) == best]
        lines.append(ngettext("%(leaders)s leads on points.", "%(leaders)s lead on points.", len(leaders))
                     % {"leaders": joined(leaders)})  # fmt: skip
    lines.append(
        _("Points: %(points)s.") % {"points": ", ".join(f"{alt_name(s)} {_points(totals[s])}" for s in ranked)}
    )
    return alt_text(lines)
