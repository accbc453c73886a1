"""One benchmark process of the intake (see :mod:`bench.intake`).

``python -m bench.intake_worker build DATABASE GAMES ADDRESSES``: the league.
``python -m bench.intake_worker bot DATABASE HOST PORT USER READERS``: the bot's own IMAP intake
(fetch, store, parse, validate, persist, queue the reply) until the mailbox is empty, set up as
``referee serve`` sets up (:func:`bot.core.runtime.heap.settle` once built), with
READERS (0 or 1) reader processes (``email_reader_processes``; ``referee serve`` runs 1, started
and ready before the clock starts, as at a serve's start); it also reports its own CPU seconds
and its reader's (less moved by other work on a shared machine than the wall time).
``python -m bench.intake_worker floor HOST PORT USER``: the floor, a bare imapclient loop
with one ``FETCH RFC822`` per message on the read-only mailbox.  Both print JSON.
"""

from __future__ import annotations

import resource
import sys
import time
from datetime import timedelta

from imapclient import IMAPClient
from sqlalchemy import func, select

from bench import world
from bench.common import peak_rss_mb, report
from bot.core.basics.clock import SimulatedClock
from bot.core.intake.inbox import Inbox
from bot.core.intake.reply_limit import ReplyBudget
from bot.core.runtime import heap
from bot.email.imap import ImapConfig, ImapIntakeLoop
from bot.email.intake import Intake
from bot.email.mail_reader import MailReader
from bot.email.processor import MailProcessor, ReplyLimit
from bot.email.understand import IntakePolicy
from bot.store.db import make_engine, session_factory, unit_of_work
from bot.store.models import OrderSubmission
from tests.support.dovecot import PASSWORD


def build(database: str, games: int, addresses: int) -> None:
    world.build(session_factory(make_engine(database)), games, addresses)
    report({"built": games})


def bot(database: str, host: str, port: int, user: str, readers: int) -> None:
    engine = make_engine(database)
    sessions = session_factory(engine)
    clock = SimulatedClock(world.START + timedelta(hours=1))
    policy = IntakePolicy(own_addresses=frozenset({world.REFEREE}))
    processor = MailProcessor(
        Inbox(sessions), world.service_for(sessions), clock, policy, ReplyBudget(sessions), ReplyLimit()
    )
    config = ImapConfig(host=host, port=port, security="none", user=user, password=PASSWORD, timeout=60)
    reader = MailReader(policy, readers)
    reader.warm_up()
    loop = ImapIntakeLoop(config, Intake(processor, reader=reader))
    heap.settle()  # as referee serve does once its workers are built
    start, cpu = time.perf_counter(), time.process_time()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    stored = 0
    while True:
        result = loop.run_once()
        stored += result.stored
        if result.stored == 0 and result.acknowledged == 0:
            break
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    reader.close()  # its CPU is counted once it has ended
    ended = resource.getrusage(resource.RUSAGE_CHILDREN)
    reader_cpu = ended.ru_utime + ended.ru_stime - children.ru_utime - children.ru_stime
    with unit_of_work(sessions) as session:
        orders = session.scalar(select(func.count()).select_from(OrderSubmission))
    report({"wall": wall, "cpu": cpu, "reader_cpu": reader_cpu, "stored": stored, "orders": orders,
            "rss_mb": peak_rss_mb(), "in_process": reader.batches_in_process})  # fmt: skip


def floor(host: str, port: int, user: str) -> None:
    client = IMAPClient(host, port=port, ssl=False, timeout=60)
    start = time.perf_counter()
    client.login(user, PASSWORD)
    client.select_folder("INBOX", readonly=True)
    fetched = 0
    for uid in client.search(["ALL"]):
        fetched += len(client.fetch([uid], ["RFC822"])[uid][b"RFC822"]) > 0
    client.logout()
    report({"wall": time.perf_counter() - start, "fetched": fetched})


def main(argv: list[str]) -> int:
    match argv:
        case ["build", database, games, addresses]:
            build(database, int(games), int(addresses))
        case ["bot", database, host, port, user, readers]:
            bot(database, host, int(port), user, int(readers))
        case ["floor", host, port, user]:
            floor(host, int(port), user)
        case _:
            raise SystemExit(__doc__)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
