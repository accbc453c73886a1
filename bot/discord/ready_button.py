"""The button on a ready check's DM: one seat, one check, surviving restarts.

The core asks each seat of a full game to confirm (``ready_request``,
:mod:`bot.core.turns.ready_checks`); on Discord that DM carries one button
whose custom id names the check (the game's ``ready_round``), the game and
the seat (``ready:<round>:<game>:<seat>``, at most 100 characters: a game
name and a seat name are at most 40 each and hold no colon).  It is a
:class:`discord.ui.DynamicItem`, so a click reaches the bot by its id alone,
after a restart too.  A click is the command ``READY <game>`` for that seat
and that check (:class:`bot.core.model.commands.ConfirmReady` with ``seat``
and ``check_round``), applied like any interaction: the core refuses,
privately and changing nothing, a click from anyone but the seat's player,
one on an earlier check, a second one, or one after the window.
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

TEMPLATE = "ready_request"
"""The outbox template whose DM carries the button."""


def custom_id(check_round: int, game: str, seat: str) -> str:
    return f"ready:{check_round}:{game}:{seat}"


class ReadyButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"^ready:(?P<round>\d{1,9}):(?P<game>[^:]{1,40}):(?P<seat>[^:]{1,40})$",
):
    """The confirm button of one seat in one ready check; see the module docstring."""

    def __init__(self, check_round: int, game: str, seat: str) -> None:
        super().__init__(
            discord.ui.Button(
                label=_("I will play"), style=discord.ButtonStyle.success, custom_id=custom_id(check_round, game, seat)
            )
        )
        self.check_round, self.game, self.seat = check_round, game, seat

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> ReadyButton:
        return cls(int(match["round"]), match["game"], match["seat"])

    async def callback(self, interaction: discord.Interaction) -> None:
        answers: Answers | None = getattr(interaction.client, "gm_answers", None)
        if answers is None:
            await tell_privately(interaction, say("The referee is not taking confirmations here."))
            return
        try:
            await answers.apply(interaction, c.ConfirmReady(self.game, seat=self.seat, check_round=self.check_round))
        except Exception as error:
            await apologise(interaction, f"button {self.custom_id}", error)


def buttons_for(template: str, data: Mapping[str, Any]) -> discord.ui.View | None:
    """The view a DM of ``template`` carries (the ready check's button), or None."""
    if template != TEMPLATE:
        return None
    game, seat, check_round = data.get("game"), data.get("seat"), data.get("round")
    if not isinstance(game, str) or not isinstance(seat, str) or not isinstance(check_round, int):
        return None
    if len(custom_id(check_round, game, seat)) > 100:
        return None  # cannot happen with names the core allows; /ready still works
    view = discord.ui.View(timeout=None)
    view.add_item(ReadyButton(check_round, game, seat))
    return view
