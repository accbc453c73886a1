"""Substitutes against the real servers: Dovecot in, aiosmtpd out, the fake Discord through discord.py.

A Golden Strider game of six seats, created by ``/gm create`` with
``substitute_after:2`` (a game master accepts substitutes).  Ann plays by mail
(every mail of hers APPENDed to Dovecot and read by the real IMAP intake, every
mail to her sent by the real SMTP sender to aiosmtpd); Ben to Fay play on
Discord.  Zed and Yan, with no seat, say ``/standby``.  Ann misses two turns in
a row: as the deadline worker resolves the second, the referee puts her seat up
by itself; Zed and Yan get the offer by DM with a button, the game's forum post
says so, Ann is told by mail.  Ann still orders the open turn (her orders count
until someone takes the seat).  A forged ``STAND IN`` by mail changes nothing.  Zed
clicks his button; Yan's click on it is refused (the seat is spoken for).  The
game master withdraws the offer and makes it again: the first offer's button is
stale.  Zed clicks the new one, the game master accepts with ``/gm substitute``:
Zed gets the briefing (the seat secret, Ann's orders on file, the seat's
reports), Ann is told by mail and her orders are refused from then on.  Zed
orders the next turns by ``/orders``; the turns resolve with his orders.  Ann's
record shows the two missed turns; Zed's none of the seat's past.

The second test is the mail path: a vouched mail player stands by by mail,
gets the offer by mail and takes the seat by mail in a game where the first to
take it has it; a forged ``STANDBY`` puts nobody on the list.

The clock is the machine's, shifted forward by hand as deadlines pass (turns
of 30 minutes); mail is dated by Dovecot at the shifted time (APPEND with an
internal date), as it would be had the time passed: Dovecot takes no date more
than two hours ahead of its own clock, hence the short turns.
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
import re
from datetime import timedelta
from email.message import EmailMessage
from typing import Any

import pytest
from imapclient import IMAPClient
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from bot.core.basics.display_width import display_width
from bot.core.model import commands as c
from bot.core.people.identities import find_player
from bot.core.people.reliability import Reliability, reliability_of
from bot.core.runtime.deadline_worker import DeadlineWorker
from bot.store.db import unit_of_work
from bot.store.models import Game, OutboxMessage, Player, TurnRecord
from tests.core.harness import Harness
from tests.discord.test_end_to_end import assert_no_mail_vocabulary, thread_reports
from tests.discord.test_ready_check_end_to_end import ShiftedClock, mail_workers
from tests.discord.world import World, running_world
from tests.email.mailboxes import eventually
from tests.email.pipeline import TRUSTED_SERVER, message
from tests.email.test_deadlines import replies_to, settings_for
from tests.support.dovecot import PASSWORD, DovecotServer
from tests.support.fake_discord import FakeDiscord
from tests.support.smtp_sink import SmtpSink
from tests.support.stored import example_orders

pytestmark = pytest.mark.integration

ANN = "ann@example.org"
GAME = "sub1"
ON_DISCORD = ("Ben", "Cat", "Dan", "Eve", "Fay")


def plain_text(mail: EmailMessage) -> str:
    """The plain text part of a mail the referee sent (each has one)."""
    body = mail.get_body(("plain",))
    assert body is not None, mail["Subject"]
    return str(body.get_content())


class Mail:
    """Mail to the referee through Dovecot, dated at the test's clock; the replies from aiosmtpd."""

    def __init__(self, dovecot: DovecotServer, user: str, smtp: SmtpSink, clock: ShiftedClock) -> None:
        self.dovecot, self.user, self.smtp, self.clock = dovecot, user, smtp, clock
        self.count = 0

    async def send(self, body: str, sender: str = ANN, name: str = "Ann", vouched: bool = True) -> str:
        """``sender`` mails ``body`` (vouched for by the receiving server, or not); the referee's reply."""
        self.count += 1
        mid = f"<sub{self.count}@example.org>"
        raw = message(body, sender=sender, name=name, subject="game", message_id=mid, when=self.clock.now(),
                      vouched_by=TRUSTED_SERVER if vouched else None)  # fmt: skip
        client = IMAPClient(self.dovecot.host, port=self.dovecot.port, ssl=False, timeout=10)
        try:
            client.login(self.user, PASSWORD)
            client.append("INBOX", raw, msg_time=self.clock.now())  # the server's arrival time
        finally:
            client.logout()
        await eventually(lambda: len(replies_to(self.smtp, mid)) == 1, timeout=20)
        return replies_to(self.smtp, mid)[0]

    def bodies(self, recipient: str, subject: str) -> list[str]:
        found = [r.message for r in self.smtp.messages()
                 if recipient in r.recipients and subject in str(r.message["Subject"])]  # fmt: skip
        return [plain_text(m) for m in found]

    def every_line_fits(self) -> int:
        """Every line of every mail sent fits 78 display columns; how many mails there were."""
        sent = self.smtp.messages()
        for received in sent:
            for line in plain_text(received.message).splitlines():
                assert display_width(line) <= 78, line
        return len(sent)


