"""The buttons a DM carries, by the outbox template it renders: one maker per template.

The transport asks :func:`buttons_for` for each DM's last block
(:data:`bot.discord.transport.DmButtons`); the runtime registers
:data:`ITEMS` with the client, so a click on any of them is found by its
custom id alone, after a restart too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import discord

from bot.discord import ready_button, substitute_button

MAKERS = {
    ready_button.TEMPLATE: ready_button.buttons_for,
    substitute_button.TEMPLATE: substitute_button.buttons_for,
}
"""Template -> the maker of its DM's view (the ready check's confirm, the seat offer's take)."""
ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (ready_button.ReadyButton, substitute_button.TakeButton)
"""The dynamic items behind those buttons."""


def buttons_for(template: str, data: Mapping[str, Any]) -> discord.ui.View | None:
    """The view a DM of ``template`` carries, or None (most DMs carry none)."""
    maker = MAKERS.get(template)
    return None if maker is None else maker(template, data)
