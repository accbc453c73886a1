"""One benchmark process of the deadline crunch (see :mod:`bench.crunch`).

``python -m bench.crunch_worker build DATABASE GAMES [running]``: build the league, every game due
(``running``: every game running, its deadline 48 hours on).
``python -m bench.crunch_worker remind DATABASE PASSES``: PASSES reminder passes over that running league
with nothing due, then one pass where every game's 24h reminder is due; prints JSON.
``python -m bench.crunch_worker run DATABASE HOST PORT [START_AT | ready] [connections=N]
[stages=sequential]``: the crunch as ``referee serve`` runs it (set up as serve sets up:
:func:`bot.core.runtime.heap.settle`; before the clock starts, one deadline pass and one sender pass
find nothing due, as in a serve waiting for the deadline): the deadline worker's passes in a thread (as
:class:`bot.core.runtime.deadline_worker.DeadlineWorker` runs them, ``asyncio.to_thread``) until no game is due,
while the mail sender's ``run`` loop (woken by the outbox's bell as each resolved batch commits,
``connections`` SMTP sessions, ``smtp_connections``'s default unless given) sends; until nothing
waits to be sent.  ``stages=sequential``: the sender starts only once no game is due and every
waiting mail has been rendered (the scale-out benchmark times the resolving alone, and the
resolving and rendering: :func:`_render_all`).  Timed from
START_AT (a ``time.time()``; a late start counts) or, with ``ready``, from the line the parent writes
to its stdin once every process of the run has printed that it is ready (imports done, engine made):
the processes of one run start together.  ``resolved_at``: when no game was due any more;
``rendered_at`` (sequential): when, after that, every waiting mail had been rendered; the
stages (adjudication, rendering, MIME, SMTP: while any session talks to the server) overlap;
``cpu``: the resolving thread's own CPU and the rest of the process's; prints JSON.
``python -m bench.crunch_worker floor HOST PORT COUNT SIZE [CONNECTIONS]``: the floor, a bare
aiosmtplib loop sending COUNT messages of SIZE bytes on one connection (or CONNECTIONS at once,
sharing them out); prints JSON.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections import Counter
from contextlib import suppress
from datetime import timedelta
from email.utils import make_msgid
from typing import Any

from sqlalchemy import event, func, select

import bot.core.turns.resolution as turns
import bot.email.render as compose_module
import bot.email.transport as sender_module
from bench import world
from bench.common import Timer, peak_rss_mb, report
from bot.core.basics.clock import SimulatedClock
from bot.core.messaging.outbox import LEASE, OutboxDrain
from bot.core.messaging.outbox_bell import OutboxBell
from bot.core.runtime import heap
from bot.core.runtime.deadline_worker import DeadlineWorker
from bot.core.runtime.service import _is_due
from bot.email.channel import EmailSettings
from bot.email.render import MailIdentity
from bot.email.smtp import SmtpConfig, SmtpTransport
from bot.email.transport import MailSender
from bot.store.db import make_engine, session_factory, unit_of_work
from bot.store.models import Game

NOW = world.START + timedelta(hours=49)
SMTP_CONNECTIONS = EmailSettings().smtp_connections
"""The sender's sessions unless ``connections=N`` says otherwise: ``referee serve``'s default."""
READY = -1.0
"""``run ... ready``: print a ready line once set up (imports, engine), then start on a line from stdin."""


def _timed(timer: Timer, name: str, function: Any) -> Any:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with timer.stage(name):
            return function(*args, **kwargs)

    return wrapper


class _Overlapping:
    """Wall time while at least one of several concurrent holders (the sender's sessions) is inside."""

    def __init__(self, timer: Timer, name: str) -> None:
        self.timer, self.name = timer, name
        self.inside, self.since = 0, 0.0

    def __enter__(self) -> None:
        if not self.inside:
            self.since = time.perf_counter()
        self.inside += 1

    def __exit__(self, *exc: object) -> None:
        self.inside -= 1
        if not self.inside:
            self.timer.seconds[self.name] = self.timer.seconds.get(self.name, 0.0) + time.perf_counter() - self.since


class _TimedConnection:
    def __init__(self, inner: Any, smtp: _Overlapping) -> None:
        self.inner, self.smtp = inner, smtp

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self.inner, name)
        if not name.startswith(("send", "open_envelope")):  # the SMTP dialogue: envelope, content
            return attribute

        async def timed(*args: Any, **kwargs: Any) -> Any:
            with self.smtp:
                return await attribute(*args, **kwargs)

        return timed


