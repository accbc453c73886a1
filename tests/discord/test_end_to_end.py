"""The bot's real discord.py client against the fake Discord ("Tests").

A Golden Strider game played by six users through slash commands (created
and started by a GM with /gm), every report checked in the game's forum post
and every DM checked; closed DMs; an outage of the REST API while reports go
out (nothing lost, nothing doubled: counted at the fake); rate limits;
channels refused for good.
"""

from __future__ import annotations

import asyncio
import random
import re
from collections import Counter
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from bot.core.model import commands as c
from bot.core.model.secret_values import REDACTED
from bot.core.views import GameViews
from bot.discord.render import discord_messages, render_outcome
from bot.store.db import unit_of_work
from bot.store.models import OutboxMessage
from tests.core.harness import SEATS
from tests.discord.world import World, running_world
from tests.support.fake_discord import FakeDiscord, Fault, Request
from tests.support.stored import example_orders

pytestmark = pytest.mark.integration


async def start_game(world: World, slug: str = "gs1", options: dict[str, Any] | None = None) -> None:
    world.harness.send("GM", c.CreateGame(slug, "golden-strider", options or {}, "Europe/Paris", 60, False, "address"))
    for name in SEATS:
        [reply, *_] = await world.command(name, "join", {"game": slug, "name": name})
        assert f"JOINED {slug}" in reply["content"] and reply["flags"] == 64
    assert "STARTED" in (world.harness.send("GM", c.StartGame(slug)).reply or "")


async def order_all(world: World, slug: str = "gs1", text: str = "cards 10 8 6 4 2") -> None:
    for name in SEATS:
        [reply, *_] = await world.command(name, "orders", {"game": slug, "text": text})
        assert "ORDERS ACCEPTED" in reply["content"], reply["content"]


def rows(sessions: sessionmaker[Session]) -> list[OutboxMessage]:
    with unit_of_work(sessions) as session:
        return list(session.scalars(select(OutboxMessage).order_by(OutboxMessage.id)))


def expected_messages(world: World, target: str) -> list[str]:
    """What the outbox says ``target`` (a game slug, or a user id) must have received, block by block.

    A game's public copy is a ``discord`` row for ``public:<slug>``; a user's DM a row for their id;
    each is rendered here from its template and data the way Discord's form says it.
    """
    wanted = {target, f"public:{target}", f"user:{target}"}
    out: list[str] = []
    for row in rows(world.sessions):
        if row.sent_at is None or row.channel != "discord" or row.recipient not in wanted or row.kind == "status":
            continue  # the status is one message, edited in place (tests/discord/test_status.py)
        out.extend(discord_messages(render_outcome(row.template, row.data, row.context)))
    return out


def public_rows(world: World, slug: str) -> list[OutboxMessage]:
    """The game's public copies on Discord (its live status, one coalescing row, apart)."""
    return [r for r in rows(world.sessions)
            if r.channel == "discord" and r.recipient == f"public:{slug}" and r.kind != "status"]  # fmt: skip


SECRET_SHAPE = re.compile(r"\b[a-z]+-[a-z]+-\d{4}\b")


def as_kept(message: str) -> str:
    """``message`` as its sent outbox row renders: without the seat secret (bot/core/model/secret_values.py)."""
    return SECRET_SHAPE.sub(REDACTED, message)


def dms_as_kept(fake: FakeDiscord, user_id: str) -> list[str]:
    """The DMs ``user_id`` received, as their sent outbox rows render (:func:`as_kept`).

    Exactly one of them, the reply to the member's JOIN, gave the seat secret, on
    its own line; comparing the rest with the rows then checks that the row held the
    redaction exactly where the secret was sent, and nowhere else.
    """
    received = [m["content"] for m in fake.dm_messages(user_id)]
    with_secret = [m for m in received if SECRET_SHAPE.search(m)]
    assert len(with_secret) == 1, with_secret  # the seat secret, on joining, once
    assert re.search(r"\n  Your seat secret: [a-z]+-[a-z]+-\d{4}\n", with_secret[0]), with_secret[0]
    return [as_kept(m) for m in received]


MAIL_WORDS = re.compile(r"PASSWORD|[Rr]eply with|Send HELP|by email: the subject")
"""Mail vocabulary that has no place on Discord (a member is authenticated; commands are slash commands)."""


