"""Deadlines and board pictures by mail, through the real mail path (intake, core, outbox, SMTP).

Commands arrive as mail (``CALENDAR``, ``PICTURES ON``), are read by the mail
vocabulary and applied by the core; everything sent goes through the email
sender and aiosmtpd (:class:`tests.support.smtp_sink.SmtpSink`), and the
received bytes are parsed as a mail client would: the ``deadline.ics`` part
with ``icalendar``, the ``board.png`` part by its PNG signature.
"""

from __future__ import annotations

import json
from datetime import timedelta
from email.message import EmailMessage

import pytest
from icalendar import Calendar
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from bot.core.basics.clock import SimulatedClock
from bot.core.games.stored import find_game
from bot.core.intake.inbox import Inbox
from bot.core.intake.reply_limit import ReplyBudget
from bot.core.messaging.outbox import OutboxDrain
from bot.core.model import commands as c
from bot.core.model.config import ServiceConfig
from bot.core.runtime.service import GameService
from bot.core.views.calendars import CalendarViews
from bot.email.processor import MailProcessor, ReplyLimit
from bot.email.render import MailIdentity
from bot.email.smtp import SmtpConfig, SmtpTransport
from bot.email.transport import MailSender
from bot.pictures import Picture
from bot.pictures import registry as pictures
from bot.store.db import unit_of_work
from bot.store.models import OutboxMessage
from tests.email.pipeline import POLICY, TRUSTED_SERVER, deliver, message
from tests.email.world import DOMAIN, GM, PLAYERS, REFEREE, START, apply
from tests.support.smtp_sink import SmtpSink

pytestmark = pytest.mark.integration

WEB = "https://referee.example.org"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
WIDTH = 78


def little_board(board):
    """A small drawing for the tests (the real ones arrive with bot.pictures' registry)."""
    return Picture('<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><rect width="8" height="8" '
                   'fill="#2a6"/></svg>', "a green square")  # fmt: skip


class Mail:
    """The service, the mail intake and the mail sender of one referee, with a clock moved by hand."""

    def __init__(self, sessions: sessionmaker[Session], sink: SmtpSink) -> None:
        self.sessions = sessions
        self.sink = sink
        self.clock = SimulatedClock(START)
        self.config = ServiceConfig(message_domain=DOMAIN, game_masters=frozenset({GM}), web_base_url=WEB)
        self.service = GameService(sessions, self.config)
        self.processor = MailProcessor(
            Inbox(sessions), self.service, self.clock, POLICY, ReplyBudget(sessions), ReplyLimit()
        )
        smtp = SmtpConfig(host=sink.host, port=sink.port, security="none", envelope_from=REFEREE, timeout=5)
        self.sender = MailSender(OutboxDrain(sessions), SmtpTransport(smtp), self.clock, MailIdentity(REFEREE),
                                 interval=0.05, retry_min=0.05, retry_max=0.2)  # fmt: skip
        self.seen = 0

    def command(self, address: str, body: str) -> None:
        """A mail from ``address`` (its server vouches for it) read by the real intake."""
        deliver(self.processor, message(body, sender=address, name=address, vouched_by=TRUSTED_SERVER,
                                        when=self.clock.now()))  # fmt: skip

    async def received(self) -> list[EmailMessage]:
        """The mails sent since the last call, as received by the SMTP server."""
        await self.sender.drain_all()
        found = self.sink.messages()[self.seen :]
        self.seen += len(found)
        return [r.message for r in found]


@pytest.fixture
def mail(sessions):
    sink = SmtpSink()
    sink.start()
    try:
        yield Mail(sessions, sink)
    finally:
        sink.close()


def to(mails: list[EmailMessage], address: str, subject: str) -> EmailMessage:
    found = [m for m in mails if m["To"] == address and subject in m["Subject"]]
    assert len(found) == 1, [(m["To"], m["Subject"]) for m in mails]
    return found[0]


def attachment(mail: EmailMessage, filename: str):
    parts = [p for p in mail.iter_attachments() if p.get_filename() == filename]
    return parts[0] if parts else None


