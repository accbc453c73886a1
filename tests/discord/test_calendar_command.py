"""``/calendar`` and ``/pictures``: the same commands as ``CALENDAR`` and ``PICTURES`` by mail, through the
real discord.py client and command tree against the fake Discord (tests/support/fake_discord.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest_asyncio
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from bot.core.model.config import ServiceConfig
from bot.core.views.calendars import CalendarViews
from bot.discord.runtime import point_at
from bot.store.db import unit_of_work
from bot.store.models import Identity, Player
from tests.core.harness import Harness
from tests.discord.test_commands import Bench, bench_client
from tests.support.fake_discord import SLASH, FakeDiscord

WEB = "https://referee.example.org"


@pytest_asyncio.fixture
async def bench(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> AsyncIterator[Bench]:
    point_at(fake_discord.api_base, fake_discord.gateway_url)
    config = ServiceConfig(web_base_url=WEB)
    harness = Harness(sqlite_sessions, config=config)
    client = bench_client(fake_discord, sqlite_sessions, harness, config)
    await client.login("fake-token")
    try:
        yield Bench(fake_discord, client, harness)
    finally:
        await client.close()


def address_in(text: str) -> str:
    return next(word for word in text.split() if word.startswith(f"{WEB}/calendars/"))


def player_of(bench: Bench, user_id: str) -> Player:
    with unit_of_work(bench.harness.sessions) as session:
        identity = session.scalars(select(Identity).where(Identity.address == user_id)).one()
        player = session.get_one(Player, identity.player_id)
        session.expunge(player)
        return player


async def test_calendar_gives_a_private_address_that_works_and_new_revokes_it(bench: Bench) -> None:
    ann = bench.fake.add_member("ann")
    payload = await bench.call(SLASH, "calendar", {}, ann)
    [reply] = bench.fake.replies(payload)
    assert reply["flags"] == 64  # ephemeral: the address is the player's alone
    first = address_in(reply["content"])
    views = CalendarViews(bench.harness.sessions, bench.harness.config, bench.harness.clock)
    key = first.removeprefix(f"{WEB}/calendars/").removesuffix(".ics")
    assert views.player_calendar(key) is not None
    payload = await bench.call(SLASH, "calendar", {"new": True}, ann)
    [text] = bench.texts(payload)
    second = address_in(text)
    assert second != first and "no longer works" in text
    assert views.player_calendar(key) is None
    assert views.player_calendar(second.removeprefix(f"{WEB}/calendars/").removesuffix(".ics")) is not None


async def test_pictures_sets_the_players_setting(bench: Bench) -> None:
    ann = bench.fake.add_member("ann")
    [text] = bench.texts(await bench.call(SLASH, "pictures", {"on": True}, ann))
    assert "PICTURES ON" in text and player_of(bench, ann["id"]).board_pictures
    [text] = bench.texts(await bench.call(SLASH, "pictures", {"on": False}, ann))
    assert "PICTURES OFF" in text and not player_of(bench, ann["id"]).board_pictures


async def test_calendar_without_web_pages_says_so(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> None:
    point_at(fake_discord.api_base, fake_discord.gateway_url)
    harness = Harness(sqlite_sessions)
    client = bench_client(fake_discord, sqlite_sessions, harness)
    await client.login("fake-token")
    try:
        bench = Bench(fake_discord, client, harness)
        [text] = bench.texts(await bench.call(SLASH, "calendar", {}, fake_discord.add_member("ben")))
        assert "no web pages" in " ".join(text.split()) and "/calendars/" not in text
    finally:
        await client.close()
