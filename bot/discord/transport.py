"""Outbox rows -> Discord: the channel's transport for the core's sender loop.

The loop (claim with a lease, back-off, park, the bell, coalescing a game's
status rows, giving back what a pass did not send) is the core's
:class:`bot.core.messaging.sender_loop.SenderLoop`; this module says how one
row is sent to Discord and what became of it:

* to ``user:<id>`` (or a bare id): a direct message;
* to ``public:<slug>`` (the core's public copy of a game, written when
  ``ServiceConfig.public_channels`` names ``discord``): the game's post
  in the configured forum channel, opened on first use with the game's name
  and recorded with :mod:`bot.core.messaging.places`, so it survives a restart (a
  post whose creation was answered by an error is looked for among the
  guild's active threads before another is made).

A game's live status (outbox kind ``status``, one coalescing row per game:
:mod:`bot.core.messaging.status_board`) is not posted again at each change: it is one
message in the game's post, posted and pinned the first time, its id
recorded (:func:`bot.core.messaging.places.record_status_message`), and edited in
place afterwards, across restarts (the loop sends only the newest of several
due status rows of a game).  The same status then moves the game's guild
scheduled event to its next deadline (:mod:`bot.discord.events`), which never
fails the row.

Each other row is sent as code blocks, or ordinary messages to a reader who chose FORMAT PLAIN
(:func:`bot.discord.render.discord_messages`),
a public report's first block with the board's picture attached
(:mod:`bot.discord.board`), each with a nonce derived from the row's stable Message-ID and the block's
index, sent with ``enforce_nonce``: Discord answers a repeat with the
message it already has, so a retry after a lost response posts nothing twice.
Discord keeps a nonce for a few minutes only, so the process also remembers
how many blocks of a row Discord took: a retry, however late (an outage of
an hour, a prompt that failed after its report went out), starts at the
first block not yet taken.  Only a restart between two blocks of one row
falls back on the nonces alone.

Failures ("Delivery and limits"):

* transient (5xx, a dropped connection, a timeout, 429): a
  :class:`~bot.core.messaging.sender_loop.Retry` with a hold: the row is marked
  failed (exponential back-off in the outbox), the pass stops, and no row is
  sent before that row's next attempt (or a 429's ``retry_after``, or the
  ``Retry-After`` of one discord.py lets through; discord.py itself waits out
  short ones), so the reports keep their order;
* permanent (unknown channel 10003, missing permission 50013, missing
  access 50001, a DM refused with 50007, any other 4xx): the row is parked
  with the reason, never retried; a DM refused with 50007 is also reported to
  the core (:func:`bot.core.messaging.reachability.mark_unreachable`), which tells the
  player's game masters once, not at every refused DM;
* anything else is a bug: logged, retried, parked after ``max_attempts`` (by the loop);
* the client is closed (``referee serve`` stopping): the row is given back
  untouched (:class:`~bot.core.messaging.sender_loop.Unavailable`).

A game's decision prompt (buttons) is posted right after the public row it
follows, as part of that row's send; a prompt Discord refuses for good is
logged and leaves the row sent (its report went out).

Between passes the loop waits ``interval`` seconds, or less: until rows
of its channels are committed in this process (the outbox's bell,
:mod:`bot.core.messaging.outbox_bell`: a deadline's reports, a notice written by the
email intake), an answer asks for a pass (:meth:`DiscordDelivery.wake`), or
it is stopped; a wake or a ring during a pass is kept for the next wait.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import aiohttp
import discord
from sqlalchemy.orm import Session, sessionmaker

from bot.core.basics.clock import Clock
from bot.core.basics.translation import speaking
from bot.core.messaging.outbox import OutboxDrain, PendingMessage
from bot.core.messaging.outbox_bell import OutboxBell
from bot.core.messaging.places import public_place, record_public_place, record_status_message, status_message
from bot.core.messaging.reachability import mark_reachable, mark_unreachable, unreachable_addresses
from bot.core.messaging.rendering import reads_plain, render
from bot.core.messaging.sender_loop import GIVEN_BACK, PassReport, SenderLoop
from bot.core.messaging.sender_loop import PARKED as LOOP_PARKED
from bot.core.messaging.sender_loop import RETRY as LOOP_RETRY
from bot.core.messaging.sender_loop import SENT as LOOP_SENT
from bot.core.messaging.transport import Outcome, Refused, Retry, Sent, Unavailable
from bot.core.model.config import ServiceConfig
from bot.core.model.outcomes import STATUS
from bot.core.views import GameViews
from bot.discord.board import board_picture
from bot.discord.events import DeadlineEvents
from bot.discord.render import FORM, LIMIT, NO_MENTIONS, discord_messages, reader_language, render_outcome
from bot.discord.understand import CHANNEL, Target, target_of, user_recipients

log = logging.getLogger(__name__)

DMS_CLOSED = 50007
UNKNOWN_MESSAGE = 10008
PERMANENT_CODES = {
    10003: "unknown channel",
    10013: "unknown user",
    50001: "missing access",
    50013: "missing permissions",
    DMS_CLOSED: "cannot send messages to this user (their DMs are closed)",
}
SENT, RETRY, PARKED = "sent", "retry", "parked"


@dataclass(frozen=True)
class Delivered:
    """What became of one row in one attempt."""

    row_id: int
    recipient: str
    status: str
    reason: str = ""
    code: int | None = None


class _Refused(Exception):
    """Discord refused a row for good."""

    def __init__(self, reason: str, code: int | None) -> None:
        super().__init__(reason)
        self.code = code


class _Transient(Exception):
    """Worth another try later; at least ``hold`` seconds before any send at all (rate limits)."""

    def __init__(self, reason: str, hold: float = 0.0) -> None:
        super().__init__(reason)
        self.hold = hold


AfterPublic = Callable[[str, discord.abc.Messageable], Awaitable[None]]
"""Called after a public row is sent, with the game and its place (the decision prompts)."""
DmButtons = Callable[[str, Mapping[str, Any]], discord.ui.View | None]
"""The buttons a DM of an outbox template carries, from its data (the ready check's:
:func:`bot.discord.dm_buttons.buttons_for`), or None."""


def nonce_for(message_id: str, index: int) -> str:
    """At most 25 characters (Discord's limit), the same on every retry of the same block."""
    return hashlib.sha256(f"{message_id}\x00{index}".encode()).hexdigest()[:25]


def status_nonce(slug: str, replaces: str | None = None) -> str:
    """The nonce of a game's status post: the game's (and the message it replaces), the same for every row.

    Not the row's: a newer row that superseded one whose post's answer was lost
    gets that post back from Discord instead of posting a second status.
    """
    return nonce_for(f"status\x00{slug}\x00{replaces or ''}", 0)


class DiscordTransport:
    """Sends one outbox row to Discord (a :class:`bot.core.messaging.sender_loop.Transport`); see the module docstring."""

    def __init__(
        self,
        client: discord.Client,
        sessions: sessionmaker[Session],
        clock: Clock,
        forum_channel_id: int,
        service_config: ServiceConfig,
        news: Callable[[], None],
    ) -> None:
        self._client = client
        self._sessions = sessions
        self._views = GameViews(sessions)
        self._clock = clock
        self._forum_channel_id = forum_channel_id
        self._config = service_config
        """For the notices the core writes when a DM is refused (the Message-ID domain, the public places)."""
        self._news = news
        """Asks the loop for another pass (the GMs' notice of a closed DM was just written)."""
        self.after_public: AfterPublic | None = None
        """Called after each public row is sent, with the game and its place (the decision prompts)."""
        self.dm_buttons: DmButtons | None = None
        """The buttons a DM carries on its last block (set by the runtime)."""
        self.events: DeadlineEvents | None = None
        """Given each game's status once it is shown: its next deadline as a guild scheduled event."""
        self._dms_closed: set[str] = set()
        self._dms_loaded = False
        self._blocks_sent: dict[int, int] = {}
        """Per outbox row still being delivered: how many of its blocks Discord took (see :meth:`_send`)."""

    @asynccontextmanager
    async def connect(self) -> AsyncIterator[DiscordTransport]:
        """Discord has no session to open: the client is the connection."""
        yield self

    async def begin(self, rows: Sequence[PendingMessage]) -> None:
        """Before a pass's first send: :meth:`load_unreachable`."""
        await self.load_unreachable()

    async def end(self, rows: Sequence[PendingMessage]) -> None:
        """Nothing was kept for the pass."""

    async def load_unreachable(self) -> None:
        """Who was unreachable before a restart, read once: a success there is news."""
        if not self._dms_loaded:
            self._dms_closed |= await asyncio.to_thread(unreachable_addresses, self._sessions, CHANNEL)
            self._dms_loaded = True

    async def send(self, row: PendingMessage) -> Outcome:
        if self._client.is_closed():
            # Stopping (an answer still running after the client closed): no failed attempt; the row is
            # given back, due at once for the next run.
            raise Unavailable("the Discord client is closed")
        try:
            await self._send(row)
        except RuntimeError:
            if self._client.is_closed():  # it closed during the send (aiohttp: "Session is closed"): as above
                raise Unavailable("the Discord client closed while sending") from None
            raise
        except _Refused as refused:
            log.warning("outbox row %d to %s refused: %s", row.id, row.recipient, refused)
            return Refused(str(refused), refused.code)
        except _Transient as transient:
            return Retry(str(transient), hold=transient.hold)
        return Sent()

    async def settled(self, row: PendingMessage, outcome: Outcome) -> None:
        """What a settled row teaches: a DM refused with 50007 (the core tells the GMs once), a DM that
        went through again after one (the player is reachable again)."""
        if isinstance(outcome, Retry):
            return
        self._blocks_sent.pop(row.id, None)
        target = target_of(row.channel, row.recipient)
        if isinstance(outcome, Refused):
            if outcome.code == DMS_CLOSED:
                self._dms_closed.add(target.key)
                await asyncio.to_thread(
                    mark_unreachable, self._sessions, self._config, CHANNEL, target.key, outcome.reason,
                    self._clock.now(),
                )  # fmt: skip
                self._news()  # the GMs' notice, if this was news
            return
        if target.kind == "user" and target.key in self._dms_closed:
            self._dms_closed.discard(target.key)
            await asyncio.to_thread(mark_reachable, self._sessions, CHANNEL, target.key)

    def dms_closed(self, user_id: int) -> bool:
        return str(user_id) in self._dms_closed

    async def _send(self, row: PendingMessage) -> None:
        try:
            target = target_of(row.channel, row.recipient)
            messageable = await self._messageable(target)
            text = render_outcome(row.template, row.data, row.context)
            if row.kind == STATUS and target.kind == "public":
                await self._show_status(target.key, messageable, text.strip()[:LIMIT])
                if self.events is not None and isinstance(messageable, discord.PartialMessageable):
                    await self.events.follow(target.key, row.data, str(messageable.id))
                return
            language = reader_language(row.data, row.context)
            blocks = discord_messages(text, plain_form=reads_plain(row.data), language=language)
            first = self._blocks_sent.get(row.id, 0)
            picture = None
            if target.kind == "public" and first == 0 and blocks:
                picture = await asyncio.to_thread(board_picture, row.template, row.data)
            for index in range(first, len(blocks)):
                nonce = nonce_for(row.message_id, index)
                last_dm = index == len(blocks) - 1 and target.kind == "user" and self.dm_buttons is not None
                buttons = None
                if last_dm and self.dm_buttons:
                    with speaking(language):  # their labels in the reader's language, as the text
                        buttons = self.dm_buttons(row.template, row.data)
                if picture is not None and index == 0:
                    await messageable.send(blocks[index], nonce=nonce, allowed_mentions=NO_MENTIONS,
                                           file=picture.file())  # fmt: skip
                elif buttons is not None:
                    await messageable.send(blocks[index], nonce=nonce, allowed_mentions=NO_MENTIONS, view=buttons)
                else:
                    await messageable.send(blocks[index], nonce=nonce, allowed_mentions=NO_MENTIONS)
                self._blocks_sent[row.id] = index + 1
            if target.kind == "public" and self.after_public is not None:
                await self._prompt(target.key, messageable)
        except ValueError as error:
            raise _Refused(str(error), None) from error
        except discord.RateLimited as limited:
            raise _Transient(f"rate limited for {limited.retry_after:.1f} s", limited.retry_after) from limited
        except discord.HTTPException as error:
            raise _classify(error) from error
        except (aiohttp.ClientError, OSError, TimeoutError) as error:
            # A dropped connection reaches us raw (discord.py does not wrap a reset on Linux): transient.
            raise _Transient(f"{type(error).__name__}: {error}") from error

    async def _prompt(self, slug: str, place: discord.abc.Messageable) -> None:
        """The game's prompt after its public row; refused for good, it is logged and the row stays sent.

        The row's report went out already: parking the row for its prompt would
        say otherwise.  A transient failure still fails the row; its retry sends
        none of the blocks Discord took (see the module docstring) and tries the
        prompt again.  Without the prompt, the player can still type the order.
        """
        assert self.after_public is not None
        try:
            await self.after_public(slug, place)
        except discord.HTTPException as refused:
            if refused.status >= 500 or refused.status == 429:
                raise
            log.warning("the prompt of %s was refused for good (its report went out): %s", slug, refused)

    async def _show_status(self, slug: str, channel: discord.abc.Messageable, text: str) -> None:
        """Edit the game's pinned status message to ``text``; post, record and pin it the first time."""
        known = await asyncio.to_thread(status_message, self._sessions, slug, CHANNEL)
        message: discord.Message | None = None
        if known is not None and isinstance(channel, discord.PartialMessageable):
            try:
                message = await channel.get_partial_message(int(known)).edit(content=text,
                                                                             allowed_mentions=NO_MENTIONS)  # fmt: skip
            except discord.NotFound as gone:
                if gone.code != UNKNOWN_MESSAGE:
                    raise  # the place itself is gone (unknown channel): refused, like any other row
                log.warning("the status message %s of %s is gone; posting another", known, slug)
        if message is None:
            message = await channel.send(text, nonce=status_nonce(slug, known), allowed_mentions=NO_MENTIONS)
            if message.content != text:  # a repeat of a lost answer: Discord gave back the first post
                message = await message.edit(content=text, allowed_mentions=NO_MENTIONS)
            await asyncio.to_thread(record_status_message, self._sessions, slug, CHANNEL, str(message.id))
        if not message.pinned:
            try:
                await message.pin(reason=f"the status of game {slug}")
            except discord.HTTPException as refused:
                if refused.status >= 500 or refused.status == 429:
                    raise  # worth another try: the next attempt edits the message and pins it then
                # No permission to pin, or the post's pins are full: the status is kept up to date unpinned.
                log.warning("the status message of %s could not be pinned: %s", slug, refused)

    async def _messageable(self, target: Target) -> discord.abc.Messageable:
        if target.kind == "user":
            return await self._client.create_dm(discord.Object(int(target.key)))
        place = await asyncio.to_thread(public_place, self._sessions, target.key, CHANNEL)
        if place is None:
            place = await self._open_public_place(target.key)
        return self._client.get_partial_messageable(int(place))

    async def _open_public_place(self, slug: str) -> str:
        """The game's forum post, created now with the game's name, and recorded."""
        if not self._forum_channel_id:
            raise _Refused("no forum channel is configured (discord_forum_channel_id)", None)
        forum = self._client.get_channel(self._forum_channel_id)
        if forum is None:
            forum = await self._client.fetch_channel(self._forum_channel_id)
        if not isinstance(forum, discord.ForumChannel):
            raise _Refused(f"channel {self._forum_channel_id} is not a forum channel", None)
        listing = next((g for g in await asyncio.to_thread(self._views.games) if g.slug == slug), None)
        title = listing.title if listing is not None else slug
        name = discord.utils.escape_mentions(f"{slug} -- {title}")[:100]  # a title shows no markdown: only mentions
        place = await self._find_post(forum, name)
        if place is None:
            opening = render("discord/forum_post.txt.j2",
                             {"game": slug, "title": title, "page": self._config.page_of(slug)}, FORM)  # fmt: skip
            made = await forum.create_thread(name=name, content=opening, allowed_mentions=NO_MENTIONS)
            place = str(made.thread.id)
        await asyncio.to_thread(record_public_place, self._sessions, slug, CHANNEL, place)
        log.info("opened the forum post %s for game %s", place, slug)
        return place

    async def _find_post(self, forum: discord.ForumChannel, name: str) -> str | None:
        """The bot's own live post called ``name`` in ``forum``: one made by an attempt whose answer was lost."""
        me = self._client.user
        for thread in await forum.guild.active_threads():
            if thread.parent_id == forum.id and thread.name == name and me is not None and thread.owner_id == me.id:
                return str(thread.id)
        return None


RATE_LIMIT_HOLD = 60.0
"""How long a 429 that says nothing of when to come back holds every send."""


def _retry_after(error: discord.HTTPException) -> float:
    """The seconds a 429 that reached us asks to wait (``Retry-After``; :data:`RATE_LIMIT_HOLD` when it says nothing).

    discord.py waits out the usual 429s itself and raises ``RateLimited`` for
    long ones; a bare 429 reaches us after its five tries, or from
    Cloudflare (no ``Via`` header: a ban that may last an hour), whose
    ``Retry-After`` is then the only word on how long.
    """
    headers = getattr(error.response, "headers", None) or {}
    for name in ("Retry-After", "X-RateLimit-Reset-After"):
        try:
            return max(float(headers[name]), 1.0)
        except (KeyError, TypeError, ValueError):
            continue
    return RATE_LIMIT_HOLD


def _classify(error: discord.HTTPException) -> Exception:
    if error.status == 429:
        return _Transient(f"HTTP 429: {error.text}", hold=_retry_after(error))
    if error.status >= 500:
        return _Transient(f"HTTP {error.status}: {error.text or 'server error'}")
    reason = PERMANENT_CODES.get(error.code) or error.text or "refused"
    return _Refused(f"HTTP {error.status} code {error.code}: {reason}", error.code)


class DiscordDelivery:
    """The core's sender loop over the outbox's Discord rows with a :class:`DiscordTransport`."""

    def __init__(
        self,
        client: discord.Client,
        sessions: sessionmaker[Session],
        clock: Clock,
        forum_channel_id: int,
        *,
        interval: float = 2.0,
        max_attempts: int = 10,
        channels: Iterable[str] = (CHANNEL,),
        after_public: AfterPublic | None = None,
        service_config: ServiceConfig | None = None,
        bell: OutboxBell | None = None,
        guild_id: int = 0,
    ) -> None:
        self.transport = DiscordTransport(
            client, sessions, clock, forum_channel_id, service_config or ServiceConfig(), self.wake
        )
        self.transport.after_public = after_public
        if guild_id:  # each game's next deadline as an event in that guild
            self.transport.events = DeadlineEvents(client, sessions, clock, guild_id)
        self.loop = SenderLoop(
            OutboxDrain(sessions), self.transport, clock, channels, bell=bell, interval=interval,
            max_attempts=max_attempts, retry_min=interval, retry_max=interval,  # a failed pass: tried again each interval
        )  # fmt: skip
        self.channels = self.loop.channels

    @property
    def after_public(self) -> AfterPublic | None:
        """Called after each public row is sent, with the game and its place (the decision prompts)."""
        return self.transport.after_public

    @after_public.setter
    def after_public(self, hook: AfterPublic | None) -> None:
        self.transport.after_public = hook

    @property
    def held_until(self) -> datetime | None:
        """No send before this (the next attempt of a row that failed for a transient reason)."""
        return self.loop.held_until

    @property
    def interval(self) -> float:
        return self.loop.interval

    def dms_closed(self, user_id: int) -> bool:
        """Whether the last DM tried for this user was refused with 50007 (their DMs are closed)."""
        return self.transport.dms_closed(user_id)

    def wake(self) -> None:
        """Ask for a pass now (something was just queued)."""
        self.loop.wake()

    async def run(self, stop: asyncio.Event) -> None:
        """Deliver until ``stop`` is set (:meth:`bot.core.messaging.sender_loop.SenderLoop.run`)."""
        await self.loop.run(stop, "Discord")

    async def deliver_due(self) -> list[Delivered]:
        """One pass over every due row of this adapter's channels."""
        await self.transport.load_unreachable()
        return _delivered(await self.loop.send_due())

    async def deliver_to_user(self, user_id: int) -> list[Delivered]:
        """One pass over the due rows for one user's DMs (right after their command, to tell them of closed DMs)."""
        await self.transport.load_unreachable()  # whether their DMs were closed before a restart
        return _delivered(await self.loop.send_due(set(user_recipients(user_id))))


def _delivered(report: PassReport) -> list[Delivered]:
    status = {LOOP_SENT: SENT, LOOP_RETRY: RETRY, GIVEN_BACK: RETRY, LOOP_PARKED: PARKED}
    return [Delivered(s.row.id, s.row.recipient, status[s.status], s.reason, s.code) for s in report.settled]