def entry_of(mail: EmailMessage):
    part = attachment(mail, "deadline.ics")
    assert part is not None, mail["Subject"]
    assert part.get_content_type() == "text/calendar"
    assert part.get_param("method") == "PUBLISH" and part.get_content_charset() == "utf-8"
    calendar = Calendar.from_ical(part.get_content())
    assert str(calendar["METHOD"]) == "PUBLISH"
    (event,) = calendar.walk("VEVENT")
    return event


def lines_fit(mails: list[EmailMessage]) -> None:
    for mail in mails:
        body = mail.get_body(("plain",))
        assert body is not None
        for line in body.get_content().splitlines():
            assert len(line) <= WIDTH, f"{mail['Subject']}: {len(line)}: {line}"


def deadline(mail: Mail):
    with unit_of_work(mail.sessions) as session:
        game = find_game(session, "cal")
        assert game is not None and game.deadline_at is not None
        return game.deadline_at


def start_game(mail: Mail) -> None:
    apply(mail.service, GM, "Game Master", c.CreateGame("cal", "golden-strider", {}, "Europe/Paris", 60, False,
                                                       "address"))  # fmt: skip
    for name, address in PLAYERS.items():
        apply(mail.service, address, name, c.JoinGame("cal", name))
    apply(mail.service, GM, "Game Master", c.StartGame("cal"))


async def test_the_start_mail_and_a_moved_deadline_carry_the_same_entry(mail):
    """The start mail's ``deadline.ics`` imports, at the deadline; the mail that moves the deadline
    carries the same UID with a higher SEQUENCE (so the calendar updates the entry it holds), as does
    the pause (cancelled) and the resume; every line of every mail fits 78 columns."""
    start_game(mail)
    mails = await mail.received()
    lines_fit(mails)
    joined = to(mails, PLAYERS["Ann"], "Re: your message")  # the JOIN reply: the calendar address, in 78 columns
    assert f"{WEB}/calendars/" in joined.get_body(("plain",)).get_content()
    started = entry_of(to(mails, PLAYERS["Ann"], "has started"))
    assert started.decoded("DTSTART") == deadline(mail)
    assert str(started["UID"]) == f"deadline-cal-0-0@{DOMAIN}" and str(started["STATUS"]) == "CONFIRMED"
    assert str(started["URL"]) == f"{WEB}/games/cal"

    apply(mail.service, GM, "Game Master", c.SetDeadline("cal", "+1d", "a long weekend"))
    mails = await mail.received()
    lines_fit(mails)
    moved = entry_of(to(mails, PLAYERS["Ben"], "the deadline has moved"))
    assert str(moved["UID"]) == str(started["UID"])
    assert int(moved["SEQUENCE"]) > int(started["SEQUENCE"])
    assert moved.decoded("DTSTART") == deadline(mail) == started.decoded("DTSTART") + timedelta(days=1)

    apply(mail.service, GM, "Game Master", c.PauseGame("cal", "a holiday"))
    paused = entry_of(to(await mail.received(), PLAYERS["Ben"], "paused"))
    assert str(paused["STATUS"]) == "CANCELLED" and int(paused["SEQUENCE"]) > int(moved["SEQUENCE"])
    apply(mail.service, GM, "Game Master", c.ResumeGame("cal", "back"))
    resumed = entry_of(to(await mail.received(), PLAYERS["Ben"], "resumed"))
    assert str(resumed["STATUS"]) == "CONFIRMED" and int(resumed["SEQUENCE"]) > int(paused["SEQUENCE"])
    assert str(resumed["UID"]) == str(started["UID"])


