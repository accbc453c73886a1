"""The button on a seat offer's DM: "Take this seat", for one seat and one offer, surviving restarts.

The core offers a seat put up for a substitute to each player on the standby
list (``seat_offer``, :mod:`bot.core.turns.substitutes`); on Discord that DM
carries one button whose custom id names the offer (the seat's
``offer_round``), the game and the seat (``take:<round>:<game>:<seat>``, at
most 100 characters: a game name and a seat name are at most 40 each and hold
no colon).  It is a :class:`discord.ui.DynamicItem`, so a click reaches the
bot by its id alone, after a restart too.

The id names no player: every player told of the offer gets the same button,
and a click is the command ``TAKE <game> <seat>`` by whoever clicked, for that
offer (:class:`bot.core.model.commands.TakeSeat` with ``offer_round``),
applied like any interaction.  The core refuses it, privately and changing
nothing, as it refuses any ``TAKE``: a seat no longer up, an earlier offer of
it (the button of an offer withdrawn and made again), a seat someone else
offered to take first, a clicker already seated in the game or below its
minimum reliability.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import discord

from adjudicator.words import say
from bot.core.basics.translation import _
from bot.core.model import commands as c
from bot.discord.answers import Answers
from bot.discord.client import apologise, tell_privately

TEMPLATE = "seat_offer"
"""The outbox template whose DM carries the button."""
CUSTOM_ID_LIMIT = 100


def custom_id(offer_round: int, game: str, seat: str) -> str:
    return f"take:{offer_round}:{game}:{seat}"


class TakeButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"^take:(?P<round>\d{1,9}):(?P<game>[^:]{1,40}):(?P<seat>[^:]{1,40})$",
):
    """The button of one offer of one seat; see the module docstring."""

    def __init__(self, offer_round: int, game: str, seat: str) -> None:
        super().__init__(
            discord.ui.Button(
                label=_("Take this seat"),
                style=discord.ButtonStyle.primary,
                custom_id=custom_id(offer_round, game, seat),
            )
        )
        self.offer_round, self.game, self.seat = offer_round, game, seat

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> TakeButton:
        return cls(int(match["round"]), match["game"], match["seat"])

    async def callback(self, interaction: discord.Interaction) -> None:
        answers: Answers | None = getattr(interaction.client, "gm_answers", None)
        if answers is None:
            await tell_privately(interaction, say("The referee is not taking seats here."))
            return
        try:
            await answers.apply(interaction, c.TakeSeat(self.game, self.seat, offer_round=self.offer_round))
        except Exception as error:
            await apologise(interaction, f"button {self.custom_id}", error)


def buttons_for(template: str, data: Mapping[str, Any]) -> discord.ui.View | None:
    """The view a DM of ``template`` carries (a seat offer's button), or None."""
    if template != TEMPLATE:
        return None
    game, seat, offer_round = data.get("game"), data.get("seat"), data.get("round")
    if not isinstance(game, str) or not isinstance(seat, str) or not isinstance(offer_round, int):
        return None
    made = custom_id(offer_round, game, seat)
    if len(made) > CUSTOM_ID_LIMIT or TakeButton.__discord_ui_compiled_template__.fullmatch(made) is None:
        return None  # cannot happen with names the core allows; /take still works
    view = discord.ui.View(timeout=None)
    view.add_item(TakeButton(offer_round, game, seat))
    return view
