"""A club in a SQLite database, its games played by computer players through the real service,
and its pages served by the real web server (bot.web.server) on a free loopback port.

Players send their orders as envelopes (the command model every channel uses), as
``referee demo`` does; a simulated clock jumps to each deadline.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp import web
from multidict import CIMultiDict

from adjudicator.rng import commitment
from bot.core.basics.clock import SimulatedClock
from bot.core.games.stored import find_game, rules_of, state_for_reading
from bot.core.model import commands as c
from bot.core.model.config import ServiceConfig
from bot.core.runtime.service import Applied, GameService
from bot.core.views import GameViews
from bot.store.db import make_engine, session_factory, unit_of_work
from bot.web.server import BUILDS, Limits, Site, bound_port, site_for, start
from tests.support.database import migrated_sqlite

START = datetime(2026, 3, 2, 18, 0, tzinfo=UTC)
GM = "gm@club.example"


class Club:
    """One database, its service and a clock; games created, joined, started and played."""

    def __init__(self, directory: Path, config: ServiceConfig | None = None, url: str | None = None) -> None:
        """On a SQLite file in ``directory``, or on the migrated database at ``url``."""
        if url is None:
            url = str(directory / "club.sqlite3")
            migrated_sqlite(url)
        self.engine = make_engine(url)
        self.sessions = session_factory(self.engine)
        self.clock = SimulatedClock(START)
        self.service = GameService(self.sessions, config or ServiceConfig())
        self.views = GameViews(self.sessions)
        self._ids = iter(range(1, 10**9))

    def close(self) -> None:
        self.engine.dispose()

    def apply(self, address: str, name: str, *commands: c.Command) -> Applied:
        envelope = c.Envelope(c.Sender("email", address, name), commands, f"web-test:{next(self._ids)}",
                              self.clock.now(), trust=c.Trust.VERIFIED, may_create=True)  # fmt: skip
        return self.service.apply(envelope)

    def create(
        self, slug: str, kind: str, names: list[str], options: dict[str, Any] | None = None, **settings: Any
    ) -> None:
        """``slug`` created by :data:`GM` and joined by ``names``; ``settings``: more of CreateGame's fields."""
        created = self.apply(GM, "Game Master", c.CreateGame(slug, kind, options or {}, "Europe/London", 48 * 60,
                                                             False, "address", **settings))  # fmt: skip
        assert "created" in created.results, created.problems
        with unit_of_work(self.sessions) as session:  # a fixed seed: the same game on every run
            game = find_game(session, slug)
            assert game is not None
            game.seed = f"seed of {slug}, 1"
            game.commitment = commitment(game.seed)
        for i, name in enumerate(names):
            joined = self.apply(_address(slug, i), name, c.JoinGame(slug, name))
            assert "joined" in joined.results, joined.problems

    def start(self, slug: str) -> None:
        started = self.apply(GM, "Game Master", c.StartGame(slug))
        assert "started" in started.results, started.problems

    def seat_address(self, slug: str, seat: str) -> str:
        view = self.views.public_view(slug)
        assert view is not None
        return _address(slug, view.seats.index(seat))

    def order(self, slug: str, seat: str, text: str) -> Applied:
        return self.apply(self.seat_address(slug, seat), seat, c.SubmitOrders(slug, text))

    def example_orders(self, slug: str, seat: str, rng: random.Random) -> str:
        """The game's computer player (the test plays every seat, so it may read the whole state)."""
        with unit_of_work(self.sessions) as session:
            game = find_game(session, slug)
            assert game is not None
            return rules_of(game).example_orders(state_for_reading(game), seat, rng)

    def step(self, slug: str, rng: random.Random) -> bool:
        """Every seat that owes orders sends some; the turn resolves (at its deadline when it waits for
        one).  False when the game is over."""
        view = self.views.public_view(slug)
        assert view is not None
        if view.phase is None:
            return False
        for seat in view.phase.owing:
            applied = self.order(slug, seat, self.example_orders(slug, seat, rng))
            assert "orders_accepted" in applied.results, applied.problems
        after = self.views.public_view(slug)
        assert after is not None
        if after.phase is not None and after.phase.number == view.phase.number:
            deadline = self.service.next_deadline()
            if deadline is not None and deadline > self.clock.now():
                self.clock.set(deadline)
            self.service.resolve_due(self.clock.now())
        else:
            self.clock.advance(timedelta(minutes=10))
        return True

    def play(self, slug: str, turns: int, seed: int = 1) -> int:
        """Up to ``turns`` turns; the number played."""
        rng = random.Random(seed)
        played = 0
        while played < turns and self.step(slug, rng):
            played += 1
        return played


def _address(slug: str, index: int) -> str:
    return f"{slug}.p{index}@club.example"


@contextmanager
def club(directory: Path, config: ServiceConfig | None = None) -> Iterator[Club]:
    made = Club(directory, config)
    try:
        yield made
    finally:
        made.close()


@asynccontextmanager
async def served(site: Site | Club, limits: Limits | None = None) -> AsyncIterator[Reader]:
    """The pages of ``site`` (or of a club's database) on a free loopback port, and a reader of them."""
    runner = await start(
        site if isinstance(site, Site) else site_for(site.sessions, site.service.config), "127.0.0.1", 0, limits
    )
    try:
        async with aiohttp.ClientSession() as session:
            yield Reader(session, f"http://127.0.0.1:{bound_port(runner)}", runner)
    finally:
        await runner.cleanup()


class Reader:
    """GETs pages of one server; each answer's status, headers and text."""

    def __init__(self, session: aiohttp.ClientSession, base: str, runner: web.AppRunner) -> None:
        self.session, self.base, self.runner = session, base, runner
        self.port = bound_port(runner)

    @property
    def builds(self) -> int:
        """How many pages the server has built so far (:class:`bot.web.cache.Builds`)."""
        return self.runner.app[BUILDS].builds

    async def get(self, path: str, expect: int = 200) -> str:
        async with self.session.get(self.base + path) as response:
            text = await response.text()
            assert response.status == expect, (path, response.status, text[:500])
            return text

    async def response(
        self, method: str, path: str, headers: dict[str, str] | None = None
    ) -> tuple[int, CIMultiDict[str], str]:
        """The answer's status, headers (any case) and text."""
        async with self.session.request(method, self.base + path, headers=headers) as response:
            return response.status, CIMultiDict(response.headers), await response.text()
