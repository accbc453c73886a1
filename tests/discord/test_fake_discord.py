"""The fake Discord against a bare discord.py client: the fake answers as a bare client expects."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import discord
import pytest
import pytest_asyncio
import yarl
from discord import app_commands

from tests.support.fake_discord import FakeDiscord

QUIET = discord.AllowedMentions.none()
"""As the referee's client has it: the Discord fixture fails a test in which a message could ping."""


@pytest_asyncio.fixture
async def client(fake_discord: FakeDiscord, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[discord.Client]:
    monkeypatch.setattr(discord.http.Route, "BASE", fake_discord.api_base)
    monkeypatch.setattr(discord.gateway.DiscordWebSocket, "DEFAULT_GATEWAY", yarl.URL(fake_discord.gateway_url))
    bot = discord.Client(intents=discord.Intents.default(), guild_ready_timeout=0.05, allowed_mentions=QUIET)
    tree = app_commands.CommandTree(bot)
    guild = discord.Object(fake_discord.guild_id)

    @tree.command(name="hello", description="say hello", guild=guild)
    async def hello(interaction: discord.Interaction, name: str) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        await interaction.followup.send(f"hello {name}", ephemeral=True)

    async def setup_hook() -> None:
        await tree.sync(guild=guild)

    bot.setup_hook = setup_hook  # type: ignore[method-assign]
    task = asyncio.create_task(bot.start("fake-token"))
    await asyncio.wait_for(bot.wait_until_ready(), 10)
    yield bot
    await bot.close()
    await task


async def test_login_sync_and_guild_cache(client: discord.Client, fake_discord: FakeDiscord) -> None:
    guild = client.get_guild(fake_discord.guild_id)
    assert guild is not None
    forum = guild.get_channel(fake_discord.forum_channel_id)
    assert isinstance(forum, discord.ForumChannel)
    assert [c["name"] for c in fake_discord.commands[str(fake_discord.guild_id)]] == ["hello"]


async def test_slash_defer_and_follow_up(client: discord.Client, fake_discord: FakeDiscord) -> None:
    user = fake_discord.add_member("ann")
    interaction = await fake_discord.slash("hello", {"name": "bob"}, user)
    callback = await fake_discord.wait_for_callback(interaction)
    assert callback == {"type": 5, "data": {"flags": 64}}
    [reply] = await fake_discord.wait_for_replies(interaction)
    assert reply["content"] == "hello bob" and reply["flags"] == 64


async def test_forum_post_dm_and_nonce(client: discord.Client, fake_discord: FakeDiscord) -> None:
    forum = client.get_channel(fake_discord.forum_channel_id)
    assert isinstance(forum, discord.ForumChannel)
    made = await forum.create_thread(name="gs1", content="first")
    assert fake_discord.messages[made.thread.id][0]["content"] == "first"
    user = fake_discord.add_member("ben")
    dm = await client.create_dm(discord.Object(int(user["id"])))
    await dm.send("one", nonce="n1")
    await dm.send("one again", nonce="n1")
    assert [m["content"] for m in fake_discord.dm_messages(user["id"])] == ["one"]
    fake_discord.close_dms(user["id"])
    with pytest.raises(discord.Forbidden) as refused:
        await dm.send("two")
    assert refused.value.code == 50007


async def test_rate_limit_is_honoured_and_503_raises(client: discord.Client, fake_discord: FakeDiscord) -> None:
    channel = client.get_partial_messageable(fake_discord.text_channel_id)
    fake_discord.rate_limit(0.2)
    await channel.send("after a wait")
    statuses = [r.status for r in fake_discord.requests if r.path.endswith("/messages")]
    assert statuses == [429, 200]
    fake_discord.outage(503, times=1)
    with pytest.raises(discord.DiscordServerError):
        await channel.send("lost")
    await channel.send("back")
    assert [m["content"] for m in fake_discord.messages[fake_discord.text_channel_id]] == ["after a wait", "back"]


async def test_edit_delete_and_pins(client: discord.Client, fake_discord: FakeDiscord) -> None:
    channel = client.get_channel(fake_discord.text_channel_id)
    assert isinstance(channel, discord.TextChannel)
    status = await channel.send("status: turn 1")
    await status.edit(content="status: turn 2")
    await status.pin()
    pinned = [m.content async for m in channel.pins()]
    assert pinned == ["status: turn 2"]
    await status.pin()  # pinning again changes nothing
    gone = await channel.send("to delete")
    await gone.delete()
    # Discord says "... pinned a message" once, in a system message (type 6) pointing at the pinned one.
    assert [(m["content"], m["type"]) for m in fake_discord.messages[channel.id]] == [("status: turn 2", 0), ("", 6)]
    assert fake_discord.messages[channel.id][1]["message_reference"]["message_id"] == str(status.id)
    await status.unpin()
    assert [m.content async for m in channel.pins()] == [] and fake_discord.pinned(channel.id) == []


async def test_the_original_response_can_be_edited(fake_discord: FakeDiscord, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(discord.http.Route, "BASE", fake_discord.api_base)
    monkeypatch.setattr(discord.gateway.DiscordWebSocket, "DEFAULT_GATEWAY", yarl.URL(fake_discord.gateway_url))
    bot = discord.Client(intents=discord.Intents.default(), guild_ready_timeout=0.05, allowed_mentions=QUIET)
    tree = app_commands.CommandTree(bot)

    @tree.command(name="slow", description="answer later", guild=discord.Object(fake_discord.guild_id))
    async def slow(interaction: discord.Interaction) -> None:
        await interaction.response.defer(thinking=True)
        await interaction.edit_original_response(content="done")

    task = asyncio.create_task(bot.start("fake-token"))
    await asyncio.wait_for(bot.wait_until_ready(), 10)
    try:
        await tree.sync(guild=discord.Object(fake_discord.guild_id))
        interaction = await fake_discord.slash("slow", {}, fake_discord.add_member("ann"))
        await fake_discord.wait_for_request(lambda r: r.method == "PATCH" and r.path.endswith("/@original"))
        assert [m["content"] for m in fake_discord.replies(interaction)] == ["done"]
    finally:
        await bot.close()
        await task


async def test_a_message_that_could_ping_is_caught(client: discord.Client, fake_discord: FakeDiscord) -> None:
    """The fixture's check: a message allowed to ping anyone, or saying nothing of mentions, is listed."""
    channel = client.get_partial_messageable(fake_discord.text_channel_id)
    await channel.send("quiet <@&1> @everyone")
    assert fake_discord.unguarded_mentions() == []
    user = fake_discord.add_member("ann")
    await channel.send(
        f"hi <@{user['id']}>", allowed_mentions=discord.AllowedMentions(users=[discord.Object(int(user["id"]))])
    )
    assert fake_discord.unguarded_mentions() != [] and fake_discord.unguarded_mentions(frozenset({user["id"]})) == []
    await channel.send("everyone!", allowed_mentions=discord.AllowedMentions(everyone=True))
    await channel.send("roles!", allowed_mentions=discord.AllowedMentions(roles=True))
    client._connection.allowed_mentions = None  # a client with no default: its message says nothing of mentions
    await channel.send("nothing said")
    caught = [(message["content"]) for message in (r.body for r in fake_discord.unguarded_mentions())]
    assert caught == [f"hi <@{user['id']}>", "everyone!", "roles!", "nothing said"]
    fake_discord.requests.clear()  # caught on purpose: the fixture's own check would fail this test
