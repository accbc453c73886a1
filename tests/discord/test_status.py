"""The pinned status message of a game's forum post, and closed DMs told to the GMs once.

The bot's real discord.py client against the fake Discord: the status is
posted and pinned when the game's post opens, then edited in place (never
posted again) when an order is accepted, a turn resolves, the game pauses,
and across a restart of the bot; it shows who has ordered, never what.
"""

from __future__ import annotations

import random
import re
from datetime import datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from bot.core.model import commands as c
from bot.core.views import GameViews
from bot.store.db import unit_of_work
from bot.store.models import OutboxMessage
from tests.core.harness import SEATS
from tests.discord.test_end_to_end import start_game
from tests.discord.world import World, running_world
from tests.support.fake_discord import FakeDiscord, Fault, Request
from tests.support.stored import example_orders

pytestmark = pytest.mark.integration

ORDERS = "cards 10 8 6 4 2"


def status_posts(world: World, slug: str = "gs1") -> list[dict[str, Any]]:
    """Messages in the game's post that show its status (one, if it is edited in place)."""
    return [m for m in world.thread_messages(slug) if m["content"].startswith("📌")]


def pinned_status(world: World, slug: str = "gs1") -> dict[str, Any]:
    [pinned] = world.fake.pinned(world.thread(slug)["id"])
    return pinned


def edits_of(fake: FakeDiscord, message: dict[str, Any]) -> int:
    path = f"/channels/{message['channel_id']}/messages/{message['id']}"
    return sum(r.method == "PATCH" and r.path == path and r.status == 200 for r in fake.requests)


def status_rows(world: World, slug: str = "gs1") -> list[OutboxMessage]:
    with unit_of_work(world.sessions) as session:
        return list(session.scalars(select(OutboxMessage).where(OutboxMessage.kind == "status",
                                                                OutboxMessage.recipient == f"public:{slug}")))  # fmt: skip


