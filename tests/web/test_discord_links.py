"""On Discord, the game's forum post links to its web page: in its opening, the start and each report.

The bot runs against the fake Discord (tests/support/fake_discord.py) with the core's configuration
naming a base URL; the link stands outside the code blocks (a link inside one cannot be clicked),
in angle brackets (no preview).
"""

from __future__ import annotations

import dataclasses

from sqlalchemy.orm import Session, sessionmaker

from tests.core.harness import Harness
from tests.discord.world import discord_harness, running_world
from tests.support.fake_discord import FakeDiscord

SEATS = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay"]
LINK = "<https://games.club.example/games/gs1>"


async def test_the_forum_post_links_to_the_game_page(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> None:
    base = discord_harness(sqlite_sessions)
    config = dataclasses.replace(base.config, web_base_url="https://games.club.example")
    harness = Harness(sqlite_sessions, clock=base.clock, config=config)
    async with running_world(fake_discord, sqlite_sessions, harness) as world:
        gail = fake_discord.add_member("Gail", roles=(fake_discord.gm_role_id,))
        made = await fake_discord.slash("gm", {"kind": "golden-strider", "game": "gs1", "seats": 6,
                                               "schedule": "1h"}, gail, subcommand="create")  # fmt: skip
        assert "CREATED gs1" in (await fake_discord.wait_for_replies(made))[0]["content"]
        for name in SEATS:
            [reply, *_] = await world.command(name, "join", {"game": "gs1", "name": name})
            assert "JOINED gs1" in reply["content"]
        started = await fake_discord.slash("gm", {"game": "gs1"}, gail, subcommand="start")
        assert "STARTED gs1" in (await fake_discord.wait_for_replies(started))[0]["content"]
        await world.delivered()
        await world.pass_deadline()
        await world.delivered()
        posts = [m["content"] for m in world.thread_posts("gs1")]
    opening, *rest = posts
    assert f"The game's page, with every report and the board: {LINK}" in opening
    started_post = next(p for p in rest if "has started" in p)
    report = next(p for p in rest if "turn 0 report" in p)
    for post in (started_post, report):
        assert f"Game page: {LINK}" in post
        assert post.rstrip().endswith(f"Game page: {LINK}"), "after the code blocks"
