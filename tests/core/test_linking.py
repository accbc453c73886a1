"""One person across channels (bot/core/commands/linking.py), through the real pipeline.

The requester is on a channel that signs people in (here "discord", VERIFIED);
the code goes to the other channel's address through the outbox and is given
back by the requester.  From then on the two addresses are one player.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from bot.core.commands.linking import ALPHABET, CODES_PER_ADDRESS, MAX_CODES, MAX_TRIES, new_code, normalise_code
from bot.core.games.stored import current_orders, find_game
from bot.core.model import commands as c
from bot.core.people.identities import find_player
from bot.store.db import unit_of_work
from bot.store.models import Identity, PendingLink, Player
from tests.core.harness import GM_ADDRESS, SEATS, Harness

SETUP = "cards 10 8 6 4 2"
ANN_MAIL = "ann@example.org"


@pytest.fixture
def harness(sessions):
    return Harness(sessions)


def on_discord(harness: Harness, who: str, *commands: c.Command):
    return harness.send(who, *commands, channel="discord")


def said(sent) -> str:
    """The reply as one line of words (phrases wrap at 78 columns)."""
    return " ".join((sent.reply or "").split())


def codes_sent(harness: Harness, address: str = ANN_MAIL) -> list[str]:
    return [row.data["code"] for row in harness.outbox() if row.template == "link_code" and row.recipient == address]


def seated_game(harness: Harness, slug: str = "gs1") -> None:
    harness.send("GM", c.CreateGame(slug, "golden-strider", {}, "UTC", 60, False, "address"))
    for name in SEATS:
        harness.send(name, c.JoinGame(slug, name))  # by (vouched) mail
    assert "started" in harness.send("GM", c.StartGame(slug)).applied.results


def link(harness: Harness, who: str = "Ann", address: str = ANN_MAIL) -> None:
    sent = on_discord(harness, who, c.RequestLink("email", address))
    assert sent.applied.results == ("link_sent",), sent.reply
    confirmed = on_discord(harness, who, c.ConfirmLink(codes_sent(harness, address)[-1]))
    assert confirmed.applied.results == ("linked",), confirmed.reply


def test_codes_are_short_unambiguous_and_typed_loosely():
    codes = {new_code() for _ in range(200)}
    assert len(codes) == 200
    for code in codes:
        assert len(code) == 9 and code[4] == "-"
        assert set(code.replace("-", "")) <= set(ALPHABET)
    assert not set("IL1O0U") & set(ALPHABET)
    assert normalise_code(" abcd - ef23 ") == "ABCDEF23"


def test_a_mail_player_links_discord_orders_from_either_count_and_both_get_everything(harness):
    seated_game(harness)
    asked = on_discord(harness, "Ann", c.RequestLink("email", ANN_MAIL))
    assert asked.applied.results == ("link_sent",)
    [mail] = [row for row in harness.outbox() if row.template == "link_code"]
    assert (mail.channel, mail.recipient) == ("email", ANN_MAIL)
    code = mail.data["code"]
    assert code in mail.body and f"/link code:{code}" in mail.body
    assert mail.subject.startswith("Your code to link this address with discord")
    assert all(len(line) <= 78 for line in mail.body.splitlines())
    with unit_of_work(harness.sessions) as session:
        [pending] = session.scalars(select(PendingLink)).all()
        assert pending.code_hash.startswith("hmac-sha256$")
        assert normalise_code(code) not in pending.code_hash.upper() and code not in pending.code_hash
        assert pending.expires_at == harness.clock.now() + timedelta(hours=24)

    typed_loosely = code.lower().replace("-", " ")
    confirmed = on_discord(harness, "Ann", c.ConfirmLink(typed_loosely))
    assert confirmed.applied.results == ("linked",), confirmed.reply
    assert "gs1" in said(confirmed)
    with unit_of_work(harness.sessions) as session:
        ann = find_player(session, c.Sender("discord", "Ann"))
        assert ann is not None and find_player(session, c.Sender("email", ANN_MAIL)) is ann
        assert sorted((i.channel, i.address) for i in ann.identities) == [("discord", "Ann"), ("email", ANN_MAIL)]
        assert session.scalars(select(PendingLink)).all() == []
        assert len(session.scalars(select(Player)).all()) == 6 + 1  # the seats' players and the GM: no one left over
    [told] = [row for row in harness.outbox() if row.template == "linked"]
    assert (told.channel, told.recipient) == ("email", ANN_MAIL)

    # Orders from Discord count for the seat Ann took by mail; a copy goes by mail.
    by_discord = on_discord(harness, "Ann", c.SubmitOrders("gs1", SETUP))
    assert "orders_accepted" in by_discord.applied.results, by_discord.reply
    [copy] = [row for row in harness.outbox() if row.template == "orders_copy"]
    assert (copy.channel, copy.recipient) == ("email", ANN_MAIL)
    assert "Ann" in copy.subject and "from discord" in copy.subject and by_discord.receipt in copy.body
    # Then by mail: the same seat, the last set wins; the copy goes to Discord.
    by_mail = harness.send("Ann", c.SubmitOrders("gs1", "cards 9 9 8 2 2"))
    assert "orders_accepted" in by_mail.applied.results, by_mail.reply
    copies = [(row.channel, row.recipient) for row in harness.outbox() if row.template == "orders_copy"]
    assert copies == [("email", ANN_MAIL), ("discord", "Ann")]
    with unit_of_work(harness.sessions) as session:
        game = find_game(session, "gs1")
        assert game is not None
        on_file = current_orders(session, game, 0)
        assert on_file["Ann"].canonical_text == "cards 9 9 8 2 2"

    for name in SEATS[1:]:
        harness.send(name, c.SubmitOrders("gs1", SETUP))
    assert harness.pass_deadline() == [("gs1", 0)]
    reports = {(row.channel, row.recipient) for row in harness.outbox("report") if row.data.get("seat") == "Ann"}
    assert reports == {("email", ANN_MAIL), ("discord", "Ann")}


def test_a_wrong_code_counts_down_and_the_last_try_cancels_the_link(harness):
    on_discord(harness, "Ann", c.RequestLink("email", ANN_MAIL))
    [code] = codes_sent(harness)
    for left in range(MAX_TRIES - 1, 0, -1):
        sent = on_discord(harness, "Ann", c.ConfirmLink("WRONG-CODE"))
        assert sent.applied.problems == ("link_wrong_code",)
        assert f"{left} tries left" in said(sent)
    last = on_discord(harness, "Ann", c.ConfirmLink("WRONG-CODE"))
    assert last.applied.problems == ("link_too_many_tries",)
    assert "cancelled" in said(last)
    too_late = on_discord(harness, "Ann", c.ConfirmLink(code))  # even the right one: the link is gone
    assert too_late.applied.problems == ("link_none",)
    with unit_of_work(harness.sessions) as session:
        assert find_player(session, c.Sender("email", ANN_MAIL)) is None


def test_an_expired_code_is_refused_and_a_new_one_works(harness):
    on_discord(harness, "Ann", c.RequestLink("email", ANN_MAIL))
    [old] = codes_sent(harness)
    harness.clock.advance(timedelta(hours=24, minutes=1))
    expired = on_discord(harness, "Ann", c.ConfirmLink(old))
    assert expired.applied.problems == ("link_expired",)
    assert "expired" in said(expired)
    link(harness)


def test_a_code_only_works_for_the_one_who_asked(harness):
    on_discord(harness, "Ann", c.RequestLink("email", ANN_MAIL))
    [code] = codes_sent(harness)
    other = on_discord(harness, "Ben", c.ConfirmLink(code))
    assert other.applied.problems == ("link_none",)
    by_mail = harness.send("Ann", c.ConfirmLink(code))  # from the address itself: it proves nothing about Discord
    assert by_mail.applied.problems == ("link_code_elsewhere",)
    assert "/link code:" in said(by_mail)
    assert on_discord(harness, "Ann", c.ConfirmLink(code)).applied.results == ("linked",)


def test_a_link_is_asked_for_from_a_channel_that_signs_people_in(harness):
    sent = harness.send("Ann", c.RequestLink("discord", "123456789"))  # vouched mail is not enough
    assert sent.applied.problems == ("link_needs_sign_in",)
    assert "/link email:" in said(sent)
    assert codes_sent(harness, "123456789") == []


def test_an_address_linked_to_another_person_is_refused_with_what_to_do(harness):
    link(harness, "Ann")
    sent = on_discord(harness, "Mallory", c.RequestLink("email", ANN_MAIL))
    assert sent.applied.problems == ("link_taken",)
    assert "already linked to another person" in said(sent) and "ask the host" in said(sent)
    assert len(codes_sent(harness)) == 1  # no code went to Ann for Mallory
    again = on_discord(harness, "Ann", c.RequestLink("email", ANN_MAIL))
    assert again.applied.results == ("link_already",)


def test_two_seats_of_one_game_cannot_become_one_person(harness):
    harness.send("GM", c.CreateGame("gs1", "golden-strider", {}, "UTC", 60, False, "address"))
    harness.send("Ann", c.JoinGame("gs1", "Ann"))
    assert on_discord(harness, "Ann", c.JoinGame("gs1", "Annie")).applied.results == ("joined",)
    sent = on_discord(harness, "Ann", c.RequestLink("email", ANN_MAIL))
    assert sent.applied.problems == ("link_seat_clash",)
    assert "resign one of them" in said(sent)
    assert codes_sent(harness) == []


def test_asking_again_and_again_sends_a_bounded_number_of_codes(harness):
    for _ in range(MAX_CODES):
        assert on_discord(harness, "Ann", c.RequestLink("email", ANN_MAIL)).applied.results == ("link_sent",)
    refused = on_discord(harness, "Ann", c.RequestLink("email", ANN_MAIL))
    assert refused.applied.problems == ("link_too_many_codes",)
    codes = codes_sent(harness)
    assert len(codes) == MAX_CODES
    assert on_discord(harness, "Ann", c.ConfirmLink(codes[0])).applied.problems == ("link_wrong_code",)
    assert on_discord(harness, "Ann", c.ConfirmLink(codes[-1])).applied.results == ("linked",)


def test_an_address_is_mailed_a_few_codes_a_day_however_often_links_are_cancelled_and_asked_again(harness):
    """The attack: ask for codes, cancel the link with wrong codes, ask again, in rounds and from two accounts."""
    refusals = []
    for who in ("Mallory", "Mallory", "Mallory", "Eve"):
        for _ in range(MAX_CODES):
            sent = on_discord(harness, who, c.RequestLink("email", ANN_MAIL))
            refusals += sent.applied.problems
        for _ in range(MAX_TRIES):  # the pending link is cancelled: its own count of codes goes with it
            on_discord(harness, who, c.ConfirmLink("WRONG-CODE"))
    assert len(codes_sent(harness)) == CODES_PER_ADDRESS  # 12 before: every round started the count afresh
    assert "link_address_too_many_codes" in refusals
    refused = on_discord(harness, "Ann", c.RequestLink("email", ANN_MAIL.upper()))  # the address in any case
    assert refused.applied.problems == ("link_address_too_many_codes",)
    assert "ask again after" in said(refused) and "within a day" in said(refused)
    harness.clock.advance(timedelta(hours=24, minutes=1))
    link(harness, "Ann")  # a day later the address is mailed a code again
    assert len(codes_sent(harness)) == CODES_PER_ADDRESS + 1


def test_bad_addresses_and_the_own_channel_are_refused(harness):
    assert on_discord(harness, "Ann", c.RequestLink("email", "two words@x.org")).applied.problems == (
        "link_bad_address",
    )
    assert on_discord(harness, "Ann", c.RequestLink("discord", "Ben")).applied.problems == ("link_same_channel",)
    assert codes_sent(harness, "two words@x.org") == []


def test_a_game_master_linked_on_discord_runs_the_game_from_there(harness):
    harness.send("GM", c.CreateGame("gs1", "golden-strider", {}, "UTC", 60, False, "address"))
    before = on_discord(harness, "Gwen", c.SetJoining("gs1", False, "full"))
    assert before.applied.problems == ("not_game_master",)
    link(harness, "Gwen", GM_ADDRESS)
    after = on_discord(harness, "Gwen", c.SetJoining("gs1", False, "full"))
    assert after.applied.problems == (), after.reply
    with unit_of_work(harness.sessions) as session:
        identities = session.scalars(select(Identity).where(Identity.address.in_(["Gwen", GM_ADDRESS]))).all()
        assert len({i.player_id for i in identities}) == 1


def as_host(harness: Harness, command: c.Command):
    envelope = c.Envelope(c.Sender("cli", "host", "the host"), (command,), f"host:{next(harness.counter)}",
                          harness.clock.now(), trust=c.Trust.VERIFIED, as_host=True)  # fmt: skip
    return harness.service.apply(envelope)


def test_the_host_separates_an_address_linked_by_mistake_and_it_can_be_linked_again(harness):
    seated_game(harness)
    link(harness, "Ann")
    assert on_discord(harness, "Mallory", c.UnlinkIdentity("email", ANN_MAIL, "x")).applied.problems == ("host_only",)
    applied = as_host(harness, c.UnlinkIdentity("email", ANN_MAIL, "the wrong address"))
    assert applied.results == ("unlinked",), applied
    told = [(row.channel, row.recipient) for row in harness.outbox() if row.template == "unlinked"]
    assert sorted(told) == [("discord", "Ann"), ("email", ANN_MAIL)]
    with unit_of_work(harness.sessions) as session:
        by_mail = find_player(session, c.Sender("email", ANN_MAIL))
        on_discord_player = find_player(session, c.Sender("discord", "Ann"))
        assert by_mail is not None and on_discord_player is not None and by_mail is not on_discord_player
        game = find_game(session, "gs1")
        assert game is not None and [s.player_id for s in game.seats if s.name == "Ann"] == [on_discord_player.id]
    # The mail alone no longer orders for the seat; Discord still does.
    assert harness.send("Ann", c.SubmitOrders("gs1", SETUP)).applied.problems == ("no_seat",)
    assert "orders_accepted" in on_discord(harness, "Ann", c.SubmitOrders("gs1", SETUP)).applied.results
    assert as_host(harness, c.UnlinkIdentity("email", ANN_MAIL, "again")).problems == ("link_alone",)
    assert as_host(harness, c.UnlinkIdentity("email", "nobody@x.org", "?")).problems == ("link_unknown_address",)
    link(harness, "Mallory")  # the address is free to be linked again (with its own code)
