"""A benchmark league built by another checkout's own code, so that an older commit can be measured.

Run by :mod:`bench.serve` as a script (``python -P bench/checkout_league.py ...``, never imported
from the bench), with the working directory and ``PYTHONPATH`` set to the other checkout: every
``bot`` and ``bench`` import below is that checkout's, so its migrations make its own schema and its
own ``bench.world.build`` applies its own commands (``CreateGame``, ``JoinGame``, ``StartGame`` as that
commit spells them).  Works against every commit that has ``bench/world.py`` with ``build``,
``bot.store.migrate.upgrade``, ``bot.store.db`` and a ``hash_secret`` in ``bot.core.seat_secrets`` (before
the core was split into packages: 539bfa8, badcbb7) or ``bot.core.people.seat_secrets`` (since).

``league DATABASE GAMES ADDRESSES SECRET``: running password games whose deadlines are a month
away, every seat's password SECRET (as :func:`bench.serve.build_league`).
``due DATABASE GAMES``: running games of 8 whose deadlines have passed (as :func:`bench.serve.build_due`).

DATABASE must be an empty database (no tables): it is migrated here.  Prints ``built GAMES``.
"""

from __future__ import annotations

import importlib
import sys
from datetime import UTC, datetime, timedelta
from typing import Any


def _hash_secret() -> Any:
    """The checkout's ``hash_secret``, wherever that commit keeps it."""
    for module in ("bot.core.people.seat_secrets", "bot.core.seat_secrets"):
        try:
            return importlib.import_module(module).hash_secret
        except ModuleNotFoundError:
            continue
    raise SystemExit("no hash_secret in bot.core.people.seat_secrets or bot.core.seat_secrets")


def build(kind: str, database: str, games: int, addresses: int, secret: str) -> None:
    from sqlalchemy import update

    from bench import world
    from bot.store.db import make_engine, session_factory, unit_of_work
    from bot.store.migrate import upgrade
    from bot.store.models import Game, Seat

    upgrade(database)
    engine = make_engine(database)
    sessions = session_factory(engine)
    world.build(sessions, games, addresses)
    if kind == "league":
        hashed = _hash_secret()(secret, world.KEY)
        with unit_of_work(sessions) as session:
            session.execute(
                update(Game).values(deadline_at=datetime.now(UTC) + timedelta(days=30), auth_mode="password")
            )
            session.execute(update(Seat).values(secret_hash=hashed))
    engine.dispose()  # the database is a template: no session may stay on it
    print(f"built {games}", flush=True)


def main(argv: list[str]) -> int:
    match argv:
        case ["league", database, games, addresses, secret]:
            build("league", database, int(games), int(addresses), secret)
        case ["due", database, games]:
            build("due", database, int(games), int(games) * 8, "")
        case _:
            raise SystemExit(__doc__)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
