"""Count to Ten's orders: ``add N``, N is 1 or 2 (so a game of ten lasts five turns at least)."""

from __future__ import annotations

from adjudicator.api import OrderError, ParsedOrders
from adjudicator.checks import refuse_oversized
from adjudicator.text import order_lines


def parse(text: str) -> ParsedOrders[int]:
    """One line ``add 1`` or ``add 2`` (any case); anything else is an error."""
    refused = refuse_oversized(text)
    if refused is not None:
        return refused
    lines = order_lines(text)
    words = lines[0].lower().split() if len(lines) == 1 else []
    if len(words) == 2 and words[0] == "add" and words[1] in ("1", "2"):
        return ParsedOrders(int(words[1]), f"add {words[1]}")
    return ParsedOrders(None, errors=(OrderError(text.strip()[:40], "write: add 1 or add 2"),))


def format_orders(orders: int) -> str:
    return f"add {orders}"
