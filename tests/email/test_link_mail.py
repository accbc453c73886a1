"""Linking by mail's side: LINK lines are read and answered, and every link mail fits 78 columns."""

from __future__ import annotations

import pytest

from bot.core.messaging.rendering import render_message
from bot.core.model import commands as c
from bot.email.mail_reading import read_commands
from tests.core.harness import Harness

LONG_LOCAL = "a" * 64
LONG_ADDRESS = f"{LONG_LOCAL}@{'sub-domain.' * 15}example.org"
LONG_NAME = "Display Name Of Thirty-Two Chars"
LONG_GAME = "a-game-with-the-longest-name-allowed-040"


@pytest.fixture
def harness(sessions):
    return Harness(sessions)


def said(sent) -> str:
    return " ".join((sent.reply or "").split())


def test_link_lines_by_mail_are_read_and_answered_with_where_to_link(harness):
    reading = read_commands("", "LINK CODE abcd-ef23\nLINK discord 123456789\n")
    assert reading.commands == (c.ConfirmLink("abcd-ef23"), c.RequestLink("discord", "123456789"))
    sent = harness.send("Ann", *reading.commands)
    assert sent.applied.problems == ("link_code_elsewhere", "link_needs_sign_in")
    assert "/link code:" in said(sent) and "/link email:" in said(sent)
    assert "abcd" not in said(sent).lower()  # a code is never quoted back
    assert all(len(line) <= 78 for line in (sent.reply or "").splitlines())


def widths(text: str) -> list[int]:
    return [len(line) for line in text.splitlines() if len(line) > 78]


def test_every_link_mail_fits_78_columns_with_the_longest_address_name_and_games(harness):
    assert len(LONG_ADDRESS) <= 254
    harness.send("GM", c.CreateGame(LONG_GAME, "golden-strider", {}, "UTC", 60, False, "address"))
    harness.send(LONG_NAME, c.JoinGame(LONG_GAME, "Ann"), channel="discord")
    requested = harness.send(LONG_NAME, c.RequestLink("email", LONG_ADDRESS), channel="discord")
    assert requested.applied.results == ("link_sent",)
    mails = [row for row in harness.outbox() if row.channel == "email" and row.template not in ("reply", "seat_joined")]
    assert [row.template for row in mails] == ["link_code"]
    confirmed = harness.send(LONG_NAME, c.ConfirmLink(mails[0].data["code"]), channel="discord")
    refused = harness.send("Mallory", c.RequestLink("email", LONG_ADDRESS), channel="discord")
    assert refused.applied.problems == ("link_taken",)
    host = c.Envelope(c.Sender("cli", "host"), (c.UnlinkIdentity("email", LONG_ADDRESS, "a reason " * 20),), "host:1",
                      harness.clock.now(), trust=c.Trust.VERIFIED, as_host=True)  # fmt: skip
    unlinked = harness.service.apply(host)
    assert unlinked.results == ("unlinked",)
    rows = [row for row in harness.outbox() if row.channel == "email" and row.template != "reply"]
    assert {row.template for row in rows} == {"link_code", "linked", "unlinked", "seat_joined"}  # each fits
    for row in rows:
        assert not widths(row.body), row.body
        assert row.subject and len(row.subject) < 78
    for reply in (requested.applied.reply, confirmed.applied.reply, refused.applied.reply, unlinked.reply):
        # The reply in the email form, as a linked player reads its copies.
        assert reply is not None
        body = render_message("email", "reply", {**reply.data, "context": {}}).body
        assert not widths(body), body
