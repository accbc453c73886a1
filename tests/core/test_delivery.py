"""Delivery by recipient (bot/core/messaging/delivery.py): a new channel plugs in with its own sender and form.

"pigeon" is a channel the core has never heard of: its players, its public
place, and a sender that renders the outcomes its own way (one line per
message, from the data alone).  It receives every reply and every report meant
for it; a player linked on email and pigeon gets both copies.
"""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime
from typing import Any

from bot.core.games.stored import find_game
from bot.core.messaging.outbox import OutboxDrain, PendingMessage
from bot.core.messaging.rendering import environment
from bot.core.model import commands as c
from bot.core.people.identities import find_player, link_identity
from bot.store.db import unit_of_work
from tests.core.harness import SEATS, Harness

FAR_FUTURE = datetime(2100, 1, 1, tzinfo=UTC)


class PigeonSender:
    """A channel sender that renders outcomes differently: one short line per message."""

    def __init__(self, drain: OutboxDrain) -> None:
        self.drain = drain
        self.delivered: list[tuple[str, str]] = []

    def render(self, row: PendingMessage) -> str:
        data: dict[str, Any] = dict(row.data)
        phrase = environment("common").globals["phrase"]
        if row.template == "reply":
            done = [phrase(item["code"], item).splitlines()[0] for item in data["items"]]
            refused = [phrase(p["code"], p) for p in data["problems"]]
            return f"coo {data['receipt']}: " + " | ".join(done + [f"no: {r}" for r in refused])
        if row.template == "report":
            copy = f" for {data['seat']}" if data["seat"] else ""
            return f"coo report {data['game']} turn {data['turn']}{copy}, {len(data['events'])} events"
        return f"coo {row.template} {data.get('game', '')}"

    def drain_all(self) -> None:
        for row in self.drain.due("pigeon", FAR_FUTURE):
            self.delivered.append((row.recipient, self.render(row)))
            self.drain.mark_sent(row.id, FAR_FUTURE)


def test_a_dummy_channel_gets_every_reply_and_report_rendered_its_own_way(sessions):
    base = Harness(sessions).config
    harness = Harness(sessions, config=dataclasses.replace(base, public_channels=("pigeon",)))
    harness.send("GM", c.CreateGame("gs1", "golden-strider", {}, "UTC", 60, False, "address"))
    for name in SEATS:
        harness.send(name, c.JoinGame("gs1", name), channel="pigeon", trust=c.Trust.VERIFIED)
    harness.send("GM", c.StartGame("gs1"))
    # Ann links her email address too: one person, two channels.
    with unit_of_work(sessions) as session:
        ann = find_player(session, c.Sender("pigeon", "Ann"))
        link_identity(session, ann, "email", "ann@example.org", harness.clock.now())
    for name in SEATS:
        harness.send(name, c.SubmitOrders("gs1", "cards 10 8 6 4 2"), channel="pigeon", trust=c.Trust.VERIFIED)
    harness.send("Ann", c.SubmitOrders("gs1", "cards 9 9 8 2 2"))  # by email this time: the same seat
    assert harness.pass_deadline() == [("gs1", 0)]

    pigeon = PigeonSender(OutboxDrain(sessions))
    pigeon.drain_all()
    by_recipient: dict[str, list[str]] = {}
    for recipient, text in pigeon.delivered:
        by_recipient.setdefault(recipient, []).append(text)
    for name in SEATS:
        lines = by_recipient[name]
        assert sum(line.startswith("coo R") for line in lines) == 2  # join and orders replies, on pigeon
        assert any("no: " not in line and "JOINED gs1" in line for line in lines)
        assert f"coo report gs1 turn 0 for {name}, 0 events" in lines
        assert "coo started gs1" in lines
    assert by_recipient["Ann"].count("coo orders_copy gs1") == 1  # her orders by email, copied to pigeon
    public = by_recipient["public:gs1"]
    assert public == ["coo created gs1", "coo started gs1", "coo report gs1 turn 0, 0 events"]

    email = [m for m in harness.outbox() if m.channel == "email" and m.recipient == "ann@example.org"]
    # The copy of her orders from pigeon, her email reply, and her report copy there too.
    assert [(m.kind, m.template) for m in email] == [
        ("notice", "orders_copy"),
        ("reply", "reply"),
        ("report", "report"),
    ]
    assert "Copy for Ann" in email[2].body and "ORDERS ACCEPTED" in email[1].body
    assert "from pigeon" in email[0].subject
    with unit_of_work(sessions) as session:
        game = find_game(session, "gs1")
        assert game is not None
    record_orders = harness.outbox("report")
    assert all(m.body for m in record_orders)  # every row renders in the email form as well


def test_no_public_copy_without_a_public_place(sessions):
    harness = Harness(sessions, config=dataclasses.replace(Harness(sessions).config, public_channels=()))
    harness.golden_strider_game()
    harness.setup_all()
    harness.pass_deadline()
    assert not [m for m in harness.outbox() if m.recipient.startswith("public:")]
