"""``python -m bench cpu``: the CPU every process spends in a timed window, against what the floor leaves.

The ratios of :mod:`bench.guard` say how long; this says who is busy meanwhile.  A thread reads every
process's CPU time (``utime + stime`` of ``/proc/<pid>/stat``, in clock ticks) every
:data:`INTERVAL` seconds; a run's figure for a process is the difference between the samples
nearest to the window's start and end (:attr:`bench.serve.Bench.last_window`: serve's first log line
to the last mail expected at the sink).  Processes are told apart by their command line: ``referee
serve``, its mail reader, PostgreSQL, Dovecot, this bench (the SMTP sink and its polling), the rest.

For the intake (``--mails`` order mails, answered) and the crunch (``--games`` due games of 8, their
9 reports each), each run prints every group's CPU, its share of the machine's cores over the
window, and the whole per mail beside the floor's wall time a mail times the cores: what the goal
of 1.0x (the intake) or 1.5x (the crunch) leaves at 100% use of every core.
"""

from __future__ import annotations

import os
import threading
import time
from bisect import bisect_left

from bench.crunch import _floor as send_floor
from bench.serve import Bench

INTERVAL = 0.05
"""Seconds between two samples (``/proc`` counts in ticks of 10 ms: a window's figures are that close)."""
TICKS = os.sysconf("SC_CLK_TCK")
GROUPS = ("serve", "mail reader", "bench (SMTP sink)", "PostgreSQL", "Dovecot", "other")


def group_of(pid: int, command: str) -> str:
    """The group a process belongs to, by its command line (``comm`` and ``cmdline``)."""
    if pid == os.getpid():
        return "bench (SMTP sink)"
    if "bot.email.mail_reader" in command:
        return "mail reader"
    if ("bot.host.cli" in command or "bot.cli" in command) and " serve" in command:
        return "serve"
    if "postgres" in command:
        return "PostgreSQL"
    if "dovecot" in command:
        return "Dovecot"
    return "other"


def snapshot(groups: dict[int, str]) -> dict[int, tuple[str, int]]:
    """Every process's group and CPU time so far (ticks); ``groups`` remembers each process's group
    once known (its command line is read once); one in no group is looked at again at each sample (a
    child forked and not yet executed has its parent's command line: serve, seen before its ``exec``)."""
    found: dict[int, tuple[str, int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        pid = int(name)
        try:
            with open(f"/proc/{name}/stat") as stat:
                line = stat.read()
            if groups.get(pid, "other") == "other":
                with open(f"/proc/{name}/cmdline", "rb") as cmdline:
                    command = cmdline.read(400).replace(b"\0", b" ").decode(errors="replace")
                groups[pid] = group_of(pid, f"{line[line.index('(') + 1 : line.rindex(')')]} {command}")
        except OSError:  # gone meanwhile
            continue
        fields = line[line.rindex(")") + 2 :].split()
        found[pid] = (groups[pid], int(fields[11]) + int(fields[12]))
    return found


class Sampler:
    """Samples :func:`snapshot` in a thread while :attr:`active` is set, until closed; :meth:`spent` gives
    a window's CPU by group.  The sampling shares this process with the SMTP sink (and with the floors'
    loops): it is active only around the bot's runs, and reads a process's command line once."""

    def __init__(self) -> None:
        self.times: list[float] = []
        self.samples: list[dict[int, tuple[str, int]]] = []
        self.active = threading.Event()
        self._groups: dict[int, str] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            if not self.active.wait(INTERVAL):
                continue
            sample = snapshot(self._groups)
            self.times.append(time.perf_counter())
            self.samples.append(sample)
            self._stop.wait(INTERVAL)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)

    def spent(self, start: float, end: float) -> dict[str, float]:
        """CPU seconds by group between the samples nearest to ``start`` and ``end`` (``perf_counter``)."""
        first, last = self._nearest(start), self._nearest(end)
        spent = dict.fromkeys(GROUPS, 0.0)
        for pid, (group, ticks) in self.samples[last].items():
            _, before = self.samples[first].get(pid, (group, 0))  # started in the window: all of it
            spent[group] += max(0, ticks - before) / TICKS
        return spent

    def _nearest(self, moment: float) -> int:
        index = bisect_left(self.times, moment)
        candidates = [i for i in (index - 1, index) if 0 <= i < len(self.times)]
        return min(candidates, key=lambda i: abs(self.times[i] - moment))


def _line(what: str, count: int, window: float, spent: dict[str, float], budget: float, goal: str) -> str:
    cores = os.cpu_count() or 1
    parts = ", ".join(f"{group} {seconds:.2f} s ({100 * seconds / window:.0f}%)" for group, seconds in spent.items())
    total = sum(spent.values())
    return (
        f"  {what}: window {window:.2f} s; {parts}; all {total:.2f} s ({100 * total / (cores * window):.0f}% of "
        f"{cores} cores), {1000 * total / count:.2f} ms a mail (serve {1000 * spent['serve'] / count:.2f}); "
        f"{goal} leaves {1000 * budget:.2f} ms a mail on {cores} cores"
    )


def cpu(mails: int, games: int, repeats: int) -> None:
    """Print each run's CPU by process over its window, the intake then the crunch, ``repeats`` times."""
    bench = Bench(mails)
    sampler = Sampler()
    cores = os.cpu_count() or 1
    try:
        for _ in range(repeats):
            floor = bench.floor()
            sampler.active.set()
            run = bench.bot()
            sampler.active.clear()
            start, end = bench.last_window
            spent = sampler.spent(start, end)
            budget = cores * floor.wall / mails  # the goal: the floor's wall time
            print(_line(f"intake of {mails} ({run.rate:.0f} msg/s, floor {floor.rate:.0f})", mails, end - start,
                        spent, budget, "1.0x the floor"), flush=True)  # fmt: skip
            sampler.active.set()
            crunch = bench.crunch(games)
            sampler.active.clear()
            start, end = bench.last_window
            spent = sampler.spent(start + crunch.first, end)  # first report to last, as the ratio
            floor_wall = send_floor(crunch.mails, crunch.size)
            budget = cores * 1.5 * floor_wall / crunch.mails
            print(_line(f"crunch of {games} games ({crunch.mails} reports, {crunch.spread / floor_wall:.2f}x the "
                        "send floor)", crunch.mails, end - start - crunch.first, spent, budget, "1.5x the send floor"),
                  flush=True)  # fmt: skip
    finally:
        sampler.close()
        bench.close()
