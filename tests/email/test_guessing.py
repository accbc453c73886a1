"""Guessing passwords by mail (bot/core/people/guessing.py, bot/core/commands/password_checks.py), through the intake path.

Each test sends real messages through the inbox, the processor and the
service, on SQLite and PostgreSQL.  The attacks: guessing a seat's password
from one address, guessing the game master's password in the GM's name,
giving another seat's password.  What must hold: after a few wrong ones the
address's passwords are refused unchecked, the right one included, until a
time the reply names; the game masters hear of each lock-out once; the seat's
own player is still served; a password opens only the seat it is checked
against, and nothing of another seat is shown.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from bot.core.commands import password_checks
from bot.core.games.stored import current_orders, find_game
from bot.core.people.guessing import LOCK_AFTER, lock_length
from bot.store.db import unit_of_work
from bot.store.models import Game, PasswordFailures
from tests.email.pipeline import TRUSTED_SERVER, deliver, message, processor_for
from tests.email.world import GM, PASSWORDS, PLAYERS, START, build_world, cheap_hash, outbox_rows

MALLORY = "mallory@evil.example"
GM_PASSWORD = "quartz-raven-4242"


@pytest.fixture
def world(sessions: sessionmaker[Session]) -> sessionmaker[Session]:
    build_world(sessions, ("demo",))
    with unit_of_work(sessions) as session:
        session.execute(update(Game).values(gm_secret_hash=cheap_hash(GM_PASSWORD)))
    return sessions


@pytest.fixture
def checks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every stored hash a password was checked against (the real check runs; it is only counted)."""
    seen: list[str] = []
    real = password_checks.check_secret

    def counted(secret: str, stored: str, key: bytes) -> bool:
        seen.append(stored)
        return real(secret, stored, key)

    monkeypatch.setattr(password_checks, "check_secret", counted)
    return seen


def orders_mail(sender: str, password: str, orders: str = "cards 10 8 6 4 2", **kwargs: object) -> bytes:
    return message(f"ORDERS demo\n{orders}\nPASSWORD {password}\n", sender=sender, **kwargs)  # type: ignore[arg-type]


def gm_mail(sender: str, password: str, **kwargs: object) -> bytes:
    return message(f"PAUSE demo\nREASON a holiday\nPASSWORD {password}\n", sender=sender, subject="pause", **kwargs)  # type: ignore[arg-type]


def last_reply(sessions: sessionmaker[Session], to: str) -> str:
    rows = [row for row in outbox_rows(sessions, "reply") if row.recipient == to]
    return " ".join(rows[-1].body.split())


def lock_notices(sessions: sessionmaker[Session]) -> list[str]:
    return [" ".join(row.body.split()) for row in outbox_rows(sessions) if row.template == "password_locked"]


def ann_orders(sessions: sessionmaker[Session]) -> str | None:
    with unit_of_work(sessions) as session:
        game = find_game(session, "demo")
        assert game is not None
        kept = current_orders(session, game, 0).get("Ann")
        return kept.canonical_text if kept else None


def test_the_21st_wrong_guess_is_refused_unchecked_and_the_real_player_is_served(world, checks):
    processor = processor_for(world)
    for number in range(1, 21):
        deliver(processor, orders_mail(MALLORY, f"amber-raven-{number:04d}", subject=f"try {number}"))
        reply = last_reply(world, MALLORY)
        if number <= LOCK_AFTER:
            assert "wrong password for game demo" in reply, (number, reply)
        else:
            assert "too many wrong passwords for demo" in reply, (number, reply)
    assert len(checks) == LOCK_AFTER * len(PLAYERS), "a sender with no seat: each seat, but only until the lock"
    checks.clear()

    deliver(processor, orders_mail(MALLORY, "amber-raven-0021", subject="try 21"))
    assert checks == [], "the 21st guess is refused without being checked"
    reply = last_reply(world, MALLORY)
    until = START + timedelta(hours=1) + lock_length(1)
    assert "none from it is checked, the right one included" in reply
    assert f"try again after {until:%Y-%m-%d %H:%M} UTC" in reply and "Europe/Paris" in reply

    deliver(processor, orders_mail(MALLORY, PASSWORDS["Ann"], subject="the right one"))
    assert checks == [] and "too many wrong passwords for demo" in last_reply(world, MALLORY)
    assert ann_orders(world) is None, "the right password from the locked address did nothing"

    notices = lock_notices(world)
    assert len(notices) == 1, "the game master is told once per lock-out"
    assert MALLORY in notices[0] and "Too many wrong seat passwords for demo" in notices[0]
    assert [row.recipient for row in outbox_rows(world) if row.template == "password_locked"] == [GM]

    # Ann, from her own address with her password, is served: the lock is Mallory's address's alone.
    deliver(processor, orders_mail(PLAYERS["Ann"], PASSWORDS["Ann"], return_path=None, subject="mine"))
    assert "ORDERS ACCEPTED" in last_reply(world, PLAYERS["Ann"]).upper()
    assert ann_orders(world) == "cards 10 8 6 4 2"


