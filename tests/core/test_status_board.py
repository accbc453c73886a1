"""A game's live status (bot/core/messaging/status_board.py): one coalescing outbox row per game and status channel.

"board" stands for a channel that keeps each game's status in one place and
changes it there (Discord's pinned message).  The status goes only there:
not to the players' channels, not to observers, not to the public places of
channels that do not keep one ("screen"); it names who has ordered, never
what; and a change waits in one pending row, the newest state winning.
"""

from __future__ import annotations

import dataclasses
import json
from datetime import timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from bot.core.messaging.outbox import OutboxDrain
from bot.core.messaging.rendering import render_message
from bot.core.model import commands as c
from bot.store.db import unit_of_work
from bot.store.models import OutboxMessage
from tests.core.harness import SEATS, Harness

ORDERS = "cards 10 8 6 4 2"


def board_harness(sessions: sessionmaker[Session]) -> Harness:
    base = Harness(sessions)
    return Harness(sessions, clock=base.clock, config=dataclasses.replace(base.config, status_channels=("board",)))


def status_rows(sessions: sessionmaker[Session]) -> list[OutboxMessage]:
    with unit_of_work(sessions) as session:
        return list(session.scalars(select(OutboxMessage).where(OutboxMessage.kind == "status")
                                    .order_by(OutboxMessage.id)))  # fmt: skip


def test_no_status_row_without_a_status_channel(sessions: sessionmaker[Session]) -> None:
    harness = Harness(sessions)  # email players, the "screen" public place: nobody keeps a status
    harness.golden_strider_game()
    harness.send("Ann", c.SubmitOrders("gs1", ORDERS))
    assert status_rows(sessions) == []


def test_changes_wait_in_one_pending_row_and_the_newest_state_wins(sessions: sessionmaker[Session]) -> None:
    harness = board_harness(sessions)
    harness.golden_strider_game()  # create, six joins, start: one state after another, none sent yet
    [row] = status_rows(sessions)
    assert (row.channel, row.recipient, row.template, row.sent_at) == ("board", "public:gs1", "status", None)
    assert row.data["status"] == "running" and row.data["turn"] == 0 and row.data["waiting"] == SEATS
    assert row.data["deadline"] == (harness.clock.now() + timedelta(minutes=60)).isoformat()

    harness.send("Ann", c.SubmitOrders("gs1", ORDERS))
    harness.send("Ben", c.SubmitOrders("gs1", ORDERS))
    [row] = status_rows(sessions)
    assert row.data["ordered"] == ["Ann", "Ben"] and row.data["waiting"] == SEATS[2:]
    assert ORDERS not in json.dumps(row.data) and "10, 8, 6" not in json.dumps(row.data)  # who, never what

    harness.send("Cat", c.ShowStatus("gs1"))  # nothing changed: nothing written
    harness.send("Cat", c.SubmitOrders("gs1", "cards 99"))  # refused: nothing changed
    assert len(status_rows(sessions)) == 1


def test_a_row_in_a_senders_hands_is_left_alone_and_a_sent_one_is_followed_by_a_new_one(
    sessions: sessionmaker[Session],
) -> None:
    harness = board_harness(sessions)
    harness.golden_strider_game()
    drain = OutboxDrain(sessions)
    [claimed] = [r for r in drain.due("board", harness.clock.now())]
    harness.send("Ann", c.SubmitOrders("gs1", ORDERS))  # while a sender holds the row
    first, second = status_rows(sessions)
    assert first.id == claimed.id and first.data == dict(claimed.data) and first.data["ordered"] == []
    assert second.data["ordered"] == ["Ann"] and second.sent_at is None
    drain.mark_sent(first.id, harness.clock.now())
    drain.mark_sent(second.id, harness.clock.now())
    harness.send("Ben", c.SubmitOrders("gs1", ORDERS))
    *_, third = status_rows(sessions)
    assert third.id > second.id and third.data["ordered"] == ["Ann", "Ben"]
    assert third.message_id not in (first.message_id, second.message_id)


def test_the_turn_resolving_pausing_and_the_end_are_states_too(sessions: sessionmaker[Session]) -> None:
    harness = board_harness(sessions)
    harness.golden_strider_game()
    for name in SEATS:
        harness.send(name, c.SubmitOrders("gs1", ORDERS))
    harness.clock.advance(timedelta(minutes=61))
    assert harness.service.resolve_due(harness.clock.now()) == [("gs1", 0)]
    row = status_rows(sessions)[-1]
    assert row.data["turn"] == 1 and row.data["ordered"] == [] and row.data["waiting"] == SEATS
    harness.send("GM", c.PauseGame("gs1", "holiday"))
    assert status_rows(sessions)[-1].data["status"] == "paused"
    harness.send("GM", c.EndGame("gs1", "stop", abandon=True))
    last = status_rows(sessions)[-1].data
    assert last["status"] == "abandoned" and last["deadline"] is None
    assert {r.channel for r in status_rows(sessions)} == {"board"}


def test_the_unreachable_notice_fits_a_mail() -> None:
    data = {"game": "a-rather-long-game-name", "seat": "Steve Ovett-Coe-Cram", "player": "A Very Long Name Indeed",
            "channel": "discord", "address": "1100000000000000042",
            "reason": "HTTP 403 code 50007: cannot send messages to this user (their DMs are closed)"}  # fmt: skip
    rendered = render_message("email", "unreachable", data)
    assert rendered.title is not None and "cannot be reached" in rendered.title
    assert all(len(line) <= 78 for line in rendered.body.splitlines()), rendered.body
    assert "on Discord" in rendered.body and "told once" in rendered.body
