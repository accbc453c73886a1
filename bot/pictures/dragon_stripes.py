"""Dragon Stripes' board: the dragon's 17 stripes from the tail to the head, the knight on its stripe
with the gems beside it, the hoard at the head, the danger cards seen (the third ends the game);
then every player's gems, the active player and the turn's owner marked (seed; docs/rules/dragon-stripes.md 4.1)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.pictures.picture import Picture
from bot.pictures.svg import WIDTH, alt_name, alt_text, fit, joined, plural, render, seat_mark, text_width

STRIPES = 17
"""The dragon's stripes (the seed; the engine's options hold the same)."""

DANGERS = 3
"""The third danger card ends the game."""

BODY_X0, BODY_X1 = 70, 690
BODY_Y = 124
BODY_H = 44
PLAYERS_TOP = 262
LINE = 28
BAR_X, BAR_W = 300, 240

STEPS = {"decide": "to decide: reveal or hold", "offer": "holds: take-over offers", "choose": "chooses a taker",
         "reveal": "reveals a card", "over": ""}  # fmt: skip


def _stripe_x(stripe: int) -> float:
    """The centre of ``stripe`` (0 is before the tail, 18 the head)."""
    step = (BODY_X1 - BODY_X0) / STRIPES
    if stripe <= 0:
        return BODY_X0 - 24
    if stripe > STRIPES:
        return BODY_X1 + 40
    return round(BODY_X0 + (stripe - 0.5) * step, 1)


def draw(board: Mapping[str, Any]) -> Picture:
    """The dragon, the knight and the hoard, and every player's gems."""
    gems = {str(k): int(v) for k, v in board["gems"].items()}
    seats = list(gems)
    step = (BODY_X1 - BODY_X0) / STRIPES
    stripes = [{"x": round(BODY_X0 + i * step, 1), "label": str(i + 1), "shade": i % 2} for i in range(STRIPES)]
    most = max([*gems.values(), 1])
    players = []
    for i, seat in enumerate(seats):
        tags = []
        if seat == board["active"] and not board["finished"]:
            tags.append("active")
        if seat == board["turn_owner"] and not board["finished"]:
            tags.append("turn's owner")
        if board["finished"] and gems[seat] == max(gems.values()):
            tags.append("winner")
        players.append(
            {
                "y": PLAYERS_TOP + 30 + i * LINE,
                "mark": seat_mark(i),
                "name": fit(seat, BAR_X - 60, 16),
                "gems": gems[seat],
                "bar": round(BAR_W * gems[seat] / most, 1),
                "tags": ", ".join(tags),
            }
        )
    knight = int(board["knight"])
    finished = bool(board["finished"])
    active = str(board["active"])
    doing = STEPS.get(str(board["step"]), "")
    room = WIDTH - 40 - text_width(f"Dragon Stripes:  {doing}", 22)
    title = "Dragon Stripes" + (", game over" if finished else f": {fit(active, room, 22)} {doing}")
    subtitle = (
        f"{plural(len(board['cards_seen']), 'card')} seen, {int(board['cards_left'])} left; "
        f"a danger card costs {'half' if board['doubling'] else 'a quarter'} of the gems"
    )
    dangers = int(board["dangers"])
    svg = render(
        "dragon-stripes",
        title=title,
        subtitle=subtitle,
        stripes=stripes,
        step=round(step, 2),
        body=(BODY_X0, BODY_X1, BODY_Y, BODY_H),
        knight_x=_stripe_x(knight),
        beside=int(board["beside"]),
        hoard=int(board["hoard"]),
        dangers=[{"x": 484 + 30 * i, "seen": i < dangers} for i in range(DANGERS)],
        danger_count=dangers,
        players=players,
        players_top=PLAYERS_TOP,
        bar_x=BAR_X,
        height=PLAYERS_TOP + 30 + len(seats) * LINE + 4,
    )
    return Picture(svg, _alt(title, board, seats, gems, knight))


def _alt(title: str, board: Mapping[str, Any], seats: list[str], gems: dict[str, int], knight: int) -> str:
    if knight <= 0:
        where = "at the tail"
    elif knight > STRIPES:
        where = "at the dragon's head"
    else:
        where = f"on stripe {knight} of {STRIPES}"
    lines = [
        f"{title}.",
        f"The knight is {where} with {plural(int(board['beside']), 'gem')} beside it; "
        f"the hoard holds {plural(int(board['hoard']), 'gem')}; "
        f"{int(board['dangers'])} of {DANGERS} danger cards seen.",
    ]
    best = max(gems.values())
    leaders = [alt_name(s) for s in seats if gems[s] == best]
    lines.append(f"{joined(leaders)} {'leads' if len(leaders) == 1 else 'lead'} with {plural(best, 'gem')}.")
    lines.append("Gems: " + ", ".join(f"{alt_name(s)} {gems[s]}" for s in seats) + ".")
    return alt_text(lines)