def test_a_forged_players_address_is_locked_but_the_vouched_player_is_not(world, checks):
    """Guesses From Ann's address (the envelope is Mallory's): checked against Ann's seat only, then locked;
    Ann herself, vouched for by her mail server, is neither counted nor locked out."""
    processor = processor_for(world)
    ann = PLAYERS["Ann"]
    for number in range(LOCK_AFTER + 2):
        deliver(processor, orders_mail(ann, f"guess-{number}", return_path=MALLORY, subject=f"try {number}"))
    assert len(checks) == LOCK_AFTER, "a seat holder's password is checked against their own seat alone"
    assert "too many wrong passwords for demo" in last_reply(world, ann)
    deliver(processor, orders_mail(ann, PASSWORDS["Ann"], return_path=MALLORY, subject="forged right"))
    assert ann_orders(world) is None
    deliver(processor, orders_mail(ann, PASSWORDS["Ann"], subject="really me", vouched_by=TRUSTED_SERVER))
    assert "ORDERS ACCEPTED" in last_reply(world, ann).upper() and ann_orders(world) == "cards 10 8 6 4 2"
    assert len(lock_notices(world)) == 1


def test_guessing_the_game_masters_password_locks_the_address_and_the_vouched_gm_is_served(world, checks):
    processor = processor_for(world)
    for number in range(LOCK_AFTER):
        deliver(processor, gm_mail(GM, f"guess-{number}", return_path=MALLORY))
        assert "needs the game master's password" in last_reply(world, GM)
    deliver(processor, gm_mail(GM, GM_PASSWORD, return_path=MALLORY))
    assert "too many wrong passwords for demo" in last_reply(world, GM)
    assert len(checks) == LOCK_AFTER
    with unit_of_work(world) as session:
        assert session.scalar(select(Game.status).where(Game.slug == "demo")) != "paused"
    notices = lock_notices(world)
    assert len(notices) == 1 and "game master passwords" in notices[0]
    deliver(processor, gm_mail(GM, GM_PASSWORD, vouched_by=TRUSTED_SERVER))  # the GM's own, vouched mail
    assert "PAUSED" in last_reply(world, GM).upper()
    with unit_of_work(world) as session:
        (row,) = session.scalars(select(PasswordFailures)).all()
        assert (row.address, row.lockouts) == (GM, 1)


def test_the_lock_grows_with_each_lock_out_and_ends(world):
    processor = processor_for(world)
    for number in range(LOCK_AFTER):
        deliver(processor, orders_mail(MALLORY, f"guess-{number}"))
    processor.clock.advance(lock_length(1) + timedelta(seconds=1))
    for number in range(LOCK_AFTER):
        deliver(processor, orders_mail(MALLORY, f"again-{number}"))
    with unit_of_work(world) as session:
        (row,) = session.scalars(select(PasswordFailures)).all()
        assert row.lockouts == 2 and row.locked_until == processor.clock.now() + lock_length(2)
    assert lock_length(2) == 2 * lock_length(1) and lock_length(40) == timedelta(hours=24)
    assert len(lock_notices(world)) == 2


def test_another_seats_password_opens_nothing_and_shows_nothing_of_it(world):
    """Ben gives Ann's password with orders that cannot be read: a wrong password, no word of Ann's seat."""
    processor = processor_for(world)
    deliver(processor, orders_mail(PLAYERS["Ann"], PASSWORDS["Ann"], "cards 10 8 6 4 2"))
    assert ann_orders(world) == "cards 10 8 6 4 2"
    deliver(processor, orders_mail(PLAYERS["Ben"], PASSWORDS["Ann"], "cards 99 99"))
    reply = last_reply(world, PLAYERS["Ben"])
    assert "wrong password for game demo" in reply
    assert "10 8 6 4 2" not in reply and "on file" not in reply
    assert not [row for row in outbox_rows(world) if row.template == "orders_elsewhere"]
    assert ann_orders(world) == "cards 10 8 6 4 2"


def test_a_seat_opened_from_elsewhere_tells_its_player_what_happened_to_the_orders(world):
    """From an address with no seat and the right password: refused orders are told as refused."""
    processor = processor_for(world)
    deliver(processor, orders_mail("ann.travelling@example.net", PASSWORDS["Ann"], "cards 99 99"))
    (notice,) = [row for row in outbox_rows(world) if row.template == "orders_elsewhere"]
    assert notice.recipient == PLAYERS["Ann"]
    said = " ".join(notice.body.split())
    assert "was refused: nothing changed" in said and "accepted" not in said
    deliver(processor, orders_mail("ann.travelling@example.net", PASSWORDS["Ann"], subject="again"))
    *_, accepted = [row for row in outbox_rows(world) if row.template == "orders_elsewhere"]
    assert "and was accepted" in " ".join(accepted.body.split())