def one_line(text: str) -> str:
    return " ".join(text.split())


def offer_buttons(world: World, who: str) -> list[tuple[dict[str, Any], str]]:
    """(message, custom id) of every take button in the DMs to ``who``."""
    return [(m, b["custom_id"]) for m in world.fake.dm_messages(world.user(who)["id"])
            for row in m.get("components", []) for b in row.get("components", [])
            if b.get("custom_id", "").startswith("take:")]  # fmt: skip


async def click(world: World, who: str, button: tuple[dict[str, Any], str]) -> str:
    """``who`` presses the button; the private answer, on one line."""
    message_, custom = button
    interaction = await world.fake.click(custom, message_, world.user(who))
    await world.fake.wait_for_callback(interaction)
    [reply, *_] = await world.fake.wait_for_replies(interaction)
    assert reply["flags"] == 64, reply
    return one_line(reply["content"])


async def gm(world: World, who: dict[str, Any], sub: str, options: dict[str, Any]) -> str:
    """``/gm <sub> ...`` from ``who``; the reply, on one line."""
    sent = await world.fake.slash("gm", options, who, subcommand=sub)
    [reply, *_] = await world.fake.wait_for_replies(sent)
    assert reply["flags"] == 64, reply
    return one_line(reply["content"])


def dms(world: World, who: str, needle: str) -> list[str]:
    return [m["content"] for m in world.fake.dm_messages(world.user(who)["id"]) if needle in m["content"]]


def seat_row(world: World, seat: str, game: str = GAME) -> tuple[str, int, str | None, bool]:
    """(holder's display name, offer round, the waiting candidate's name, whether the seat is up)."""
    with unit_of_work(world.sessions) as session:
        row = next(s for s in session.scalars(select(Game).where(Game.slug == game)).one().seats if s.name == seat)
        candidate = session.get(Player, row.candidate_id) if row.candidate_id is not None else None
        return (row.player.display_name, row.offer_round, candidate.display_name if candidate else None,
                row.offered_at is not None)  # fmt: skip


def turn_record(world: World, turn: int, game: str = GAME) -> TurnRecord:
    with unit_of_work(world.sessions) as session:
        game_id = session.scalars(select(Game.id).where(Game.slug == game)).one()
        return session.scalars(
            select(TurnRecord).where(TurnRecord.game_id == game_id, TurnRecord.turn_number == turn)
        ).one()


def record_of(world: World, channel: str, address: str) -> Reliability:
    with unit_of_work(world.sessions) as session:
        player = find_player(session, c.Sender(channel, address, ""))
        assert player is not None, address
        return reliability_of(session, [player.id])[player.id]


def templates_sent(world: World, template: str) -> list[str]:
    """``recipient (channel)`` of each outbox row of ``template``."""
    with unit_of_work(world.sessions) as session:
        rows = session.scalars(select(OutboxMessage).where(OutboxMessage.template == template)).all()
        return sorted(f"{row.recipient} ({row.channel})" for row in rows)


TURN = timedelta(minutes=30)
"""The games' turns: short, since Dovecot dates no mail more than two hours ahead of its own clock (the
mail of each test is sent within four turns of the start)."""