class _TimedSession:
    def __init__(self, inner: Any, smtp: _Overlapping) -> None:
        self.inner, self.smtp = inner, smtp

    async def __aenter__(self) -> _TimedConnection:
        with self.smtp:
            return _TimedConnection(await self.inner.__aenter__(), self.smtp)

    async def __aexit__(self, *exc: object) -> None:
        with self.smtp:
            await self.inner.__aexit__(*exc)


class _TimedTransport:
    """The SMTP stage: while any of the sender's sessions talks to the server (they overlap)."""

    def __init__(self, inner: SmtpTransport, timer: Timer) -> None:
        self.inner, self.smtp = inner, _Overlapping(timer, "smtp")

    def connect(self) -> Any:
        return _TimedSession(self.inner.connect(), self.smtp)


def build(database: str, games: int, due: bool = True) -> None:
    sessions = session_factory(make_engine(database))
    world.build(sessions, games)
    if due:
        world.make_due(sessions, NOW - timedelta(minutes=1))
    report({"built": games})


def remind(database: str, passes: int) -> None:
    """The reminder worker's pass (``GameService.remind_due``) over a running league: ``passes`` times
    with nothing due (its reminders 24h and 1h before a deadline 48 hours on), then once when every
    game's 24h reminder is due; each timed, with its statements and commits counted."""
    engine = make_engine(database)
    service = world.service_for(session_factory(engine))
    counts: Counter[str] = Counter()
    event.listen(engine, "before_cursor_execute", lambda *_args: counts.update(["statements"]))
    event.listen(engine, "commit", lambda _connection: counts.update(["commits"]))
    quiet = world.START + timedelta(hours=1)
    service.remind_due(quiet)  # warm-up: first queries, imports
    counts.clear()
    wall, cpu = time.perf_counter(), time.process_time()
    sent = sum(service.remind_due(quiet) for _ in range(passes))
    result: dict[str, Any] = {
        "quiet_ms": 1000 * (time.perf_counter() - wall) / passes, "quiet_cpu_ms": 1000 * (time.process_time() - cpu) / passes,
        "quiet_statements": counts["statements"] / passes, "quiet_commits": counts["commits"] / passes, "quiet_sent": sent,
    }  # fmt: skip
    counts.clear()
    wall, cpu = time.perf_counter(), time.process_time()
    result["due_sent"] = service.remind_due(world.START + timedelta(hours=24, minutes=1))
    result |= {"due_ms": 1000 * (time.perf_counter() - wall), "due_cpu_ms": 1000 * (time.process_time() - cpu),
               "due_statements": counts["statements"], "due_commits": counts["commits"]}  # fmt: skip
    engine.dispose()
    report(result)


def run(
    database: str,
    host: str,
    port: int,
    start_at: float | None = None,
    connections: int = SMTP_CONNECTIONS,
    sequential: bool = False,
) -> None:
    """The crunch as ``referee serve`` runs it (see the module docstring), or with ``sequential``
    the resolving first and then the sending (the scale-out's resolving stage alone); prints JSON."""
    timer = Timer()
    turns.advance = _timed(timer, "adjudication", turns.advance)  # type: ignore[assignment]
    compose_module.render_message = _timed(timer, "rendering", compose_module.render_message)  # type: ignore[assignment]
    sender_module.compose_bytes = _timed(timer, "compose", sender_module.compose_bytes)  # type: ignore[assignment]
    engine = make_engine(database)
    sessions = session_factory(engine)
    clock = SimulatedClock(world.START)  # before any deadline: see _wait_for_the_deadline
    deadlines = DeadlineWorker(world.service_for(sessions), clock)
    drain = OutboxDrain(sessions)
    transport = _TimedTransport(SmtpTransport(SmtpConfig(host=host, port=port, security="none")), timer)
    bell = OutboxBell().listen(sessions)  # as referee serve's wiring: the sender wakes when a batch commits
    identity = MailIdentity(world.REFEREE)
    sender = MailSender(drain, transport, clock, identity, batch=200, connections=connections, bell=bell)
    late = 0.0
    heap.settle()  # as referee serve does once its workers are built
    _wait_for_the_deadline(deadlines, sender, sessions)
    clock.set(NOW)
    if start_at == READY:  # processes of one run start together: when the parent has seen each ready
        print(json.dumps({"ready": True}), flush=True)
        sys.stdin.readline()
    elif start_at is not None:  # ... or at the moment the parent chose (a late start counts)
        time.sleep(max(0.0, start_at - time.time()))
        late = max(0.0, time.time() - start_at)
    started = time.perf_counter() - late
    cpu_started = time.process_time()
    result = asyncio.run(_serve(deadlines, sessions, sender, drain, timer, started, clock, identity, sequential))
    result["cpu"]["total"] = time.process_time() - cpu_started
    result["cpu"]["send"] = result["cpu"]["total"] - result["cpu"]["resolve"]
    engine.dispose()
    report(result | {"stages": timer.seconds, "rss_mb": peak_rss_mb()})


