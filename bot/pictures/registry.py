"""The explicit list of board drawings: kind -> drawing (no package scanning)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from bot.pictures.picture import Picture

Drawing = Callable[[Mapping[str, Any]], Picture]
"""Draws one kind's board (its public view) as a picture."""

DRAWINGS: dict[str, Drawing] = {}
"""Kind -> drawing; a kind without an entry has no picture."""
