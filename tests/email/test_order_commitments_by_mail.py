"""Orders players can verify, end to end by mail: Dovecot in, aiosmtpd out, ``referee verify`` at the end.

A short Golden Strider race (``max_rounds`` 2: the setup and two rounds) is played
by mail through the workers ``referee serve`` runs.  Each confirmation shows a
commitment; ``ORDERS?`` shows the same one; a second set replaces the first; every
report mailed lists, beside each seat, the commitment its confirmation showed.  At
the end ``RECORD`` mails the record, ``referee verify`` passes it, and refuses it
(exit code 2, one line naming turn and seat) with one order or one commitment changed.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import update

from bot.core.basics.clock import SimulatedClock
from bot.core.basics.display_width import display_width
from bot.core.games.stored import find_game, rules_of, state_for_reading
from bot.core.model import commands as c
from bot.core.runtime import supervisor
from bot.host import cli
from bot.host.wiring import workers
from bot.store.db import unit_of_work
from bot.store.models import OutboxMessage
from tests.email.mailboxes import append, eventually
from tests.email.pipeline import message
from tests.email.test_deadlines import settings_for
from tests.email.world import GM, PLAYERS, START, apply, cheap_hash, service_for

pytestmark = pytest.mark.integration

SLUG = "race"
COMMITMENT = re.compile(r"^  Commitment: ((?:[0-9a-f]{4} ){7}[0-9a-f]{4})$", re.MULTILINE)
OLD_RECORD = Path(__file__).parents[1] / "adjudicator" / "golden_strider" / "records" / "flat_race_6.json"


def start_race(sessions) -> dict[str, str]:
    """The race, started, and each seat's password (from the JOIN replies)."""
    service = service_for(sessions)
    created = apply(service, GM, "Game Master",
                    c.CreateGame(SLUG, "golden-strider", {"max_rounds": 2}, "UTC", 48 * 60, early_delay="0"))  # fmt: skip
    assert created is not None and "CREATED" in created, created
    passwords = {}
    for name, address in PLAYERS.items():
        joined = apply(service, address, name, c.JoinGame(SLUG, name))
        assert joined is not None
        passwords[name] = joined.split("Your seat password: ")[1].split()[0]
    started = apply(service, GM, "Game Master", c.StartGame(SLUG))
    assert started is not None and "STARTED" in started, started
    with unit_of_work(sessions) as session:  # as in the world: keyless hashes, and what was mailed is sent
        game = find_game(session, SLUG)
        assert game is not None
        for seat in game.seats:
            seat.secret_hash = cheap_hash(passwords[seat.name])
        session.execute(update(OutboxMessage).values(sent_at=START))
    return passwords


def example_orders(sessions, seat: str, rng: random.Random) -> tuple[int, str] | None:
    """The open turn and a legal set of orders for ``seat`` (the test plays every seat); None when over."""
    with unit_of_work(sessions) as session:
        game = find_game(session, SLUG)
        assert game is not None
        rules = rules_of(game)
        state = state_for_reading(game)
        phase = rules.phase(state)
        if phase is None:
            return None
        return phase.number, rules.example_orders(state, seat, rng)


