"""Substitutes on Discord: the "Take this seat" button of a seat offer's DM, ``/standby`` and ``/take``.

The button's id names the offer (the seat's ``offer_round``), the game and the
seat, never a player: a click is ``STAND IN <game> <seat>`` (Discord: ``/take``) by whoever clicked, for
that offer, refused as the core refuses any ``TAKE`` (someone else offered
first, the clicker is seated in the game, the offer was withdrawn and made
again).  The clicks go through the bot's real runtime and discord.py client
against the fake Discord; the button is found by its id after a restart.
"""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from bot.core.model import commands as c
from bot.discord import dm_buttons
from bot.discord.ready_button import ReadyButton
from bot.discord.substitute_button import TEMPLATE, TakeButton, buttons_for, custom_id
from bot.store.db import unit_of_work
from bot.store.models import Game, Player
from tests.discord.world import World, running_world
from tests.support.fake_discord import FakeDiscord

pytestmark = pytest.mark.integration

GAME = "gs1"
BY_MAIL = ("Ann", "Ben", "Cat", "Dan", "Eve")
"""Five seats held by mail players; the sixth, Fay, by a Discord member."""


def test_the_button_names_the_offer_the_game_and_the_seat_within_100_characters() -> None:
    data = {"game": GAME, "seat": "Ann Lee", "round": 3, "title": "Golden Strider"}
    view = buttons_for(TEMPLATE, data)
    assert view is not None
    [button] = view.children
    assert isinstance(button, TakeButton) and button.custom_id == "take:3:gs1:Ann Lee"
    assert (button.offer_round, button.game, button.seat) == (3, GAME, "Ann Lee")
    assert button.item.label == "Take this seat" and view.timeout is None  # a persistent view
    longest = custom_id(999_999_999, "g" * 40, "S" * 40)
    assert len(longest) <= 100 and TakeButton.__discord_ui_compiled_template__.fullmatch(longest)
    for refused in ({**data, "round": "3"}, {**data, "seat": None}, {"game": GAME, "seat": "Ann"},
                    {**data, "seat": "a:b"}, {**data, "game": "g" * 41}):  # fmt: skip
        assert buttons_for(TEMPLATE, refused) is None, refused
    assert buttons_for("seat_offered", data) is None  # the public post has /take, not a button


def test_each_dm_gets_its_own_templates_button_and_every_item_is_registered() -> None:
    offer = dm_buttons.buttons_for("seat_offer", {"game": GAME, "seat": "Ann", "round": 1})
    ready = dm_buttons.buttons_for("ready_request", {"game": GAME, "seat": "Ann", "round": 1})
    assert offer is not None and [type(item) for item in offer.children] == [TakeButton]
    assert ready is not None and [type(item) for item in ready.children] == [ReadyButton]
    assert dm_buttons.buttons_for("seat_given", {"game": GAME, "seat": "Ann", "round": 1}) is None
    assert set(dm_buttons.ITEMS) == {TakeButton, ReadyButton}


async def running_game(world: World) -> None:
    """A running Golden Strider game: five seats by mail, Fay's on Discord; no substitutes by itself."""
    created = world.harness.send("GM", c.CreateGame(GAME, "golden-strider", {}, "UTC", 60, False, "address"))
    assert created.applied.results == ("created",), created.reply
    for name in BY_MAIL:
        assert world.harness.send(name, c.JoinGame(GAME, name)).applied.results == ("joined",)
    [joined, *_] = await world.command("Fay", "join", {"game": GAME, "name": "Fay"})
    assert "JOINED gs1" in joined["content"], joined["content"]
    started = world.harness.send("GM", c.StartGame(GAME))
    assert started.applied.results == ("started",), started.reply


def offer_buttons(world: World, who: str) -> list[tuple[dict[str, Any], str]]:
    """(message, custom id) of every take button in the DMs to ``who``."""
    return [(m, b["custom_id"]) for m in world.fake.dm_messages(world.user(who)["id"])
            for row in m.get("components", []) for b in row.get("components", [])
            if b.get("custom_id", "").startswith("take:")]  # fmt: skip


async def click(world: World, who: str, button: tuple[dict[str, Any], str]) -> str:
    """``who`` presses the button; the private answer, on one line."""
    message, custom = button
    interaction = await world.fake.click(custom, message, world.user(who))
    await world.fake.wait_for_callback(interaction)
    [reply, *_] = await world.fake.wait_for_replies(interaction)
    assert reply["flags"] == 64, reply  # private
    return " ".join(reply["content"].split())


def seat_state(world: World, seat: str) -> tuple[str, int, str | None, bool]:
    """(holder's display name, offer round, the waiting candidate's name, whether the seat is up)."""
    with unit_of_work(world.sessions) as session:
        game = session.scalars(select(Game).where(Game.slug == GAME)).one()
        row = next(s for s in game.seats if s.name == seat)
        candidate = session.get(Player, row.candidate_id) if row.candidate_id is not None else None
        return (row.player.display_name, row.offer_round, candidate.display_name if candidate else None,
                row.offered_at is not None)  # fmt: skip


