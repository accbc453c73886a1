"""Count to Ten's help for players."""

from __future__ import annotations


def help_text(target: int) -> str:
    return f"Count to Ten: each turn send  add 1  or  add 2.\nThe first to {target} ends the game.\n"
