"""Intake benchmark (target 1).

N valid order mails in a real Dovecot mailbox (N/40 Golden Strider games of 8
seats held by N/8 addresses, each seat sending orders five times: each mail is
a valid ORDERS that replaces the last), handled by the bot's own IMAP intake
in a child process (with a reader process, as ``referee serve`` runs it, and again in one
process); against the floor, a bare imapclient loop with one
``FETCH RFC822`` per message on the same mailbox, measured first (read-only).
"""

from __future__ import annotations

from imapclient import IMAPClient

from bench import world
from bench.common import Databases, child, min_median
from tests.support.dovecot import PASSWORD, DovecotServer, dovecot_binary

WORKER = "bench.intake_worker"


def _fill(server: DovecotServer, user: str, mails: int, games: int, addresses: int) -> None:
    raws = [world.order_mail(n % games, (n // games) % world.SEATS, addresses, n) for n in range(mails)]
    client = IMAPClient(server.host, port=server.port, ssl=False, timeout=60)
    client.login(user, PASSWORD)
    for start in range(0, len(raws), 200):
        client.multiappend("INBOX", raws[start : start + 200])
    client.logout()


def intake(mails: int, repeats: int) -> None:
    binary = dovecot_binary()
    if binary is None:
        raise SystemExit("Dovecot is not installed")
    games, addresses = max(1, mails // 40), max(8, mails // 8)
    server = DovecotServer(binary)
    server.start()
    databases = Databases(False)
    try:
        bots, floors, ratios, rss, cpu, reader_cpu = [], [], [], [], [], []
        inline, inline_ratios, inline_cpu = [], [], []
        for _ in range(repeats):
            user = server.new_user("bench")
            _fill(server, user, mails, games, addresses)
            base = child(WORKER, "floor", server.host, str(server.port), user)
            floors.append(mails / base["wall"])
            for readers in (1, 0):  # as referee serve runs it (a reader process), then in one process
                if readers == 0:
                    user = server.new_user("bench")
                    _fill(server, user, mails, games, addresses)
                database = databases.copy_of(
                    (str(games), str(addresses)),
                    lambda fresh: child(WORKER, "build", fresh, str(games), str(addresses)),
                )
                run = child(WORKER, "bot", database, server.host, str(server.port), user, str(readers))
                if run["stored"] != mails or run["orders"] == 0 or base["fetched"] != mails:
                    print(f"  WARNING: stored {run['stored']}, orders {run['orders']}, floor fetched {base['fetched']}")
                if readers:
                    bots.append(mails / run["wall"])
                    ratios.append(bots[-1] / floors[-1])
                    rss.append(run["rss_mb"])
                    cpu.append(1000 * run["cpu"] / mails)
                    reader_cpu.append(1000 * run["reader_cpu"] / mails)
                else:
                    inline.append(mails / run["wall"])
                    inline_ratios.append(inline[-1] / floors[-1])
                    inline_cpu.append(1000 * run["cpu"] / mails)
        print(f"intake SQLite, {mails} order mails ({games} games of 8, {addresses} addresses), {repeats} runs, "
              "min / median:")  # fmt: skip
        print(f"  floor: {min_median(floors)} messages/s   (bare imapclient, one FETCH RFC822 per message)")
        print(f"  bot (a reader process, as referee serve runs it): {min_median(bots)} messages/s")
        print(f"  ratio bot/floor: {min_median(ratios)}   (target: at least 0.5)")
        print(f"  bot CPU per message: {min_median(cpu)} ms in the intake's process, "
              f"{min_median(reader_cpu)} ms in its reader process (with its start)")  # fmt: skip
        print(f"  bot in one process (email_reader_processes = 0): {min_median(inline)} messages/s, "
              f"ratio {min_median(inline_ratios)}, CPU {min_median(inline_cpu)} ms per message")  # fmt: skip
        print(f"  peak RSS of the bot process: {min_median(rss)} MB")
    finally:
        databases.close()
        server.stop()
