"""One person by mail and on Discord: ``/link`` through the real discord.py client and real mail.

Ann plays Golden Strider by mail (her JOIN read by the real email intake,
every mail to her sent by the real SMTP sender to an aiosmtpd server).  On
Discord she asks ``/link email:``; the code reaches her mailbox; she gives
it back with ``/link code:``.  Then her setup orders go by mail and her first
race orders on Discord: both count for her one seat, each confirmation is
copied to the other channel, and every report reaches her on both.
"""

from __future__ import annotations

import random
import re
from datetime import timedelta

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from bot.core.intake.inbox import Inbox
from bot.core.messaging.outbox import OutboxDrain
from bot.core.model import commands as c
from bot.core.views import GameViews
from bot.email.processor import MailProcessor
from bot.email.render import MailIdentity
from bot.email.smtp import SmtpConfig, SmtpTransport
from bot.email.transport import MailSender
from bot.email.understand import IntakePolicy
from bot.store.db import unit_of_work
from bot.store.models import OrderSubmission, TurnRecord
from tests.core.harness import SEATS
from tests.discord.test_end_to_end import assert_no_mail_vocabulary
from tests.discord.world import World, running_world
from tests.email.pipeline import deliver, message
from tests.support.fake_discord import FakeDiscord
from tests.support.smtp_sink import Received, SmtpSink
from tests.support.stored import example_orders

pytestmark = pytest.mark.integration

REFEREE = "referee@example.com"
ANN = "ann@example.org"
SETUP = "cards 10 8 6 4 2"


def mail_sender(world: World, sink: SmtpSink) -> MailSender:
    config = SmtpConfig(host=sink.host, port=sink.port, security="none", envelope_from=REFEREE, timeout=5)
    return MailSender(OutboxDrain(world.sessions), SmtpTransport(config), world.harness.clock,
                      MailIdentity(REFEREE, "Referee"), interval=0.05, retry_min=0.05, retry_max=0.2)  # fmt: skip


async def mailed(world: World, sink: SmtpSink, sender: MailSender, before: int) -> list[Received]:
    """Send every mail due, then return those that reached the server after the first ``before``."""
    result = await sender.drain_all()
    assert result.failed == 0
    return sink.messages()[before:]


def to_ann(received: list[Received]) -> list[Received]:
    assert all(r.recipients == (ANN,) for r in received if ANN in r.recipients)
    return [r for r in received if r.recipients == (ANN,)]


def body(received: Received) -> str:
    content = received.message.get_body(("plain",)).get_content()  # a report carries deadline.ics beside it
    assert isinstance(content, str)
    return content


