"""Answering an interaction: defer, apply one envelope, follow up privately, then try the DM copy.

Discord wants an answer within 3 s (later, the interaction is unknown: 404 code 10062) and the core may
take longer (a database on the far side of a network, a turn resolving), so
every command is deferred first (ephemeral, "thinking"), applied in a worker
thread, and answered with follow-ups.  The reply is ephemeral: orders are
private.  The copy by direct message is the reply row the core put
in the outbox; it is delivered at once, and a player whose DMs are closed
(50007) is told so in a second ephemeral follow-up; nothing fails.
"""

from __future__ import annotations

import asyncio
import logging

import discord

from bot.core.basics.clock import Clock
from bot.core.basics.log_fields import log_fields
from bot.core.messaging.rendering import render
from bot.core.model import commands as c
from bot.core.runtime.service import GameService
from bot.discord.orders_modal import submitted_orders
from bot.discord.render import NO_MENTIONS, discord_messages
from bot.discord.transport import DiscordDelivery
from bot.discord.understand import apply_envelope, envelope_for

log = logging.getLogger(__name__)

ALREADY_ANSWERED = 40060
UNKNOWN_INTERACTION = 10062


class Answers:
    """Turns an interaction and its commands into one applied envelope and private replies."""

    def __init__(self, service: GameService, delivery: DiscordDelivery, clock: Clock) -> None:
        self._service = service
        self._delivery = delivery
        self._clock = clock

    async def apply(self, interaction: discord.Interaction, *commands: c.Command, may_create: bool = False) -> None:
        """Defer, apply the commands as one envelope, answer; nothing is applied if Discord refuses the deferral.

        Discord refuses it when the interaction was answered already (40060:
        the gateway delivered it twice, or another process took it) or has
        expired (10062: more than 3 s late); the player then sees Discord's
        own "interaction failed" and nothing was done in their name.
        """
        with log_fields(interaction=interaction.id):  # every line logged for it names the interaction
            if not await self.defer(interaction):
                return
            envelope = envelope_for(interaction, commands, self._clock.now(), may_create=may_create)
            answer = await asyncio.to_thread(apply_envelope, self._service, envelope)
            await self.tell(interaction, answer.text, answer.plain_form, answer.language)
            await self._delivery.deliver_to_user(interaction.user.id)
            if self._delivery.dms_closed(interaction.user.id):
                note = render("discord/dms_closed.txt.j2", {"receipt": answer.receipt}).strip()
                await interaction.followup.send(note, ephemeral=True, allowed_mentions=NO_MENTIONS)
            self._delivery.wake()

    async def defer(self, interaction: discord.Interaction) -> bool:
        """Defer privately ("thinking") unless answered already; False when Discord refuses (see :meth:`apply`)."""
        if interaction.response.is_done():
            return True
        try:
            await interaction.response.defer(ephemeral=True, thinking=True)
        except discord.HTTPException as refused:
            if refused.code not in (ALREADY_ANSWERED, UNKNOWN_INTERACTION):
                raise
            log.warning("interaction %s not applied: %s", interaction.id, refused)
            return False
        return True

    async def orders_by_modal(self, interaction: discord.Interaction) -> bool:
        """Apply an orders modal's submission (see :mod:`bot.discord.orders_modal`); False for anything else."""
        submitted = submitted_orders(interaction)
        if submitted is None:
            return False
        game, text = submitted
        await self.apply(interaction, c.SubmitOrders(game, text))
        return True

    async def tell(
        self, interaction: discord.Interaction, text: str, plain_form: bool = False, language: str | None = None
    ) -> None:
        """``text`` as ephemeral code blocks (``plain_form``: ordinary messages, :func:`discord_messages`, its
        notes said in ``language``; a follow-up when the interaction was already answered)."""
        for block in discord_messages(text, plain_form=plain_form, language=language):
            if interaction.response.is_done():
                await interaction.followup.send(block, ephemeral=True, allowed_mentions=NO_MENTIONS)
            else:
                await interaction.response.send_message(block, ephemeral=True, allowed_mentions=NO_MENTIONS)
