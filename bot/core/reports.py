"""Turn reports: the common header and footer around the game's own template.

Every report names the game, the turn, and the next deadline in UTC and in
the game's time zone.  The first report publishes the seed's commitment; the
final report reveals the seed so anyone can ``referee verify`` the record.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from bot.core.rendering import render, render_report_body


def format_deadline(moment: datetime | None, time_zone: str) -> str:
    """``2026-12-01 18:00 UTC (19:00 CET, Europe/Paris)``, or a dash when there is none."""
    if moment is None:
        return "-"
    utc = moment.strftime("%Y-%m-%d %H:%M UTC")
    if time_zone.upper() == "UTC":
        return f"{utc} ({moment.strftime('%A')})"
    local = moment.astimezone(ZoneInfo(time_zone))
    return f"{utc} ({local.strftime('%a %Y-%m-%d %H:%M %Z')}, {time_zone})"


def render_turn_report(
    *,
    game_slug: str,
    game_title: str,
    turn_title: str,
    kind: str,
    report: Mapping[str, Any],
    events: Sequence[str],
    next_phase: str | None,
    deadline: datetime | None,
    time_zone: str,
    commitment: str | None,
    revealed_seed: str | None,
    seat: str | None = None,
    private: Mapping[str, Any] | None = None,
) -> str:
    """The whole text of one turn report, for one seat or (seat None) for everyone."""
    body = render_report_body(kind, report, events, seat, private)
    return render(
        "common/report.txt.j2",
        {
            "game": game_slug,
            "title": game_title,
            "turn_title": turn_title,
            "body": body,
            "next_phase": next_phase,
            "deadline": format_deadline(deadline, time_zone),
            "commitment": commitment,
            "seed": revealed_seed,
            "seat": seat,
        },
    )