def _wait_for_the_deadline(deadlines: DeadlineWorker, sender: MailSender, sessions: Any) -> None:
    """What a ``referee serve`` process does while it waits for a deadline, once, before the clock
    starts: a deadline pass and a sender pass that find nothing due (the process is connected to
    its database and has its polling statements ready, as a serve that has been running is)."""
    if deadlines.run_once_sync():
        raise RuntimeError("a game was due before its deadline")
    _due_count(sessions)
    if asyncio.run(sender.send_due()).sent:
        raise RuntimeError("a mail was due before the deadline")


def _render_all(drain: OutboxDrain, clock: Any, identity: MailIdentity, batch: int = 200) -> int:
    """The sender's rendering of every waiting mail, without the sending: the rows claimed a batch
    at a time as the sender claims them (:meth:`OutboxDrain.due`: another process's claims are
    skipped, so two processes split the rows), each mail built as the sender builds it
    (:func:`bot.email.transport.compose_bytes`, to the bytes it hands over), the claims held until
    none is left (given back, they would be claimed and rendered again by a process still
    rendering); returns how many were rendered.  The sender takes them once their lease has run
    out (:func:`_let_the_claims_run_out`)."""
    rendered = 0
    while rows := drain.due(sender_module.CHANNEL, clock.now(), batch):
        now = clock.now()
        for row in rows:
            sender_module.compose_bytes(row, identity, now)
        rendered += len(rows)
    return rendered


def _let_the_claims_run_out(clock: Any) -> None:
    """This process's clock moved past the rendering's leases (:data:`bot.core.messaging.outbox.LEASE`), as after
    a sender that died: its sender may then claim every row rendered, its own and another's (another
    process's sender claims from its own clock, a lease beyond this one's)."""
    clock.set(NOW + LEASE + timedelta(seconds=1))


def _due_count(sessions: Any) -> int:
    """How many games are due at the crunch's moment."""
    with unit_of_work(sessions) as session:
        return int(session.scalar(select(func.count()).select_from(Game).where(_is_due(NOW))) or 0)