async def test_calendar_by_mail_gives_an_address_that_works(mail):
    start_game(mail)
    await mail.received()
    mail.command(PLAYERS["Cat"], "CALENDAR")
    reply = to(await mail.received(), PLAYERS["Cat"], "Re: orders")
    text = reply.get_body(("plain",)).get_content()
    lines_fit([reply])
    address = next(line.strip() for line in text.splitlines() if line.strip().startswith(f"{WEB}/calendars/"))
    key = address.removeprefix(f"{WEB}/calendars/").removesuffix(".ics")
    views = CalendarViews(mail.sessions, mail.config, mail.clock)
    calendar = views.player_calendar(key)
    assert calendar is not None and b"deadline-cal-0-0@" in calendar
    with unit_of_work(mail.sessions) as session:  # the address is a secret: its row forgets it once sent
        rows = session.scalars(select(OutboxMessage).where(OutboxMessage.recipient == PLAYERS["Cat"])).all()
        assert rows and all(row.sent_at is not None and key not in json.dumps(row.data) for row in rows)
    mail.command(PLAYERS["Cat"], "CALENDAR NEW")
    renewed = to(await mail.received(), PLAYERS["Cat"], "Re: orders").get_body(("plain",)).get_content()
    assert "no longer works" in renewed and key not in renewed
    assert views.player_calendar(key) is None


async def test_pictures_on_puts_the_board_in_report_mails_and_off_takes_it_out(mail, monkeypatch):
    """Ann asks for pictures, Ben does not: only Ann's report carries ``board.png``; once Ann says OFF,
    hers carries none either.  A report carries no calendar entry (the start mail, each moved deadline
    and the private calendar do): most mail is reports, and they stay single plain-text parts."""
    monkeypatch.setitem(pictures.DRAWINGS, "golden-strider", little_board)
    start_game(mail)
    await mail.received()
    mail.command(PLAYERS["Ann"], "PICTURES ON")
    reply = to(await mail.received(), PLAYERS["Ann"], "Re: orders")
    assert "PICTURES ON" in reply.get_body(("plain",)).get_content()

    mail.clock.set(deadline(mail) + timedelta(minutes=1))
    assert mail.service.resolve_due(mail.clock.now()) == [("cal", 0)]
    mails = await mail.received()
    lines_fit(mails)
    ann = to(mails, PLAYERS["Ann"], "turn 0 report")
    board = attachment(ann, "board.png")
    assert board is not None and board.get_content_type() == "image/png"
    assert board.get_content().startswith(PNG_SIGNATURE)
    ben = to(mails, PLAYERS["Ben"], "turn 0 report")
    assert attachment(ben, "board.png") is None and not ben.is_multipart()
    assert attachment(ann, "deadline.ics") is None

    mail.command(PLAYERS["Ann"], "PICTURES OFF")
    await mail.received()
    mail.clock.set(deadline(mail) + timedelta(minutes=1))
    assert mail.service.resolve_due(mail.clock.now()) == [("cal", 1)]
    assert attachment(to(await mail.received(), PLAYERS["Ann"], "turn 1 report"), "board.png") is None


async def test_no_drawing_no_picture(mail, monkeypatch):
    """A kind without a drawing gives no attachment, and the report still goes."""
    monkeypatch.delitem(pictures.DRAWINGS, "golden-strider", raising=False)
    start_game(mail)
    mail.command(PLAYERS["Ann"], "PICTURES ON")
    await mail.received()
    mail.clock.set(deadline(mail) + timedelta(minutes=1))
    mail.service.resolve_due(mail.clock.now())
    assert attachment(to(await mail.received(), PLAYERS["Ann"], "turn 0 report"), "board.png") is None


async def test_calendar_without_web_pages_says_so(sessions):
    sink = SmtpSink()
    sink.start()
    try:
        mail = Mail(sessions, sink)
        mail.config = ServiceConfig(message_domain=DOMAIN, game_masters=frozenset({GM}))
        mail.service = GameService(sessions, mail.config)
        mail.processor = MailProcessor(Inbox(sessions), mail.service, mail.clock, POLICY, ReplyBudget(sessions),
                                       ReplyLimit())  # fmt: skip
        mail.command(PLAYERS["Dan"], "CALENDAR")
        (reply,) = await mail.received()
        text = reply.get_body(("plain",)).get_content()
        assert "no web pages" in " ".join(text.split()) and "/calendars/" not in text
        lines_fit([reply])
    finally:
        sink.close()
