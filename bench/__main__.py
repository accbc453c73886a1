"""``python -m bench {intake,crunch,scale,remind,guard,rss,all} [--full] [--repeats N] [--backend B]``.

Defaults are small (about a minute or two in all); ``--full`` takes the
sizes of the performance targets (2,000 mails; 1,000 games).  ``remind``: the reminder
worker's pass over 200 running games (``--games``), nothing due and all due.  ``guard``:
``referee serve`` end to end, the intake (``--mails``, default 300) and the crunch (``--games``,
default 20) against their floors, alternated (``--against PATH``, repeatable: other checkouts beside
this one, older commits too; ``--intake-only``; :mod:`bench.guard`).  ``rss``: serve's peak memory at
0, 1,000 and ``--games`` (default 10,000) open games built by ``referee host bulk-games``'s path on
PostgreSQL (:mod:`bench.rss`).  ``serve-scale``: one ``referee serve`` against two on one PostgreSQL,
the crunch of ``--games`` (default 100) due games end to end (:mod:`bench.serve_scale`).  ``cpu``:
the CPU each process (serve, its mail reader, the SMTP sink, PostgreSQL, Dovecot) spends in the intake's
(``--mails``, default 600) and the crunch's (``--games``, default 300) timed windows, against what the
goals leave on the machine's cores (:mod:`bench.cpu_window`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument(
        "which", choices=["intake", "crunch", "scale", "serve-scale", "remind", "guard", "rss", "cpu", "all"]
    )
    parser.add_argument("--full", action="store_true", help="the issue's sizes: 2,000 mails, 1,000 games")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--games", type=int, help="games in the crunch (default 60; --full: 1,000)")
    parser.add_argument("--mails", type=int, help="mails in the intake (default 400; --full: 2,000)")
    parser.add_argument("--backend", choices=["sqlite", "postgresql", "both"], default="both")
    parser.add_argument(
        "--against",
        type=Path,
        action="append",
        help="guard: also run serve from this checkout, alternately (repeatable)",
    )
    parser.add_argument("--intake-only", action="store_true", help="guard: the intake only, no crunch")
    args = parser.parse_args(argv)
    if args.which == "guard":
        from bench.guard import guard

        guard(args.mails or 300, args.games or 20, args.repeats, args.against, crunch=not args.intake_only)
        return 0
    if args.which == "serve-scale":
        from bench.serve_scale import serve_scale

        serve_scale(args.games or 100, args.repeats)
        return 0
    if args.which == "cpu":
        from bench.cpu_window import cpu

        cpu(args.mails or 600, args.games or 300, args.repeats)
        return 0
    if args.which == "rss":
        from bench.rss import rss

        rss(args.games or 10_000)
        return 0
    games = args.games or (1000 if args.full else 60)
    mails = args.mails or (2000 if args.full else 400)
    if args.which in ("intake", "all"):
        from bench.intake import intake

        intake(mails, args.repeats)
    if args.which in ("crunch", "all"):
        from bench.crunch import crunch

        for backend in ("sqlite", "postgresql"):
            if args.backend in (backend, "both"):
                crunch(games, args.repeats, backend == "postgresql")
    if args.which in ("remind", "all"):
        from bench.crunch import reminders

        for backend in ("sqlite", "postgresql"):
            if args.backend in (backend, "both"):
                reminders(args.games or 200, args.repeats, backend == "postgresql")
    if args.which in ("scale", "all"):
        from bench.crunch import scale

        scale(games, args.repeats)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
