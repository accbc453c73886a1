"""A small driver for the core: a simulated clock and envelopes from named players.

Replies and outbox rows are shown in the email form (``templates/email/``), the
way a player reads them; ``Sent.applied`` keeps the outcome as data.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from bot.core.basics.clock import SimulatedClock
from bot.core.model import commands as c
from bot.core.model.config import ServiceConfig
from bot.core.runtime.service import Applied, GameService
from bot.store.db import unit_of_work
from bot.store.models import OutboxMessage
from tests.support.rendering import Row, rendered, reply_text

START = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
SEATS = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay"]
GM_ADDRESS = "gm@example.org"
PUBLIC_CHANNEL = "screen"
"""A channel with a public place for every game (as Discord's forum is)."""


@dataclass(frozen=True)
class Sent:
    """What applying an envelope gave: the outcome as data, and the reply as the player reads it (rendered
    when first read: most sends of a long run never read theirs)."""

    applied: Applied
    context: Mapping[str, Any]

    @functools.cached_property
    def reply(self) -> str | None:
        return reply_text(self.applied, self.context)

    @property
    def duplicate(self) -> bool:
        return self.applied.duplicate

    @property
    def receipt(self) -> str:
        return self.applied.receipt


@dataclass
class Harness:
    sessions: sessionmaker[Session]
    clock: SimulatedClock = field(default_factory=lambda: SimulatedClock(START))
    counter: itertools.count[int] = field(default_factory=itertools.count)
    config: ServiceConfig = field(
        default_factory=lambda: ServiceConfig(game_masters=frozenset({GM_ADDRESS}), public_channels=(PUBLIC_CHANNEL,))
    )

    def __post_init__(self) -> None:
        self.service = GameService(self.sessions, self.config)

    def send(self, who: str, *commands: c.Command, password: str | None = None, source: str | None = None,
             channel: str = "email", received_at: datetime | None = None, ignored: tuple[str, ...] = (),
             trust: c.Trust | None = None) -> Sent:  # fmt: skip
        address = f"{who.lower()}@example.org" if channel == "email" else who
        if trust is None:  # the GM acts as on Discord (authenticated), players as by vouched mail
            trust = c.Trust.VERIFIED if channel == "discord" or who == "GM" else c.Trust.VOUCHED
        envelope = c.Envelope(
            c.Sender(channel, address, who), commands, source or f"test:{next(self.counter)}",
            received_at or self.clock.now(),
            {"subject": f"orders from {who}", "message_id": f"<m{next(self.counter)}@example.org>"},
            password, ignored, trust=trust,
        )  # fmt: skip
        applied = self.service.apply(envelope)
        return Sent(applied, envelope.reply_context)

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

    def outbox(self, kind: str | None = None) -> list[Row]:
        with unit_of_work(self.sessions) as session:
            query = select(OutboxMessage).order_by(OutboxMessage.id)
            if kind:
                query = query.where(OutboxMessage.kind == kind)
            return [rendered(row) for row in session.scalars(query).all()]
