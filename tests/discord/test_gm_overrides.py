"""The ``/gm`` overrides end to end: deadline, pause, resume, preview, orders for a seat, eject, rollback, broadcast.

Each runs through the bot's real client against the fake Discord, and each
test checks the effect where it lands (the game's row and state in the
database) and what the game hears of it: the affected players by direct
message at once, and everyone in the game's post, in the next report
("Game master's actions since the last report") or, for a broadcast, at
once.  (create, start, extend, log, process and replace are in
tests/discord/test_gm_commands.py.)
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from bot.core.model import commands as c
from bot.core.views import GameViews
from bot.discord.gm_commands import SAME_DRAW, command_from_confirm
from bot.store.db import unit_of_work
from bot.store.models import Game
from tests.core.harness import SEATS
from tests.discord.test_end_to_end import assert_no_mail_vocabulary, expected_messages, public_rows, thread_reports
from tests.discord.test_gm_commands import gm
from tests.discord.world import World, running_world
from tests.support.fake_discord import FakeDiscord

pytestmark = pytest.mark.integration

ANNOUNCED = "Game master's actions since the last report:"


@dataclass(frozen=True)
class Facts:
    """What the database says of the game."""

    status: str
    phase_number: int
    deadline_at: datetime | None
    resigned: tuple[str, ...]


def facts(world: World, slug: str = "gs1") -> Facts:
    with unit_of_work(world.sessions) as session:
        game = session.scalars(select(Game).where(Game.slug == slug)).one()
        resigned = tuple(s.name for s in game.seats if s.resigned)
        return Facts(game.status, game.phase_number, game.deadline_at, resigned)


async def running_game(world: World) -> dict[str, Any]:
    """gs1 started by a member with the GM role (deadline 2026-03-03 12:00 UTC); returns that member."""
    host = world.fake.add_member("Gail", roles=(world.fake.gm_role_id,))
    await gm(world, host, "create", {"kind": "golden-strider", "game": "gs1", "seats": 6})
    for name in SEATS:
        await world.command(name, "join", {"game": "gs1", "name": name})
    [started] = await gm(world, host, "start", {"game": "gs1"})
    assert "STARTED gs1" in started["content"]
    await world.delivered()
    return host


async def confirmed(world: World, host: dict[str, Any], sub: str, options: dict[str, Any]) -> str:
    """``/gm sub`` that asks to confirm, then the host's click on the confirm button; the reply."""
    [ask] = await gm(world, host, sub, options)
    assert "confirm?" in ask["content"], ask["content"]
    [button] = [b for row in ask["components"] for b in row["components"] if b["custom_id"].startswith(f"gm:{sub}:")]
    clicked = await world.fake.click(button["custom_id"], ask, host)
    [done] = await world.fake.wait_for_replies(clicked)
    text: str = done["content"]
    return text


async def order(world: World, names: list[str]) -> None:
    for name in names:
        [reply, *_] = await world.command(name, "orders", {"game": "gs1", "text": "cards 10 8 6 4 2"})
        assert "ORDERS ACCEPTED" in reply["content"], reply["content"]


async def resolve(world: World) -> None:
    """A minute past the deadline: the worker resolves the open turn and the report goes out."""
    deadline = facts(world).deadline_at
    assert deadline is not None
    world.harness.clock.set(max(world.harness.clock.now(), deadline - timedelta(minutes=60)))
    assert await world.pass_deadline() != []
    await world.delivered()


def dms(world: World, name: str) -> list[str]:
    return [m["content"] for m in world.fake.dm_messages(world.user(name)["id"])]


def announced(world: World) -> str:
    """The GM actions announced in the game's post, one line each (the report's wrapping undone)."""
    [latest] = [m for m in thread_reports(world, "gs1") if ANNOUNCED in m][-1:]
    part = latest.split(ANNOUNCED, 1)[1].split("-" * 78, 1)[0]
    return " ".join(part.split())


