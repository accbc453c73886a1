"""L'autobus's board: the road, 20 spaces to a row as in the text report, each cyclist in its space
with its team's mark and rider number (``A3``), the groups underlined; then each team's places
(seed rules 3 and 12: one empty space between groups, places from the front)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.core.basics.translation import gettext as _
from bot.pictures.picture import Picture
from bot.pictures.svg import alt_name, alt_text, fit, ordinal, render, seat_mark

ROW = 20
"""Spaces in one row of the road (as ``adjudicator.games.lautobus.report.ROAD_WIDTH``)."""

TOP = 76
ROW_H = 46
ROAD_X = 74
CELL = 35.5
LEGEND_LINE = 26


def _groups(spaces: list[int]) -> list[list[int]]:
    """Runs of consecutive occupied spaces, front first."""
    groups: list[list[int]] = []
    for space in sorted(spaces, reverse=True):
        if groups and groups[-1][-1] == space + 1:
            groups[-1].append(space)
        else:
            groups.append([space])
    return groups


def draw(board: Mapping[str, Any]) -> Picture:
    """The road after the turn before ``board["turn"]`` (the turn its last report names)."""
    teams = list(board["teams"])
    marks = {t["seat"]: seat_mark(i, 14) for i, t in enumerate(teams)}
    codes = {t["seat"]: str(t["code"]) for t in teams}
    cyclists = list(board["cyclists"])
    at = {int(c["space"]): c for c in cyclists}
    first = (min(at) - 1) // ROW * ROW + 1
    last = max(at)
    rows = []
    for r, start in enumerate(range(first, last + 1, ROW)):
        y = TOP + r * ROW_H
        cells = []
        for offset in range(ROW):
            space = start + offset
            x = round(ROAD_X + offset * CELL + CELL / 2, 2)
            c = at.get(space)
            cell: dict[str, Any] = {"x": x, "space": space, "beyond": space > last}
            if c is not None:
                m = marks[c["team"]]
                cell["mark"] = type(m)(m.colour, m.shape, m.path, f"{codes[c['team']]}{c['rider']}", m.label_colour)
                cell["group_left"] = space - 1 in at and offset > 0
                cell["group_right"] = space + 1 in at and offset < ROW - 1
            cells.append(cell)
        rows.append({"y": y, "start": start, "end": start + ROW - 1, "cells": cells})
    legend_y = TOP + len(rows) * ROW_H + 24
    legend = []
    for i, team in enumerate(teams):
        seat = team["seat"]
        places = sorted(int(c["place"]) for c in cyclists if c["team"] == seat)
        legend.append(
            {
                "y": legend_y + 24 + i * LEGEND_LINE,
                "mark": seat_mark(i, 11, codes[seat]),
                "name": fit(str(seat), 200, 16),
                "places": _("places %(places)s") % {"places": ", ".join(str(p) for p in places)},
            }
        )
    played = int(board["turn"]) - 1  # the board's turn is the one the next resolution plays (reports count from 0)
    title = _("L'autobus, after turn %(turn)s") % {"turn": played} if played >= 0 else _("L'autobus, the start")
    if board["finished"]:
        title = _("%(title)s (finished)") % {"title": title}
    groups = _groups(list(at))
    svg = render(
        "lautobus",
        title=title,
        subtitle=_("%(riders)s riders in %(groups)s groups; the front is at the bottom right")
        % {"riders": len(cyclists), "groups": len(groups)},
        rows=rows,
        cell=CELL,
        road_x=ROAD_X,
        row_h=ROW_H,
        legend_y=legend_y,
        legend=legend,
        height=legend_y + 24 + len(teams) * LEGEND_LINE,
    )
    return Picture(svg, _alt(title, teams, cyclists, groups, at, codes))


def _alt(
    title: str,
    teams: list[Any],
    cyclists: list[Any],
    groups: list[list[int]],
    at: dict[int, Any],
    codes: dict[str, str],
) -> str:
    lines = [_("%(title)s: %(riders)s riders of %(teams)s teams in %(groups)s groups on the road.")
             % {"title": title, "riders": len(cyclists), "teams": len(teams), "groups": len(groups)}]  # fmt: skip
    leader = at[max(at)]
    lines.append(_("%(team)s's rider %(rider)s leads on space %(space)s.")
                 % {"team": alt_name(str(leader["team"])), "rider": leader["rider"], "space": max(at)})  # fmt: skip
    for t in teams:
        places = sorted(int(c["place"]) for c in cyclists if c["team"] == t["seat"])
        lines.append(_("Team %(code)s, %(team)s: places %(places)s.")
                     % {"code": codes[t["seat"]], "team": alt_name(str(t["seat"])), "places": ", ".join(map(str, places))})  # fmt: skip
    for n, group in enumerate(groups, start=1):
        riders = " ".join(f"{codes[at[s]['team']]}{at[s]['rider']}" for s in group)
        where = (_("space %(space)s") % {"space": group[0]} if len(group) == 1
                 else _("spaces %(first)s-%(last)s") % {"first": group[-1], "last": group[0]})  # fmt: skip
        lines.append(_("Group %(group)s (%(place)s on the road), %(where)s: %(riders)s.")
                     % {"group": n, "place": ordinal(n), "where": where, "riders": riders})  # fmt: skip
    return alt_text(lines)
