"""The orders modal: a paragraph field for long or multi-line orders (``/orders`` without ``text``).

Submissions are read from the interaction itself, not matched to the modal
object discord.py keeps: its store holds one modal per custom id and drops
it after the first submission, so two players of the same game writing
orders at once would lose one of them, and a restart would lose every modal
open at the time.  So the modal is forgotten as soon as it is shown, and
:func:`submitted_orders` recognises any submission by its custom id
(``referee:orders:<game>``), before or after a restart.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import discord

from bot.core.basics.translation import _, speaking
from bot.discord.understand import locale_language

PREFIX = "referee:orders:"
FIELD = "orders"
MAX_LENGTH = 4000
"""Discord's longest text input."""
TITLE_LIMIT, LABEL_LIMIT, PLACEHOLDER_LIMIT = 45, 45, 100
"""Discord's longest modal title, text input label and placeholder."""


class OrdersModal(discord.ui.Modal):
    """The form only; see the module docstring for where its submission goes.  Its words are said in the
    language being spoken (:func:`open_orders_modal`: the member's Discord's)."""

    def __init__(self, game: str) -> None:
        title = _("Orders for %(game)s") % {"game": game}
        super().__init__(title=title[:TITLE_LIMIT], custom_id=f"{PREFIX}{game}"[:100], timeout=None)
        self.add_item(
            discord.ui.TextInput(
                label=_("Orders, in the game's own syntax")[:LABEL_LIMIT],
                style=discord.TextStyle.paragraph,
                custom_id=FIELD,
                max_length=MAX_LENGTH,
                placeholder=_("One order per line, as in the game's help (/help game:...)")[:PLACEHOLDER_LIMIT],
            )
        )


async def open_orders_modal(interaction: discord.Interaction, game: str) -> None:
    """Show the modal for ``game`` (as the interaction's answer), in the language of the member's Discord,
    and let discord.py forget it."""
    with speaking(locale_language(getattr(interaction, "locale", None))):
        modal = OrdersModal(game)
    await interaction.response.send_modal(modal)
    modal.stop()


def submitted_orders(interaction: discord.Interaction) -> tuple[str, str] | None:
    """(game, text) when ``interaction`` submits an orders modal, else None."""
    if interaction.type is not discord.InteractionType.modal_submit or interaction.data is None:
        return None
    data: dict[str, Any] = dict(interaction.data)
    custom_id = str(data.get("custom_id", ""))
    if not custom_id.startswith(PREFIX):
        return None
    text = next(
        (str(c.get("value", "")) for c in _inputs(data.get("components", [])) if c.get("custom_id") == FIELD), ""
    )
    return custom_id.removeprefix(PREFIX), text


def _inputs(components: Iterable[dict[str, Any]]) -> Iterable[dict[str, Any]]:
    """Every input of a submission: in action rows (type 1) or, from discord.py 2.6, labels (type 18)."""
    for component in components:
        if component.get("type") == 1:
            yield from _inputs(component.get("components", []))
        elif component.get("type") == 18:
            yield from _inputs([component.get("component", {})])
        else:
            yield component
