"""Grey press between a mail player and Discord players, end to end against the real servers.

Ann plays by mail: what she sends is appended to Dovecot and read by the real
IMAP intake that ``referee serve`` runs; what she gets is sent by the real SMTP
sender to aiosmtpd.  Ben, Cat, Dan, Eve and Fay play on Discord: ``/press`` goes
through the real discord.py client and command tree against the fake Discord,
and press reaches them by DM through the bot's Discord delivery.

Ben writes to Ann anonymously: her mail names no sender (not his seat, his
member name or his Discord id), the game master's copy names him.  Ann answers
by replying to the mail (the subject's tag): the answer reaches Ben by DM,
and she never learns who he is.  Ann's own ``PRESS`` by mail reaches Cat by DM.
"""

from __future__ import annotations

import asyncio
import re
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import update
from sqlalchemy.orm import Session, sessionmaker

from bot.core.basics.clock import SimulatedClock
from bot.core.basics.display_width import display_width
from bot.core.model import commands as c
from bot.core.runtime import supervisor
from bot.host.wiring import workers
from bot.settings.loader import Settings
from bot.store.db import unit_of_work
from bot.store.models import Seat
from tests.discord.world import World, running_world
from tests.email.mailboxes import append, eventually
from tests.email.pipeline import message
from tests.email.world import cheap_hash
from tests.support.dovecot import PASSWORD, DovecotServer
from tests.support.fake_discord import FakeDiscord
from tests.support.smtp_sink import Received, SmtpSink

pytestmark = pytest.mark.integration

REFEREE = "referee@example.com"
ANN = "ann@example.org"
GM = "gm@example.org"
DISCORD_SEATS = ("Ben", "Cat", "Dan", "Eve", "Fay")


def text_of(received: Received) -> str:
    content = received.message.get_body(("plain",)).get_content()
    assert isinstance(content, str)
    assert all(display_width(line) <= 78 for line in content.splitlines()), content
    return content


def dm_text(fake: FakeDiscord, user: dict) -> str:
    return "\n".join(str(m.get("content") or "") for m in fake.dm_messages(user["id"]))


async def mail_to(smtp: SmtpSink, address: str, subject_part: str, after: int = 0) -> Received:
    """The first mail to ``address`` whose subject has ``subject_part``, among those after the first ``after``."""

    def found() -> Received | None:
        return next((m for m in smtp.messages()[after:] if m.recipients == (address,)
                     and subject_part in str(m.message["Subject"])), None)  # fmt: skip

    await eventually(lambda: found() is not None, timeout=20)
    received = found()
    assert received is not None
    return received


