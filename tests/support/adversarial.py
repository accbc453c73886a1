"""Lines an attacker writes to make a pattern backtrack, and a stopwatch for them.

A backtracking pattern is slow on runs: of spaces or tabs between two parts it tries to split, of a
repeated token it tries to match in many ways (``REPLACE sg1 `` again and again, ``WITH ``, ``x ``,
``: ``, digits, ``[``), and on very long lines.  :func:`tails` gives such runs at a length;
:func:`best_of` times a call as the tests of linear reading do (the best of three, so that another
process on the machine does not make a fast call look slow).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

BOUND_SECONDS = 0.005
"""The most one line may cost a reader, a parser or a pattern: 5 ms."""
LONG = 100_000
"""A long line: 100 KB."""
RUNS = (
    " ", "\t", " \t", "\u00a0", "x ", "x", ": ", ":", "1", "12 ", "[", "[x ", "(", "-", ",", ", ", "=", "= ", "+",
    "REPLACE sg1 ", "WITH ", "sg1 ", "EXTEND ", "REASON ", "TO ", "and ", "a-b-", "ab-cd-1234", "r1c1 ", "if ",
    "then ", "or ", "play ", "bank ", "1/", "choose ", "take over ", "hold at ", "more than ", "move 1: ", "25=",
    "PASSWORD ", "on wrote ", "Thanks ", "<", "@", "=?", "\\", '"',
)  # fmt: skip
"""The repeated pieces of an adversarial line."""


def tails(length: int) -> Iterator[tuple[str, str]]:
    """(a name, a line of about ``length`` characters) for every run of :data:`RUNS`, and a few shapes:
    a run of spaces ending in a letter, a letter, spaces, a letter."""
    for run in RUNS:
        yield repr(run), (run * (length // len(run) + 1))[:length]
    yield "spaces then x", " " * (length - 1) + "x"
    yield "x spaces x", "x" + " " * (length - 2) + "x"
    yield "tabs then x", "\t" * (length - 1) + "x"


def best_of(call: Callable[[], Any], times: int = 3) -> float:
    """The shortest of ``times`` runs of ``call``, in seconds."""
    best = float("inf")
    for _ in range(times):
        start = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - start)
    return best


class Worst:
    """The slowest case seen, to fail on the first one over the bound and to print the worst figure."""

    def __init__(self, bound: float = BOUND_SECONDS) -> None:
        self.bound = bound
        self.seconds = 0.0
        self.case = ""
        self.over: list[str] = []

    def add(self, seconds: float, case: str) -> None:
        if seconds > self.seconds:
            self.seconds, self.case = seconds, case
        if seconds > self.bound:
            self.over.append(f"{seconds * 1000:.1f} ms: {case}")

    def report(self, what: str) -> str:
        return f"[linear] {what}: the worst took {self.seconds * 1000:.2f} ms ({self.case})"