def assert_no_mail_vocabulary(fake: FakeDiscord) -> None:
    said = fake.everything_said()
    assert said, "nothing was said on Discord"
    spoken = [m for m in said if MAIL_WORDS.search(m)]
    assert not spoken, spoken[0]


def thread_reports(world: World, slug: str) -> list[str]:
    return [m["content"] for m in world.thread_posts(slug)[1:]]  # after the post's opening message


async def test_a_whole_golden_strider_game_by_slash_commands(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> None:
    async with running_world(fake_discord, sqlite_sessions) as world:
        gail = fake_discord.add_member("Gail", roles=(fake_discord.gm_role_id,))  # created and started by /gm too
        made = await fake_discord.slash("gm", {"kind": "golden-strider", "game": "gs1", "options": "race_length=30",
                                               "seats": 6, "schedule": "1h", "time_zone": "Europe/Paris"}, gail,
                                        subcommand="create")  # fmt: skip
        assert "CREATED gs1" in (await fake_discord.wait_for_replies(made))[0]["content"]
        for name in SEATS:
            [reply, *_] = await world.command(name, "join", {"game": "gs1", "name": name})
            assert "JOINED gs1" in reply["content"] and reply["flags"] == 64
        started = await fake_discord.slash("gm", {"game": "gs1"}, gail, subcommand="start")
        assert "STARTED gs1" in (await fake_discord.wait_for_replies(started))[0]["content"]
        views = GameViews(world.sessions)
        rng = random.Random(5)
        turns = 0
        while (view := views.game("gs1")) is not None and view.phase is not None:
            for seat in view.phase.owing:
                [reply, *_] = await world.command(seat, "orders", {"game": "gs1",
                                                                   "text": example_orders(world.sessions, "gs1", seat, rng)})  # fmt: skip
                assert "ORDERS ACCEPTED" in reply["content"], reply["content"]
            assert await world.pass_deadline() == [("gs1", turns)]
            turns += 1
            assert turns < 40
        await world.delivered()
        assert views.game("gs1").status == "finished"  # type: ignore[union-attr]

        posted = thread_reports(world, "gs1")
        assert posted == expected_messages(world, "gs1")  # every public copy, in order, once
        assert all(len(m) <= 2000 and m.startswith("```\n") for m in posted)
        text = "\n".join(posted)
        for turn in range(turns):
            assert f"-- turn {turn}:" in text
        assert "GAME OVER" in text and "Seed revealed:" in text
        assert "Copy for " not in text  # a seat's copy goes by DM only, never to the post
        assert re.search(r"```\nDeadline: <t:\d+:F> \(<t:\d+:R>\)", text)
        for name in SEATS:
            user_id = world.user(name)["id"]
            dms = dms_as_kept(fake_discord, user_id)
            assert dms == expected_messages(world, user_id)  # each reply and report copy, once, in order
            assert sum(f"\nCopy for {name}\n" in m for m in dms) == turns
        assert all(r.sent_at is not None for r in rows(world.sessions) if r.channel == "discord")
        assert "Orders: /orders game:gs1 " in text  # the reports point at the slash command
        # every turn's post lists each seat's order commitment, in the code block's 78 columns
        assert text.count("Orders used (commitments, as each seat's confirmation showed them):") == turns
        listed = [block.split("\n---")[0] for block in text.split("them):\n")[1:]]
        assert all(len(block.splitlines()) == len(SEATS) for block in listed)
        assert all(len(line) <= 78 for block in listed for line in block.splitlines())
        [help_reply, *_] = await world.command("Ann", "help")
        assert "/orders game: [text:]" in help_reply["content"]
        assert_no_mail_vocabulary(fake_discord)


async def test_orders_by_modal_count_like_typed_ones(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> None:
    async with running_world(fake_discord, sqlite_sessions) as world:
        await start_game(world)
        ann = world.user("Ann")
        opened = await fake_discord.slash("orders", {"game": "gs1"}, ann)
        modal = await fake_discord.wait_for_callback(opened)
        assert modal["type"] == 9
        submitted = await fake_discord.submit_modal(
            modal["data"]["custom_id"], {"orders": "\n  Cards: 10, 8, 6, 4, 2\n"}, ann
        )
        [reply] = await fake_discord.wait_for_replies(submitted)
        assert "ORDERS ACCEPTED" in reply["content"] and "cards 10 8 6 4 2" in reply["content"]
        assert reply["flags"] == 64 and re.search(r"Receipt R[0-9A-F]{8} -- ", reply["content"]), reply["content"]
        await world.delivered()
        assert fake_discord.dm_messages(ann["id"])[-1]["content"] == reply["content"]  # the copy by DM, the same
        [status, *_] = await world.command("Ben", "status", {"game": "gs1"})
        assert "Orders in from: Ann\n" in status["content"]


async def test_closed_dms_are_told_in_the_private_reply_and_nothing_fails(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> None:
    async with running_world(fake_discord, sqlite_sessions) as world:
        fake_discord.close_dms(world.user("Cat")["id"])
        await start_game(world)
        sent = await fake_discord.slash("orders", {"game": "gs1", "text": "cards 10 8 6 4 2"}, world.user("Cat"))
        replies = await fake_discord.wait_for_replies(sent, 2)
        assert "ORDERS ACCEPTED" in replies[0]["content"]
        assert "could not send you a copy by direct message" in replies[1]["content"] and replies[1]["flags"] == 64
        for name in SEATS:
            if name != "Cat":
                await world.command(name, "orders", {"game": "gs1", "text": "cards 10 8 6 4 2"})
        assert await world.pass_deadline() == [("gs1", 0)]
        await world.delivered()
        assert fake_discord.dm_messages(world.user("Cat")["id"]) == []
        cat = world.user("Cat")["id"]
        parked = [r for r in rows(world.sessions) if r.recipient == cat]
        assert parked and all(r.sent_at is None and "50007" in (r.last_error or "") for r in parked)
        assert all(r.parked_at is not None for r in parked)
        assert any("-- turn 0:" in m for m in thread_reports(world, "gs1"))  # everyone else got theirs
        assert any("\nCopy for Ann\n" in m["content"] for m in fake_discord.dm_messages(world.user("Ann")["id"]))


def _is_send(request: Request) -> bool:
    return request.method == "POST" and request.path.endswith("/messages")


async def test_an_outage_while_reports_go_out_loses_nothing_and_doubles_nothing(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> None:
    async with running_world(fake_discord, sqlite_sessions) as world:
        await start_game(world)
        await order_all(world)
        await world.delivered()
        before = len(fake_discord.requests)
        # Discord goes away: some messages are stored but their answer is lost, then 503s for a while.
        fake_discord.outage(503, times=3, after_commit=True, match=_is_send)
        fake_discord.outage(503, times=12)
        assert await world.pass_deadline() == [("gs1", 0)]
        await world.delivered()
        statuses = Counter(r.status for r in fake_discord.requests[before:])
        assert statuses[503] == 15 and statuses[200] > 0
        posted = thread_reports(world, "gs1")
        assert posted == expected_messages(world, "gs1")
        assert len(posted) == len(set(posted))
        for name in SEATS:
            user_id = world.user(name)["id"]
            dms = dms_as_kept(fake_discord, user_id)
            assert dms == expected_messages(world, user_id) and len(dms) == len(set(dms))
            assert sum("\nCopy for " in m for m in dms) == 1
        failed = [r for r in rows(world.sessions) if r.attempts > 1]
        assert failed and all(r.sent_at is not None for r in failed)  # retried, then sent


async def test_rate_limits_are_waited_out(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> None:
    async with running_world(fake_discord, sqlite_sessions) as world:
        await start_game(world)
        await order_all(world)
        await world.delivered()
        fake_discord.rate_limit(0.3, times=2)  # short: discord.py waits retry_after itself
        assert await world.pass_deadline() == [("gs1", 0)]
        await world.delivered()
        assert [r.status for r in fake_discord.requests if r.status == 429] == [429, 429]
        assert thread_reports(world, "gs1") == expected_messages(world, "gs1")

        await order_all(world, text="play 10/0 bank 0")
        await world.delivered()
        fake_discord.rate_limit(45.0, times=1)  # long: the row waits, and so does every other send
        assert await world.pass_deadline() == [("gs1", 1)]
        await fake_discord.wait_for_request(lambda r: r.status == 429 and r is fake_discord.requests[-1])
        for _ in range(100):  # the bot's loop marks the row after the answer
            if world.runtime.delivery.held_until is not None:
                break
            await asyncio.sleep(0.02)
        now = world.harness.clock.now()
        held = world.runtime.delivery.held_until
        assert held is not None and held >= now + timedelta(seconds=45)
        sends = len([r for r in fake_discord.requests if _is_send(r)])
        await asyncio.sleep(0.6)  # three intervals of the bot's own delivery loop
        assert await world.runtime.delivery.deliver_due() == []
        assert len([r for r in fake_discord.requests if _is_send(r)]) == sends
        await world.delivered()  # the clock moves past the hold
        assert thread_reports(world, "gs1") == expected_messages(world, "gs1")


@pytest.mark.parametrize(("code", "reason"), [(50013, "missing permissions"), (10003, "unknown channel")])
async def test_a_refusing_thread_parks_the_public_copies_with_the_reason(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None, code: int, reason: str
) -> None:
    async with running_world(fake_discord, sqlite_sessions) as world:
        await start_game(world)
        await world.delivered()  # the start announcement opens the post
        [thread] = fake_discord.threads()
        fake_discord.refuse_channel(thread["id"], code)
        refused_from = len(fake_discord.requests)
        await order_all(world)
        assert await world.pass_deadline() == [("gs1", 0)]
        await world.delivered()
        [row] = [r for r in public_rows(world, "gs1") if r.turn_number == 0]
        assert (
            row.sent_at is None
            and row.parked_at is not None
            and row.last_error == f"HTTP {404 if code == 10003 else 403} code {code}: {reason}"
        )

        def tries() -> int:
            return sum(r.path == f"/channels/{thread['id']}/messages" for r in fake_discord.requests[refused_from:])

        assert tries() == 1
        world.harness.clock.advance(timedelta(days=1))
        await world.runtime.delivery.deliver_due()
        assert tries() == 1  # never retried
        for name in SEATS:  # everyone's own copy went out all the same
            assert any("\nCopy for " in m["content"] for m in fake_discord.dm_messages(world.user(name)["id"]))


async def test_a_lost_answer_to_opening_the_post_opens_no_second_post(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> None:
    async with running_world(fake_discord, sqlite_sessions) as world:
        fake_discord.outage(503, times=1, after_commit=True, match=lambda r: r.path.endswith("/threads"))
        await start_game(world)
        await world.delivered()
        assert [r.status for r in fake_discord.requests if r.path.endswith("/threads")] == [503]
        assert len(fake_discord.threads()) == 1
        # The opening, then the game's public copies (open for joining, started), each once.
        assert [m["content"][:3] for m in world.thread_posts("gs1")] == ["**G", "```", "```"]
        assert thread_reports(world, "gs1") == expected_messages(world, "gs1")
        assert [r.template for r in public_rows(world, "gs1")] == ["created", "started"]


async def test_an_outage_on_the_interaction_routes_is_retried_by_the_webhook_adapter(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> None:
    """The webhook adapter retries any 5xx, so a brief outage still gets the answer through."""
    async with running_world(fake_discord, sqlite_sessions) as world:
        fake_discord.outage(503, times=1, match=lambda r: r.path.startswith("/interactions/"))
        fake_discord.outage(500, times=1, match=lambda r: r.path.startswith("/webhooks/"))
        [reply] = await world.command("Ann", "games")
        assert "GAMES" in reply["content"]
        statuses = [(r.path.split("/")[1], r.status) for r in fake_discord.requests if r.path.split("/")[1] in
                    ("interactions", "webhooks")]  # fmt: skip
        assert statuses == [("interactions", 503), ("interactions", 200), ("webhooks", 500), ("webhooks", 200)]


async def test_a_dropped_connection_is_transient(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> None:
    """discord.py lets a reset on Linux through raw; delivery retries it, sends it once."""
    async with running_world(fake_discord, sqlite_sessions) as world:
        await start_game(world)
        await order_all(world)
        await world.delivered()
        fake_discord.drop_connections(times=2, match=_is_send)
        assert await world.pass_deadline() == [("gs1", 0)]
        await world.delivered()
        assert sum(r.status == -1 for r in fake_discord.requests) == 2
        failed = [r for r in rows(world.sessions) if r.last_error and "Disconnected" in r.last_error]
        assert failed and all(r.sent_at is not None for r in failed)
        assert thread_reports(world, "gs1") == expected_messages(world, "gs1")


async def test_two_players_writing_in_the_modal_at_once_both_count_even_across_a_restart(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> None:
    """discord.py keeps one modal per custom id and drops it after one submission: the bot must not rely on it."""
    async with running_world(fake_discord, sqlite_sessions) as world:
        await start_game(world)
        opened = {}
        for name in ("Ann", "Ben", "Cat"):
            opened[name] = await fake_discord.slash("orders", {"game": "gs1"}, world.user(name))
            assert (await fake_discord.wait_for_callback(opened[name]))["type"] == 9
        for name in ("Ann", "Ben"):
            sent = await fake_discord.submit_modal(
                "referee:orders:gs1", {"orders": "cards 10 8 6 4 2"}, world.user(name)
            )
            [reply] = await fake_discord.wait_for_replies(sent)
            assert "ORDERS ACCEPTED" in reply["content"] and f"seat {name}" in reply["content"]
        harness = world.harness
    async with running_world(fake_discord, sqlite_sessions, harness=harness) as again:  # Cat's modal is still open
        sent = await fake_discord.submit_modal("referee:orders:gs1", {"orders": "cards 10 8 6 4 2"}, again.user("Cat"),
                                               labelled=False)  # fmt: skip
        [reply] = await fake_discord.wait_for_replies(sent)
        assert "ORDERS ACCEPTED" in reply["content"] and "seat Cat" in reply["content"]
        [status, *_] = await again.command("Dan", "status", {"game": "gs1"})
        assert "Orders in from: Ann, Ben, Cat\n" in status["content"]


async def test_the_runtime_syncs_every_command_to_the_guild_and_registers_every_button(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> None:
    """What ``referee serve`` installs (not a test's own wiring): the commands synced, the buttons' ids known."""
    async with running_world(fake_discord, sqlite_sessions) as world:
        synced = sorted(cmd["name"] for cmd in fake_discord.commands[str(fake_discord.guild_id)])
        client = world.runtime.client
        # every command of the tree serve built (from the declarations and the games' screens: their tests,
        # tests/discord/test_commands.py, hold the tree to the registry) reached Discord, and nothing else
        assert synced == sorted(command.name for command in client.tree.get_commands(guild=client.guild))
        assert {"gm", "help", "orders", "status", "rules", "link", "take", "settings"} <= set(synced)
        for custom_id in ("ds:ds1:0:Ann:reveal", "sg:sg1:2:Ann:draw", "sg:sg1:2:Ann:flip", "gm:process:1:gs1:0:x",
                          "gmcancel:1:process:gs1", "ready:1:gs1:Ann Lee", "take:1:gs1:Ann Lee"):  # fmt: skip
            assert client.handles_component(custom_id), custom_id
        assert not client.handles_component("referee-v0:ds1:reveal")


async def test_a_429_that_discord_py_lets_through_is_held_for_its_retry_after(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> None:
    """Cloudflare's 429 (no ``Via`` header) reaches the bot raw; its ``Retry-After`` (here 2 minutes) is respected."""
    async with running_world(fake_discord, sqlite_sessions) as world:
        await start_game(world)
        await order_all(world)
        await world.delivered()
        banned = Fault(_is_send, 429, {"message": "You are being blocked", "code": 0}, {"Retry-After": "120"}, times=1)
        fake_discord.faults.append(banned)
        assert await world.pass_deadline() == [("gs1", 0)]
        await fake_discord.wait_for_request(lambda r: r.status == 429)
        for _ in range(100):  # the bot's loop marks the row after the answer
            if world.runtime.delivery.held_until is not None:
                break
            await asyncio.sleep(0.02)
        held = world.runtime.delivery.held_until
        assert held is not None and held >= world.harness.clock.now() + timedelta(seconds=119), held
        sends = len([r for r in fake_discord.requests if _is_send(r)])
        assert await world.runtime.delivery.deliver_due() == []  # every send waits
        assert len([r for r in fake_discord.requests if _is_send(r)]) == sends
        await world.delivered()  # the clock moves past the hold
        assert banned.hits == 1 and thread_reports(world, "gs1") == expected_messages(world, "gs1")