def run_verify(path: Path, capsys) -> tuple[int, str, str]:
    code = cli.main(["verify", str(path)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


async def test_a_race_by_mail_publishes_commitments_and_its_record_verifies(
    dovecot, imap_user, smtp, world, world_path, tmp_path, capsys
):
    passwords = start_race(world)
    settings = settings_for(str(world_path), dovecot, imap_user, smtp, intake_poll_seconds=30,
                            email_trusted_authserv_ids=[])  # no receiving server vouches: the passwords count  # fmt: skip
    found = workers(settings, world, SimulatedClock(START + timedelta(hours=1)))
    stop = asyncio.Event()
    task = asyncio.create_task(supervisor.serve(found, stop))
    rng = random.Random(7)
    confirmed: dict[tuple[int, str], str] = {}

    async def mail(name: str, body: str) -> str:
        """Send ``body`` (with the seat's password) and return the body of the reply to it."""
        before = len(smtp.messages())
        append(dovecot, imap_user, message(f"{body}\nPASSWORD {passwords[name]}\n", sender=PLAYERS[name], name=name))
        await eventually(lambda: any(m.recipients == (PLAYERS[name],) and "Re: " in str(m.message["Subject"])
                                     for m in smtp.messages()[before:]))  # fmt: skip
        reply = next(m for m in smtp.messages()[before:] if m.recipients == (PLAYERS[name],)
                     and "Re: " in str(m.message["Subject"]))  # fmt: skip
        text = reply.message.get_content().replace("\r\n", "\n")
        assert all(display_width(line) <= 78 for line in text.splitlines()), text
        return text

    try:
        while True:
            turns = {name: example_orders(world, name, rng) for name in PLAYERS}
            if any(t is None for t in turns.values()):
                break
            turn = next(t for t in turns.values() if t is not None)[0]
            names = list(PLAYERS)
            for index, name in enumerate(names):
                planned = turns[name]
                assert planned is not None
                if index == 0:  # Ann sends a first set, asks what is on file, then replaces it
                    first = await mail(name, f"ORDERS {SLUG}\n{planned[1]}")
                    assert COMMITMENT.findall(first), first
                    [first_commitment] = COMMITMENT.findall(first)
                    on_file = await mail(name, f"ORDERS? {SLUG}")
                    echoed = [line for line in first.splitlines() if line.startswith("    ")]  # the canonical orders
                    assert f"ORDERS ON FILE for {SLUG}" in on_file and echoed
                    assert all(line in on_file.splitlines() for line in echoed)
                    assert COMMITMENT.findall(on_file) == [first_commitment]
                    planned = example_orders(world, name, random.Random(turn + 100))
                    assert planned is not None
                if index == len(names) - 1:
                    before = len(smtp.messages())
                reply = await mail(name, f"ORDERS {SLUG}\n{planned[1]}")
                assert "ORDERS ACCEPTED" in reply, reply
                [confirmed[(turn, name)]] = COMMITMENT.findall(reply)
                if index == 0:
                    on_file = await mail(name, f"ORDERS? {SLUG}")
                    assert COMMITMENT.findall(on_file) == [confirmed[(turn, name)]]
            # the last order resolved the turn at once: every player gets the report
            await eventually(lambda t=turn, b=before: sum(f"turn {t} report" in str(m.message["Subject"])
                                                          for m in smtp.messages()[b:]) >= len(PLAYERS))  # fmt: skip
            report = next(m for m in smtp.messages()[before:] if f"turn {turn} report" in str(m.message["Subject"]))
            body = report.message.get_content().replace("\r\n", "\n")
            assert all(display_width(line) <= 78 for line in body.splitlines())
            listed = body.split("Orders used (commitments, as each seat's confirmation showed them):\n")[1]
            for name in PLAYERS:
                assert f"  {name}  {confirmed[(turn, name)]}\n" in listed, (name, listed)
        record_reply_at = len(smtp.messages())
        append(dovecot, imap_user, message(f"RECORD {SLUG}\n", sender=PLAYERS["Ben"], name="Ben"))
        await eventually(lambda: len(smtp.messages()) > record_reply_at)
        attached = [
            part for part in smtp.messages()[record_reply_at].message.iter_attachments()
            if part.get_filename() == f"{SLUG}-record.json"
        ]  # fmt: skip
        assert len(attached) == 1
        record = json.loads(attached[0].get_content())
    finally:
        stop.set()
        await asyncio.wait_for(task, timeout=10)

    assert record["version"] == 2 and record["slug"] == SLUG and len(record["turns"]) == 3
    for (turn, name), shown in confirmed.items():  # the record keeps what the reports published, at full length
        assert record["order_commitments"][turn][name].startswith(shown.replace(" ", ""))
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    code, out, err = run_verify(path, capsys)
    assert code == 0 and "FAIL" not in out and not err
    assert "ok   every turn's orders match the commitments the reports published" in out

    # The attack: one order changed (to another seat's) after the game.
    tampered = json.loads(json.dumps(record))
    cat, dan = record["turns"][1]["Cat"], record["turns"][1]["Dan"]
    tampered["turns"][1]["Cat"] = dan if dan != cat else record["turns"][1]["Eve"]
    assert tampered["turns"][1]["Cat"] != cat
    path.write_text(json.dumps(tampered))
    code, out, err = run_verify(path, capsys)
    assert code == 2 and out == ""
    assert err.splitlines() == [f"referee: {path}: turn 1, seat Cat: the orders do not match the commitment "
                                "the report published"]  # fmt: skip

    # The other side: a commitment changed.
    forged = json.loads(json.dumps(record))
    forged["order_commitments"][2]["Eve"] = "0" * 64
    path.write_text(json.dumps(forged))
    code, _, err = run_verify(path, capsys)
    assert code == 2 and err.startswith(f"referee: {path}: turn 2, seat Eve: the orders do not match")

    # A record of the old format (no version) still replays and its seed and result are checked, but it
    # carries no order commitments: verify says so, and exits 3 (it does not pass as a checked one).
    code, out, err = run_verify(OLD_RECORD, capsys)
    assert code == 3 and "FAIL" not in out and not err
    assert "not checked: every turn's orders against the commitments the reports published" in out
