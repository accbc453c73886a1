"""``python -m bench serve-scale``: the crunch's scale-out end to end, ``referee serve`` as subprocesses.

:func:`bench.crunch.scale` measures two processes with the bench's own workers (the deadline worker,
then the sender, each timed apart).  This runs the product as a host would: G games of 8 due on one
PostgreSQL database, then one ``referee serve``, then two started together on that database (each a
copy of the same league; :meth:`bench.serve.Bench.scale`), alternately, until an aiosmtpd sink holds
the 9 reports a game; timed from the first serve's first log line to the last report.  Beside each
pair, the machine's own speed-up for two processes (:func:`bench.cores.speed_up`, the floor), and the
SMTP sink's own time for as many mails on one and on two connections (a bare aiosmtplib loop,
:func:`bench.crunch._floor`): the one mail server both serves send to bounds what two can gain.  Reports
received twice (a Message-ID seen more than once) and missing are counted.  Nothing asserts a time.
"""

from __future__ import annotations

import statistics

from bench import cores
from bench.crunch import _floor as send_floor
from bench.guard import spread
from bench.serve import Bench


def serve_scale(games: int, repeats: int) -> dict[str, float]:
    """Print the figures; return the medians by name."""
    bench = Bench(12)  # the intake's league is not used
    one: list[float] = []
    two: list[float] = []
    machine: list[float] = []
    twice = missing = 0
    spreads: dict[int, list[float]] = {1: [], 2: []}
    sink: dict[int, list[float]] = {1: [], 2: []}
    try:
        for repetition in range(repeats):
            machine.append(cores.speed_up())
            order = (1, 2) if repetition % 2 == 0 else (2, 1)
            for processes in order:
                run = bench.scale(games, processes)
                (one if processes == 1 else two).append(run.wall)
                spreads[processes].append(run.spread)
                twice += run.twice
                missing += run.missing
                print(f"  {processes} serve: {run.wall:.2f} s (first report to last {run.spread:.2f} s), "
                      f"{run.received} reports, {run.twice} twice, {run.missing} missing", flush=True)  # fmt: skip
            for connections in (1, 2):
                sink[connections].append(send_floor(games * 9, run.size, connections))
    finally:
        bench.close()
    speedups = [a / b for a, b in zip(one, two, strict=True)]
    print(f"serve-scale: {games} games of 8 due ({games * 9} reports), {repeats} alternated repetitions, "
          "min / median / max")  # fmt: skip
    print(f"  1 referee serve: {spread(one)} s; 2 on one PostgreSQL: {spread(two)} s")
    print(f"  speed-up: {spread(speedups)} x (goal >= 1.6); the machine's own for two processes: "
          f"{spread(machine)} x")  # fmt: skip
    print(f"  first report to last: 1 serve {spread(spreads[1])} s, 2 serves {spread(spreads[2])} s")
    print(f"  the SMTP sink alone (a bare aiosmtplib loop, as many mails of that size): one connection "
          f"{spread(sink[1])} s, two {spread(sink[2])} s")  # fmt: skip
    print(f"  reports received twice: {twice}; missing: {missing}")
    return {"speed_up": statistics.median(speedups), "machine": statistics.median(machine)}
