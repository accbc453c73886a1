"""Outbox rows forget their secrets once sent or parked (bot/core/model/secret_values.py, bot/core/messaging/outbox.py),
on SQLite and PostgreSQL: every way a secret is handed out (a seat password on joining and on a
replaced seat, the GM password in the creation reply and the GM's notice, a link code)."""

from __future__ import annotations

import json
from datetime import timedelta

from sqlalchemy import String, cast, select

from bot.core.messaging.outbox import OutboxDrain
from bot.core.model import commands as c
from bot.core.model.secret_values import REDACTED
from bot.store.db import unit_of_work
from bot.store.models import OutboxMessage
from tests.core.harness import SEATS, Harness


def stored(sessions) -> dict[int, tuple[str, str | None, bool]]:
    """Each row as the database holds it: its data's text, its redacted copy's, whether sent or parked."""
    with unit_of_work(sessions) as session:
        done = OutboxMessage.sent_at.is_not(None) | OutboxMessage.parked_at.is_not(None)
        texts = (cast(OutboxMessage.data, String), cast(OutboxMessage.redacted_data, String))
        rows = session.execute(select(OutboxMessage.id, *texts, done)).all()
    return {row_id: (data, redacted, bool(finished)) for row_id, data, redacted, finished in rows}


def handed_out(harness: Harness) -> dict[str, str]:
    """Every secret in the waiting rows (what their recipients are about to read)."""
    found: dict[str, str] = {}
    for row in harness.outbox():
        items = row.data.get("items") or []
        for item in [row.data, *items]:
            for key in ("secret", "gm_secret", "code"):
                value = item.get(key)
                if key == "code" and row.template != "link_code":
                    continue  # a reply item's code is its phrase, not a secret
                if isinstance(value, str) and value != REDACTED:
                    found[f"{row.template}:{row.recipient}:{key}"] = value
    return found


def test_sent_and_parked_rows_hold_no_secret_and_waiting_rows_still_do(sessions):
    harness = Harness(sessions)
    harness.send("GM", c.CreateGame("g1", "golden-strider", {}, "Europe/Paris", 60, False, "password",
                                    game_masters=(("email", "gm@example.org"), ("email", "co@example.org"))))  # fmt: skip
    for name in SEATS:
        harness.send(name, c.JoinGame("g1", name))
    harness.send("GM", c.StartGame("g1"))
    harness.send("GM", c.ReplacePlayer("g1", "Ann", "email", "sub@example.org", "Ann left"))
    harness.send("Zed", c.RequestLink("email", "zed@example.org"), channel="discord")
    secrets = handed_out(harness)
    templates = {name.split(":")[0] for name in secrets}
    assert templates == {"reply", "gm_named", "seat_given", "link_code"}, secrets
    assert len(secrets) >= len(SEATS) + 4

    drain = OutboxDrain(sessions)
    now = harness.clock.now()
    with unit_of_work(sessions) as session:
        channels = sorted(set(session.scalars(select(OutboxMessage.channel)).all()))
    claimed = [row for channel in channels for row in drain.due(channel, now, limit=1000)]
    rendered = json.dumps([dict(row.data) for row in claimed])
    assert all(secret in rendered for secret in secrets.values())  # a sender renders the secret it sends
    before = stored(sessions)
    with_secret = {row_id for row_id, (_, redacted, _) in before.items() if redacted is not None}
    assert with_secret and all(REDACTED in before[row_id][1] for row_id in with_secret)  # type: ignore[operator]
    assert {row.id for row in claimed if row.secret} == with_secret  # the claim says which carry one

    # Every way a row leaves the queue: marked alone, by a sending pass's marker, parked.
    waiting = next(row for row in claimed if row.id in with_secret and row.template == "reply")
    parked = next(row for row in claimed if row.id in with_secret and row.template == "gm_named")
    for row in claimed:
        if row.id == parked.id:
            drain.park(row.id, now, "550 no such user")
        elif row.id != waiting.id and row.channel != "email":
            drain.mark_sent(row.id, now)
    marker = drain.marker().open()
    try:
        for row in claimed:
            if row.channel == "email" and row.id not in (waiting.id, parked.id):
                marker.mark_sent(row.id, now, row.secret)  # as the email sender marks: told by the claim
                marker.mark_sent(row.id, now + timedelta(minutes=1))  # a second mark changes nothing
    finally:
        marker.close()

    after = stored(sessions)
    for row_id, (data, redacted, done) in after.items():
        if row_id == waiting.id:
            assert not done and redacted is not None  # not sent yet: its recipient has not had it
            continue
        assert done and redacted is None, row_id
        leaked = [name for name, secret in secrets.items() if secret.lower() in data.lower()]
        assert leaked == [], (row_id, leaked)
        if row_id in with_secret:
            assert REDACTED in data and data.replace(REDACTED, "") != data
        else:
            assert data == before[row_id][0]  # a row without a secret keeps its data as it was
    assert any(secret in after[waiting.id][0] for secret in secrets.values())
    with unit_of_work(sessions) as session:  # what the row keeps shows what was sent, to whom, when
        row = session.get_one(OutboxMessage, parked.id)
        assert row.data["gm_secret"] == REDACTED and row.data["game"] == "g1" and row.parked_at == now
