"""Strike Gold played through buttons against the fake Discord (decisions as buttons).

Draw, see the card privately, then keep it in a slot or discard it and flip;
or take the discard.  The draw is resolved (recorded) before the card is
shown, the card reaches its drawer only (ephemeral reply and DM), never the
game's post; a click from anyone else, or on a turn that is over, is refused
privately and changes nothing; buttons made before a restart still work.

The deck is stacked (the game's ``deck`` option) so the cards are known:

* Ann ``5 1 2 3 / 5 4 6 8 / 9 7 10 11`` turns up r1c1 and r2c1 (5 and 5);
* Ben ``0 1 2 3 / 4 6 7 8 / 9 10 11 3`` turns up r1c1 and r1c2 (0 and 1);
* the discard pile starts with 0; the draw pile starts 12, 5, then the rest.

Ann starts (highest revealed total, 10).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import pytest
from sqlalchemy.orm import Session, sessionmaker

from adjudicator.games.strike_gold.cards import full_deck
from bot.core.model import commands as c
from bot.core.views import GameViews
from tests.discord.test_end_to_end import (
    assert_no_mail_vocabulary,
    dms_as_kept,
    expected_messages,
    thread_reports,
)
from tests.discord.world import World, running_world
from tests.support.fake_discord import FakeDiscord

pytestmark = pytest.mark.integration

ANN = [5, 1, 2, 3, 5, 4, 6, 8, 9, 7, 10, 11]
BEN = [0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 3]
TOP = [0, 12, 5]
"""The discard pile's first card, then the top of the draw pile."""


def stacked_deck() -> list[int]:
    named = ANN + BEN + TOP
    rest = Counter(full_deck()) - Counter(named)
    return named + sorted(rest.elements())


async def start(world: World) -> None:
    world.harness.send("GM", c.CreateGame("sg1", "strike-gold", {"deck": stacked_deck()}, "UTC", 60, False, "address"))
    for name in ("Ann", "Ben"):
        await world.command(name, "join", {"game": "sg1", "name": name})
    assert "STARTED sg1" in (world.harness.send("GM", c.StartGame("sg1")).reply or "")
    for name, flips in (("Ann", "flip r1c1 r2c1"), ("Ben", "flip r1c1 r1c2")):
        [reply, *_] = await world.command(name, "orders", {"game": "sg1", "text": flips})
        assert "ORDERS ACCEPTED" in reply["content"], reply["content"]
    await world.delivered()


def prompts(world: World) -> list[dict[str, Any]]:
    return [m for m in world.thread_messages("sg1") if m["components"]]