async def pass_deadline(world: World) -> list[tuple[str, int]]:
    """A turn and a minute later, the deadline worker's pass (the test runs it, as ``referee serve`` would)."""
    world.harness.clock.advance(TURN + timedelta(minutes=1))
    return await asyncio.to_thread(DeadlineWorker(world.harness.service, world.harness.clock).run_once_sync)


async def order_on_discord(world: World, rng: random.Random, names: tuple[str, ...], game: str = GAME) -> None:
    for name in names:
        text = example_orders(world.sessions, game, name, rng)
        [reply, *_] = await world.command(name, "orders", {"game": game, "text": text})
        assert "ORDERS ACCEPTED" in reply["content"], reply["content"]


async def test_a_seat_missed_twice_is_put_up_taken_by_button_accepted_by_the_gm_and_played_on(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None,
    dovecot: DovecotServer, smtp: SmtpSink, tmp_path: Any,
) -> None:  # fmt: skip
    clock = ShiftedClock()
    base = Harness(sqlite_sessions)
    config = dataclasses.replace(base.config, public_channels=("discord",), status_channels=("discord",))
    harness = Harness(sqlite_sessions, clock=clock, config=config)  # type: ignore[arg-type]
    user = dovecot.new_user()
    settings = settings_for(str(tmp_path / "discord.sqlite3"), dovecot, user, smtp, intake_poll_seconds=0.5)
    mail = Mail(dovecot, user, smtp, clock)
    rng = random.Random(7)
    async with running_world(fake_discord, sqlite_sessions, harness) as world, \
            mail_workers(settings, sqlite_sessions, clock):  # fmt: skip
        gail = fake_discord.add_member("Gail", roles=(fake_discord.gm_role_id,))
        world.users["Gail"] = gail
        made = await gm(world, gail, "create", {"kind": "golden-strider", "game": GAME, "seats": 6, "schedule": "30m",
                                                "time_zone": "UTC", "substitute_after": 2})  # fmt: skip
        assert f"CREATED {GAME}" in made, made
        joined = await mail.send(f"JOIN {GAME} AS Ann")
        assert f"JOINED {GAME}" in joined, joined
        [ann_password] = re.findall(r"Your seat password: (\S+)", joined)
        for name in ON_DISCORD:
            [reply, *_] = await world.command(name, "join", {"game": GAME, "name": name})
            assert f"JOINED {GAME}" in reply["content"], reply["content"]
        assert f"STARTED {GAME}" in await gm(world, gail, "start", {"game": GAME})
        for name, kind in (("Zed", "golden-strider"), ("Yan", "all")):
            [listed, *_] = await world.command(name, "standby", {"kind": kind})
            assert "You will be offered every seat" in one_line(listed["content"]), listed["content"]

        # Ann misses turns 0 and 1; the others order.  After the first, nothing; after the second, her seat is up.
        await order_on_discord(world, rng, ON_DISCORD)
        assert await pass_deadline(world) == [(GAME, 0)]
        assert templates_sent(world, "seat_offer") == []
        await order_on_discord(world, rng, ON_DISCORD)
        assert await pass_deadline(world) == [(GAME, 1)]
        assert turn_record(world, 1).defaulted == ["Ann"]
        assert seat_row(world, "Ann") == ("Ann", 1, None, True)
        await world.delivered()
        [(zed_dm, zed_button)] = offer_buttons(world, "Zed")
        [(_, yan_button)] = offer_buttons(world, "Yan")
        assert zed_button == yan_button == f"take:1:{GAME}:Ann"
        offer = one_line(zed_dm["content"])
        assert "Seat Ann of Golden Strider game sub1 needs a new player: Ann missed 2 turns in a row." in offer, offer
        assert "the first to ask has it once a game master accepts" in offer
        assert "/standby kind:golden-strider off:True stops these offers, kind:all off:True every offer." in offer, (
            offer
        )
        assert all(offer_buttons(world, name) == [] for name in ON_DISCORD)  # seated: not offered their own game
        posts = one_line("\n".join(thread_reports(world, GAME)))
        assert "Seat Ann of Golden Strider game sub1 needs a new player" in posts, posts
        assert "/take game:sub1 seat:Ann to take it over" in posts
        assert "the referee put seat Ann up for a substitute" in posts  # the turn's report announces it
        await eventually(lambda: bool(mail.bodies(ANN, "is offered to a substitute")), timeout=20)
        [put_up] = mail.bodies(ANN, "is offered to a substitute")
        assert "orders you send still count" in one_line(put_up), put_up

        # Ann still holds the seat until someone takes it: her orders for turn 2 count for now.
        ann_orders = example_orders(world.sessions, GAME, "Ann", rng)
        accepted = await mail.send(f"ORDERS {GAME}\n{ann_orders}\nPASSWORD {ann_password}")
        assert "ORDERS ACCEPTED" in accepted, accepted

        # A forged STAND IN (a From line nobody vouches for) is refused and changes nothing.
        forged = await mail.send(f"STAND IN {GAME} Ann", sender="mallory@example.net", name="Mallory", vouched=False)
        assert "your address could not be verified" in one_line(forged), forged
        assert "NOT UNDERSTOOD > STAND IN sub1 your address could not be verified" in one_line(forged)
        assert seat_row(world, "Ann") == ("Ann", 1, None, True)

        # Zed clicks; Yan's click on Zed's button is Yan's TAKE, refused: the seat is spoken for.
        waiting = await click(world, "Zed", (zed_dm, zed_button))
        assert "the seat Ann is yours once a game master of sub1 accepts" in waiting, waiting
        spoken = await click(world, "Yan", (zed_dm, zed_button))
        assert "someone offered to take Ann of sub1 first" in spoken, spoken
        assert seat_row(world, "Ann") == ("Ann", 1, "Zed", True)
        await world.delivered()
        [candidate] = dms(world, "Gail", "offers to take seat Ann")
        assert "/gm substitute game:sub1 seat:Ann action:accept" in one_line(candidate), candidate

        # The GM withdraws the offer and makes it again: the first offer's button is stale.
        withdrawn = await gm(world, gail, "substitute", {"game": GAME, "seat": "Ann", "action": "withdraw",
                                                         "reason": "asked too soon"})  # fmt: skip
        assert "Seat Ann is no longer up for a substitute." in withdrawn, withdrawn
        again = await gm(world, gail, "substitute", {"game": GAME, "seat": "Ann", "reason": "Ann is away"})
        assert "Seat Ann is up for a substitute: 2 players on the standby list were told" in again, again
        assert "/gm substitute game:sub1 seat:Ann action:accept (or action:decline)" in again, again
        assert seat_row(world, "Ann") == ("Ann", 2, None, True)
        await world.delivered()
        assert dms(world, "Zed", "is no longer up for a substitute")  # told his offer lapsed
        stale = await click(world, "Zed", (zed_dm, zed_button))
        assert "that offer of seat Ann in sub1 is over; nothing was changed" in stale, stale
        assert seat_row(world, "Ann") == ("Ann", 2, None, True)
        [_, fresh] = offer_buttons(world, "Zed")
        assert fresh[1] == f"take:2:{GAME}:Ann"
        assert "the seat Ann is yours once a game master of sub1 accepts" in await click(world, "Zed", fresh)
        given = await gm(world, gail, "substitute", {"game": GAME, "seat": "Ann", "action": "accept"})
        assert "Seat Ann now belongs to Zed, who was sent a seat secret and a briefing" in given, given
        assert seat_row(world, "Ann") == ("Zed", 2, None, False)

        # Zed's briefing: the seat secret, Ann's orders on file, the seat's reports; Ann is told by mail.
        await world.delivered()
        briefing = one_line("\n".join(dms(world, "Zed", "")))
        assert "You have taken over the seat Ann of Golden Strider game sub1." in briefing, briefing
        assert re.search(r"Your seat secret: [a-z]+-[a-z]+-\d{4}", briefing), briefing
        assert "Orders on file for the seat this turn (they count unless you send others):" in briefing
        assert one_line(ann_orders) in briefing
        assert "The seat's last 2 of 2 reports" in briefing and "Turn 0:" in briefing and "Turn 1:" in briefing
        assert "Your record as a player counts this seat from turn 3" in briefing
        await eventually(lambda: bool(mail.bodies(ANN, "has a new player")), timeout=20)
        [taken] = mail.bodies(ANN, "has a new player")
        assert "was offered to a substitute, who has taken it over" in one_line(taken), taken
        late = await mail.send(f"ORDERS {GAME}\n{ann_orders}\nPASSWORD {ann_password}")
        assert "wrong password for game sub1; no orders were accepted" in one_line(late), late  # a fresh one

        # Zed orders turn 2 by /orders: the turn resolves with his orders, then turn 3.
        zed_orders = example_orders(world.sessions, GAME, "Ann", rng)
        [ordered, *_] = await world.command("Zed", "orders", {"game": GAME, "text": zed_orders})
        assert "ORDERS ACCEPTED" in ordered["content"] and "seat Ann" in ordered["content"], ordered["content"]
        await order_on_discord(world, rng, ON_DISCORD)
        assert await pass_deadline(world) == [(GAME, 2)]
        record = turn_record(world, 2)
        assert record.defaulted == [] and one_line(record.orders["Ann"]) == one_line(zed_orders), record.orders
        await world.delivered()
        [commitment] = re.findall(r"Commitment: ((?:[0-9a-f]{4} ){7}[0-9a-f]{4})", ordered["content"])
        [turn_2] = [post for post in thread_reports(world, GAME) if "-- turn 2:" in post]
        assert f"  Ann  {commitment}\n" in turn_2, turn_2  # the report lists Zed's orders for the seat
        assert "the GM gave seat Ann to a substitute" in one_line(turn_2), turn_2
        assert any("Copy for Ann" in m for m in dms(world, "Zed", "-- turn 2:"))  # the seat's copy, to its player
        for name in ("Zed", *ON_DISCORD):
            seat = "Ann" if name == "Zed" else name
            text = example_orders(world.sessions, GAME, seat, rng)
            [reply, *_] = await world.command(name, "orders", {"game": GAME, "text": text})
            assert "ORDERS ACCEPTED" in reply["content"], reply["content"]
        assert await pass_deadline(world) == [(GAME, 3)]
        assert turn_record(world, 3).defaulted == []

        # Ann answers for the turns she missed; Zed for none of the seat's past, nor the turn open when he took it.
        ann = record_of(world, "email", ANN)
        assert (ann.owed, ann.ordered, ann.missed, ann.replaced) == (2, 0, 2, 1), ann
        zed = record_of(world, "discord", world.user("Zed")["id"])
        assert (zed.owed, zed.ordered, zed.missed) == (1, 1, 0), zed
        [mine, *_] = await world.command("Zed", "reliability")
        assert "Turns owed: 1. Ordered in time: 1 (100%). Missed: 0" in one_line(mine["content"]), mine["content"]

        await world.delivered()
        assert mail.every_line_fits() >= 5
        for name in ("Zed", "Yan", "Gail"):  # the DMs' code blocks keep the mail's 78 columns
            for dm in world.fake.dm_messages(world.user(name)["id"]):
                assert all(display_width(line) <= 78 for line in dm["content"].splitlines()), dm["content"]
        assert_no_mail_vocabulary(world.fake)  # Discord speaks slash commands and buttons


