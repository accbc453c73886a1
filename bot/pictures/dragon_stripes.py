"""Dragon Stripes' board: the dragon's 17 stripes from the tail to the head, the knight on its stripe
with the gems beside it, the hoard at the head, the danger cards seen (the third ends the game);
then every player's gems, the active player and the turn's owner marked (seed; docs/rules/dragon-stripes.md 4.1)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.core.basics.translation import gettext as _
from bot.core.basics.translation import mark, ngettext, pgettext
from bot.pictures.picture import Picture
from bot.pictures.svg import WIDTH, alt_name, alt_text, fit, joined, render, seat_mark, text_width

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

STEPS = {"decide": mark("dragon step", "to decide: reveal or hold"),
         "offer": mark("dragon step", "holds: take-over offers"), "choose": mark("dragon step", "chooses a taker"),
         "reveal": mark("dragon step", "reveals a card"), "over": ""}  # fmt: skip


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
            tags.append(_("active"))
        if seat == board["turn_owner"] and not board["finished"]:
            tags.append(_("turn's owner"))
        if board["finished"] and gems[seat] == max(gems.values()):
            tags.append(_("winner"))
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
    step_words = STEPS.get(str(board["step"]), "")
    doing = pgettext("dragon step", step_words) if step_words else ""
    room = WIDTH - 40 - text_width(_("Dragon Stripes: %(player)s %(doing)s") % {"player": "", "doing": doing}, 22)
    title = (
        _("Dragon Stripes, game over")
        if finished
        else (_("Dragon Stripes: %(player)s %(doing)s") % {"player": fit(active, room, 22), "doing": doing})
    )
    seen, left = len(board["cards_seen"]), int(board["cards_left"])
    costs = _("half") if board["doubling"] else _("a quarter")
    subtitle = ngettext("%(seen)s card seen, %(left)s left; a danger card costs %(share)s of the gems",
                        "%(seen)s cards seen, %(left)s left; a danger card costs %(share)s of the gems", seen) % {
        "seen": seen, "left": left, "share": costs}  # fmt: skip
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


def _gems(n: int) -> str:
    """``1 gem``, ``2 gems`` in the language being spoken."""
    return ngettext("%(n)s gem", "%(n)s gems", n) % {"n": n}


def _alt(title: str, board: Mapping[str, Any], seats: list[str], gems: dict[str, int], knight: int) -> str:
    if knight <= 0:
        where = _("at the tail")
    elif knight > STRIPES:
        where = _("at the dragon's head")
    else:
        where = _("on stripe %(stripe)s of %(stripes)s") % {"stripe": knight, "stripes": STRIPES}
    beside, hoard = int(board["beside"]), int(board["hoard"])
    lines = [
        f"{title}.",
        _("The knight is %(where)s with %(beside)s beside it; the hoard holds %(hoard)s; %(dangers)s of %(most)s "
          "danger cards seen.") % {"where": where, "beside": _gems(beside), "hoard": _gems(hoard),
                                   "dangers": int(board["dangers"]), "most": DANGERS},
    ]  # fmt: skip
    best = max(gems.values())
    leaders = [alt_name(s) for s in seats if gems[s] == best]
    lines.append(ngettext("%(leaders)s leads with %(gems)s.", "%(leaders)s lead with %(gems)s.", len(leaders))
                 % {"leaders": joined(leaders), "gems": _gems(best)})  # fmt: skip
    lines.append(_("Gems: %(gems)s.") % {"gems": ", ".join(f"{alt_name(s)} {gems[s]}" for s in seats)})
    return alt_text(lines)
