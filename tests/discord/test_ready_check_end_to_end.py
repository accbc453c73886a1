"""A ready check against the real servers: Dovecot in, aiosmtpd out, the fake Discord through discord.py.

A Strike Gold game of three seats with a 24h ready check.  Ann plays by mail
(her JOIN and READY APPENDed to Dovecot and read by the real IMAP intake,
every mail to her sent by the real SMTP sender to aiosmtpd); Ben and Cat join
on Discord.  The game fills: Ann is asked by mail and confirms by mail; Ben is
asked by a DM with a button and confirms by it (Cat's click on Ben's button,
and Ben's second click, are refused privately and change nothing); Cat stays
silent.  The window passes: the deadline worker frees Cat exactly once (a
second worker, as after a restart, finds nothing), Cat is told why, the GM who
was freed, and the game's forum post that it is open again.  Dan joins on
Discord, is asked (only he: Ann and Ben stay confirmed), confirms by his
button; Cat's old button is refused; the GM is told the game is ready and
starts it.

The clock is the machine's, shifted forward by hand when the window has to
pass (mail is dated by Dovecot as it arrives).
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from bot.core.basics.display_width import display_width
from bot.core.model import commands as c
from bot.core.runtime import supervisor
from bot.core.runtime.deadline_worker import DeadlineWorker
from bot.core.runtime.service import GameService
from bot.host.wiring import workers
from bot.store.db import unit_of_work
from bot.store.models import Game, OutboxMessage
from tests.core.harness import Harness
from tests.discord.test_end_to_end import assert_no_mail_vocabulary
from tests.discord.world import World, running_world
from tests.email.mailboxes import append, eventually
from tests.email.pipeline import TRUSTED_SERVER, message
from tests.email.test_deadlines import replies_to, settings_for
from tests.support.dovecot import DovecotServer
from tests.support.fake_discord import FakeDiscord
from tests.support.smtp_sink import SmtpSink

pytestmark = pytest.mark.integration

ANN = "ann@example.org"
GM = "gm@example.org"
GAME = "rc1"


class ShiftedClock:
    """The machine's clock plus an offset the test moves forward (never back)."""

    def __init__(self) -> None:
        self.offset = timedelta(0)

    def now(self) -> datetime:
        return datetime.now(UTC) + self.offset

    def advance(self, delta: timedelta) -> None:
        self.offset += delta

    def set(self, moment: datetime) -> None:
        self.offset = max(self.offset, moment - datetime.now(UTC))


@asynccontextmanager
async def mail_workers(settings: Any, sessions: sessionmaker[Session], clock: ShiftedClock) -> AsyncIterator[None]:
    """The mail channel's workers as ``referee serve`` builds them (IMAP intake, SMTP sender); the
    deadline worker is the test's own, run when the test says."""
    found = [w for w in workers(settings, sessions, clock) if not isinstance(w, DeadlineWorker)]  # type: ignore[arg-type]
    stop = asyncio.Event()
    task = asyncio.create_task(supervisor.serve(found, stop))
    try:
        yield
    finally:
        stop.set()
        await asyncio.wait_for(task, timeout=15)


class Mail:
    def __init__(self, dovecot: DovecotServer, user: str, smtp: SmtpSink) -> None:
        self.dovecot, self.user, self.smtp = dovecot, user, smtp
        self.count = 0

    async def send(self, body: str) -> str:
        """Ann mails ``body`` (her server vouches for her); the referee's reply."""
        self.count += 1
        mid = f"<ready{self.count}@example.org>"
        append(self.dovecot, self.user, message(body, sender=ANN, name="Ann", subject="game", message_id=mid,
                                                vouched_by=TRUSTED_SERVER, when=datetime.now(UTC)))  # fmt: skip
        await eventually(lambda: len(replies_to(self.smtp, mid)) == 1, timeout=20)
        return replies_to(self.smtp, mid)[0]

    def bodies(self, recipient: str, subject: str) -> list[str]:
        found = [
            r.message for r in self.smtp.messages() if recipient in r.recipients and subject in r.message["Subject"]
        ]
        return [m.get_body(("plain",)).get_content() for m in found]


def fits(text: str) -> None:
    for line in text.splitlines():
        assert display_width(line) <= 78, line