async def _serve(
    deadlines: DeadlineWorker,
    sessions: Any,
    sender: MailSender,
    drain: OutboxDrain,
    timer: Timer,
    started: float,
    clock: Any,
    identity: MailIdentity,
    sequential: bool = False,
) -> dict[str, Any]:
    """The deadline worker's passes in a thread until no game is due (another process may hold some:
    it waits for them) while the sender's ``run`` loop sends (woken by the outbox's bell as rows are
    committed), until nothing waits to be sent (rows another process holds: until it marks them).
    ``sequential``: the sender's loop starts only once no game is due and every waiting mail has
    been rendered (:func:`_render_all`, timed: ``rendered_at``)."""
    sent = 0
    send_due = sender.loop.send_due  # the core's sender loop: its run calls this for each pass
    rendered_at: float | None = None
    rendered = 0

    idle = asyncio.Event()  # a pass found less than a full batch: maybe nothing waits any more

    async def counted(recipients: Any = None) -> Any:
        nonlocal sent
        result = await send_due(recipients)
        sent += result.sent
        if not result.remaining:
            idle.set()
        return result

    sender.loop.send_due = counted  # type: ignore[method-assign]
    stop = asyncio.Event()
    sending = None if sequential else asyncio.create_task(sender.run(stop))
    resolved: list[tuple[str, int]] = []
    resolve_cpu = 0.0

    def deadline_pass() -> tuple[list[tuple[str, int]], int]:
        nonlocal resolve_cpu
        mark = time.thread_time()  # this thread's CPU: the sender's run beside it on others
        with timer.stage("resolve"):
            found = deadlines.run_once_sync()
        due = _due_count(sessions)
        resolve_cpu += time.thread_time() - mark
        return found, due

    try:
        while True:
            found, due = await asyncio.to_thread(deadline_pass)  # as DeadlineWorker.run does
            resolved += found
            if not due:
                break
            if not found:
                await asyncio.sleep(0.01)  # another process holds the rest
        resolved_at = time.perf_counter() - started
        if sending is None:  # sequential: the rendering stage, then the sending
            rendered = await asyncio.to_thread(_render_all, drain, clock, identity)
            rendered_at = time.perf_counter() - started
            _let_the_claims_run_out(clock)
            sending = asyncio.create_task(sender.run(stop))
        while True:  # asked after each pass that was not full (not every few ms: a query is not free)
            idle.clear()
            if not await asyncio.to_thread(drain.anything_waiting, "email"):
                break
            with suppress(TimeoutError):  # rows another process holds: ask again now and then
                await asyncio.wait_for(idle.wait(), 0.5)
    finally:
        stop.set()
        if sending is not None:
            await sending
    wall = time.perf_counter() - started
    return {"resolved": resolved, "sent": sent, "wall": wall, "resolved_at": resolved_at,
            "rendered_at": rendered_at, "rendered": rendered, "cpu": {"resolve": resolve_cpu}}  # fmt: skip


def floor(host: str, port: int, count: int, size: int, connections: int = 1) -> None:
    """A bare aiosmtplib loop: ``count`` messages of ``size`` bytes over ``connections`` sessions at once."""
    import aiosmtplib

    body = b"x" * 70 + b"\r\n"

    async def send(client: aiosmtplib.SMTP, share: int) -> None:
        await client.connect()
        for _ in range(share):
            head = f"Message-ID: {make_msgid(domain='floor.invalid')}\r\nSubject: floor\r\n\r\n".encode()
            raw = head + body * max(1, (size - len(head)) // len(body))
            await client.sendmail(world.REFEREE, ["floor@bench.invalid"], raw)
        await client.quit()

    async def send_all() -> float:
        clients = [
            aiosmtplib.SMTP(hostname=host, port=port, use_tls=False, start_tls=False) for _ in range(connections)
        ]
        start = time.perf_counter()
        shares = [count // connections + (n < count % connections) for n in range(connections)]
        await asyncio.gather(*(send(client, share) for client, share in zip(clients, shares, strict=True)))
        return time.perf_counter() - start

    report({"wall": asyncio.run(send_all()), "rss_mb": peak_rss_mb()})


def main(argv: list[str]) -> int:
    connections, sequential = SMTP_CONNECTIONS, False
    while argv and "=" in argv[-1]:  # run ... connections=N stages=sequential
        name, _, value = argv.pop().partition("=")
        if name == "connections":
            connections = int(value)
        elif (name, value) == ("stages", "sequential"):
            sequential = True
        else:
            raise SystemExit(__doc__)
    match argv:
        case ["build", database, games]:
            build(database, int(games))
        case ["build", database, games, "running"]:
            build(database, int(games), due=False)
        case ["remind", database, passes]:
            remind(database, int(passes))
        case ["run", database, host, port]:
            run(database, host, int(port), connections=connections, sequential=sequential)
        case ["run", database, host, port, "ready"]:
            run(database, host, int(port), READY, connections, sequential)
        case ["run", database, host, port, start_at]:
            run(database, host, int(port), float(start_at), connections, sequential)
        case ["floor", host, port, count, size]:
            floor(host, int(port), int(count), int(size))
        case ["floor", host, port, count, size, sessions]:
            floor(host, int(port), int(count), int(size), int(sessions))
        case _:
            raise SystemExit(__doc__)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
