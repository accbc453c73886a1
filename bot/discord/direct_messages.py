"""Commands by direct message in free text: what a player would mail, DMed to the referee.

A user DMs the bot (not a slash command) what they would write in a mail's body::

    ORDERS gs1
    play 6, bank 2

The text is read by :func:`bot.text.reading.read_text`, the language every text channel reads
(exactly as the same text in a mail's body, where mail's own quoting and signatures do not occur),
turned into one envelope and applied through the same service as an interaction.  The core's reply
is the outbox row it writes to the sender's DMs, delivered at once in Discord's form
(``templates/discord/``), so the answer is in the DM, in Discord's words.

* **Which messages**: those in a DM channel from a user; the bot's own and other bots' messages are
  never read, nor anything in a guild channel (there the bot has no message content intent, and
  commands are slash commands).  DMs carry their content without the privileged intent.
* **The envelope**: the sender as interactions name it (:func:`bot.discord.understand.sender_of`),
  trust ``VERIFIED`` (Discord authenticated the author), ``source_id`` ``discord:message:<id>``
  (the gateway may deliver a message again after a resume: applied once, answered once),
  ``may_create`` when the author is a guild member with the GM role.
* **Bounded cost**: a DM over :data:`MAX_CHARACTERS` is not read (answered why); each user may send
  :data:`PER_WINDOW` DMs a :data:`WINDOW_SECONDS` window, past which the first DM is answered with a
  refusal and the rest are dropped (logged) until the window moves on.  Reading itself is linear
  (RE2), a few milliseconds for the longest DM.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

import discord

from bot.core.basics.clock import Clock
from bot.core.basics.log_fields import log_fields
from bot.core.model import commands as c
from bot.core.runtime.service import GameService
from bot.discord.gm_commands import has_gm_role
from bot.discord.render import NO_MENTIONS, plain
from bot.discord.transport import DiscordDelivery
from bot.discord.understand import sender_of
from bot.text.gm_vocabulary import AddressReader, addresses_read_by, written_address
from bot.text.reading import HIDDEN, Reading, clip, hide_secret_shapes, read_text

log = logging.getLogger(__name__)

MAX_CHARACTERS = 2000
"""The longest DM read, in characters: Discord's own cap on a message (Nitro allows 4,000)."""
PER_WINDOW = 20
"""DMs a user may send in a window (more than anyone writing orders needs)."""
WINDOW_SECONDS = 600.0


def too_long(length: int) -> c.NotUnderstood:
    """The answer to a DM of ``length`` characters, over :data:`MAX_CHARACTERS`: nothing in it is read."""
    return c.NotUnderstood(
        f"(a message of {length} characters)",
        f"too long: the referee reads DMs of at most {MAX_CHARACTERS} characters; nothing in it was read. "
        "Send it in parts, or your orders with /orders",
    )


def read_direct_message(content: str, read_address: AddressReader = written_address) -> Reading:
    """The commands of a DM's text, read as a mail's body would be (:func:`bot.text.reading.read_text`)."""
    if len(content) > MAX_CHARACTERS:
        return Reading((too_long(len(content)),))
    with addresses_read_by(read_address):
        return read_text(content)


def _subject(content: str, reading: Reading) -> str:
    """What the reply answers: the DM's first line, never showing a password or a word shaped like one."""
    first = next((line.strip() for line in content.splitlines() if line.strip()), "")
    if not first or len(content) > MAX_CHARACTERS:
        return "your message"
    if reading.password and reading.password.lower() in first.lower():
        return f"{first.split()[0]} {HIDDEN}"
    return hide_secret_shapes(clip(first)[:60])


