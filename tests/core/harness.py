"""A small driver for the core: a simulated clock and envelopes from named players."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from bot.core import commands as c
from bot.core.clock import SimulatedClock
from bot.core.service import Applied, GameService
from bot.store.db import unit_of_work
from bot.store.models import OutboxMessage

START = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
SEATS = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay"]


@dataclass
class Harness:
    sessions: sessionmaker[Session]
    clock: SimulatedClock = field(default_factory=lambda: SimulatedClock(START))
    counter: itertools.count[int] = field(default_factory=itertools.count)

    def __post_init__(self) -> None:
        self.service = GameService(self.sessions)

    def send(self, who: str, *commands: c.Command, password: str | None = None, source: str | None = None,
             channel: str = "email", received_at: datetime | None = None, ignored: tuple[str, ...] = ()) -> Applied:  # fmt: skip
        address = who if channel == "discord" else f"{who.lower()}@example.org"
        envelope = c.Envelope(
            c.Sender(channel, address, who), commands, source or f"test:{next(self.counter)}",
            received_at or self.clock.now(), c.ReplyContext(f"orders from {who}", f"<m{next(self.counter)}@example.org>"),
            password, ignored,
            # issue 11: a Discord user is authenticated by Discord; test mail is vouched for by its server
            trust=c.Trust.VERIFIED if channel == "discord" else c.Trust.VOUCHED,
        )  # fmt: skip
        return self.service.apply(envelope)

    def golden_strider_game(self, slug: str = "gs1", early: bool = False, auth: str = "address") -> None:
        self.send("GM", c.CreateGame(slug, "golden-strider", {}, "Europe/Paris", 60, early, auth))
        for name in SEATS:
            self.send(name, c.JoinGame(slug, name))
        reply = self.send("GM", c.StartGame(slug)).reply
        assert reply is not None and "STARTED" in reply, reply

    def setup_all(self, slug: str = "gs1") -> None:
        for name in SEATS:
            self.send(name, c.SubmitOrders(slug, "cards 10 8 6 4 2"))

    def pass_deadline(self) -> list[tuple[str, int]]:
        self.clock.advance(timedelta(minutes=61))
        return self.service.resolve_due(self.clock.now())

    def outbox(self, kind: str | None = None) -> list[OutboxMessage]:
        with unit_of_work(self.sessions) as session:
            query = select(OutboxMessage).order_by(OutboxMessage.id)
            if kind:
                query = query.where(OutboxMessage.kind == kind)
            return list(session.scalars(query).all())
