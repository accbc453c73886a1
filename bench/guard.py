"""``python -m bench guard``: the intake and the crunch, end to end, each against its floor.

Both run ``referee serve`` as a subprocess (:mod:`bench.serve`: PostgreSQL, a throwaway
Dovecot, replies to an aiosmtpd sink), alternating with their floors so that a shared
machine's noise falls on both:

* **intake**: N order mails of seated players of password games, from serve's first log
  line until the last reply is accepted, against a bare imapclient loop of one FETCH and one
  MOVE a message over as many mails (ratio bot msg/s / floor msg/s; goal at least 1.0);
* **replies**: 20 order mails delivered one at a time (0.25 s apart) to a running serve, each
  reply's seconds from its mail's delivery to the sink (goal: p50 at most 1 s, max at most 5 s);
  and the intake's own replies, from serve's first log line (its mails were all waiting);
* **crunch**: G games of 8 due at serve's start, from the first report accepted to the last,
  against a bare aiosmtplib loop sending as many mails of the same size over one connection
  (ratio bot seconds / floor seconds; goal at most 1.5); and from serve's first log line to
  the first report.

Each figure is printed as min / median / max over the repetitions.  ``--against PATH`` runs
serve from another checkout too (e.g. main's worktree, or a clone of an older commit: its
league is built by its own code, :mod:`bench.checkout_league`), in the same alternation, so a
change is measured beside what it changes; given more than once, each checkout is named by its
directory.  ``--intake-only`` leaves the crunch out.  Nothing here asserts a time: it prints.
"""

from __future__ import annotations

import statistics
from pathlib import Path

from bench.common import ROOT, quiet_machine
from bench.crunch import _floor as send_floor
from bench.serve import Bench


def spread(values: list[float], digits: int = 2) -> str:
    """``min / median / max`` of ``values``."""
    return " / ".join(f"{v:.{digits}f}" for v in (min(values), statistics.median(values), max(values)))


def quantile(values: list[float], share: float) -> float:
    """The value below which ``share`` of ``values`` lie (the nearest rank; nan for none)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def named(against: list[Path]) -> dict[str, Path]:
    """The checkouts to run: this one as ``this``; one other as ``other``, several by their directory's name."""
    if len(against) == 1:
        return {"this": ROOT, "other": against[0]}
    checkouts = {"this": ROOT}
    for path in against:
        name = path.resolve().name
        while name in checkouts:
            name += "'"
        checkouts[name] = path
    return checkouts


def guard(
    mails: int, games: int, repeats: int, against: Path | list[Path] | None = None, crunch: bool = True
) -> dict[str, float]:
    """Run the guard and print its figures; returns the medians by name (for a test to check they exist)."""
    checkouts = named([] if against is None else [against] if isinstance(against, Path) else against)
    bench = Bench(mails)
    rates: dict[str, list[float]] = {name: [] for name in checkouts}
    ratios: dict[str, list[float]] = {name: [] for name in checkouts}
    spreads: dict[str, list[float]] = {name: [] for name in checkouts}
    crunch_ratios: dict[str, list[float]] = {name: [] for name in checkouts}
    firsts: dict[str, list[float]] = {name: [] for name in checkouts}
    backlog: dict[str, list[float]] = {name: [] for name in checkouts}
    trickled: dict[str, list[float]] = {name: [] for name in checkouts}
    floors: list[float] = []
    send_floors: list[float] = []
    try:
        for repetition in range(repeats):
            order = list(checkouts.items())
            if repetition % 2:
                order.reverse()  # floor A B, then floor B A: neither checkout goes first every time
            floor = bench.floor()
            floors.append(floor.rate)
            for name, checkout in order:
                run = bench.bot(checkout)
                if run.replies != mails or run.accepted != mails:
                    print(f"  WARNING ({name}): {run.replies} replies, {run.accepted} with ORDERS ACCEPTED of {mails}")
                rates[name].append(run.rate)
                ratios[name].append(run.rate / floor.rate)
                backlog[name] += run.latencies
                trickle = bench.trickle(checkout=checkout)
                if trickle.replies != len(trickle.latencies):
                    print(f"  WARNING ({name}): {trickle.replies} replies to the trickle, "
                          f"{len(trickle.latencies)} matched to their mails")  # fmt: skip
                trickled[name] += trickle.latencies
            print(f"  round {repetition + 1}: floor {floor.rate:.0f} msg/s; "
                  + "; ".join(f"{name} {rates[name][-1]:.0f} ({ratios[name][-1]:.2f}x)" for name, _ in order),
                  flush=True)  # fmt: skip
            if not crunch:
                continue
            for name, checkout in order:
                done = bench.crunch(games, checkout)
                if done.mails != games * 9:
                    print(f"  WARNING ({name}): {done.mails} reports of {games * 9}")
                quiet_machine()
                base = send_floor(done.mails, done.size)
                send_floors.append(base)
                spreads[name].append(done.spread)
                crunch_ratios[name].append(done.spread / base)
                firsts[name].append(done.first)
    finally:
        bench.close()
    print(f"guard: {repeats} alternated repetitions, min / median / max")
    print(f"  intake floor (bare imapclient FETCH+MOVE, {mails} mails): {spread(floors, 0)} msg/s")
    medians: dict[str, float] = {}
    for name, checkout in checkouts.items():
        label = f"{name} ({checkout})"
        print(f"  intake {label}: {spread(rates[name], 0)} msg/s, ratio {spread(ratios[name])} (goal >= 1.0)")
        medians[f"intake_ratio_{name}"] = statistics.median(ratios[name])
        print(f"  replies {label}: {len(trickled[name])} mails delivered one at a time to a running serve: "
              f"p50 {quantile(trickled[name], 0.5):.2f} s, max {max(trickled[name]):.2f} s (goal p50 <= 1, max <= 5); "
              f"the {len(backlog[name])} waiting when it started: p50 {quantile(backlog[name], 0.5):.2f} s, "
              f"max {max(backlog[name]):.2f} s")  # fmt: skip
        medians[f"reply_p50_{name}"] = quantile(trickled[name], 0.5)
        medians[f"reply_max_{name}"] = max(trickled[name])
    if crunch:
        print(f"  crunch floor (bare aiosmtplib, one connection, {games * 9} mails): {spread(send_floors)} s")
        for name, checkout in checkouts.items():
            label = f"{name} ({checkout})"
            print(f"  crunch {label}: first report to last {spread(spreads[name])} s, "
                  f"ratio {spread(crunch_ratios[name])} (goal <= 1.5); "
                  f"start to first report {spread(firsts[name])} s")  # fmt: skip
            medians[f"crunch_ratio_{name}"] = statistics.median(crunch_ratios[name])
    return medians