async def test_deadline_pause_and_resume(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> None:
    async with running_world(fake_discord, sqlite_sessions) as world:
        host = await running_game(world)
        assert facts(world).deadline_at == datetime(2026, 3, 3, 12, tzinfo=UTC)

        [moved] = await gm(world, host, "deadline", {"game": "gs1", "when": "2026-03-04 18:00", "reason": "slow week"})
        assert "DEADLINE gs1\n  New deadline: 2026-03-04 18:00 UTC" in moved["content"], moved["content"]
        assert facts(world).deadline_at == datetime(2026, 3, 4, 18, tzinfo=UTC)
        [bad] = await gm(world, host, "deadline", {"game": "gs1", "when": "2020-01-01 10:00", "reason": "oops"})
        assert "DEADLINE gs1" in bad["content"] and facts(world).deadline_at == datetime(2026, 3, 4, 18, tzinfo=UTC)
        await world.delivered()
        assert any("2026-03-04 18:00" in m and "slow week" in m for m in dms(world, "Ann"))  # told at once

        [paused] = await gm(world, host, "pause", {"game": "gs1", "reason": "server move"})
        assert "PAUSED gs1\n  Until the game master resumes it." in paused["content"], paused["content"]
        assert facts(world).status == "paused"
        await order(world, SEATS)
        world.harness.clock.advance(timedelta(days=3))
        assert await world.pass_deadline() == []  # past the deadline, but the clock is stopped
        assert facts(world).phase_number == 0
        await world.delivered()
        assert any("paused the game" in m and "server move" in m for m in dms(world, "Ben"))

        [resumed] = await gm(world, host, "resume", {"game": "gs1", "reason": "back", "deadline": "+1d"})
        again = world.harness.clock.now() + timedelta(days=1)
        assert f"RESUMED gs1\n  Deadline: {again:%Y-%m-%d %H:%M} UTC" in resumed["content"], resumed["content"]
        assert facts(world).status == "running" and facts(world).deadline_at == again

        await resolve(world)
        assert facts(world).phase_number == 1
        said = announced(world)
        assert all(f"{action}" in said and f" -- {why}" in said for action, why in
                   [("the GM moved the deadline to ", "slow week"), ("the GM paused the game", "server move"),
                    ("the GM resumed the game", "back")]), said  # fmt: skip
        assert "oops" not in said  # a refused command is not announced
        assert_no_mail_vocabulary(fake_discord)


async def test_preview_changes_nothing_and_orders_for_a_seat_count(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> None:
    async with running_world(fake_discord, sqlite_sessions) as world:
        host = await running_game(world)
        await order(world, SEATS[1:])
        before = (len(world.thread_messages("gs1")), len(public_rows(world, "gs1")))

        [preview] = await gm(world, host, "preview", {"game": "gs1"})
        assert "PREVIEW gs1, turn 0:" in preview["content"] and "(nothing was changed)" in preview["content"]
        assert "No orders yet from: Ann" in preview["content"], preview["content"]
        assert preview["flags"] == 64
        await world.delivered()
        assert facts(world).phase_number == 0
        assert (len(world.thread_messages("gs1")), len(public_rows(world, "gs1"))) == before  # nobody else hears

        options = {"game": "gs1", "seat": "Ann", "text": "cards 9 9 9 9 9", "reason": "by phone"}
        [refused] = await gm(world, host, "orders", options)
        assert "ORDERS ENTERED" not in refused["content"] and "9" in refused["content"], refused["content"]
        [entered] = await gm(world, host, "orders", {**options, "text": "cards 1 5 6 8 10"})
        assert "ORDERS ENTERED for gs1, seat Ann, turn 0" in entered["content"], entered["content"]
        status = world.harness.send("Zed", c.ShowStatus("gs1"))
        assert "Ann" in next(line for line in (status.reply or "").splitlines() if "Orders in from:" in line)
        await world.delivered()
        assert any("cards 10 8 6 5 1" in m and "by phone" in m for m in dms(world, "Ann"))  # Ann is told at once

        await resolve(world)
        assert facts(world).phase_number == 1
        assert "the GM entered orders for seat Ann -- by phone" in announced(world)
        view = GameViews(world.sessions).seat_view("gs1", "Ann")
        assert view is not None and view.shown is not None
        assert sorted(card["value"] for card in view.shown["hand"]) == [1, 5, 6, 8, 10]  # the GM's cards


async def test_eject_and_rollback_after_confirmation(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> None:
    async with running_world(fake_discord, sqlite_sessions) as world:
        host = await running_game(world)
        done = await confirmed(world, host, "eject", {"game": "gs1", "seat": "Ann", "reason": "gone"})
        assert "EJECTED from gs1\n  Seat Ann gets the game's no-moves-received orders" in done, done
        assert facts(world).resigned == ("Ann",)
        await world.delivered()
        assert any("gone" in m for m in dms(world, "Ann"))

        await order(world, SEATS[1:])
        await resolve(world)
        assert facts(world).phase_number == 1 and "the GM took seat Ann from its player -- gone" in announced(world)
        [ann] = [m for m in dms(world, "Ann") if "-- turn 0:" in m]
        [ben] = [m for m in dms(world, "Ben") if "-- turn 0:" in m]
        assert "\nCopy for Ben\n" in ben and "\nCopy for " not in ann  # the seat's secrets are no longer Ann's
        reports = len([m for m in thread_reports(world, "gs1") if "-- turn 0:" in m])

        done = await confirmed(world, host, "rollback", {"game": "gs1", "to_turn": 0, "reason": "mistake"})
        assert "ROLLED BACK gs1 to the start of turn 0" in done, done
        assert facts(world).phase_number == 0 and facts(world).status == "running"
        await world.delivered()
        assert all(any("mistake" in m for m in dms(world, name)) for name in SEATS[1:])

        await resolve(world)
        assert facts(world).phase_number == 1
        assert "the GM rolled back turn " in announced(world) and "-- mistake" in announced(
            world
        )  # the turn played again is reported with it
        assert len([m for m in thread_reports(world, "gs1") if "-- turn 0:" in m]) > reports
        assert thread_reports(world, "gs1")[1:] == expected_messages(world, "gs1")[1:]


async def test_broadcast_reaches_the_post_and_every_seat(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> None:
    async with running_world(fake_discord, sqlite_sessions) as world:
        host = await running_game(world)
        [refused] = await gm(world, world.user("Ann"), "broadcast", {"game": "gs1", "text": "I am the GM"})
        assert "Only members with the game master role or the game masters of gs1" in refused["content"]

        [sent] = await gm(world, host, "broadcast", {"game": "gs1", "text": "Turn 0 closes on Tuesday. Good luck!"})
        assert "BROADCAST gs1\n  Sent to the 6 seats and the game's public place." in sent["content"], sent["content"]
        await world.delivered()
        posted = [m for m in thread_reports(world, "gs1") if "Good luck!" in m]
        assert len(posted) == 1 and "From the game master of gs1:" in posted[0], posted
        assert "I am the GM" not in "\n".join(thread_reports(world, "gs1"))
        for name in SEATS:
            assert sum("Turn 0 closes on Tuesday. Good luck!" in m for m in dms(world, name)) == 1, name
        assert facts(world).phase_number == 0  # a message, nothing more
        assert_no_mail_vocabulary(fake_discord)


def test_a_rollback_confirmation_carries_the_same_draw() -> None:
    """The confirm button's custom id carries the whole command: ``<turn>/same`` for the same draw; a button
    made before the option existed (``<turn>`` alone) still means a fresh draw."""
    assert command_from_confirm("rollback", f"gs1:3/{SAME_DRAW}:my mistake: sorry") == c.RollBack(
        "gs1", 3, "my mistake: sorry", same_draw=True
    )
    assert command_from_confirm("rollback", "gs1:3:a reason") == c.RollBack("gs1", 3, "a reason")
