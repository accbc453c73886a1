"""Deadline crunch and scale-out benchmarks (targets 2 and 3).

Crunch: N Golden Strider games of 8, all due at once, resolved, rendered and
every mail (9 per game) delivered to a local aiosmtpd, by the bot's own
deadline worker and mail sender in a child process, run as ``referee serve``
runs them: the deadline worker's passes in a thread while the sender's loop,
woken as each resolved batch commits, sends beside it on ``smtp_connections``
sessions (1, the default; and again on 2); against the floor, a bare
aiosmtplib loop sending as many messages of the same size to the same server
on one connection (and, for context, on two).  The shares are each stage's
time over the bot's wall; they overlap (resolving runs beside the sender).
Scale-out (PostgreSQL): the same crunch run by 1 and by 2 processes, each
running the deadline worker until no game is due, then its sender until
nothing waits (the resolving stage is timed alone: a sender beside it in the
same process would share its CPU; the processes start together: each is started, imports
and sets up, waits as a serve waits for a deadline (one deadline pass and one sender pass
that find nothing due: connected, its polling statements ready), says it is ready, and the
clock of every process starts when
the parent has heard from all and tells them to go; a process slow to import
on a loaded machine does not count its imports); the resolving stage (until
no game is due) and the whole run are timed, turns resolved twice and
Message-IDs received twice at the SMTP server are counted.  Mails are
rendered by the sender, so rendering is in the sending, with the SMTP
transfer to the one server; the resolving and rendering (the targets'
"resolve-and-render" stage) is timed too: once no game is due, each process
renders every waiting mail it can claim as its sender renders it, without
sending it, then sends.  The scale-out's floor, measured beside each of
its runs, is the machine's own speed-up for two processes of pure-Python work
(:mod:`bench.cores`): the bot's speed-up is printed against it.  Each run
starts from a copy of one league, built once per benchmark
(:meth:`bench.common.Databases.copy_of`).
"""

from __future__ import annotations

import re
import statistics
import subprocess
import sys
from collections import Counter
from typing import Any

from bench import cores
from bench.common import ROOT, Databases, child, collect, min_median
from tests.support.smtp_sink import SmtpSink

WORKER = "bench.crunch_worker"
MESSAGE_ID = re.compile(rb"^Message-ID:\s*(\S+)", re.IGNORECASE | re.MULTILINE)


def _one(
    databases: Databases, games: int, processes: int, connections: int | None = None, sequential: bool = False
) -> dict[str, Any]:
    database = databases.copy_of(("due", str(games)), lambda fresh: child(WORKER, "build", fresh, str(games)))
    sink = SmtpSink()
    sink.start()
    try:
        workers = [_ready(database, sink, connections, sequential) for _ in range(processes)]
        for worker in workers:  # every process imported and set up: start them together
            _expect_ready(worker)
        for worker in workers:
            assert worker.stdin is not None
            worker.stdin.write("go\n")
            worker.stdin.flush()
        results = [collect(w) for w in workers]
        received = sink.messages()
    finally:
        sink.close()
    ids = Counter(m.group(1) for r in received if (m := MESSAGE_ID.search(r.raw)))
    turns = Counter(tuple(turn) for result in results for turn in result["resolved"])
    size = int(statistics.mean(len(r.raw) for r in received)) if received else 1000
    stages: Counter[str] = Counter()
    cpu: Counter[str] = Counter()
    for result in results:
        stages.update(result["stages"])
        cpu.update(result["cpu"])
    return {
        "wall": max(r["wall"] for r in results), "resolved_at": max(r["resolved_at"] for r in results),
        "received": len(received), "distinct_ids": len(ids), "ids_twice": sum(1 for n in ids.values() if n > 1),
        "turns": len(turns), "turns_twice": sum(1 for n in turns.values() if n > 1), "size": size,
        "stages": dict(stages), "cpu": dict(cpu),
        "resolve_cpu_max": max(r["cpu"]["resolve"] for r in results), "rss_mb": max(r["rss_mb"] for r in results),
        "rendered_at": max((r["rendered_at"] for r in results if r["rendered_at"] is not None), default=None),
        "rendered": sum(r["rendered"] for r in results),
    }  # fmt: skip