async def test_grey_press_between_mail_and_discord_hides_the_sender_and_replies_reach_them(
    fake_discord: FakeDiscord,
    sqlite_sessions: sessionmaker[Session],
    discord_endpoints: None,
    smtp: SmtpSink,
    dovecot: DovecotServer,
    tmp_path: Path,
) -> None:
    imap_user = dovecot.new_user()
    async with running_world(fake_discord, sqlite_sessions) as world:
        harness = world.harness
        create = c.CreateGame("gs1", "golden-strider", {}, "UTC", 60, False, "password", press="grey")
        assert harness.send("GM", create).applied.problems == ()
        joined = harness.send("Ann", c.JoinGame("gs1", "Ann"))
        password = re.search(r"Your seat password: (\S+)", joined.reply or "").group(1)  # type: ignore[union-attr]
        with unit_of_work(sqlite_sessions) as session:  # as in the mail tests' world: a hash any key reads
            session.execute(update(Seat).where(Seat.name == "Ann").values(secret_hash=cheap_hash(password)))
        for name in DISCORD_SEATS:
            [reply, *_] = await world.command(name, "join", {"game": "gs1", "name": name})
            assert "JOINED gs1" in reply["content"]
        assert "STARTED" in (harness.send("GM", c.StartGame("gs1")).reply or "")
        ben, cat = world.user("Ben"), world.user("Cat")

        # to: autocompletes ALL and the game's seats, then the next seat after a comma
        async def choices(typed: str) -> list[str]:
            asked = await fake_discord.autocomplete("press", {"game": "gs1", "text": "x", "to": typed}, "to", ben)
            return [choice["value"] for choice in (await fake_discord.wait_for_callback(asked))["data"]["choices"]]

        assert await choices("") == ["ALL", "Ann", "Ben", "Cat", "Dan", "Eve", "Fay"]
        assert await choices("Ann, ca") == ["Ann, Cat"]

        settings = Settings().merged(
            {
                "database": str(tmp_path / "discord.sqlite3"), "mail_domain": "example.com", "bot_address": REFEREE,
                "imap_host": dovecot.host, "imap_port": dovecot.port, "imap_security": "none",
                "imap_user": imap_user, "imap_password": PASSWORD, "smtp_host": smtp.host, "smtp_port": smtp.port,
                "smtp_security": "none", "send_interval_seconds": 0.05, "intake_poll_seconds": 0.2,
            }
        )  # fmt: skip
        stop = asyncio.Event()
        mail_task = asyncio.create_task(
            supervisor.serve(workers(settings, sqlite_sessions, SimulatedClock(harness.clock.now())), stop)
        )
        try:
            # Ben, on Discord, writes to Ann anonymously.
            [sent, *_] = await world.command(
                "Ben", "press", {"game": "gs1", "to": "Ann", "text": "Psst, Ann. Shall we box Cat in?", "anonymous": True}
            )  # fmt: skip
            assert "anonymously" in sent["content"] and sent["flags"] == 64
            press = await mail_to(smtp, ANN, "[gs1 press ")
            subject = str(press.message["Subject"])
            body = text_of(press)
            assert "Psst, Ann. Shall we box Cat in?" in body and "Anonymous press in gs1" in body
            for trace in ("Ben", str(ben["id"]), ben["username"]):
                assert trace not in body and trace not in subject and trace.encode() not in press.message.as_bytes()
            code = re.search(r"\[gs1 press ([A-Z0-9]{4})\]", subject).group(1)  # type: ignore[union-attr]
            copy = text_of(await mail_to(smtp, GM, f"copy of press {code}"))
            assert "from Ben (sent anonymously" in copy and "Shall we box Cat in?" in copy

            # Ann replies to the mail: the tag in the subject takes her answer to the sender.
            before = len(smtp.messages())
            append(dovecot, imap_user, message(
                f"Who is this? Still, yes.\nPASSWORD {password}\n\nOn Tue, Referee wrote:\n> Psst, Ann.\n",
                sender=ANN, name="Ann", subject=f"Re: {subject}"))  # fmt: skip
            answered = await mail_to(smtp, ANN, "Re: ", before)
            assert f"passed to the sender of {code}" in " ".join(text_of(answered).split())
            assert "Ben" not in text_of(answered)

            async def reached(user: dict, words: str) -> None:
                for _ in range(100):
                    await world.delivered()
                    if words in dm_text(fake_discord, user):
                        return
                    await asyncio.sleep(0.1)
                raise AssertionError(f"no DM with {words!r}: {dm_text(fake_discord, user)!r}")

            await reached(ben, "Who is this? Still, yes.")
            dm = dm_text(fake_discord, ben)
            assert "from Ann" in dm and f"In reply to your press {code}" in dm and "Psst" not in dm
            assert "/press game:gs1 reply:" in dm  # Discord's own words, not the mail's

            # Ann's own press by mail reaches Cat by DM, signed.
            hostile = "Cat, watch Ben. @everyone ``` **now**"
            append(dovecot, imap_user, message(f"PRESS gs1 TO Cat\n{hostile}\nPASSWORD {password}\n",
                                               sender=ANN, name="Ann", subject="press"))  # fmt: skip
            await reached(cat, "Cat, watch Ben.")
            said = dm_text(fake_discord, cat)
            assert "Press in gs1 from Ann to Cat" in " ".join(said.split()) and ANN not in said
            assert "@everyone `\u200b`\u200b` **now**" in said  # inside the code block, no fence can close it
        finally:
            stop.set()
            await asyncio.wait_for(mail_task, 20)
        harness.clock.advance(timedelta(seconds=1))
    assert isinstance(world, World)
