"""Commands by DM in free text (bot/discord/direct_messages.py), end to end: the real discord.py client
against the fake Discord, a seated player and a game master DMing the referee what they would mail,
answered in the DM in Discord's words."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy.orm import Session, sessionmaker

from bot.core.model import commands as c
from bot.discord.direct_messages import MAX_CHARACTERS, DmRate
from tests.discord.test_end_to_end import MAIL_WORDS, start_game
from tests.discord.world import World, running_world
from tests.support.fake_discord import FakeDiscord

pytestmark = pytest.mark.integration


async def dm(world: World, who: str, text: str) -> str:
    """``who`` DMs ``text``; the bot's next message in their DMs (once what was due before is delivered)."""
    user = world.user(who)
    await world.delivered()
    before = len(world.fake.bot_dm_messages(user["id"]))
    await world.fake.dm(user, text)
    await world.fake.wait_for_dm(user["id"], before + 1)
    await world.delivered()  # every block of a long answer
    said = world.fake.bot_dm_messages(user["id"])
    return "\n".join(m["content"] for m in said[before:])


def on_file(world: World, user: dict[str, Any], game: str) -> str:
    return world.harness.send(user["id"], c.ShowFiledOrders(game), channel="discord").reply or ""


async def test_a_seated_player_dms_orders_and_is_answered_in_the_dm_in_discords_words(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> None:
    async with running_world(fake_discord, sqlite_sessions) as world:
        await start_game(world)
        ann = world.user("Ann")
        answer = await dm(world, "Ann", "ORDERS gs1\ncards 10 8 6 4 2\n\nSTATUS gs1\nwhat do I do now?")
        assert "Re: ORDERS gs1" in answer and "ORDERS ACCEPTED for gs1" in answer, answer
        assert "> what do I do now?" in answer and "not a command" in answer
        assert answer.startswith("```") and not MAIL_WORDS.search(answer), answer
        assert "cards 10 8 6 4 2" in on_file(world, ann, "gs1")
        # a game master of the game pauses it by DM, with its REASON line; without one nothing is done
        gail = world.user("Gail")
        world.harness.send("GM", c.AddGameMaster("gs1", "discord", gail["id"], "helps out"))
        refused = await dm(world, "Gail", "PAUSE gs1")
        assert "it needs a reason" in refused and "PAUSED" not in refused, refused
        paused = await dm(world, "Gail", "PAUSE gs1\nREASON a holiday")
        assert "PAUSED gs1" in paused and "Reason: a holiday" in paused, paused
        assert "paused" in (world.harness.send("GM", c.ShowStatus("gs1")).reply or "").lower()
        assert not [m for m in fake_discord.everything_said() if MAIL_WORDS.search(m)]


async def test_help_by_dm_speaks_discords_words(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> None:
    async with running_world(fake_discord, sqlite_sessions) as world:
        answer = await dm(world, "Zed", "HELP")
        assert "/orders game:" in answer and "By DM" in answer, answer
        assert "By email" not in answer and "subject" not in answer and not MAIL_WORDS.search(answer), answer


async def test_a_dm_is_applied_once_the_bots_own_and_other_bots_are_never_read_and_a_long_one_is_refused(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> None:
    async with running_world(fake_discord, sqlite_sessions) as world:
        ann = world.user("Ann")
        first = await fake_discord.dm(ann, "LIST")
        await fake_discord.wait_for_dm(ann["id"], 1)
        await fake_discord.dispatch("MESSAGE_CREATE", first)  # the gateway delivers it again (a resume)
        robot = {"id": str(fake_discord.new_id()), "username": "robot", "global_name": "robot",
                 "discriminator": "0", "avatar": None, "bot": True}  # fmt: skip
        await fake_discord.dm(ann, "HELP", author=robot)
        await fake_discord.dm(ann, "HELP", author=fake_discord.bot_user)
        answer = await dm(world, "Ann", "x" * (MAX_CHARACTERS + 1))
        said = " ".join(answer.split())
        assert f"at most {MAX_CHARACTERS} characters" in said and "nothing in it was read" in said, answer
        answers = [m["content"] for m in fake_discord.bot_dm_messages(ann["id"]) if "Receipt" in m["content"]]
        assert len(answers) == 2 and "Re: LIST" in answers[0], answers  # LIST's answer and the refusal, no other


def test_a_users_dms_are_bounded_by_a_rate_and_told_once() -> None:
    clock = [0.0]
    rate = DmRate(per_window=3, window_seconds=60, now=lambda: clock[0])
    assert [rate.take(1) for _ in range(5)] == ["ok", "ok", "ok", "refuse", "drop"]
    assert rate.take(2) == "ok"  # another user has a rate of their own
    clock[0] = 61
    assert rate.take(1) == "ok"
