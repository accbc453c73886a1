"""Sums py-spy's collapsed stacks (``py-spy record --format raw``) into per-mail costs by stage.

``python -m bench.stacks FILE MAILS [RATE] [TOP]``: for each process (and thread, when recorded
with ``--threads``) its samples, then the intake's stages (:data:`STAGES`: a sample counts for a
stage when any of its frames names one of the stage's places; stages overlap, as cumulative times
do), then the ``TOP`` functions by cumulative samples; each in milliseconds per mail, from
``RATE`` samples a second (py-spy's ``--rate``, 250 as :mod:`bench.serve` records).
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

STAGES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("IMAP fetch/move", ("bot/email/imap_fetch.py", "imapclient/")),
    ("pre-screen", ("bot/email/prescreen.py",)),
    ("reader round trip (pickle, pipe)", ("MailReader._collect", "MailReader._send", "multiprocessing/connection.py")),
    ("reading in the reader process", ("read_mail (bot/email/mail_reader.py",)),
    ("MIME parsing", ("bot/email/mime.py", "bot/email/plainmime.py", "email/feedparser.py")),
    ("the text reading", ("bot/text/reading.py",)),
    ("vouching / trust", ("bot/email/originator.py", "bot/email/policy.py", "bot/core/people/admission.py")),
    ("guessing bookkeeping", ("bot/core/people/guessing.py",)),
    ("sender budgets", ("bot/core/intake/sender_budgets.py",)),
    ("the inbox (store, claim)", ("bot/core/intake/inbox.py",)),
    ("declarations dispatch", ("bot/core/commands/",)),
    ("game's order parsing", ("adjudicator/",)),
    ("DB (SQLAlchemy)", ("sqlalchemy/",)),
    ("DB commit", ("Session.commit", "SessionTransaction.commit")),
    ("DB flush", ("Session.flush", "Session._autoflush")),
    ("seat secret check", ("check_secret",)),
    ("outbox rows", ("bot/core/messaging/outbox.py",)),
    ("reply rendering (jinja2)", ("bot/core/messaging/rendering.py", "jinja2/", "bot/email/render.py")),
    ("SMTP send", ("bot/email/smtp.py", "aiosmtplib/")),
    ("logging", ("logging/__init__.py",)),
    ("logging, in the thread that logs", ("Logger._log (logging/__init__.py",)),
    ("logging, its writer thread (idle waits included)", ("BackgroundHandler._write",)),
)
_PROCESS = re.compile(r'^process \d+:"(?P<command>[^"]*)"$')
_THREAD = re.compile(r"^thread \(0x[0-9A-F]+\)$", re.IGNORECASE)


def load(path: Path) -> list[tuple[list[str], int]]:
    stacks = []
    for line in path.read_text().splitlines():
        frames, _, count = line.rpartition(" ")
        if frames and count.isdigit():
            stacks.append((frames.split(";"), int(count)))
    return stacks


def where(frames: list[str]) -> str:
    """The process (its command's last words) and the thread a stack was sampled in."""
    process = [m.group("command") for f in frames if (m := _PROCESS.match(f))]
    command = " ".join((process[-1] if process else "").split()[-2:]) or "serve"
    thread = next((f for f in frames if _THREAD.match(f)), "")
    return f"{command} {thread}".strip()


def summary(path: Path, mails: int, rate: float = 250.0, top: int = 40) -> str:
    stacks = load(path)
    per_mail = 1000.0 / rate / mails
    places: Counter[str] = Counter()
    stages: Counter[str] = Counter()
    functions: Counter[str] = Counter()
    for frames, count in stacks:
        places[where(frames)] += count
        for stage, marks in STAGES:
            if any(mark in frame for frame in frames for mark in marks):
                stages[stage] += count
        for frame in {f for f in frames if not _PROCESS.match(f) and not _THREAD.match(f)}:
            functions[frame] += count
    lines = [f"{sum(c for _, c in stacks)} samples at {rate:g}/s over {mails} mails; ms per mail:"]
    lines += [f"  {per_mail * n:7.3f}  {place}" for place, n in places.most_common()]
    lines.append("stages (cumulative, overlapping):")
    lines += [f"  {per_mail * stages[s]:7.3f}  {s}" for s, _ in STAGES if stages[s]]
    lines.append(f"top {top} functions (cumulative):")
    lines += [f"  {per_mail * n:7.3f}  {f}" for f, n in functions.most_common(top)]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        raise SystemExit(__doc__)
    print(summary(Path(argv[0]), int(argv[1]), float(argv[2]) if len(argv) > 2 else 250.0,
                  int(argv[3]) if len(argv) > 3 else 40))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