def _ready(database: str, sink: SmtpSink, connections: int | None, sequential: bool) -> subprocess.Popen[str]:
    """A worker that says when it is set up, then waits for its start line (``run ... ready``); on
    ``connections`` SMTP sessions (None: ``smtp_connections``'s default), ``sequential``: resolving
    first, then sending."""
    options = ([f"connections={connections}"] if connections is not None else []) + (
        ["stages=sequential"] if sequential else []
    )
    return subprocess.Popen(
        [sys.executable, "-m", WORKER, "run", database, sink.host, str(sink.port), "ready", *options],
        cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def _expect_ready(worker: subprocess.Popen[str]) -> None:
    assert worker.stdout is not None
    line = worker.stdout.readline()
    if not line.strip().startswith('{"ready"'):
        _, err = worker.communicate(timeout=60)
        raise RuntimeError(f"a benchmark worker failed before it was ready:\n{line}{err[-4000:]}")


def _floor(count: int, size: int, connections: int = 1) -> float:
    sink = SmtpSink()
    sink.start()
    try:
        return float(child(WORKER, "floor", sink.host, str(sink.port), str(count), str(size), str(connections))["wall"])
    finally:
        sink.close()


def crunch(games: int, repeats: int, postgres: bool) -> None:
    backend = "PostgreSQL" if postgres else "SQLite"
    databases = Databases(postgres)
    try:
        ratios, walls, floors, rss, resolved_at = [], [], [], [], []
        ratios_two, walls_two, floors_two = [], [], []
        shares: dict[str, list[float]] = {}
        for _ in range(repeats):
            run = _one(databases, games, 1)  # smtp_connections = 1, the default
            two_sessions = _one(databases, games, 1, connections=2)
            base = _floor(run["received"], run["size"])
            floors_two.append(_floor(run["received"], run["size"], 2))
            ratios.append(run["wall"] / base)
            ratios_two.append(two_sessions["wall"] / base)
            walls.append(run["wall"])
            walls_two.append(two_sessions["wall"])
            floors.append(base)
            rss.append(run["rss_mb"])
            resolved_at.append(run["resolved_at"])
            s = run["stages"]
            parts = {
                "resolving (no game due)": run["resolved_at"],
                "adjudication": s.get("adjudication", 0.0),
                "rendering": s.get("rendering", 0.0),
                "building MIME": s.get("compose", 0.0) - s.get("rendering", 0.0),
                "sending (SMTP)": s.get("smtp", 0.0),
            }
            for name, seconds in parts.items():
                shares.setdefault(name, []).append(100 * seconds / run["wall"])
            for each in (run, two_sessions):
                if each["received"] != games * 9 or each["ids_twice"] or each["turns_twice"]:
                    print(f"  WARNING: {each['received']} mails received, {each['ids_twice']} Message-IDs twice, "
                          f"{each['turns_twice']} turns twice")  # fmt: skip
        print(f"crunch {backend}, {games} games of 8 ({games * 9} mails), {repeats} runs, min / median:")
        print(f"  bot:   {min_median(walls)} s   ({min(games / w for w in walls):.0f} games/s worst run; "
              f"no game due after {min_median(resolved_at)} s)")  # fmt: skip
        print(f"  bot on two SMTP sessions (smtp_connections = 2): {min_median(walls_two)} s")
        print(f"  floor: {min_median(floors)} s   (bare aiosmtplib, same count and size, one connection)")
        print(f"  floor on two connections: {min_median(floors_two)} s   (for context)")
        print(f"  ratio bot/floor: {min_median(ratios)} x   (target: at most 2x at 1,000 games)")
        print(f"  ratio bot on two sessions/floor: {min_median(ratios_two)} x")
        print("  share of the bot's wall (the stages overlap: resolving runs beside the sender):")
        for name, values in shares.items():
            print(f"    {name:<24} {min_median(values)} %")
        print(f"  peak RSS of the bot process: {min_median(rss)} MB")
    finally:
        databases.close()


def scale(games: int, repeats: int) -> None:
    databases = Databases(True)
    try:
        one: list[float] = []
        two: list[float] = []
        rendered: dict[int, list[float]] = {1: [], 2: []}
        walls: dict[int, list[float]] = {1: [], 2: []}
        cpus: dict[int, list[float]] = {1: [], 2: []}
        machine: list[float] = []
        twice_turns = twice_ids = missing = 0
        for _ in range(repeats):
            machine.append(cores.speed_up())  # the floor, beside each run: this machine's own speed-up now
            for processes, times in ((1, one), (2, two)):
                run = _one(databases, games, processes, sequential=True)
                times.append(run["resolved_at"])
                rendered[processes].append(run["rendered_at"])
                if run["rendered"] != games * 9:
                    print(f"  WARNING: {run['rendered']} mails rendered, not {games * 9}")
                walls[processes].append(run["wall"])
                cpus[processes].append(run["resolve_cpu_max"])
                twice_turns += run["turns_twice"]
                twice_ids += run["ids_twice"]
                missing += games * 9 - run["distinct_ids"]
        speedups = [a / b for a, b in zip(one, two, strict=True)]
        delivered = [a / b for a, b in zip(walls[1], walls[2], strict=True)]
        print(f"scale-out PostgreSQL, {games} games of 8, {repeats} runs, min / median:")
        print(f"  resolving (deadline workers, until no game is due), 1 process:   {min_median(one)} s")
        print(f"  resolving (deadline workers, until no game is due), 2 processes: {min_median(two)} s")
        print(f"  speed-up of the resolving alone: {min_median(speedups)} x")
        print(
            f"  floor: two processes of pure-Python work on this machine, beside each run: "
            f"{min_median(machine)} x the work of one in the same time (2.0: cores that do not slow each other)"
        )
        against = [bot / floor for bot, floor in zip(speedups, machine, strict=True)]
        print(f"  speed-up / the floor's, run by run: {min_median(against)}")
        both = [a / b for a, b in zip(rendered[1], rendered[2], strict=True)]
        print(
            f"  resolving and rendering (until no game is due, then every mail rendered as the sender "
            f"renders it, not sent): 1 process {min_median(rendered[1])} s, 2 processes "
            f"{min_median(rendered[2])} s, speed-up {min_median(both)} x   (target: at least 1.6x)"
        )
        split = [a / b for a, b in zip(cpus[1], cpus[2], strict=True)]
        print(
            f"  resolving CPU of the busiest process: 1 process {min_median(cpus[1])} s, 2 processes "
            f"{min_median(cpus[2])} s: {min_median(split)} x with a free core each (the machine is shared)"
        )
        print(f"  until every mail was delivered (one SMTP server, sent after the resolving): "
              f"1 process {min_median(walls[1])} s, 2 processes {min_median(walls[2])} s, "
              f"speed-up {min_median(delivered)} x")  # fmt: skip
        print(f"  turns resolved twice: {twice_turns}; Message-IDs received twice: {twice_ids}; "
              f"mails missing: {missing}")  # fmt: skip
    finally:
        databases.close()


def reminders(games: int, repeats: int, postgres: bool) -> None:
    """The reminder worker's pass over ``games`` running games (its cost must not grow
    with the games that have nothing due), and the pass where all of them have a reminder due."""
    backend = "PostgreSQL" if postgres else "SQLite"
    databases = Databases(postgres)
    try:
        runs = []
        for _ in range(repeats):
            database = databases.copy_of(
                ("running", str(games)), lambda fresh: child(WORKER, "build", fresh, str(games), "running")
            )
            runs.append(child(WORKER, "remind", database, "20"))
        print(f"reminder passes {backend}, {games} running games of 8, {repeats} runs, min / median:")
        print(f"  nothing due: {min_median([r['quiet_ms'] for r in runs])} ms a pass "
              f"(CPU {min_median([r['quiet_cpu_ms'] for r in runs])} ms), "
              f"{min_median([r['quiet_statements'] for r in runs])} statements, "
              f"{min_median([r['quiet_commits'] for r in runs])} commits; "
              f"{sum(r['quiet_sent'] for r in runs)} reminders sent")  # fmt: skip
        print(f"  every game's 24h reminder due: {min_median([r['due_ms'] for r in runs])} ms "
              f"(CPU {min_median([r['due_cpu_ms'] for r in runs])} ms), "
              f"{min_median([r['due_statements'] for r in runs])} statements, "
              f"{min_median([r['due_commits'] for r in runs])} commits; "
              f"{min_median([r['due_sent'] for r in runs])} seats reminded (expected {games * 8})")  # fmt: skip
    finally:
        databases.close()
