"""The machine's own speed-up for two processes: the floor of the scale-out benchmark.

A machine with two cores does not always run two busy processes twice as fast as one: on a
virtual machine the two cores may share a physical core or its caches, or be lent to others
while they are busy.  The scale-out benchmark (:func:`bench.crunch.scale`) measures this beside
each of its runs: the same amount of pure-Python work (dicts, strings and lists, as the bot's
resolving makes) in one process, then that amount in each of two processes started together
(as the benchmark's workers are: each says it is ready, then all are told to go).  Its speed-up,
``2 * one / two``, is the most two processes of any Python program get from this machine at
that moment; the bot's speed-up is printed against it.

``python -m bench.cores spin ROUNDS``: one process of the work (prints a ready line, waits for
a line on stdin, then works and prints JSON: its wall and CPU seconds).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from subprocess import PIPE

from bench.common import ROOT, collect

ROUNDS = 300_000
"""One process's work: about a second of CPU on this project's 2-core test machines."""


def work(rounds: int) -> int:
    """Pure-Python work of ``rounds`` rounds: the same every time (no I/O, no randomness)."""
    table: dict[int, str] = {}
    total = 0
    for number in range(rounds):
        table[number % 1000] = str(number) * 3
        total += sum(len(text) for text in list(table.values())[:20])
    return total


def spin(rounds: int) -> None:
    print(json.dumps({"ready": True}), flush=True)
    sys.stdin.readline()
    wall, cpu = time.perf_counter(), time.process_time()
    work(rounds)
    print(json.dumps({"wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu}), flush=True)


def together(processes: int, rounds: int = ROUNDS) -> float:
    """Seconds until ``processes`` processes, started together, have each done ``rounds`` rounds."""
    command = [sys.executable, "-m", "bench.cores", "spin", str(rounds)]
    workers = [
        subprocess.Popen(command, cwd=ROOT, stdin=PIPE, stdout=PIPE, stderr=PIPE, text=True) for _ in range(processes)
    ]
    for worker in workers:
        assert worker.stdout is not None
        if '"ready"' not in worker.stdout.readline():
            raise RuntimeError(f"a spinning process failed: {worker.communicate(timeout=60)[1][-2000:]}")
    for worker in workers:
        assert worker.stdin is not None
        worker.stdin.write("go\n")
        worker.stdin.flush()
    return max(float(collect(worker)["wall"]) for worker in workers)


def speed_up(rounds: int = ROUNDS) -> float:
    """The machine's speed-up for two processes now: ``2 * one / two`` (2.0: two cores that do not
    slow each other)."""
    return 2 * together(1, rounds) / together(2, rounds)


def main(argv: list[str]) -> int:
    match argv:
        case ["spin", rounds]:
            spin(int(rounds))
        case []:
            print(f"two processes on this machine: {speed_up():.2f}x the work of one in the same time")
        case _:
            raise SystemExit(__doc__)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
