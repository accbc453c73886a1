"""``python -m bench {intake,crunch,scale,remind,all} [--full] [--repeats N] [--backend B]``.

Defaults are small (about a minute or two in all); ``--full`` takes the
sizes of the performance targets (2,000 mails; 1,000 games).  ``remind``: the reminder
worker's pass over 200 running games (``--games``), nothing due and all due.
"""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("which", choices=["intake", "crunch", "scale", "remind", "all"])
    parser.add_argument("--full", action="store_true", help="the issue's sizes: 2,000 mails, 1,000 games")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--games", type=int, help="games in the crunch (default 60; --full: 1,000)")
    parser.add_argument("--mails", type=int, help="mails in the intake (default 400; --full: 2,000)")
    parser.add_argument("--backend", choices=["sqlite", "postgresql", "both"], default="both")
    args = parser.parse_args(argv)
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
