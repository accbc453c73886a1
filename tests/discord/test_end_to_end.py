"""The bot's real discord.py client against the fake Discord: a Golden Strider game played by slash commands."""

from __future__ import annotations

import re

import pytest

from bot.core import commands as c
from tests.core.harness import SEATS
from tests.discord.world import World, running_world
from tests.support.fake_discord import FakeDiscord

pytestmark = pytest.mark.integration


async def start_game(world: World, slug: str = "gs1") -> None:
    world.harness.send("GM", c.CreateGame(slug, "golden-strider", {}, "Europe/Paris", 60, False, "address"))
    for name in SEATS:
        [reply] = await world.command(name, "join", {"game": slug, "name": name})
        assert f"JOINED {slug}" in reply["content"] and reply["flags"] == 64
    assert "STARTED" in (world.harness.send("GM", c.StartGame(slug)).reply or "")


async def test_golden_strider_by_slash_commands(fake_discord: FakeDiscord, sqlite_sessions, discord_endpoints) -> None:
    async with running_world(fake_discord, sqlite_sessions) as world:
        await start_game(world)
        for name in SEATS:
            [reply] = await world.command(name, "orders", {"game": "gs1", "text": "cards 10 8 6 4 2"})
            assert reply["content"].startswith("```\n") and "10 8 6 4 2" in reply["content"]
        assert await world.pass_deadline() == [("gs1", 0)]
        await world.delivered()
        thread = world.thread_messages("gs1")
        report = [m["content"] for m in thread if "turn 0" in m["content"]]
        assert report, [m["content"][:80] for m in thread]
        assert all(len(m["content"]) <= 2000 for m in thread)
        assert re.search(r"Deadline: <t:\d+:F> \(<t:\d+:R>\)", "\n".join(report))
        for name in SEATS:
            dms = [m["content"] for m in fake_discord.dm_messages(world.user(name)["id"])]
            assert any(f"copy for {name}" in m for m in dms), dms