async def test_a_mail_player_stands_by_gets_the_offer_by_mail_and_takes_the_seat_by_mail(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None,
    dovecot: DovecotServer, smtp: SmtpSink, tmp_path: Any,
) -> None:  # fmt: skip
    """Bob (vouched) says STANDBY by mail; Mallory's forged STANDBY is refused.  Ben, on Discord, misses a
    turn (``SUBSTITUTE AFTER 1``, ``SUBSTITUTE AUTO yes``): Bob gets the offer by mail, Mallory nothing;
    Bob's STAND IN by mail gives him the seat at once, with its password; Ben is told by DM, the GM by mail;
    Bob's orders by mail count for the seat in the next turn."""
    clock = ShiftedClock()
    base = Harness(sqlite_sessions)
    config = dataclasses.replace(base.config, public_channels=("discord",), status_channels=("discord",))
    harness = Harness(sqlite_sessions, clock=clock, config=config)  # type: ignore[arg-type]
    user = dovecot.new_user()
    settings = settings_for(str(tmp_path / "discord.sqlite3"), dovecot, user, smtp, intake_poll_seconds=0.5)
    mail = Mail(dovecot, user, smtp, clock)
    bob, mallory = "bob@example.org", "mallory@example.net"
    rng = random.Random(11)
    seats = ("Ben", "Cat", "Dan", "Eve", "Fay", "Gus")
    async with running_world(fake_discord, sqlite_sessions, harness) as world, \
            mail_workers(settings, sqlite_sessions, clock):  # fmt: skip
        created = harness.send("GM", c.CreateGame("sub2", "golden-strider", {}, "UTC", TURN.seconds // 60, False, "password",
                                                  seats=6, substitute_after=1, substitute_auto=True))  # fmt: skip
        assert created.applied.results == ("created",), created.reply
        stands = await mail.send("STANDBY golden-strider", sender=bob, name="Bob")
        assert "You will be offered every seat of a golden-strider game" in one_line(stands), stands
        assert "STAND IN <game> <seat> takes one" in one_line(stands)
        forged = await mail.send("STANDBY ALL", sender=mallory, name="Mallory", vouched=False)
        assert "could not be verified" in one_line(forged), forged
        listed = await mail.send("STANDBY", sender=mallory, name="Mallory", vouched=False)
        assert "You are on no standby list." in listed, listed
        for name in seats:
            [reply, *_] = await world.command(name, "join", {"game": "sub2", "name": name})
            assert "JOINED sub2" in reply["content"], reply["content"]
        assert harness.send("GM", c.StartGame("sub2")).applied.results == ("started",)

        await order_on_discord(world, rng, seats[1:], game="sub2")
        assert await pass_deadline(world) == [("sub2", 0)]
        assert seat_row(world, "Ben", "sub2") == ("Ben", 1, None, True)
        assert templates_sent(world, "seat_offer") == [f"{bob} (email)"]  # not Mallory
        await eventually(lambda: bool(mail.bodies(bob, "a seat needs a substitute")), timeout=20)
        [offer] = mail.bodies(bob, "a seat needs a substitute")
        assert "STAND IN sub2 Ben" in offer and "(the first to ask has it)" in one_line(offer), offer

        taken = await mail.send("STAND IN sub2 Ben", sender=bob, name="Bob")
        assert "The seat Ben is yours." in one_line(taken), taken
        assert seat_row(world, "Ben", "sub2") == ("Bob", 1, None, False)
        await eventually(lambda: bool(mail.bodies(bob, "you have the seat Ben")), timeout=20)
        [briefing] = mail.bodies(bob, "you have the seat Ben")
        [password] = re.findall(r"Your seat password: (\S+)", briefing)
        assert "You have taken over the seat Ben of Golden Strider game sub2." in one_line(briefing), briefing
        await eventually(lambda: bool(mail.bodies("gm@example.org", "took over Ben")), timeout=20)
        await world.delivered()
        assert dms(world, "Ben", "is offered to a substitute") and dms(world, "Ben", "has a new player")
        refused = await world.command("Ben", "orders", {"game": "sub2", "text": "play 1"})
        assert "no seat in sub2" in one_line(refused[0]["content"]), refused[0]["content"]

        bob_orders = example_orders(world.sessions, "sub2", "Ben", rng)
        accepted = await mail.send(f"ORDERS sub2\n{bob_orders}\nPASSWORD {password}", sender=bob, name="Bob")
        assert "ORDERS ACCEPTED" in accepted, accepted
        await order_on_discord(world, rng, seats[1:], game="sub2")
        assert await pass_deadline(world) == [("sub2", 1)]
        record = turn_record(world, 1, "sub2")
        assert record.defaulted == [] and one_line(record.orders["Ben"]) == one_line(bob_orders), record.orders
        assert mail.every_line_fits() >= 6