async def test_the_status_is_pinned_at_the_start_and_edited_in_place_after_orders_turns_and_a_restart(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> None:
    async with running_world(fake_discord, sqlite_sessions) as world:
        await start_game(world)
        await world.delivered()
        status = pinned_status(world)
        assert status_posts(world) == [status]  # posted once, pinned
        text = status["content"]
        assert "**gs1** -- Golden Strider" in text and "Turn 0:" in text, text
        deadline = world.harness.service.next_deadline()
        assert deadline is not None
        unix = int(deadline.timestamp())
        assert f"Deadline: <t:{unix}:F> (<t:{unix}:R>)" in text, text
        assert f"Orders in: none yet\nWaiting for: {', '.join(SEATS)}" in text, text
        notices = [m for m in world.thread_messages("gs1") if m["type"] == 6]
        assert [n["message_reference"]["message_id"] for n in notices] == [status["id"]]  # Discord's "pinned" notice
        edits = edits_of(fake_discord, status)

        [reply, *_] = await world.command("Ann", "orders", {"game": "gs1", "text": ORDERS})
        assert "ORDERS ACCEPTED" in reply["content"]
        await world.delivered()
        assert status_posts(world) == [status] and pinned_status(world) is status  # the same message, edited
        assert edits_of(fake_discord, status) == edits + 1
        text = status["content"]
        assert "Orders in: Ann\nWaiting for: Ben, Cat, Dan, Eve, Fay" in text, text
        assert "10, 8, 6" not in text and "10 8 6" not in text  # who, never what (canonical or as typed)

        for name in SEATS[1:]:
            await world.command(name, "orders", {"game": "gs1", "text": ORDERS})
        assert await world.pass_deadline() == [("gs1", 0)]
        await world.delivered()
        text = status["content"]
        assert "Turn 1:" in text and "Orders in: none yet" in text, text
        assert status_posts(world) == [status]
        harness = world.harness

    async with running_world(fake_discord, sqlite_sessions, harness=harness) as again:  # the bot restarted
        before = edits_of(fake_discord, status)
        view = GameViews(again.sessions).game("gs1")
        assert view is not None and view.shown is not None
        turn_1 = example_orders(again.sessions, "gs1", "Ben", random.Random(1))
        [accepted, *_] = await again.command("Ben", "orders", {"game": "gs1", "text": turn_1})
        assert "ORDERS ACCEPTED" in accepted["content"], accepted["content"]
        await again.delivered()
        assert status_posts(again) == [status] and pinned_status(again) is status  # no second status post
        assert edits_of(fake_discord, status) == before + 1
        assert "Orders in: Ben\n" in status["content"], status["content"]

        harness.send("GM", c.PauseGame("gs1", "holiday"))
        await again.delivered()
        assert "**Paused** by the game master since <t:" in status["content"], status["content"]
        assert ": no deadline runs." in status["content"]
        assert "Deadline:" not in status["content"]
        harness.send("GM", c.EndGame("gs1", "we stop here", abandon=True))
        await again.delivered()
        assert "**Game over:** abandoned" in status["content"] and status_posts(again) == [status], status["content"]
        assert "Turn" not in status["content"] and "Waiting" not in status["content"]
        assert not [r for r in status_rows(again) if r.sent_at is None]


async def test_while_discord_refuses_the_edit_the_changes_wait_as_one_status_and_the_newest_wins(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> None:
    async with running_world(fake_discord, sqlite_sessions) as world:
        await start_game(world)
        await world.delivered()
        status = pinned_status(world)
        path = f"/channels/{status['channel_id']}/messages/{status['id']}"
        outage = fake_discord.outage(503, match=lambda r: r.method == "PATCH" and r.path == path)
        for name in SEATS[:4]:
            await world.command(name, "orders", {"game": "gs1", "text": ORDERS})
        await fake_discord.wait_for_request(lambda r: r.method == "PATCH" and r.status == 503)
        pending = [r for r in status_rows(world) if r.sent_at is None]
        # One row took every change (a second one only if a change came while a sender held the first).
        assert 1 <= len(pending) <= 2 and pending[-1].data["ordered"] == list(SEATS[:4])
        outage.times = outage.hits  # Discord is back
        await world.delivered()
        assert f"Orders in: {', '.join(SEATS[:4])}\nWaiting for: Eve, Fay" in status["content"], status["content"]
        assert status_posts(world) == [status] and not [r for r in status_rows(world) if r.sent_at is None]


async def test_a_deleted_status_message_is_posted_and_pinned_again(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> None:
    async with running_world(fake_discord, sqlite_sessions) as world:
        await start_game(world)
        await world.delivered()
        old = pinned_status(world)
        thread = int(world.thread("gs1")["id"])
        fake_discord.messages[thread].remove(old)  # a moderator deleted it
        fake_discord.pins[thread].remove(int(old["id"]))
        await world.command("Ann", "orders", {"game": "gs1", "text": ORDERS})
        await world.delivered()
        new = pinned_status(world)
        assert new["id"] != old["id"] and status_posts(world) == [new] and "Orders in: Ann" in new["content"]


async def test_a_lost_answer_to_the_status_post_posts_no_second_one_and_the_newest_state_shows(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> None:
    def status_post(request: Request) -> bool:
        body = request.body or {}
        return request.method == "POST" and str(body.get("content", "")).startswith("📌")

    async with running_world(fake_discord, sqlite_sessions) as world:
        fake_discord.outage(503, times=1, after_commit=True, match=status_post)  # stored, the answer lost
        world.harness.send("GM", c.CreateGame("gs1", "golden-strider", {}, "Europe/Paris", 60, False, "address"))
        await fake_discord.wait_for_request(lambda r: status_post(r) and r.status == 503)
        await world.command("Ann", "join", {"game": "gs1", "name": "Ann"})  # a change before the retry
        await world.delivered()
        [status] = status_posts(world)
        assert [r.status for r in fake_discord.requests if status_post(r)][:2] == [503, 200]
        assert "1 seat taken: Ann." in status["content"], status["content"]  # the first post, edited
        assert pinned_status(world) is status


async def test_a_status_that_may_not_be_pinned_is_kept_up_to_date_all_the_same(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None,
    caplog: pytest.LogCaptureFixture,
) -> None:  # fmt: skip
    async with running_world(fake_discord, sqlite_sessions) as world:
        fake_discord.faults.append(Fault(lambda r: r.method == "PUT" and "/pins/" in r.path, 403,
                                         {"message": "Missing Permissions", "code": 50013}))  # fmt: skip
        await start_game(world)
        await world.command("Ann", "orders", {"game": "gs1", "text": ORDERS})
        await world.delivered()
        [status] = status_posts(world)
        assert "Orders in: Ann" in status["content"] and fake_discord.pinned(world.thread("gs1")["id"]) == []
        assert not [r for r in status_rows(world) if r.sent_at is None or r.parked_at is not None]
        assert any("could not be pinned" in r.getMessage() for r in caplog.records)


async def test_closed_dms_tell_the_game_masters_once_not_at_every_refused_dm(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> None:
    async with running_world(fake_discord, sqlite_sessions) as world:
        host = fake_discord.add_member("Gail", roles=(fake_discord.gm_role_id,))
        made = await fake_discord.slash("gm", {"kind": "golden-strider", "game": "gs1", "seats": 6}, host,
                                        subcommand="create")  # fmt: skip
        await fake_discord.wait_for_replies(made)
        for name in SEATS:
            await world.command(name, "join", {"game": "gs1", "name": name})
        started = await fake_discord.slash("gm", {"game": "gs1"}, host, subcommand="start")
        await fake_discord.wait_for_replies(started)
        await world.delivered()
        cat = world.user("Cat")["id"]
        fake_discord.close_dms(cat)

        def told() -> list[str]:
            return [m["content"] for m in fake_discord.dm_messages(host["id"]) if "cannot be reached" in m["content"]]

        for attempt in range(2):  # two refused DMs (each order's copy), each told to Cat in the private reply
            sent = await fake_discord.slash("orders", {"game": "gs1", "text": ORDERS}, world.user("Cat"))
            replies = await fake_discord.wait_for_replies(sent, 2)
            assert "could not send you a copy by direct message" in replies[1]["content"], attempt
            await world.delivered()
        [notice] = told()
        assert "Cat, seat Cat of gs1, on Discord" in notice and "DMs are closed" in notice, notice
        for name in SEATS:
            if name != "Cat":
                await world.command(name, "orders", {"game": "gs1", "text": ORDERS})
        world.harness.clock.advance(timedelta(hours=47))  # /gm create: 48 h turns
        assert await world.pass_deadline() == [("gs1", 0)]  # a third refused DM: the report's copy
        await world.delivered()
        assert len(told()) == 1
        with unit_of_work(world.sessions) as session:
            to_cat = session.scalars(select(OutboxMessage).where(OutboxMessage.recipient == cat)).all()
            refused = [r for r in to_cat if r.sent_at is None]
            assert len(refused) == 3 and all(r.parked_at is not None and "50007" in (r.last_error or "")
                                             for r in refused)  # parked with the reason, nothing failed  # fmt: skip

        fake_discord.closed_dms.discard(int(cat))  # Cat opens the DMs: a copy reaches them ...
        await world.command("Cat", "status", {"game": "gs1"})
        await world.delivered()
        assert fake_discord.dm_messages(cat)
        fake_discord.close_dms(cat)  # ... and closes them again: news for the GMs once more
        await world.command("Cat", "status", {"game": "gs1"})
        await world.delivered()
        assert len(told()) == 2


def test_the_status_deadline_reads_in_each_readers_zone() -> None:
    from bot.discord.render import render_outcome

    data = {"game": "gs1", "title": "Golden Strider", "status": "running", "turn": 2, "phase": "race",
            "deadline": "2026-03-03T12:00:00+00:00", "time_zone": "Europe/Paris", "seats": ["A", "B"],
            "ordered": ["A"], "waiting": ["B"], "paused_until": None, "stuck": False, "standings": []}  # fmt: skip
    text = render_outcome("status", data)
    unix = int(datetime.fromisoformat("2026-03-03T12:00:00+00:00").timestamp())
    assert re.search(rf"^Deadline: <t:{unix}:F> \(<t:{unix}:R>\)$", text, re.MULTILINE), text
    assert "Orders in: A\nWaiting for: B" in text and "```" not in text
