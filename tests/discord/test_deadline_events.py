"""Each running game's next deadline as a guild scheduled event that follows it.

The bot's real discord.py client against the fake Discord, which keeps
scheduled events as Discord does (an external event needs a location and an
end; a finished one is not edited; its status moves scheduled -> active ->
completed, or scheduled -> cancelled).  The event is made when the game
starts, at its deadline (UTC), its id kept with the game's place; moved, the
same event, when the GM moves the deadline, also after a restart of the bot;
untouched by an order (no request); ended when Discord started it (the
deadline came) and a new one made for the next turn; cancelled when the
game is paused with no end, and when it ends.  A 403 on events is logged
once, and the reports go on.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from bot.core.model import commands as c
from bot.discord.events import KEEP, LENGTH, EventPlan, plan_event
from bot.store.db import unit_of_work
from bot.store.models import Game, PublicPlace
from tests.core.harness import SEATS
from tests.discord.test_end_to_end import expected_messages, public_rows, thread_reports
from tests.discord.test_gm_commands import gm
from tests.discord.test_gm_overrides import order, running_game
from tests.discord.world import World, running_world
from tests.support.fake_discord import EVENT_ACTIVE, EVENT_CANCELLED, EVENT_COMPLETED, EVENT_SCHEDULED, FakeDiscord

pytestmark = pytest.mark.integration

CREATE_EVENTS, MANAGE_EVENTS = 1 << 44, 1 << 33

FIRST_DEADLINE = datetime(2026, 3, 3, 12, tzinfo=UTC)
"""Where :func:`running_game` puts gs1's first deadline."""


def kept_event_id(world: World, slug: str = "gs1") -> str | None:
    with unit_of_work(world.sessions) as session:
        game = session.scalars(select(Game).where(Game.slug == slug)).one()
        place = session.get(PublicPlace, (game.id, "discord"))
        assert place is not None
        return place.event_id


def deadline_of(world: World) -> datetime:
    with unit_of_work(world.sessions) as session:
        moment = session.scalars(select(Game.deadline_at).where(Game.slug == "gs1")).one()
        assert moment is not None
        return moment


def the_event(world: World) -> dict[str, Any]:
    """The event whose id the game keeps, as the fake holds it; it shows the game's deadline."""
    event_id = kept_event_id(world)
    assert event_id is not None
    event = world.fake.events[int(event_id)]
    start = datetime.fromisoformat(event["scheduled_start_time"])
    assert start == deadline_of(world) and start.utcoffset() == timedelta(0), event  # an instant in UTC
    assert datetime.fromisoformat(event["scheduled_end_time"]) == start + timedelta(minutes=15)
    thread = world.thread("gs1")["id"]
    assert event["entity_metadata"] == {"location": f"https://discord.com/channels/{world.fake.guild_id}/{thread}"}
    assert event["entity_type"] == 3 and event["privacy_level"] == 2 and event["name"].startswith("gs1 -- ")
    return event


def creations(fake: FakeDiscord) -> int:
    return len([r for r in fake.event_requests("POST") if r.status == 200])