def buttons(fake: FakeDiscord, user: dict[str, Any]) -> list[tuple[dict[str, Any], str]]:
    """(message, custom id) of every button in the DMs to ``user``."""
    return [(m, b["custom_id"]) for m in fake.dm_messages(user["id"]) for row in m.get("components", [])
            for b in row.get("components", []) if b.get("custom_id", "").startswith("ready:")]  # fmt: skip


def label(message: dict[str, Any], custom_id: str) -> str:
    """The label of the button ``custom_id`` in ``message``."""
    return next(b["label"] for row in message["components"] for b in row["components"] if b["custom_id"] == custom_id)


async def click(world: World, who: str, custom_id: str, dm: dict[str, Any]) -> dict[str, Any]:
    """``who`` presses ``custom_id``; the private answer."""
    interaction = await world.fake.click(custom_id, dm, world.user(who))
    await world.fake.wait_for_callback(interaction)
    [reply, *_] = await world.fake.wait_for_replies(interaction)
    assert reply["flags"] == 64, reply  # private
    return reply


def confirmed(world: World) -> dict[str, bool]:
    with unit_of_work(world.sessions) as session:
        game = session.scalars(select(Game).where(Game.slug == GAME)).one()
        return {seat.name: seat.ready_at is not None for seat in game.seats}


def asked(world: World) -> list[str]:
    with unit_of_work(world.sessions) as session:
        rows = session.scalars(select(OutboxMessage).where(OutboxMessage.template == "ready_request")).all()
        return sorted(f"{row.data['seat']}:{row.data['round']}:{row.channel}" for row in rows)