def controls(message: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """custom id -> component (buttons and menus)."""
    return {k["custom_id"]: k for row in message["components"] for k in row["components"]}


def labels(message: dict[str, Any]) -> dict[str, str]:
    return {key: str(k.get("label") or k.get("placeholder")) for key, k in controls(message).items()}


async def press(world: World, custom_id: str, message: dict[str, Any], who: str, replies: int = 1,
                values: list[str] | None = None) -> list[dict[str, Any]]:  # fmt: skip
    """Click (or, with ``values``, choose in the menu) ``custom_id`` as ``who``; the private replies."""
    user = world.user(who)
    if values is None:
        payload = await world.fake.click(custom_id, message, user)
    else:
        payload = await world.fake.choose(custom_id, values, message, user)
    got = await world.fake.wait_for_replies(payload, replies)
    assert all(m["flags"] & 64 for m in got), got  # every answer to a click is private
    return got


def phase(world: World) -> tuple[int, str, str]:
    """(turn number, seat to move, stage) of the live game."""
    view = GameViews(world.sessions).public_view("sg1")
    assert view is not None and view.phase is not None and view.shown is not None
    return view.phase.number, view.phase.owing[0], str(view.shown["stage"])


def card_shown(replies: list[dict[str, Any]]) -> dict[str, Any]:
    [shown] = [m for m in replies if m["components"]]
    return shown


async def test_draw_keep_flip_and_take_by_buttons_with_the_card_private(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> None:
    async with running_world(fake_discord, sqlite_sessions) as world:
        await start(world)
        assert phase(world) == (1, "Ann", "turn")
        [prompt] = prompts(world)
        assert "turn 1: round 1: Ann to move. Discard pile: 0 on top" in prompt["content"]
        assert labels(prompt) == {"sg:sg1:1:Ann:draw": "Ann: draw", "sg:sg1:1:Ann:take": "Ann: take the discard (0)"}

        # Draw: the draw is resolved first (turn 1), then the card is shown to Ann alone.
        before = len(world.thread_messages("sg1"))
        replies = await press(world, "sg:sg1:1:Ann:draw", prompt, "Ann", replies=2)
        assert "ORDERS ACCEPTED" in replies[0]["content"] and "draw deck" in replies[0]["content"]
        assert phase(world) == (2, "Ann", "decide")
        shown = card_shown(replies)
        assert "turn 2: you drew **12** from the deck (shown to you only)" in shown["content"]
        assert "r1  5  ?  ?  ?\nr2  5  ?  ?  ?\nr3  ?  ?  ?  ?" in shown["content"]  # no face-down value shown
        keys = controls(shown)
        assert [k for k in keys if ":keep-" in k] == [f"sg:sg1:2:Ann:keep-r{r}c{c}" for r in (1, 2, 3)
                                                      for c in (1, 2, 3, 4)]  # fmt: skip
        menu = keys["sg:sg1:2:Ann:flip"]
        assert (
            menu["type"] == 3
            and len(menu["options"]) == 10
            and {"r1c1", "r2c1"}.isdisjoint(o["value"] for o in menu["options"])
        )
        await world.delivered()
        since_draw = "\n".join(m["content"] for m in world.thread_messages("sg1")[before:])
        assert "Ann drew from the deck, and is deciding" in since_draw
        # the drawn card is not in the post: no 12 standing alone (one inside a word is not a card: the orders'
        # commitments are hex, "e12a" appeared in one CI run, and Discord's timestamps are digits)
        assert not re.search(r"(?<![\w:])12(?![\w:])", since_draw), since_draw
        public = "\n".join(m["content"] for m in world.thread_messages("sg1"))
        assert "shown to you only" not in public and "You drew" not in public
        ann_dms = [m["content"] for m in fake_discord.dm_messages(world.user("Ann")["id"])]
        assert sum("You drew 12 from the deck (shown to you only)." in m for m in ann_dms) == 1  # the seat's copy
        ben_dms = [m["content"] for m in fake_discord.dm_messages(world.user("Ben")["id"])]
        assert not any("You drew" in m for m in ben_dms)
        decide = prompts(world)[-1]
        assert labels(decide) == {"sg:sg1:2:Ann:show": "Ann: see the card and decide"}

        # Others are refused privately, and so is a stale click: nothing changes.
        [refused] = await press(world, "sg:sg1:2:Ann:keep-r1c2", shown, "Ben")
        assert refused["content"] == "This button is for Ann, not for you."
        [refused] = await press(world, "sg:sg1:2:Ann:show", decide, "Ben")
        assert refused["content"] == "This button is for Ann, not for you." and "12" not in refused["content"]
        [stale] = await press(world, "sg:sg1:1:Ann:draw", prompt, "Ann")
        assert stale["content"] == "Turn 1 of sg1 is over (or no longer waits for you): nothing was changed."
        assert phase(world) == (2, "Ann", "decide")

        # Seeing the card again changes nothing; then discard it and flip r3c4 (an 11).
        again = card_shown(await press(world, "sg:sg1:2:Ann:show", decide, "Ann"))
        assert "you drew **12**" in again["content"] and controls(again).keys() == keys.keys()
        [flipped] = await press(world, "sg:sg1:2:Ann:flip", again, "Ann", values=["r3c4"])
        assert "ORDERS ACCEPTED" in flipped["content"] and "flip r3c4" in flipped["content"]
        await world.delivered()
        assert phase(world) == (3, "Ben", "turn")
        assert any("Ann discarded the 12 from the deck and flipped r3c4: 11" in m for m in thread_reports(world, "sg1"))
        [stale] = await press(world, "sg:sg1:2:Ann:keep-r1c2", shown, "Ann")
        assert stale["content"].startswith("Turn 2 of sg1 is over")

        # Take the discard: a private offer (nothing taken yet), then one order with the slot.
        ben_prompt = prompts(world)[-1]
        assert labels(ben_prompt)["sg:sg1:3:Ben:take"] == "Ben: take the discard (12)"
        offer = card_shown(await press(world, "sg:sg1:3:Ben:take", ben_prompt, "Ben"))
        assert "take the **12** from the discard pile?" in offer["content"]
        assert "sg:sg1:3:Ben:flip" not in controls(offer)  # ruling S1: a card taken must be kept
        assert phase(world) == (3, "Ben", "turn")
        [kept] = await press(world, "sg:sg1:3:Ben:keep-r3c1", offer, "Ben")
        assert "draw discard, keep r3c1" in kept["content"]
        await world.delivered()
        report = next(m for m in reversed(thread_reports(world, "sg1")) if "turn 3 report" in m)
        assert "* Ben kept the 12 from the discard pile in r3c1; the face-down card there, a\n  9, goes" in report
        assert "r3  ?  ?  ? 11    r3 12  ?  ?  ?" in report and "Discard pile: 9 on top." in report

        # Draw and keep: the 5 completes Ann's first column, which clears.
        replies = await press(world, "sg:sg1:4:Ann:draw", prompts(world)[-1], "Ann", replies=2)
        shown = card_shown(replies)
        assert "you drew **5**" in shown["content"]
        [kept] = await press(world, "sg:sg1:5:Ann:keep-r3c1", shown, "Ann")
        assert "keep r3c1" in kept["content"]
        await world.delivered()
        text = "\n".join(thread_reports(world, "sg1"))
        assert "Ann kept the 5 from the deck in r3c1" in text and "Ann cleared column 1 (5 5 5)" in text
        assert phase(world) == (6, "Ben", "turn")

        # The mail's conditional one-shot orders still count, typed on Discord (the same parser).
        [reply, *_] = await world.command("Ben", "orders", {"game": "sg1",
                                                            "text": "draw deck; if 4 or less keep r2c1; else flip r2c2"})  # fmt: skip
        assert "ORDERS ACCEPTED" in reply["content"], reply["content"]
        await world.delivered()
        assert phase(world)[:2] == (7, "Ann")
        replies = await press(world, "sg:sg1:7:Ann:draw", prompts(world)[-1], "Ann", replies=2)
        cleared = controls(card_shown(replies))
        assert cleared["sg:sg1:8:Ann:keep-r1c1"]["disabled"] and cleared["sg:sg1:8:Ann:keep-r1c1"]["label"] == "r1c1: x"
        assert not cleared["sg:sg1:8:Ann:keep-r1c2"]["disabled"]
        await world.delivered()

        posted = thread_reports(world, "sg1")
        assert [m for m in posted if not m.startswith("**sg1**")] == expected_messages(world, "sg1")
        for name in ("Ann", "Ben"):
            user_id = world.user(name)["id"]
            assert dms_as_kept(fake_discord, user_id) == expected_messages(world, user_id)
        assert_no_mail_vocabulary(fake_discord)


async def test_buttons_and_the_private_card_survive_a_restart(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> None:
    async with running_world(fake_discord, sqlite_sessions) as first:
        await start(first)
        [prompt] = prompts(first)  # posted by this run, still live when it stops
        harness = first.harness
    async with running_world(fake_discord, sqlite_sessions, harness=harness) as second:
        assert fake_discord.identifies == 2 and second.runtime.client is not first.runtime.client
        replies = await press(second, "sg:sg1:1:Ann:draw", prompt, "Ann", replies=2)  # a prompt from the last run
        shown = card_shown(replies)
        assert "you drew **12**" in shown["content"]
        await second.delivered()
    async with running_world(fake_discord, sqlite_sessions, harness=harness) as third:
        assert fake_discord.identifies == 3
        [kept] = await press(third, "sg:sg1:2:Ann:keep-r1c2", shown, "Ann")  # a private offer from the last run
        assert "ORDERS ACCEPTED" in kept["content"] and "keep r1c2" in kept["content"]
        await third.delivered()
        assert phase(third) == (3, "Ben", "turn")
        assert any("Ann kept the 12 from the deck in r1c2" in m for m in thread_reports(third, "sg1"))
        [stale] = await press(third, "sg:sg1:1:Ann:draw", prompt, "Ann")
        assert stale["content"].startswith("Turn 1 of sg1 is over")
        replies = await press(third, "sg:sg1:3:Ben:draw", prompts(third)[-1], "Ben", replies=2)
        assert "you drew **5**" in card_shown(replies)["content"]
        assert phase(third) == (4, "Ben", "decide")
        await third.delivered()
        posted = [m for m in thread_reports(third, "sg1") if not m.startswith("**sg1**")]
        assert posted == expected_messages(third, "sg1")  # every report once across the restarts
        assert len(prompts(third)) == 4  # one prompt per move phase (1, 2, 3, 4): none doubled by a restart


async def test_a_draw_typed_is_decided_by_button_and_the_deadline_makes_the_offer_stale(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> None:
    async with running_world(fake_discord, sqlite_sessions) as world:
        await start(world)
        [reply, *_] = await world.command("Ann", "orders", {"game": "sg1", "text": "draw deck"})
        assert "ORDERS ACCEPTED" in reply["content"] and "You drew" not in reply["content"]
        await world.delivered()
        decide = prompts(world)[-1]
        assert labels(decide) == {"sg:sg1:2:Ann:show": "Ann: see the card and decide"}
        shown = card_shown(await press(world, "sg:sg1:2:Ann:show", decide, "Ann"))
        assert "you drew **12** from the deck" in shown["content"]
        assert await world.pass_deadline() == [("sg1", 2)]  # Ann sent nothing: ruling S10 plays for her
        await world.delivered()
        assert phase(world) == (3, "Ben", "turn")
        text = "\n".join(thread_reports(world, "sg1"))
        assert "Ann: no orders received; the referee's orders: flip r1c2" in text
        [stale] = await press(world, "sg:sg1:2:Ann:keep-r3c1", shown, "Ann")
        assert stale["content"] == "Turn 2 of sg1 is over (or no longer waits for you): nothing was changed."
        assert phase(world) == (3, "Ben", "turn")