async def test_the_event_is_made_at_the_start_moved_with_the_deadline_and_ended_with_the_game(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> None:
    async with running_world(fake_discord, sqlite_sessions) as world:
        host = await running_game(world)
        event = the_event(world)
        assert event["status"] == EVENT_SCHEDULED and creations(fake_discord) == 1
        assert deadline_of(world) == FIRST_DEADLINE and "turn 0 deadline" in event["name"]
        assert "/orders game:gs1" in event["description"]

        [extended] = await gm(world, host, "extend", {"game": "gs1", "by": "1d 6h", "reason": "slow week"})
        assert deadline_of(world) == FIRST_DEADLINE + timedelta(days=1, hours=6), extended["content"]
        await world.delivered()
        moved = the_event(world)
        assert moved["id"] == event["id"] and moved["scheduled_start_time"].startswith("2026-03-04T18:00:00")
        assert creations(fake_discord) == 1  # moved, not made again

        asked = len(fake_discord.event_requests())
        await order(world, SEATS[:2])
        await world.delivered()
        assert len(fake_discord.event_requests()) == asked  # an order in changes nothing the event shows

        await order(world, SEATS[2:])
        world.harness.clock.set(deadline_of(world) - timedelta(minutes=60))
        fake_discord.start_events(deadline_of(world))  # the deadline came: Discord starts the event on its own
        assert fake_discord.events[int(event["id"])]["status"] == EVENT_ACTIVE
        assert await world.pass_deadline() == [("gs1", 0)]
        await world.delivered()
        assert fake_discord.events[int(event["id"])]["status"] == EVENT_COMPLETED  # ended by the bot
        turn_1 = the_event(world)
        assert turn_1["id"] != event["id"] and turn_1["status"] == EVENT_SCHEDULED and "turn 1" in turn_1["name"]

        await gm(world, host, "pause", {"game": "gs1", "reason": "server move"})
        await world.delivered()
        assert fake_discord.events[int(turn_1["id"])]["status"] == EVENT_CANCELLED and kept_event_id(world) is None
        await gm(world, host, "resume", {"game": "gs1", "reason": "back", "deadline": "+1d"})
        await world.delivered()
        resumed = the_event(world)
        assert resumed["status"] == EVENT_SCHEDULED and resumed["id"] not in (event["id"], turn_1["id"])

        ended = world.harness.send(host["id"], c.EndGame("gs1", "we stop here", abandon=True), channel="discord")
        assert "ABANDONED" in (ended.reply or "") or "END" in (ended.reply or ""), ended.reply
        await world.delivered()
        assert fake_discord.events[int(resumed["id"])]["status"] == EVENT_CANCELLED and kept_event_id(world) is None
        assert [e["status"] for e in fake_discord.events.values()].count(EVENT_SCHEDULED) == 0


async def test_a_game_paused_until_a_time_shows_when_it_resumes(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> None:
    async with running_world(fake_discord, sqlite_sessions) as world:
        host = await running_game(world)
        event = the_event(world)
        await gm(world, host, "pause", {"game": "gs1", "reason": "holiday", "until": "2026-03-10 09:00"})
        await world.delivered()
        paused = fake_discord.events[int(event["id"])]
        assert paused["status"] == EVENT_SCHEDULED and paused["name"].endswith(": resumes")
        with unit_of_work(world.sessions) as session:
            until = session.scalars(select(Game.paused_until).where(Game.slug == "gs1")).one()
        assert until is not None and until.date() == datetime(2026, 3, 10).date()
        assert datetime.fromisoformat(paused["scheduled_start_time"]) == until


async def test_after_a_restart_the_same_event_is_moved(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> None:
    async with running_world(fake_discord, sqlite_sessions) as world:
        host = await running_game(world)
        event = the_event(world)
        harness = world.harness

    async with running_world(fake_discord, sqlite_sessions, harness=harness) as again:
        await gm(again, host, "deadline", {"game": "gs1", "when": "2026-03-05 07:30", "reason": "later"})
        await again.delivered()
        moved = the_event(again)
        assert moved["id"] == event["id"] and moved["scheduled_start_time"].startswith("2026-03-05T07:30:00")
        assert creations(fake_discord) == 1 and len(fake_discord.events) == 1


async def test_a_lost_answer_to_making_the_event_makes_no_second_one(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> None:
    async with running_world(fake_discord, sqlite_sessions) as world:
        lost = fake_discord.outage(503, times=1, after_commit=True,
                                   match=lambda r: r.method == "POST" and r.path.endswith("/scheduled-events"))  # fmt: skip
        host = await running_game(world)
        assert lost.hits == 1 and kept_event_id(world) is None  # made, but the bot did not hear so
        await gm(world, host, "deadline", {"game": "gs1", "when": "2026-03-04 18:00", "reason": "slow week"})
        await world.delivered()
        assert len(fake_discord.events) == 1 and the_event(world)["scheduled_start_time"].startswith("2026-03-04T18")


async def test_a_refusal_of_events_is_logged_once_and_the_reports_go_on(
    fake_discord: FakeDiscord,
    sqlite_sessions: sessionmaker[Session],
    discord_endpoints: None,
    caplog: pytest.LogCaptureFixture,
) -> None:
    fake_discord.refuse_events(50013)
    caplog.set_level(logging.WARNING, logger="bot.discord.events")
    async with running_world(fake_discord, sqlite_sessions) as world:
        host = await running_game(world)
        await gm(world, host, "deadline", {"game": "gs1", "when": "2026-03-04 18:00", "reason": "slow week"})
        await order(world, SEATS)
        world.harness.clock.set(deadline_of(world) - timedelta(minutes=60))
        assert await world.pass_deadline() == [("gs1", 0)]
        await world.delivered()
        assert thread_reports(world, "gs1") == expected_messages(world, "gs1")  # every public copy, once
        assert all(r.sent_at is not None and r.parked_at is None for r in public_rows(world, "gs1"))
        assert any("-- turn 0:" in m for m in thread_reports(world, "gs1"))
        refused = [r for r in fake_discord.event_requests() if r.status == 403]
        assert len(refused) == 1 and len(fake_discord.event_requests()) == 1  # asked once, never again
        said = [r for r in caplog.records if r.name == "bot.discord.events"]
        assert len(said) == 1 and "refused" in said[0].getMessage() and said[0].levelno == logging.WARNING
        assert kept_event_id(world) is None and not fake_discord.events


async def test_without_the_permission_no_event_is_asked_for_and_it_is_said_once(
    fake_discord: FakeDiscord,
    sqlite_sessions: sessionmaker[Session],
    discord_endpoints: None,
    caplog: pytest.LogCaptureFixture,
) -> None:
    fake_discord.role_permissions &= ~(CREATE_EVENTS | MANAGE_EVENTS)
    fake_discord.owner_id = fake_discord.new_id()  # the bot is not the owner (who may do anything)
    caplog.set_level(logging.WARNING, logger="bot.discord.events")
    async with running_world(fake_discord, sqlite_sessions) as world:
        host = await running_game(world)
        await gm(world, host, "deadline", {"game": "gs1", "when": "2026-03-04 18:00", "reason": "slow week"})
        await world.delivered()
        assert not fake_discord.event_requests() and kept_event_id(world) is None
        said = [r.getMessage() for r in caplog.records if r.name == "bot.discord.events"]
        assert len(said) == 1 and "lacks Create Events and Manage Events" in said[0], said


def test_what_each_status_asks_of_the_event() -> None:
    base = {"game": "gs1", "title": "Golden Strider", "turn": 2, "phase": "Turn 2 *bold*", "stuck": False,
            "deadline": "2026-03-03T12:00:00+00:00", "paused_until": None}  # fmt: skip
    plan = plan_event({**base, "status": "running"})
    assert isinstance(plan, EventPlan) and plan.start == FIRST_DEADLINE and plan.end - plan.start == LENGTH
    assert plan.name == "gs1 -- Golden Strider: turn 2 deadline" and "\\*bold\\*" in plan.description
    assert plan_event({**base, "status": "running", "stuck": True}) == KEEP  # held: the passed deadline stays
    for over in ("forming", "finished", "abandoned"):
        assert plan_event({**base, "status": over}) is None
    assert plan_event({**base, "status": "paused"}) is None  # no end to the pause: no time to show
    resumes = plan_event({**base, "status": "paused", "paused_until": "2026-03-10T09:00:00+00:00"})
    assert isinstance(resumes, EventPlan) and resumes.start == datetime(2026, 3, 10, 9, tzinfo=UTC)
    long = plan_event({**base, "status": "running", "title": "T" * 300, "phase": "P" * 3000})
    assert isinstance(long, EventPlan) and len(long.name) <= 100 and len(long.description) <= 1000