async def test_a_click_is_a_take_by_whoever_clicks_for_that_offer_only(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> None:
    async with running_world(fake_discord, sqlite_sessions) as world:
        await running_game(world)
        for name in ("Zed", "Yan"):
            [listed, *_] = await world.command(name, "standby", {"kind": "golden-strider"})
            assert "You will be offered every seat of a golden-strider game" in " ".join(listed["content"].split())
        put_up = world.harness.send("GM", c.OfferSeat(GAME, "Ben", reason="no orders for two turns"))
        assert put_up.applied.results == ("seat_put_up",), put_up.reply
        await world.delivered()
        [zed_offer] = offer_buttons(world, "Zed")
        [yan_offer] = offer_buttons(world, "Yan")
        assert zed_offer[1] == yan_offer[1] == f"take:1:{GAME}:Ben"  # the offer's button, the same for everyone
        assert "Seat Ben of Golden Strider game gs1 needs a new player: no orders for two" in " ".join(
            zed_offer[0]["content"].split()
        )
        assert offer_buttons(world, "Fay") == []  # seated, and not on the list

        seated = await click(world, "Fay", zed_offer)  # a seated player's click on someone else's button
        assert "you already have the seat Fay in gs1" in seated, seated
        assert seat_state(world, "Ben") == ("Ben", 1, None, True)
        waiting = await click(world, "Zed", zed_offer)
        assert "the seat Ben is yours once a game master of gs1 accepts" in waiting, waiting
        spoken = await click(world, "Yan", zed_offer)  # Zed's button, Yan's click: Yan's own TAKE
        assert "someone offered to take Ben of gs1 first" in spoken, spoken
        again = await click(world, "Zed", zed_offer)
        assert "you have offered to take Ben of gs1 already" in again, again
        assert seat_state(world, "Ben") == ("Ben", 1, "Zed", True)

        # The GM withdraws the offer and makes it again: the first offer's buttons are stale.
        for action in ("withdraw", "offer"):
            done = world.harness.send("GM", c.OfferSeat(GAME, "Ben", action))
            assert not done.applied.problems, done.reply
        assert seat_state(world, "Ben") == ("Ben", 2, None, True)
        await world.delivered()
        stale = await click(world, "Yan", yan_offer)
        assert "that offer of seat Ben in gs1 is over; nothing was changed" in stale, stale
        assert seat_state(world, "Ben") == ("Ben", 2, None, True)
        [_, (zed_dm, zed_id)] = offer_buttons(world, "Zed")
        assert zed_id == f"take:2:{GAME}:Ben"
        harness = world.harness

    async with running_world(fake_discord, sqlite_sessions, harness) as world:  # the bot restarted
        taken = await click(world, "Zed", (zed_dm, zed_id))
        assert "the seat Ben is yours once a game master of gs1 accepts" in taken, taken
        accepted = world.harness.send("GM", c.OfferSeat(GAME, "Ben", "accept"))
        assert accepted.applied.results == ("substitute_accepted",), accepted.reply
        assert seat_state(world, "Ben") == ("Zed", 2, None, False)
        over = await click(world, "Yan", (zed_dm, zed_id))
        assert "seat Ben of gs1 is not up for a substitute" in over, over


async def test_standby_shows_and_changes_the_list_and_take_suggests_only_the_seats_up(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> None:
    async with running_world(fake_discord, sqlite_sessions) as world:
        await running_game(world)

        async def said(name: str, options: dict[str, Any]) -> str:
            [reply, *_] = await world.command("Zed", name, options)
            assert reply["flags"] == 64 and all(len(line) <= 78 for line in reply["content"].splitlines())
            return " ".join(reply["content"].split())

        assert "You are on no standby list." in await said("standby", {})
        every = await said("standby", {"kind": "all"})
        assert "You will be offered every seat of any game that needs a substitute" in every, every
        assert "/take game: seat: takes one" in every and "STAND IN <game>" not in every
        assert "You stand by for a seat in any kind of game." in await said("standby", {})
        none = await said("standby", {"kind": "strike-gold", "off": True})
        assert "No more offers of strike-gold seats. Your list: dragon-stripes, golden-strider, lautobus, " in none, (
            none
        )
        off = await said("standby", {"kind": "all", "off": True})
        assert "No more offers for any kind." in off, off

        async def suggested(focused: str, options: dict[str, Any]) -> list[str]:
            typed = await world.fake.autocomplete("take", options, focused, world.user("Zed"))
            callback = await world.fake.wait_for_callback(typed)
            assert callback["type"] == 8
            return [choice["value"] for choice in callback["data"]["choices"]]

        assert await suggested("game", {"game": ""}) == []
        for seat in ("Eve", "Cat"):
            assert world.harness.send("GM", c.OfferSeat(GAME, seat)).applied.results == ("seat_put_up",)
        assert await suggested("game", {"game": "g"}) == [GAME]
        assert await suggested("game", {"game": "dragon"}) == []
        assert await suggested("seat", {"game": GAME, "seat": ""}) == ["Cat", "Eve"]
        assert await suggested("seat", {"game": GAME, "seat": "e"}) == ["Eve"]
        assert await suggested("seat", {"game": "nosuch", "seat": ""}) == []

        refused = await said("take", {"game": GAME, "seat": "Dan"})
        assert "seat Dan of gs1 is not up for a substitute; seats that are: Cat, Eve" in refused, refused
        taken = await said("take", {"game": GAME, "seat": "eve"})
        assert "the seat Eve is yours once a game master of gs1 accepts" in taken, taken
        asked = await world.fake.slash("help", {}, world.user("Zed"))
        await world.fake.wait_for_callback(asked)
        help_text = "".join(part["content"] for part in await world.fake.wait_for_replies(asked, count=2))
        assert "/standby [kind:] [off:]" in help_text and "/take game: seat:" in help_text, help_text