async def test_a_ready_check_by_mail_and_button_frees_the_silent_seat_and_the_refilled_game_starts(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None,
    dovecot: DovecotServer, smtp: SmtpSink, tmp_path: Any,
) -> None:  # fmt: skip
    clock = ShiftedClock()
    base = Harness(sqlite_sessions)
    config = dataclasses.replace(base.config, public_channels=("discord",), status_channels=("discord",))
    harness = Harness(sqlite_sessions, clock=clock, config=config)  # type: ignore[arg-type]
    user = dovecot.new_user()
    settings = settings_for(str(tmp_path / "discord.sqlite3"), dovecot, user, smtp, intake_poll_seconds=0.5)
    mail = Mail(dovecot, user, smtp)
    async with running_world(fake_discord, sqlite_sessions, harness) as world, \
            mail_workers(settings, sqlite_sessions, clock):  # fmt: skip
        created = harness.send("GM", c.CreateGame(GAME, "strike-gold", {}, "UTC", 60, False, "address", seats=3,
                                                  max_seats=3, ready_check="24h"))  # fmt: skip
        assert created.applied.results == ("created",), created.reply
        assert "JOINED rc1" in await mail.send(f"JOIN {GAME} AS Ann")
        early = await mail.send(f"READY {GAME}")
        assert "not in a ready check" in " ".join(early.split()), early
        world.users["Cat"] = world.fake.add_member("Cat", locale="de")  # a German Discord: told in German
        for name in ("Ben", "Cat"):
            [reply, *_] = await world.command(name, "join", {"game": GAME, "name": name})
            assert "JOINED rc1" in reply["content"], reply["content"]
        assert asked(world) == ["Ann:1:email", "Ben:1:discord", "Cat:1:discord"]

        # Ann is asked by mail and confirms by mail.
        await eventually(lambda: bool(mail.bodies(ANN, "confirm you will play")), timeout=20)
        [request] = mail.bodies(ANN, "confirm you will play")
        assert f"READY {GAME}" in request
        fits(request)
        reply = await mail.send(f"READY {GAME}")
        assert "Confirmed: Ann will play." in reply, reply
        fits(reply)
        again = await mail.send(f"READY {GAME}")
        assert "already confirmed" in again and "nothing was changed" in " ".join(again.split())

        # Ben is asked by a DM with a button; Cat's click on it and Ben's second click change nothing.
        await world.delivered()
        [(dm, ben_id)] = buttons(world.fake, world.user("Ben"))
        assert ben_id == f"ready:1:{GAME}:Ben"
        [(cat_dm, cat_id)] = buttons(world.fake, world.user("Cat"))
        assert [label(dm, ben_id), label(cat_dm, cat_id)] == ["I will play", "Ich spiele mit"]  # as their DMs' text
        refused = await click(world, "Cat", ben_id, dm)
        assert "nicht für Ihren Platz (Cat)" in " ".join(refused["content"].split()), refused[
            "content"
        ]  # her Discord's
        assert confirmed(world) == {"Ann": True, "Ben": False, "Cat": False}
        accepted = await click(world, "Ben", ben_id, dm)
        assert "Confirmed: Ben will play" in accepted["content"], accepted["content"]
        twice = await click(world, "Ben", ben_id, dm)
        assert "already confirmed" in twice["content"]
        assert harness.send("GM", c.StartGame(GAME)).applied.problems == ("ready_check_pending",)

        # The window passes: Cat is freed once, even with a second worker (a restart) after the first.
        clock.advance(timedelta(hours=24, minutes=1))
        DeadlineWorker(harness.service, clock).run_once_sync()  # type: ignore[arg-type]
        assert confirmed(world) == {"Ann": True, "Ben": True}
        restarted = GameService(sqlite_sessions, config)
        assert restarted.expire_ready_checks(clock.now()) == []
        await world.delivered()
        freed = [
            m["content"] for m in world.fake.dm_messages(world.user("Cat")["id"]) if "wurde freigegeben" in m["content"]
        ]
        assert len(freed) == 1
        posts = [m["content"] for m in world.thread_posts(GAME)]
        assert sum("open for joining again" in p for p in posts) == 1, posts
        await eventually(lambda: bool(mail.bodies(GM, "ready check ended")), timeout=20)
        [gm_told] = mail.bodies(GM, "ready check ended")
        assert "Freed (not confirmed): Cat." in gm_told
        fits(gm_told)
        [ann_after] = [await mail.send(f"READY {GAME}")]
        assert "already confirmed" in ann_after  # the confirmed stay confirmed

        # Dan takes the free seat and alone is asked; Cat's old button is refused.
        [reply, *_] = await world.command("Dan", "join", {"game": GAME, "name": "Dan"})
        assert "JOINED rc1" in reply["content"]
        assert asked(world) == ["Ann:1:email", "Ben:1:discord", "Cat:1:discord", "Dan:2:discord"]
        await world.delivered()
        [(dan_dm, dan_id)] = buttons(world.fake, world.user("Dan"))
        assert dan_id == f"ready:2:{GAME}:Dan"
        stale = await click(world, "Cat", cat_id, cat_dm)
        assert "keinen Platz in rc1" in stale["content"], stale["content"]
        done = await click(world, "Dan", dan_id, dan_dm)
        assert "Every seat has confirmed" in " ".join(done["content"].split()), done["content"]
        await eventually(lambda: bool(mail.bodies(GM, "every seat confirmed")), timeout=20)
        started = harness.send("GM", c.StartGame(GAME))
        assert started.applied.results == ("started",), started.reply
        await eventually(lambda: bool(mail.bodies(ANN, "started")), timeout=20)
        for body in mail.bodies(ANN, "") + mail.bodies(GM, ""):
            fits(body)
        assert_no_mail_vocabulary(world.fake)  # Discord speaks slash commands and buttons


async def test_the_ready_button_works_after_a_restart_of_the_bot(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> None:
    """The DM was sent by one run of the bot and clicked in the next: the button is found by its custom
    id alone (a DynamicItem), for its seat only."""
    async with running_world(fake_discord, sqlite_sessions) as world:
        harness = world.harness
        created = harness.send("GM", c.CreateGame(GAME, "strike-gold", {}, "UTC", 60, False, "address", seats=2,
                                                  max_seats=2, ready_check="2h"))  # fmt: skip
        assert created.applied.results == ("created",)
        for name in ("Ann", "Ben"):
            [reply, *_] = await world.command(name, "join", {"game": GAME, "name": name})
            assert "JOINED rc1" in reply["content"]
        await world.delivered()
        [(dm, ann_id)] = buttons(fake_discord, world.user("Ann"))
    async with running_world(fake_discord, sqlite_sessions, harness) as world:
        refused = await click(world, "Ben", ann_id, dm)
        assert "not for your seat" in " ".join(refused["content"].split())
        accepted = await click(world, "Ann", ann_id, dm)
        assert "Confirmed: Ann will play" in accepted["content"], accepted["content"]
        assert confirmed(world) == {"Ann": True, "Ben": False}
