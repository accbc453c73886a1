"""Each running game's next deadline as a guild scheduled event (Discord's calendar of the server).

The event follows the same signal as the pinned status message: the game's
status (:mod:`bot.core.messaging.status_board`), which the core writes again at
every change of the game, and the transport shows in the game's post
(:meth:`bot.discord.transport.DiscordTransport._show_status`).  After it, the
transport hands the status to :meth:`DeadlineEvents.follow`, which brings the
game's event in line with it:

* a running game: an external event (its location the game's post) that
  starts at the deadline (the grace period's end, when one runs) and lasts
  :data:`LENGTH`; created when the game starts, edited when the deadline
  moves (the GM sets it, a new turn);
* a game paused until a time: the event moved there ("resumes"); paused
  with no end: cancelled (no time to show), and made again at the resume;
* a game over (finished, abandoned): the event cancelled (or ended, if it runs).

Times are UTC instants; Discord shows each reader their own zone.  Its id is
kept with the game's place (:func:`bot.core.messaging.places.record_scheduled_event`),
so after a restart the same event is edited; an event Discord has started on
its own (an external event goes active at its start: the deadline came) is
ended and a new one made for the next deadline.  A status that changes
nothing the event shows (an order in) costs no request.

Optional: only with the Create Events or Manage Events permission.  Without
it, or when Discord refuses (403), it is logged once and nothing else
happens: the status row, the reports, the game go on.  A refusal is not tried
again until the bot's permissions change; a transient failure (5xx, a rate
limit, a dropped connection) is logged and tried at the game's next status.
Nothing here raises into the sender.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import aiohttp
import discord
from sqlalchemy.orm import Session, sessionmaker

from bot.core.basics.clock import Clock
from bot.core.messaging.places import record_scheduled_event, scheduled_event
from bot.discord.render import plain
from bot.discord.understand import CHANNEL

log = logging.getLogger(__name__)

LENGTH = timedelta(minutes=15)
"""How long a deadline's event lasts (Discord needs an end for an external event)."""
LEAD = timedelta(minutes=1)
"""A start closer than this (or past) is not set: Discord refuses a start in the past."""
NAME_LIMIT, DESCRIPTION_LIMIT, LOCATION_LIMIT = 100, 1000, 100
"""Discord's limits on an event's name, description and location."""


@dataclass(frozen=True)
class EventPlan:
    """What a game's event should show."""

    name: str
    description: str
    start: datetime

    @property
    def end(self) -> datetime:
        return self.start + LENGTH


KEEP = "keep"
"""The event stays as it is (a turn held by a failure: its deadline passed, nothing new to show)."""


def _moment(value: object) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    moment = datetime.fromisoformat(value)
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def plan_event(status: Mapping[str, Any]) -> EventPlan | str | None:
    """The event a game's status calls for: a plan, None (no event), or :data:`KEEP`."""
    game, title = str(status.get("game")), str(status.get("title"))
    head = f"{game} -- {title}"
    state = status.get("status")
    if state == "paused":
        until = _moment(status.get("paused_until"))
        if until is None:
            return None
        return EventPlan(f"{head}: resumes"[:NAME_LIMIT],
                         "Paused by the game master until then; the next deadline is set when it resumes.", until)  # fmt: skip
    if state != "running":
        return None
    if status.get("stuck"):
        return KEEP
    deadline = _moment(status.get("deadline"))
    if deadline is None:
        return None
    turn, phase = status.get("turn"), status.get("phase")
    name = f"{head}: turn {turn} deadline" if turn is not None else f"{head}: deadline"
    what = f"Orders for turn {turn} ({plain(phase)})" if turn is not None else "Orders"
    description = f"{what} are due. Send them privately: /orders game:{game}. The game's post has the reports."
    return EventPlan(name[:NAME_LIMIT], description[:DESCRIPTION_LIMIT], deadline)


