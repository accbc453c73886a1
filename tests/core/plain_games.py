"""Whole games played through the core for the plain form's tests (tests/core/test_plain_form.py).

Each kind is played to its end with short names and the game's own example
players, seeded, so that every kind of report (the setup, each turn, the last)
is in the outbox; the game masters' address gets every copy as well.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from unittest import mock

from sqlalchemy import select

from adjudicator import registry
from bot.core.basics.clock import SimulatedClock
from bot.core.commands import hosting as host_commands
from bot.core.model import commands as c
from bot.core.model.config import ServiceConfig
from bot.core.runtime.service import GameService
from bot.core.views import GameViews
from bot.store.db import make_engine, session_factory, unit_of_work
from bot.store.models import OutboxMessage
from tests.support.stored import example_orders

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
GM = "gm@example.org"
NAMES = ("Ann", "Ben", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jo")
MAX_TURNS = 400


class FixedSeed:
    """``secrets`` for bot.core.commands.hosting with a fixed game seed, so that a whole game is reproducible."""

    @staticmethod
    def token_hex(nbytes: int) -> str:
        return ("5eed" * nbytes)[: 2 * nbytes]


def address(name: str, number: int = 0) -> str:
    """The address of the player ``name``, the ``number``-th seat: ``ann@example.org``, or ``p<number>@example.org``
    for a name that is no ASCII word (``Éloïse de La Tour``)."""
    return f"{name.lower()}@example.org" if name.isascii() and name.isalpha() else f"p{number}@example.org"


def play(
    database: Path,
    kind: str,
    seats: int | None = None,
    plain: tuple[str, ...] = (),
    languages: Mapping[str, str] | None = None,
    names: Sequence[str] = NAMES,
) -> list[OutboxMessage]:
    """Play ``kind`` to its end in ``database`` (migrated, empty) with ``seats`` seats (its fewest by default);
    the players named in ``plain`` chose FORMAT PLAIN before joining, those in ``languages`` their LANGUAGE
    (``{"Ann": "fr"}``); the seats are the first of ``names`` (:func:`address`); the game's seed is fixed
    (:class:`FixedSeed`).  The first two players ask for GAMES once it started, and for STATUS at the end.  Returns the outbox,
    in order."""
    rules = registry.get_rules(kind)
    names = list(names[: seats or rules.min_seats])
    addresses = {name: address(name, i) for i, name in enumerate(names)}
    engine = make_engine(str(database))
    sessions = session_factory(engine)
    clock = SimulatedClock(START)
    service = GameService(sessions, ServiceConfig(message_domain="example.com", game_masters=frozenset({GM})))
    views = GameViews(sessions)
    rng = random.Random(5)
    sources = itertools.count(1)
    slug = "g1"

    def send(who: str, name: str, *commands: c.Command) -> None:
        service.apply(c.Envelope(
            c.Sender("email", who, name), commands, f"plain:{next(sources)}", clock.now(),
            {"subject": "orders", "message_id": f"<p{next(sources)}@example.org>"}, trust=c.Trust.VERIFIED,
        ))  # fmt: skip

    try:
        with mock.patch.object(host_commands, "secrets", FixedSeed):  # the seed is drawn at CREATE
            send(GM, "Game Master", c.CreateGame(slug, kind, {}, "Europe/Paris", 48 * 60, True, "address"))
        for name in names:
            if languages and name in languages:
                send(addresses[name], name, c.SetLanguage(languages[name]))
            if name in plain:
                send(addresses[name], name, c.SetFormat("plain"))
            send(addresses[name], name, c.JoinGame(slug, name))
        send(GM, "Game Master", c.StartGame(slug))
        for name in names[:2]:
            send(addresses[name], name, c.ListGames())
        for _ in range(MAX_TURNS):
            view = views.game(slug)
            assert view is not None
            if view.phase is None:
                break
            for seat in view.phase.owing:
                send(addresses[seat], seat, c.SubmitOrders(slug, example_orders(sessions, slug, seat, rng)))
            after = views.game(slug)
            assert after is not None
            if after.phase is not None and after.phase.number == view.phase.number:
                deadline = service.next_deadline()
                assert deadline is not None
                clock.set(max(deadline, clock.now()))
                service.resolve_due(clock.now())
            clock.advance(timedelta(minutes=10))
        else:
            raise AssertionError(f"{kind} did not end in {MAX_TURNS} turns")
        for name in names[:2]:
            send(addresses[name], name, c.ShowStatus(slug))
        with unit_of_work(sessions) as session:
            rows = list(session.scalars(select(OutboxMessage).order_by(OutboxMessage.id)).all())
            session.expunge_all()
            return rows
    finally:
        engine.dispose()
