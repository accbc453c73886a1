"""No secret rests in the database: after a password game played by mail, the SQLite file and its
write-ahead log hold no seat password, GM password or link code.

Everything runs as ``referee serve`` runs it (:func:`bot.host.wiring.workers`: IMAP
intake against Dovecot, the SMTP sender against aiosmtpd, the deadline
worker).  The game master creates a password game by mail and is mailed the
GM password; players join by mail and are mailed their seat passwords; the
GM starts the game with the GM password; the players send their orders with
``PASSWORD`` lines (one in base64, one quoting the mail that gave the
password, one with the password in the subject too); a Discord member asks
to link an address, which is mailed a link code, mailed back (refused: it
is given on Discord) and then given on Discord.  Then the hourly
housekeeping runs as the deadline worker runs it, and every secret is looked
for, byte for byte in any case, in the database file and in its log.
"""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from email import policy
from email.message import EmailMessage
from email.utils import format_datetime, formataddr
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from bot.core.model import commands as c
from bot.core.model.config import ServiceConfig
from bot.core.people.seat_secrets import load_secret_key
from bot.core.runtime.housekeeping import Housekeeping
from bot.core.runtime.service import GameService
from bot.email.redact import BODY_REMOVED
from bot.store.db import make_engine, session_factory, unit_of_work
from bot.store.models import InboundMessage, OutboxMessage
from tests.email.mailboxes import append, eventually
from tests.email.test_deadlines import replies_to, serving, settings_for
from tests.email.world import REFEREE
from tests.support.database import migrated_sqlite
from tests.support.dovecot import DovecotServer
from tests.support.smtp_sink import SmtpSink

pytestmark = pytest.mark.integration

GM = "gm@example.org"
GAME = "vault"
SEATS = ("Ann", "Ben", "Cat", "Dan", "Eve", "Fay")
MORE_ORDERS = {"Dan": "cards 8 8 8 4 2", "Eve": "cards 7 7 7 7 2", "Fay": "cards 6 6 6 6 6"}
AUTHSERV = "mx.example.com"
DISCORD_USER = "424242424242"
_IDS = itertools.count(1)


def address(seat: str) -> str:
    return f"{seat.lower()}@example.org"


def mail(body: str, sender: str, subject: str, message_id: str, cte: str | None = None) -> bytes:
    """A plain text mail from ``sender``, vouched for by the receiving server (dmarc=pass)."""
    message = EmailMessage(policy=policy.SMTP)
    domain = sender.split("@")[1]
    message["Authentication-Results"] = f"{AUTHSERV}; dmarc=pass header.from={domain}; dkim=pass header.d={domain}"
    message["Return-Path"] = f"<{sender}>"
    message["From"] = formataddr((sender.split("@")[0].title(), sender))
    message["To"] = REFEREE
    message["Subject"] = subject
    message["Date"] = format_datetime(datetime.now(UTC))
    message["Message-ID"] = message_id
    message.set_content(body, cte=cte)
    return message.as_bytes()


class Post:
    """Mails the referee through Dovecot; reads its replies at the SMTP sink."""

    def __init__(self, dovecot: DovecotServer, user: str, smtp: SmtpSink) -> None:
        self.dovecot, self.user, self.smtp = dovecot, user, smtp

    async def send_all(self, mails: list[tuple[str, str]], subject: str = "game", cte: str | None = None) -> list[str]:
        """Mail each (body, sender) at once; the referee's replies, in the same order."""
        ids = [f"<rest{next(_IDS)}@example.org>" for _ in mails]
        raws = [mail(body, sender, subject, mid, cte) for (body, sender), mid in zip(mails, ids, strict=True)]
        append(self.dovecot, self.user, *raws)
        await eventually(lambda: all(len(replies_to(self.smtp, mid)) == 1 for mid in ids))
        return [replies_to(self.smtp, mid)[0] for mid in ids]

    async def send(self, body: str, sender: str = GM, subject: str = "game", cte: str | None = None) -> str:
        return (await self.send_all([(body, sender)], subject, cte))[0]


def after(text: str, label: str) -> str:
    return text.split(label)[1].split()[0]


def found_in(path: Path, secret: str) -> list[str]:
    """Which of the database's files hold ``secret`` (as written, upper or lower case)."""
    files = [path, Path(f"{path}-wal"), Path(f"{path}-journal")]
    forms = {secret.encode(), secret.upper().encode(), secret.lower().encode()}
    return [f.name for f in files if f.exists() and any(form in f.read_bytes() for form in forms)]


@pytest.fixture
def store(tmp_path: Path) -> tuple[str, sessionmaker[Session]]:
    path = str(tmp_path / "referee.sqlite3")
    migrated_sqlite(path)
    engine = make_engine(path)
    yield path, session_factory(engine)
    engine.dispose()