async def test_linked_by_mail_and_discord_orders_from_either_count_and_both_get_everything(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None, smtp: SmtpSink
) -> None:
    async with running_world(fake_discord, sqlite_sessions) as world:
        harness = world.harness
        processor = MailProcessor(Inbox(world.sessions), harness.service, harness.clock,
                                  IntakePolicy(own_addresses=frozenset({REFEREE})))  # fmt: skip
        sender = mail_sender(world, smtp)
        harness.send("GM", c.CreateGame("gs1", "golden-strider", {}, "UTC", 60, False, "password"))
        assert deliver(processor, message("JOIN gs1 AS Ann", sender=ANN, subject="join"), key="mail:join").done == 1
        for name in SEATS[1:]:
            [reply, *_] = await world.command(name, "join", {"game": "gs1", "name": name})
            assert "JOINED gs1" in reply["content"]
        assert "started" in harness.send("GM", c.StartGame("gs1")).applied.results
        [joined] = [r for r in to_ann(await mailed(world, smtp, sender, 0)) if "JOINED gs1" in body(r)]
        password = re.search(r"Your seat password: (\S+)", body(joined)).group(1)  # type: ignore[union-attr]
        seen = len(smtp.messages())

        # On Discord: /link alone says how; /link email: mails the code.
        [how, *_] = await world.command("Ann", "link")
        assert "/link email:" in how["content"] and "/link code:" in how["content"]
        [bad, *_] = await world.command("Ann", "link", {"email": "Ann at example"})
        assert "'Ann at example' is not an email address" in " ".join(bad["content"].split()), bad["content"]
        [asked, *_] = await world.command("Ann", "link", {"email": "Ann@Example.org"})
        assert "A code was sent to ann@example.org" in " ".join(asked["content"].split()), asked["content"]
        assert asked["flags"] == 64
        [code_mail] = to_ann(await mailed(world, smtp, sender, seen))
        seen = len(smtp.messages())
        assert code_mail.message["Subject"] == "Your code to link this address with discord"
        text = body(code_mail)
        assert all(len(line) <= 78 for line in text.splitlines())
        code = re.search(r"/link code:(\S+)", text).group(1)  # type: ignore[union-attr]
        [wrong, *_] = await world.command("Ann", "link", {"code": "ZZZZ-ZZZZ"})
        assert "4 tries left" in wrong["content"]
        [linked, *_] = await world.command("Ann", "link", {"code": code.lower()})
        assert "LINKED email ann@example.org" in linked["content"], linked["content"]
        assert "Your games: gs1" in linked["content"]
        [told] = to_ann(await mailed(world, smtp, sender, seen))
        seen = len(smtp.messages())
        assert told.message["Subject"] == "This address is now linked with discord"

        # The setup by mail (the seat password: mail proves nothing by itself), the rest on Discord.
        orders_mail = message(f"ORDERS gs1\n{SETUP}\nPASSWORD {password}", sender=ANN, subject="setup")
        assert deliver(processor, orders_mail, key="mail:setup").done == 1
        for name in SEATS[1:]:
            [reply, *_] = await world.command(name, "orders", {"game": "gs1", "text": SETUP})
            assert "ORDERS ACCEPTED" in reply["content"]
        assert await world.pass_deadline() == [("gs1", 0)]

        # The first race turn on Discord, Ann included: no password on Discord.
        views = GameViews(world.sessions)
        view = views.game("gs1")
        assert view is not None and view.phase is not None
        rng = random.Random(3)
        race = {seat: example_orders(world.sessions, "gs1", seat, rng) for seat in view.phase.owing}
        for seat, orders in race.items():
            [reply, *_] = await world.command(seat, "orders", {"game": "gs1", "text": orders})
            assert "ORDERS ACCEPTED" in reply["content"], reply["content"]
        harness.clock.advance(timedelta(seconds=1))
        assert await world.pass_deadline() == [("gs1", 1)]
        await world.delivered()
        mails = to_ann(await mailed(world, smtp, sender, seen))

        with unit_of_work(world.sessions) as session:
            turns = session.scalars(select(TurnRecord).order_by(TurnRecord.turn_number)).all()
            assert [t.turn_number for t in turns] == [0, 1]
            counted = session.scalars(select(OrderSubmission).where(
                OrderSubmission.seat_name == "Ann", OrderSubmission.current).order_by(OrderSubmission.turn_number)
            ).all()  # fmt: skip
            assert [s.turn_number for s in counted] == [0, 1]
            assert not counted[0].source_id.startswith("discord:")  # the mail's
            assert counted[1].source_id.startswith("discord:")
            for turn, submission in zip(turns, counted, strict=True):
                assert "Ann" not in turn.defaulted  # counted, not the no-moves-received rule
                assert turn.orders["Ann"] == submission.canonical_text

        # Each confirmation reached the other channel; each report reached both.
        dms = [m["content"] for m in fake_discord.dm_messages(world.user("Ann")["id"])]
        assert sum("orders for Ann accepted (from email)" in m for m in dms) == 1
        assert sum("\nCopy for Ann\n" in m for m in dms) == 2
        subjects = [r.message["Subject"] for r in mails]
        assert subjects.count("[gs1] orders for Ann accepted (from discord)") == 1
        reports = [r for r in mails if "Copy for Ann" in body(r)]
        assert len(reports) == 2, subjects
        assert all(len(line) <= 78 for r in mails for line in body(r).splitlines())
        assert_no_mail_vocabulary(fake_discord)  # Discord speaks slash commands, even in the copies of mail orders