class DeadlineEvents:
    """Keeps each game's guild scheduled event in line with its status; see the module docstring."""

    def __init__(self, client: discord.Client, sessions: sessionmaker[Session], clock: Clock, guild_id: int) -> None:
        self._client = client
        self._sessions = sessions
        self._clock = clock
        self._guild_id = guild_id
        self._shown: dict[str, EventPlan | None] = {}
        """Per game: what its event shows (None: it has none), as far as this process knows."""
        self._refused_with: int | None = None
        """The bot's permissions when Discord refused an event (None: not refused); tried again when they change."""
        self._told_lacking = False

    async def follow(self, slug: str, status: Mapping[str, Any], place_id: str) -> None:
        """Bring the event of game ``slug`` (whose post is ``place_id``) in line with its ``status``; never raises."""
        try:
            await self._follow(slug, status, place_id)
        except Exception:
            log.exception("the scheduled event of %s could not be brought up to date (a bug); the game goes on", slug)

    async def _follow(self, slug: str, status: Mapping[str, Any], place_id: str) -> None:
        plan = plan_event(status)
        if plan == KEEP:
            return
        assert plan is None or isinstance(plan, EventPlan)
        if plan is not None and plan.start <= self._clock.now() + LEAD:
            return  # Discord takes no start in the past; the next status (a new turn) brings the next deadline
        if slug in self._shown and self._shown[slug] == plan:
            return
        guild = self._guild()
        if guild is None:
            return
        try:
            await self._show(guild, slug, plan, place_id)
        except discord.Forbidden as refused:
            me = guild.me
            self._refused_with = me.guild_permissions.value if me is not None else 0
            log.warning("Discord refused the scheduled event of %s (%s): games' deadlines are not shown as events "
                        "until the bot's permissions change (Manage Events)", slug, refused)  # fmt: skip
            return
        except discord.HTTPException as error:
            if error.status >= 500 or error.status == 429:
                log.warning("the scheduled event of %s is behind (%s): tried at the game's next status", slug, error)
                return
            log.warning("Discord refused the scheduled event of %s: %s", slug, error)
        except (discord.RateLimited, aiohttp.ClientError, OSError, TimeoutError) as error:
            log.warning("the scheduled event of %s is behind (%s): tried at the game's next status", slug, error)
            return
        self._shown[slug] = plan  # shown, or refused for this plan: not asked again until the plan changes

    def _guild(self) -> discord.Guild | None:
        """The guild, when the bot may make events there (logged once when it may not)."""
        guild = self._client.get_guild(self._guild_id)
        me = None if guild is None else guild.me
        if guild is None or me is None:
            return None
        permissions = me.guild_permissions
        if not (permissions.manage_events or permissions.create_events):
            if not self._told_lacking:
                log.warning("the bot lacks Create Events and Manage Events: games' deadlines are not shown as events")
                self._told_lacking = True
            return None
        self._told_lacking = False
        if self._refused_with is not None:
            if permissions.value == self._refused_with:
                return None
            self._refused_with = None
        return guild

    async def _show(self, guild: discord.Guild, slug: str, plan: EventPlan | None, place_id: str) -> None:
        location = f"https://discord.com/channels/{self._guild_id}/{place_id}"[:LOCATION_LIMIT]
        known = await asyncio.to_thread(scheduled_event, self._sessions, slug, CHANNEL)
        event = None
        if known is not None:
            try:
                event = await guild.fetch_scheduled_event(int(known), with_counts=False)
            except discord.NotFound:
                event = None
        elif plan is not None:
            event = await self._find(guild, location)
        reason = f"the next deadline of game {slug}"
        if event is not None and event.status is discord.EventStatus.scheduled:
            if plan is None:
                await event.cancel(reason=reason)
                await asyncio.to_thread(record_scheduled_event, self._sessions, slug, CHANNEL, None)
                log.info("cancelled the scheduled event %s of %s", event.id, slug)
            else:
                await event.edit(name=plan.name, description=plan.description, start_time=plan.start,
                                 end_time=plan.end, location=location, reason=reason)  # fmt: skip
                if str(event.id) != known:
                    await asyncio.to_thread(record_scheduled_event, self._sessions, slug, CHANNEL, str(event.id))
            return
        if event is not None and event.status is discord.EventStatus.active:
            await event.end(reason=reason)  # the deadline it showed came; the next one is a new event
        if plan is None:
            if known is not None:
                await asyncio.to_thread(record_scheduled_event, self._sessions, slug, CHANNEL, None)
            return
        made = await guild.create_scheduled_event(
            name=plan.name, description=plan.description, start_time=plan.start, end_time=plan.end,
            entity_type=discord.EntityType.external, privacy_level=discord.PrivacyLevel.guild_only,
            location=location, reason=reason,
        )  # fmt: skip
        await asyncio.to_thread(record_scheduled_event, self._sessions, slug, CHANNEL, str(made.id))
        log.info("created the scheduled event %s of %s", made.id, slug)

    async def _find(self, guild: discord.Guild, location: str) -> discord.ScheduledEvent | None:
        """The bot's own scheduled event at ``location``: one made by an attempt whose answer was lost."""
        me = self._client.user
        for event in await guild.fetch_scheduled_events(with_counts=False):
            mine = me is not None and event.creator_id == me.id
            if mine and event.location == location and event.status is discord.EventStatus.scheduled:
                return event
        return None
