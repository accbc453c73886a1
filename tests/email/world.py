"""A small world for the email tests: games with known players, addresses and seat passwords.

``demo`` (seat passwords required) and ``club`` (address-only authentication)
are running Golden Strider games with the same six players, waiting for their
setup orders; ``newgame`` is forming, with Gil seated.  The seat passwords are
known (:data:`PASSWORDS`) and stored with a cheap hash iteration count, so that
checking one costs microseconds instead of the production tens of milliseconds.
"""

from __future__ import annotations

import hashlib
import itertools
import secrets
from datetime import UTC, datetime

from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from bot.core.model import commands as c
from bot.core.model.config import ServiceConfig
from bot.core.runtime.service import GameService
from bot.store.db import unit_of_work
from bot.store.models import OutboxMessage, Seat
from tests.support.rendering import Row, rendered, reply_text

START = datetime(2026, 3, 2, 11, 0, tzinfo=UTC)
REFEREE = "referee@example.com"
DOMAIN = "example.com"
GM = "gm@example.org"
PLAYERS = {
    "Ann": "ann@example.org", "Ben": "ben@example.org", "Cat": "cat@example.org",
    "Dan": "dan@example.org", "Eve": "eve@example.org", "Fay": "fay@example.org",
}  # fmt: skip
PASSWORDS = {
    "Ann": "amber-raven-1001", "Ben": "birch-cobalt-1002", "Cat": "cobalt-dune-1003",
    "Dan": "dune-ember-1004", "Eve": "ember-fjord-1005", "Fay": "fjord-granite-1006", "Gil": "granite-harbor-1007",
}  # fmt: skip
SETUP_ORDERS = {
    "Ann": "cards 10 8 6 4 2", "Ben": "cards 9 8 7 4 2", "Cat": "cards 10 10 5 3 2",
    "Dan": "cards 8 8 8 4 2", "Eve": "cards 7 7 7 7 2", "Fay": "cards 6 6 6 6 6",
}  # fmt: skip

_SOURCES = itertools.count(1)


def cheap_hash(secret: str) -> str:
    """The core's ``pbkdf2$<n>$<salt>$<digest>`` format with a small n (see bot.core.people.seat_secrets)."""
    salt = secrets.token_hex(8)
    normalised = "".join(secret.split()).lower().encode()
    return f"pbkdf2$1000${salt}${hashlib.pbkdf2_hmac('sha256', normalised, salt.encode(), 1000).hex()}"


def service_for(sessions: sessionmaker[Session]) -> GameService:
    return GameService(sessions, ServiceConfig(message_domain=DOMAIN, game_masters=frozenset({GM})))


def apply(service: GameService, address: str, name: str, *commands: c.Command, when: datetime = START) -> str | None:
    envelope = c.Envelope(
        c.Sender("email", address, name), commands, f"world:{next(_SOURCES)}", when, trust=c.Trust.VERIFIED
    )  # the world is set up as by an authenticated channel; the mail path is what the tests send
    return reply_text(service.apply(envelope))


def build_world(sessions: sessionmaker[Session], games: tuple[str, ...] = ("demo", "club", "newgame")) -> None:
    """Create the games of the module docstring (those named in ``games``) and settle the outbox."""
    service = service_for(sessions)
    for slug in games:
        auth = "address" if slug == "club" else "password"
        apply(
            service, GM, "Game Master", c.CreateGame(slug, "golden-strider", {}, "Europe/Paris", 48 * 60, False, auth)
        )
        if slug == "newgame":
            apply(service, "gil@example.org", "Gil", c.JoinGame(slug, "Gil"))
            continue
        for name, address in PLAYERS.items():
            reply = apply(service, address, name, c.JoinGame(slug, name))
            assert reply is not None and "JOINED" in reply, reply
        reply = apply(service, GM, "Game Master", c.StartGame(slug))
        assert reply is not None and "STARTED" in reply, reply
    with unit_of_work(sessions) as session:
        for seat in session.scalars(select(Seat)).all():
            seat.secret_hash = cheap_hash(PASSWORDS[seat.name])
        session.execute(update(OutboxMessage).values(sent_at=START))


def outbox_rows(
    sessions: sessionmaker[Session], kind: str | None = None, unsent: bool = True, channel: str | None = "email"
) -> list[Row]:
    """Outbox rows (by default: unsent email)."""
    with unit_of_work(sessions) as session:
        query = select(OutboxMessage).order_by(OutboxMessage.id)
        if channel is not None:
            query = query.where(OutboxMessage.channel == channel)
        if kind is not None:
            query = query.where(OutboxMessage.kind == kind)
        if unsent:
            query = query.where(OutboxMessage.sent_at.is_(None))
        return [rendered(row) for row in session.scalars(query).all()]