async def test_after_a_password_game_by_mail_the_database_and_its_log_hold_no_secret(dovecot, imap_user, smtp, store):
    path, sessions = store
    settings = settings_for(
        path, dovecot, imap_user, smtp, game_masters=GM, deadline_check_seconds=0.2, intake_poll_seconds=0.5,
        email_trusted_authserv_ids=AUTHSERV,
    )  # fmt: skip
    # A Discord member, as the Discord runtime applies their commands (the same key as the referee's).
    discord = GameService(sessions, ServiceConfig(
        message_domain="example.com", secret_key=load_secret_key(settings.store.secret_key, settings.store.secret_key_file, path)
    ))  # fmt: skip
    member = c.Sender("discord", DISCORD_USER, "Ann on Discord")
    post = Post(dovecot, imap_user, smtp)
    async with serving(settings, sessions):
        created = await post.send("SEATS 6\nSCHEDULE 2d\nREMINDERS none\n", subject=f"CREATE {GAME} golden-strider")
        assert f"CREATED {GAME}" in created, created
        gm_password = after(created, "Your game master password: ")
        joined = await post.send_all([(f"JOIN {GAME} AS {seat}\n", address(seat)) for seat in SEATS])
        passwords = {seat: after(reply, "Your seat password: ") for seat, reply in zip(SEATS, joined, strict=True)}
        started = await post.send(f"START {GAME}\nPASSWORD {gm_password}\n")
        assert f"STARTED {GAME}" in started or "started" in started.lower(), started

        ann, ben = await post.send_all([
            (f"ORDERS {GAME}\ncards 10 8 6 4 2\nPASSWORD {passwords['Ann']}\n", address("Ann")),
            # quoting the mail that gave the password
            (f"ORDERS {GAME}\ncards 9 8 7 4 2\nPASSWORD {passwords['Ben']}\n\n> {joined[1].replace(chr(10), chr(10) + '> ')}",
             address("Ben")),
        ])  # fmt: skip
        cat = await post.send(  # in base64: the secret is not in the mail's bytes as typed
            f"ORDERS {GAME}\ncards 10 10 5 3 2\nPASSWORD {passwords['Cat'].upper()}\n", address("Cat"), cte="base64"
        )
        others = await post.send_all([
            (f"ORDERS {GAME}\n{orders}\nPASSWORD {passwords[seat]}\n", address(seat)) for seat, orders in MORE_ORDERS.items()
        ])  # fmt: skip
        for reply in (ann, ben, cat, *others):
            assert "ORDERS ACCEPTED" in reply, reply
        moved = await post.send(f"STATUS {GAME}\n", address("Ann"), subject=f"PASSWORD {passwords['Ann']}")
        assert GAME in moved

        requested = discord.apply(c.Envelope(member, (c.RequestLink("email", address("Ann")),), "discord:1",
                                             datetime.now(UTC), trust=c.Trust.VERIFIED))  # fmt: skip
        assert requested.results == ("link_sent",)
        await eventually(lambda: any(b"Your code: " in r.raw for r in smtp.messages()))
        code_mail = next(r.message for r in smtp.messages() if b"Your code: " in r.raw)
        code = after(code_mail.get_content(), "Your code: ")
        by_mail = await post.send(f"LINK CODE {code}\n", address("Ann"))
        assert "/link code:" in by_mail
        confirmed = discord.apply(c.Envelope(member, (c.ConfirmLink(code),), "discord:2", datetime.now(UTC),
                                             trust=c.Trust.VERIFIED))  # fmt: skip
        assert confirmed.results == ("linked",), confirmed
        await eventually(lambda: _all_email_sent(sessions))

    with unit_of_work(sessions) as session:  # the mail was kept (for support), only without its secrets
        kept = session.scalars(select(InboundMessage.raw)).all()
    assert len(kept) == 16 and all(kept)
    masked = b"cards 10 8 6 4 2\r\nPASSWORD " + b"*" * len(passwords["Ann"])
    assert any(masked in raw for raw in kept)  # same shape: the mail reads as it came, the secret masked
    assert sum(raw.endswith(BODY_REMOVED) for raw in kept) == 1  # the base64 one: its headers only
    Housekeeping(sessions, timedelta(days=21)).run(datetime.now(UTC))  # as the deadline worker runs it hourly
    secrets = {"gm": gm_password, **passwords, "code": code}
    assert len(set(secrets.values())) == len(secrets)
    leaks = {name: found_in(Path(path), secret) for name, secret in secrets.items()}
    assert leaks == {name: [] for name in secrets}


def _all_email_sent(sessions: sessionmaker[Session]) -> bool:
    with unit_of_work(sessions) as session:
        waiting = session.scalars(
            select(OutboxMessage.id).where(OutboxMessage.channel == "email", OutboxMessage.sent_at.is_(None))
        ).all()
    return not waiting
