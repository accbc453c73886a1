"""Leagues of Golden Strider games of 8 for the benchmarks, built through the real service."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from email import policy
from email.message import EmailMessage
from email.utils import format_datetime, formataddr

from sqlalchemy import update
from sqlalchemy.orm import Session, sessionmaker

from bot.core.model import commands as c
from bot.core.model.config import ServiceConfig
from bot.core.runtime.service import GameService
from bot.store.db import unit_of_work
from bot.store.models import Game, OutboxMessage

START = datetime(2026, 3, 2, 11, 0, tzinfo=UTC)
REFEREE = "referee@bench.invalid"
DOMAIN = "bench.invalid"
GM = "gm@bench.invalid"
SEATS = 8
KEY = b"bench secret key, 32 bytes or more...."
SETUP = "cards 10 8 6 4 2"
_SOURCES = itertools.count(1)


def service_for(sessions: sessionmaker[Session], **config: object) -> GameService:
    return GameService(
        sessions,
        ServiceConfig(message_domain=DOMAIN, game_masters=frozenset({GM}), secret_key=KEY, **config),  # type: ignore[arg-type]
    )


def address(number: int) -> str:
    return f"p{number}@bench.invalid"


def seat_address(game: int, seat: int, addresses: int) -> int:
    """Which address holds ``seat`` of ``game`` (addresses shared between games, as in a league)."""
    return (game * SEATS + seat) % addresses


def _apply(service: GameService, who: str, *commands: c.Command) -> None:
    sender = c.Sender("email", who, who)
    service.apply(c.Envelope(sender, commands, f"bench:{next(_SOURCES)}", START, trust=c.Trust.VERIFIED))


def build(sessions: sessionmaker[Session], games: int, addresses: int | None = None) -> None:
    """``games`` running games ``g0``.. of 8 seats (address authentication), the outbox settled."""
    addresses = addresses or games * SEATS
    service = service_for(sessions)
    for game in range(games):
        slug = f"g{game}"
        _apply(service, GM, c.CreateGame(slug, "golden-strider", {}, "UTC", 48 * 60, False, "address"))
        for seat in range(SEATS):
            _apply(service, address(seat_address(game, seat, addresses)), c.JoinGame(slug, f"S{seat}"))
        _apply(service, GM, c.StartGame(slug))
    with unit_of_work(sessions) as session:
        session.execute(update(OutboxMessage).values(sent_at=START))


def make_due(sessions: sessionmaker[Session], when: datetime) -> None:
    """Every game's deadline passed at ``when``."""
    with unit_of_work(sessions) as session:
        session.execute(update(Game).values(deadline_at=when))


def order_mail(game: int, seat: int, addresses: int, number: int) -> bytes:
    """A valid ORDERS mail for ``seat`` of ``game`` from the address that holds it."""
    sender = address(seat_address(game, seat, addresses))
    mail = EmailMessage(policy=policy.SMTP)
    mail["Return-Path"] = f"<{sender}>"
    mail["From"] = formataddr((f"Seat {seat}", sender))
    mail["To"] = REFEREE
    mail["Subject"] = f"orders g{game}"
    mail["Date"] = format_datetime(START + timedelta(minutes=30))
    mail["Message-ID"] = f"<bench-{number}@bench.invalid>"
    mail.set_content(f"ORDERS g{game} AS S{seat}\n{SETUP}\n")
    return mail.as_bytes()
