"""The board picture on each report in a game's forum post ("board.png", its alt text as description).

The bot's real discord.py client against the fake Discord, which reads the
multipart upload discord.py sends (``payload_json`` and ``files[0]``) as
Discord does.  A small drawing is registered for Golden Strider (the real
drawings arrive from their own branch): every public report's first message
carries its board's PNG, which decodes to the picture of that report's own
board; the other blocks, the DMs and the status carry none.  The transport's
guarantees hold with a file too: a lost answer to the upload posts nothing
twice (the nonce), a rate limit is waited out and the re-sent file is whole.
A kind with no drawing posts its text as before.
"""

from __future__ import annotations

import io
import random
from collections.abc import Mapping
from typing import Any

import pytest
from PIL import Image
from sqlalchemy.orm import Session, sessionmaker

from bot.core.views import GameViews
from bot.discord.render import discord_messages, render_outcome
from bot.pictures import Picture, png
from bot.pictures.registry import DRAWINGS
from tests.discord.test_end_to_end import expected_messages, order_all, public_rows, start_game
from tests.discord.world import World, running_world
from tests.support.fake_discord import FakeDiscord, Request
from tests.support.stored import example_orders

pytestmark = pytest.mark.integration


def small_drawing(board: Mapping[str, Any]) -> Picture:
    """A picture that differs with the board (its width counts the board's text), and says so in words."""
    width = 20 + len(repr(sorted(board.items()))) % 200
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="30">'
           f'<rect width="{width}" height="30" fill="#2a6"/></svg>')  # fmt: skip
    return Picture(svg, f"A board {width} pixels wide <@&123> @everyone")


def is_upload(request: Request) -> bool:
    return request.method == "POST" and request.path.endswith("/messages") and bool(request.files)


def report_posts(world: World, slug: str = "gs1") -> list[dict[str, Any]]:
    """The posts of the game's post after its opening message (the reports), as stored by the fake."""
    return world.thread_posts(slug)[1:]


def check_pictures(world: World, fake: FakeDiscord) -> int:
    """Every public report's first post carries its own board as board.png, and no other post a file;
    returns the number of reports."""
    posts = report_posts(world)
    assert [p["content"] for p in posts] == expected_messages(world, "gs1")  # the text as before, each once
    at = 0
    reports = [r for r in public_rows(world, "gs1") if r.template == "report"]
    assert reports
    for row in public_rows(world, "gs1"):
        count = len(discord_messages(render_outcome(row.template, row.data, row.context)))
        first, *rest = posts[at : at + count]
        at += count
        assert all(not p["attachments"] for p in rest)
        if row.template != "report":
            assert not first["attachments"]
            continue
        [(attachment, data)] = fake.attachments(first)
        picture = small_drawing(row.data["board"])
        assert attachment["filename"] == "board.png" and attachment["description"] == picture.alt
        assert data == png(picture)  # this report's own board, the bytes whole
        with Image.open(io.BytesIO(data)) as image:
            image.load()
            assert image.format == "PNG" and image.size == (int(picture.svg.split('"')[3]), 30)
    assert at == len(posts)
    return len(reports)


async def play_turn(world: World, rng: random.Random) -> None:
    """Every seat owed orders sends some; the deadline passes; the reports go out."""
    view = GameViews(world.sessions).game("gs1")
    assert view is not None and view.phase is not None
    for seat in view.phase.owing:
        text = example_orders(world.sessions, "gs1", seat, rng)
        [reply, *_] = await world.command(seat, "orders", {"game": "gs1", "text": text})
        assert "ORDERS ACCEPTED" in reply["content"], reply["content"]
    assert await world.pass_deadline()
    await world.delivered()


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(DRAWINGS, "golden-strider", small_drawing)


async def test_each_report_post_carries_its_board_as_a_png_and_nothing_else_does(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None, drawn: None
) -> None:
    async with running_world(fake_discord, sqlite_sessions) as world:
        await start_game(world)
        rng = random.Random(3)
        for _ in range(3):
            await play_turn(world, rng)
        assert check_pictures(world, fake_discord) >= 2
        uploads = [r for r in fake_discord.requests if is_upload(r)]
        assert uploads and all(r.path == f"/channels/{world.thread('gs1')['id']}/messages" for r in uploads)
        for request in uploads:  # the multipart's payload_json says no pings, as a JSON post does
            assert request.body["allowed_mentions"]["parse"] == [] and request.body["content"].startswith("```\n")
        for user in world.users.values():  # the seats' copies by DM: text only
            assert all(not m["attachments"] for m in fake_discord.dm_messages(user["id"]))
        widths = {fake_discord.attachments(p)[0][0]["size"] for p in report_posts(world) if p["attachments"]}
        assert len(widths) >= 2  # the boards differ from turn to turn, and so do their pictures


async def test_a_lost_answer_to_the_upload_posts_it_once_and_a_rate_limit_is_waited_out(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None, drawn: None
) -> None:
    async with running_world(fake_discord, sqlite_sessions) as world:
        await start_game(world)
        await world.delivered()
        await order_all(world)
        before = len(fake_discord.requests)
        lost = fake_discord.outage(503, times=1, after_commit=True, match=is_upload)
        limited = fake_discord.rate_limit(0.3, times=1, match=is_upload)
        assert await world.pass_deadline()
        await world.delivered()
        assert lost.hits == 1 and limited.hits == 1
        check_pictures(world, fake_discord)  # each report once, its picture once and whole
        statuses = [r.status for r in fake_discord.requests[before:] if is_upload(r)]
        assert statuses == [503, 429, 200], statuses  # stored but unanswered, limited, then Discord's first post


async def test_a_kind_with_no_drawing_posts_its_report_as_text(
    fake_discord: FakeDiscord,
    sqlite_sessions: sessionmaker[Session],
    discord_endpoints: None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delitem(DRAWINGS, "golden-strider", raising=False)  # a kind whose pictures are not drawn
    async with running_world(fake_discord, sqlite_sessions) as world:
        await start_game(world)
        await order_all(world)
        assert await world.pass_deadline()
        await world.delivered()
        posts = report_posts(world)
        assert [p["content"] for p in posts] == expected_messages(world, "gs1") and len(posts) >= 2
        assert all(not p["attachments"] for p in posts)
        assert not [r for r in fake_discord.requests if r.files] and not fake_discord.uploads