def envelope_for_message(
    message_id: int,
    author: discord.abc.User,
    content: str,
    received_at: datetime,
    *,
    read_address: AddressReader = written_address,
    may_create: bool = False,
) -> c.Envelope:
    """One envelope for one DM (see the module docstring)."""
    reading = read_direct_message(content, read_address)
    return c.Envelope(
        sender=sender_of(author),
        commands=reading.commands,
        source_id=f"discord:message:{message_id}",
        received_at=received_at,
        reply_context={"subject": _subject(content, reading), "message": str(message_id)},
        password=reading.password,
        ignored=reading.ignored,
        trust=c.Trust.VERIFIED,
        may_create=may_create,
    )


@dataclass
class DmRate:
    """DMs per user over a sliding window (in memory: a restart starts every user afresh)."""

    per_window: int = PER_WINDOW
    window_seconds: float = WINDOW_SECONDS
    now: Callable[[], float] = time.monotonic
    _sent: dict[int, deque[float]] = field(default_factory=dict)
    _told: dict[int, float] = field(default_factory=dict)

    def take(self, user_id: int) -> str:
        """``ok`` (read it), ``refuse`` (over the rate: say so, once a window) or ``drop`` (said already)."""
        now = self.now()
        sent = self._sent.setdefault(user_id, deque())
        while sent and sent[0] <= now - self.window_seconds:
            sent.popleft()
        if len(sent) < self.per_window:
            sent.append(now)
            return "ok"
        if self._told.get(user_id, -self.window_seconds) > now - self.window_seconds:
            return "drop"
        self._told[user_id] = now
        return "refuse"


def over_the_rate(rate: DmRate) -> str:
    minutes = max(1, round(rate.window_seconds / 60))
    return (
        f"You sent more than {rate.per_window} messages within {minutes} minutes: the referee reads no more "
        f"of your DMs until that has passed (this one and the next were not read). Slash commands still work."
    )


class DirectMessages:
    """Reads each DM a user sends the bot, applies it as one envelope, and delivers the reply to the DM."""

    def __init__(
        self,
        client: discord.Client,
        service: GameService,
        delivery: DiscordDelivery,
        clock: Clock,
        *,
        guild_id: int,
        gm_role_id: int = 0,
        read_address: AddressReader = written_address,
        rate: DmRate | None = None,
    ) -> None:
        self._client = client
        self._service = service
        self._delivery = delivery
        self._clock = clock
        self._guild_id = guild_id
        self._gm_role_id = gm_role_id
        self._read_address = read_address
        self.rate = rate or DmRate()

    def is_for_us(self, message: discord.Message) -> bool:
        """A user's message in a DM channel (never the bot's own, another bot's, or a system message)."""
        author = message.author
        if author.bot or author.system or (self._client.user is not None and author.id == self._client.user.id):
            return False
        return isinstance(message.channel, discord.DMChannel) and message.type is discord.MessageType.default

    async def on_message(self, message: discord.Message) -> None:
        """Read, apply and answer one DM (see the module docstring); anything else is ignored."""
        if not self.is_for_us(message):
            return
        with log_fields(message_id=message.id):
            verdict = self.rate.take(message.author.id)
            if verdict != "ok":
                log.info("DM %s from %s over the rate: %s", message.id, message.author.id, verdict)
                if verdict == "refuse":
                    await message.channel.send(plain(over_the_rate(self.rate)), allowed_mentions=NO_MENTIONS)
                return
            envelope = envelope_for_message(
                message.id,
                message.author,
                message.content,
                self._clock.now(),
                read_address=self._read_address,
                may_create=self._may_create(message.author),
            )
            applied = await asyncio.to_thread(self._service.apply, envelope)
            if applied.duplicate:
                log.info("DM %s applied before (receipt %s): not answered again", message.id, applied.receipt)
                return
            await self._delivery.deliver_to_user(message.author.id)
            self._delivery.wake()

    def _may_create(self, author: discord.abc.User) -> bool:
        """The author is a member of the guild with the GM role (as ``/gm create`` asks)."""
        guild = self._client.get_guild(self._guild_id)
        member = None if guild is None else guild.get_member(author.id)
        return member is not None and has_gm_role(member, self._gm_role_id)
