"""Benchmark: the seat-secret check before (PBKDF2) and after (HMAC-SHA256 under a key).

Run:  .venv/bin/python -m tests.bench.bench_seat_secrets

Prints, all measured in this run on this machine:

* the time of one check of each scheme, and its ratio against a floor
  (one bare SHA-256 of the normalised secret, the least any check can cost);
* the time of ``GameService.apply`` for one ORDERS envelope with the seat
  password (SQLite, 8-seat Golden Strider games), with the seat rows in the
  old PBKDF2 form (the first check also rewrites the row in the keyed form,
  once) and in the keyed form; and the share of the check in each.

This is not a test: nothing is asserted about times.
"""

from __future__ import annotations

import hashlib
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import select

from bot.core.model import commands as c
from bot.core.model.config import ServiceConfig
from bot.core.people.seat_secrets import check_secret, hash_secret
from bot.core.runtime.service import GameService
from bot.store.db import make_engine, session_factory, unit_of_work
from bot.store.migrate import upgrade
from bot.store.models import Seat

KEY = b"bench key for seat secrets, 32+ bytes long"
SECRET = "amber-raven-4821"
PRODUCTION_ITERATIONS = 100_000
"""The iteration count the PBKDF2 scheme used in production (bot.core.people.seat_secrets before the keyed hash)."""
SEATS = 8
GAMES = 4


def pbkdf2_row(secret: str, iterations: int = PRODUCTION_ITERATIONS, salt: str = "0123456789abcdef") -> str:
    normalised = "".join(secret.split()).lower().encode()
    return f"pbkdf2${iterations}${salt}${hashlib.pbkdf2_hmac('sha256', normalised, salt.encode(), iterations).hex()}"


def per_call(function: Callable[[], object], calls: int, repeats: int = 5) -> tuple[float, float]:
    """(min, median) seconds per call over ``repeats`` runs of ``calls`` calls."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            function()
        times.append((time.perf_counter() - start) / calls)
    return min(times), statistics.median(times)


def check_times() -> dict[str, tuple[float, float]]:
    normalised = SECRET.encode()
    old, new = pbkdf2_row(SECRET), hash_secret(SECRET, KEY)
    assert check_secret(SECRET, old, KEY) and check_secret(SECRET, new, KEY)
    return {
        "floor: one SHA-256": per_call(lambda: hashlib.sha256(normalised).digest(), 20_000),
        "before: PBKDF2 100,000": per_call(lambda: check_secret(SECRET, old, KEY), 4, repeats=3),
        "after: HMAC-SHA256": per_call(lambda: check_secret(SECRET, new, KEY), 20_000),
    }


def apply_times(directory: Path, scheme: str) -> list[float]:
    """Seconds per ``apply`` of a password-authenticated ORDERS mail, seat rows in ``scheme``."""
    database = directory / f"{scheme}.sqlite3"
    upgrade(str(database))
    engine = make_engine(str(database))
    sessions = session_factory(engine)
    service = GameService(sessions, ServiceConfig(message_domain="bench.invalid", secret_key=KEY))
    now = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
    source = iter(range(1_000_000))

    def send(address: str, *commands: c.Command, password: str | None = None) -> str | None:
        sender = c.Sender("email", address, address)
        return service.apply(c.Envelope(sender, commands, f"bench:{next(source)}", now, password=password)).reply

    for game in range(GAMES):
        send("gm@example.org", c.CreateGame(f"g{game}", "golden-strider", {}, "UTC", 60, False, "password"))
        for seat in range(SEATS):
            send(f"p{seat}@example.org", c.JoinGame(f"g{game}", f"P{seat}"))
        send("gm@example.org", c.StartGame(f"g{game}"))
    with unit_of_work(sessions) as session:
        for row in session.scalars(select(Seat)).all():
            secret = f"seat-{row.name.lower()}-{row.game_id:04d}"
            row.secret_hash = pbkdf2_row(secret) if scheme == "pbkdf2" else hash_secret(secret, KEY)
        ids = {s.game_id for s in session.scalars(select(Seat)).all()}
    times = []
    for game_id, game in zip(sorted(ids), range(GAMES), strict=True):
        for seat in range(SEATS - 1):  # the last seat would resolve the turn: that is not what is measured
            start = time.perf_counter()
            reply = send(
                f"p{seat}@example.org",
                c.SubmitOrders(f"g{game}", "cards 10 8 6 4 2"),
                password=f"seat-p{seat}-{game_id:04d}",
            )
            times.append(time.perf_counter() - start)
            assert reply is not None and "ORDERS ACCEPTED" in reply, reply
    engine.dispose()
    return times


def main() -> None:
    print("Seat-secret check, one call (min / median of the runs):")
    checks = check_times()
    floor = checks["floor: one SHA-256"][0]
    for name, (low, median) in checks.items():
        print(f"  {name:<24} {low * 1e6:>10.1f} / {median * 1e6:>10.1f} us   {low / floor:>10.1f}x the floor")
    before, after = checks["before: PBKDF2 100,000"][0], checks["after: HMAC-SHA256"][0]
    print(f"  the keyed check is {before / after:,.0f}x faster than the PBKDF2 one")
    print()
    print(f"GameService.apply, ORDERS with PASSWORD, SQLite, {GAMES} games of {SEATS} seats (min / median):")
    with tempfile.TemporaryDirectory(prefix="referee-bench-") as directory:
        results = {scheme: apply_times(Path(directory), scheme) for scheme in ("pbkdf2", "hmac")}
    for scheme, times in results.items():
        check = before if scheme == "pbkdf2" else after
        low, median = min(times), statistics.median(times)
        print(
            f"  rows {scheme:<7} {low * 1e3:>8.2f} / {median * 1e3:>8.2f} ms per envelope"
            f"   ({median and check / median:.1%} of it the check)   {1 / median:>7.1f} envelopes/s"
        )
    ratio = statistics.median(results["pbkdf2"]) / statistics.median(results["hmac"])
    print(f"  apply with keyed rows is {ratio:.1f}x faster (median)")


if __name__ == "__main__":
    main()
