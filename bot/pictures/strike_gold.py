"""Strike Gold's board: each seat's grid of three rows of four cards, face-up cards with their value,
face-down cards as card backs (their value is in no board: ``public_rows`` gives None), cleared
slots as empty outlines; the discard pile's top card and the deck's size (seed rules 2-6)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.core.basics.translation import gettext as _
from bot.core.basics.translation import ngettext
from bot.pictures.picture import Picture
from bot.pictures.svg import WIDTH, alt_name, alt_text, fit, joined, ordinal, render, seat_mark

TOP = 96
BLOCK_W = 196
CARD_W, CARD_H, GAP = 38, 50, 6
HEAD = 30
PER_ROW = 4


def _cell(value: Any) -> dict[str, Any]:
    """One slot: "up" with its value, "down" (a card back, no value), or "gone" (cleared)."""
    if value == "x":
        return {"state": "gone", "text": ""}
    if value is None:
        return {"state": "down", "text": ""}
    return {"state": "up", "text": str(int(value))}


def draw(board: Mapping[str, Any]) -> Picture:
    """Every seat's grid in round ``board["round"]``, face-up values only."""
    grids = dict(board["grids"])
    seats = list(grids)
    per_row = min(PER_ROW, len(seats))
    left = (WIDTH - per_row * BLOCK_W) / 2
    block_h = HEAD + 3 * (CARD_H + GAP) + 38
    nxt = board.get("next") or {}
    totals = {seat: int(board["totals"][seat]) for seat in seats}
    blocks = []
    for i, seat in enumerate(seats):
        x = left + (i % per_row) * BLOCK_W + 8
        y = TOP + (i // per_row) * block_h
        tags = []
        if nxt.get("seat") == seat:
            tags.append(_("to play"))
        pending = board.get("pending") or {}
        if pending.get("seat") == seat:
            tags.append(_("took %(card)s") % {"card": pending["value"]} if "value" in pending else _("drew a card"))
        if board.get("out") == seat:
            tags.append(_("went out"))
        if seat in board.get("final_turns", []):
            tags.append(_("final turn"))
        blocks.append(
            {
                "x": round(x, 1),
                "y": y,
                "mark": seat_mark(i),
                "name": fit(seat, BLOCK_W - 40, 15),
                "total": int(board["totals"][seat]),
                "place": ordinal(1 + sum(1 for other in totals.values() if other < totals[seat])),
                "tags": fit(", ".join(tags), BLOCK_W - 14, 13),
                "current": nxt.get("seat") == seat,
                "cards": [
                    {**_cell(value), "x": round(x + c * (CARD_W + GAP), 1), "y": y + HEAD + r * (CARD_H + GAP)}
                    for r, row in enumerate(grids[seat])
                    for c, value in enumerate(row)
                ],
            }
        )
    rows = (len(seats) + per_row - 1) // per_row
    round_no = int(board["round"])
    stage = str(board["stage"])
    title = {
        "over": _("Strike Gold, round %(round)s (game over)"), "setup": _("Strike Gold, round %(round)s (setup)")
    }.get(stage, _("Strike Gold, round %(round)s")) % {"round": round_no}  # fmt: skip
    discard = board.get("discard_top")
    subtitle = _("lowest total leads; face-down cards are drawn as card backs")
    svg = render(
        "strike-gold",
        title=title,
        subtitle=subtitle,
        blocks=blocks,
        card_w=CARD_W,
        card_h=CARD_H,
        block_w=BLOCK_W,
        height=TOP + rows * block_h + 4,
        discard="" if discard is None else str(int(discard)),
        deck=int(board["deck_size"]),
    )
    return Picture(svg, _alt(title, board, seats, grids))


def _alt(title: str, board: Mapping[str, Any], seats: list[str], grids: dict[str, Any]) -> str:
    lines = [_("%(title)s: %(grids)s grids of 3 rows by 4 cards.") % {"title": title, "grids": len(seats)}]
    discard = board.get("discard_top")
    if discard is not None:
        lines.append(_("The discard pile shows %(card)s.") % {"card": discard})
    cards = int(board["deck_size"])
    lines.append(ngettext("The deck has %(cards)s card.", "The deck has %(cards)s cards.", cards) % {"cards": cards})
    nxt = board.get("next") or {}
    if nxt.get("seat"):
        lines.append(_("%(seat)s to play.") % {"seat": alt_name(str(nxt["seat"]))})
    totals = {s: int(board["totals"][s]) for s in seats}
    if any(totals.values()):
        low = min(totals.values())
        best = [alt_name(s) for s in seats if totals[s] == low]
        lines.append(_("Lowest total (leading): %(seats)s with %(total)s.") % {"seats": joined(best), "total": low})
    for seat in seats:
        cells = [v for row in grids[seat] for v in row]
        up = [str(v) for v in cells if v is not None and v != "x"]
        down = sum(1 for v in cells if v is None)
        gone = sum(1 for v in cells if v == "x")
        shown = _("face up %(cards)s") % {"cards": " ".join(up)} if up else _("no card face up")
        said = (_("%(seat)s: %(shown)s; %(down)s face down; %(gone)s cleared; total %(total)s.") if gone
                else _("%(seat)s: %(shown)s; %(down)s face down; total %(total)s."))  # fmt: skip
        lines.append(said % {"seat": alt_name(seat), "shown": shown, "down": down, "gone": gone, "total": totals[seat]})
    return alt_text(lines)
