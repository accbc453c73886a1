"""Turn reports by email: every player gets one, and the game master too (bot/core/turns/resolution.py)."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

from sqlalchemy.orm import Session, sessionmaker

from bot.core.model import commands as c
from tests.email.world import GM, PLAYERS, START, apply, outbox_rows, service_for


def play_setup_turn(sessions: sessionmaker[Session], gm_plays: bool) -> Counter[str]:
    service = service_for(sessions)
    apply(service, GM, "Game Master", c.CreateGame("g", "golden-strider", {}, "America/New_York", 60, False, "address"))
    players = dict(PLAYERS)
    if gm_plays:
        players.pop("Fay")
        players["Gus"] = GM
    for name, address in players.items():
        apply(service, address, name, c.JoinGame("g", name))
    apply(service, GM, "Game Master", c.StartGame("g"))
    assert service.resolve_due(START + timedelta(minutes=61)) == [("g", 0)]
    reports = outbox_rows(sessions, "report", unsent=False)
    turn = [row for row in reports if row.turn_number == 0]
    for row in turn:
        assert "Deadline: 2026-03-02 13:01 UTC (Mon 08:01 EST, America/New_York)" in row.body
    return Counter(row.recipient for row in turn)


def test_a_game_master_without_a_seat_gets_every_report(sessions):
    assert play_setup_turn(sessions, gm_plays=False) == Counter([*PLAYERS.values(), GM])


def test_a_game_master_with_a_seat_gets_one_copy(sessions):
    recipients = play_setup_turn(sessions, gm_plays=True)
    assert recipients[GM] == 1 and len(recipients) == 6
