"""Dragon Stripes played through buttons against the fake Discord (decisions as buttons).

Every button carries game, turn and seat; a click from anyone else, or on a
turn that is over, gets a private refusal and changes nothing; a whole game
is played by clicks, every report checked in the game's post and every DM.
"""

from __future__ import annotations

import logging
import random
from typing import Any

import pytest
from sqlalchemy.orm import Session, sessionmaker

from bot.core.model import commands as c
from bot.core.views import GameViews
from bot.discord.client import NOT_IN_USE
from tests.discord.test_end_to_end import (
    assert_no_mail_vocabulary,
    dms_as_kept,
    expected_messages,
    rows,
    thread_reports,
)
from tests.discord.world import World, running_world
from tests.support.fake_discord import FakeDiscord, Fault, Request

pytestmark = pytest.mark.integration

PLAYERS = ["Ann", "Ben", "Cat"]


async def start(world: World, options: dict[str, Any] | None = None) -> None:
    world.harness.send("GM", c.CreateGame("ds1", "dragon-stripes", options or {}, "UTC", 60, False, "address"))
    for name in PLAYERS:
        await world.command(name, "join", {"game": "ds1", "name": name})
    assert "STARTED ds1" in (world.harness.send("GM", c.StartGame("ds1")).reply or "")
    await world.delivered()


def prompts(world: World) -> list[dict[str, Any]]:
    return [m for m in world.thread_messages("ds1") if m["components"]]


def buttons(message: dict[str, Any]) -> dict[str, str]:
    """custom id -> label."""
    return {b["custom_id"]: b["label"] for row in message["components"] for b in row["components"]}


async def click(world: World, custom_id: str, message: dict[str, Any], who: str) -> dict[str, Any]:
    payload = await world.fake.click(custom_id, message, world.user(who))
    [first, *_] = await world.fake.wait_for_replies(payload)
    return first


async def test_buttons_carry_game_turn_and_seat_and_refuse_others_and_stale_turns(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> None:
    async with running_world(fake_discord, sqlite_sessions) as world:
        await start(world)
        [prompt] = prompts(world)
        a = active(world)  # the game's seed (secret, random) decides who starts
        other = next(name for name in PLAYERS if name != a)
        assert buttons(prompt) == {f"ds:ds1:0:{a}:reveal": f"{a}: reveal", f"ds:ds1:0:{a}:hold": f"{a}: hold"}
        assert f"turn 0: {a}: reveal or hold" in prompt["content"]

        refused = await click(world, f"ds:ds1:0:{a}:reveal", prompt, other)
        assert refused["flags"] == 64 and refused["content"] == f"This button is for {a}, not for you."
        refused = await click(world, f"ds:ds1:0:{a}:reveal", prompt, "Zed")  # not even a player
        assert refused["content"] == f"This button is for {a}, not for you."
        assert active(world) == a and phase_number(world) == 0  # nothing changed

        reply = await click(world, f"ds:ds1:0:{a}:reveal", prompt, a)
        assert reply["flags"] == 64 and "ORDERS ACCEPTED" in reply["content"] and "reveal" in reply["content"]
        await world.delivered()
        assert any("-- turn 0:" in m for m in thread_reports(world, "ds1"))
        latest = prompts(world)[-1]
        assert latest is not prompt and all(":1:" in key for key in buttons(latest))

        stale = await click(world, f"ds:ds1:0:{a}:reveal", prompt, a)
        assert stale["content"] == "Turn 0 of ds1 is over (or no longer waits for you): nothing was changed."
        assert phase_number(world) == 1


def active(world: World) -> str:
    view = GameViews(world.sessions).game("ds1")
    assert view is not None and view.phase is not None
    return view.phase.owing[0]


def phase_number(world: World) -> int:
    view = GameViews(world.sessions).game("ds1")
    assert view is not None and view.phase is not None
    return view.phase.number


HOLDER_CHOOSES = {"takeover_selection": "holder_chooses", "bounty_rule": "fixed", "bounty_fixed": 5}
"""D6's option, and a take-over for a fixed 5 gems, so that several can pay and the holder has to choose."""


@pytest.mark.parametrize("options", [{}, HOLDER_CHOOSES], ids=["seat_order", "holder_chooses"])
async def test_a_whole_dragon_stripes_game_by_buttons(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None,
    options: dict[str, Any],
) -> None:  # fmt: skip
    async with running_world(fake_discord, sqlite_sessions) as world:
        await start(world, options)
        views = GameViews(world.sessions)
        rng = random.Random(13)
        clicks = 0
        seen_offer = seen_choice = False
        done: dict[int, set[str]] = {}
        while (view := views.game("ds1")) is not None and view.phase is not None:
            prompt = prompts(world)[-1]
            assert f"turn {view.phase.number}:" in prompt["content"]
            choices = buttons(prompt)
            answered = done.setdefault(view.phase.number, set())
            seat = next(s for s in view.phase.owing if s not in answered)
            answered.add(seat)
            mine = [key for key in choices if key.split(":")[3] == seat]
            assert mine, (view.phase, choices)
            if any(key.endswith(":take") for key in mine):
                seen_offer = True
                key = rng.choice(mine)
            elif any(":choose" in key for key in mine):
                seen_choice = True
                key = rng.choice(mine)
            else:
                action = ":reveal" if rng.random() < 0.7 else ":hold"
                key = next(k for k in mine if k.endswith(action))
            reply = await click(world, key, prompt, seat)
            assert "ORDERS ACCEPTED" in reply["content"], reply["content"]
            await world.delivered()
            clicks += 1
            assert clicks < 500, "the game did not end"
        assert view is not None and view.status == "finished" and seen_offer
        assert seen_choice == (options == HOLDER_CHOOSES)

        posted = thread_reports(world, "ds1")
        reports = [m for m in posted if not m.startswith("**ds1**")]
        assert reports == expected_messages(world, "ds1")  # every public report once, in order
        turns = sum(1 for r in rows(world.sessions) if r.channel == "discord" and r.recipient == "public:ds1" and r.kind == "report"
                    and r.turn_number is not None)  # fmt: skip
        text = "\n".join(reports)
        assert all(f"-- turn {n}:" in text for n in range(turns)) and "GAME OVER" in text
        assert all(len(m) <= 2000 for m in posted)
        assert "Copy for " not in text and "Your standing orders" not in text  # private parts: by DM only
        for name in PLAYERS:
            user_id = world.user(name)["id"]
            dms = dms_as_kept(fake_discord, user_id)
            assert dms == expected_messages(world, user_id)  # each reply and copy once, the secret not kept
            assert sum(f"\nCopy for {name}\n" in m for m in dms) == turns
            assert any("Your standing orders:" in m for m in dms)  # the seat's private part reached its DMs
        assert_no_mail_vocabulary(fake_discord)


async def test_buttons_and_undelivered_messages_survive_a_restart(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> None:
    async with running_world(fake_discord, sqlite_sessions) as world:
        await start(world)
        [prompt] = prompts(world)  # posted by this run, still live when it stops
        harness = world.harness
        fake_discord.outage(503, times=None)  # Discord's REST is away when the bot stops: the DM copy waits
        [status] = await world.command("Ben", "status", {"game": "ds1"})
        ben = world.user("Ben")["id"]
        dms_before = len(fake_discord.dm_messages(ben))
    fake_discord.faults.clear()
    async with running_world(fake_discord, sqlite_sessions, harness=harness) as again:
        assert fake_discord.identifies == 2 and again.runtime.client is not world.runtime.client
        await again.delivered()
        dms = [m["content"] for m in fake_discord.dm_messages(ben)]
        assert len(dms) == dms_before + 1 and dms[-1] == status["content"]  # sent once, after the restart

        a = active(again)
        reply = await click(again, f"ds:ds1:0:{a}:hold", prompt, a)  # a button from before the restart
        assert "ORDERS ACCEPTED" in reply["content"]
        await again.delivered()
        reports = [m for m in thread_reports(again, "ds1") if not m.startswith("**ds1**")]
        assert reports == expected_messages(again, "ds1") and any("-- turn 0:" in m for m in reports)
        offer = prompts(again)[-1]
        assert any(key.startswith("ds:ds1:1:") and key.endswith(":take") for key in buttons(offer))
        stale = await click(again, f"ds:ds1:0:{a}:reveal", prompt, a)
        assert stale["content"].startswith("Turn 0 of ds1 is over")


async def test_the_holder_chooses_among_several_takers_by_buttons(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> None:
    """docs/rules/dragon-stripes.md D6 with ``takeover_selection = holder_chooses``: one ``choose`` button per taker, for the holder."""
    options = {"takeover_selection": "holder_chooses", "bounty_rule": "fixed", "bounty_fixed": 0, "deck": "F2 F3"}
    async with running_world(fake_discord, sqlite_sessions) as world:
        world.harness.send("GM", c.CreateGame("ds1", "dragon-stripes", options, "UTC", 60, False, "address"))
        for name in PLAYERS:
            await world.command(name, "join", {"game": "ds1", "name": name})
        assert "STARTED ds1" in (world.harness.send("GM", c.StartGame("ds1")).reply or "")
        await world.delivered()
        holder = active(world)
        reply = await click(world, f"ds:ds1:0:{holder}:hold", prompts(world)[-1], holder)  # after the F2: 2 beside
        assert "ORDERS ACCEPTED" in reply["content"]
        await world.delivered()
        offer = prompts(world)[-1]
        others = [name for name in PLAYERS if name != holder]
        assert sorted(key.split(":")[3] for key in buttons(offer) if key.endswith(":take")) == sorted(others)
        for name in others:
            reply = await click(world, f"ds:ds1:1:{name}:take", offer, name)
            assert "ORDERS ACCEPTED" in reply["content"], reply["content"]
        await world.delivered()

        choice = prompts(world)[-1]
        assert f"turn 2: {holder}: choose who takes over" in choice["content"], choice["content"]
        assert buttons(choice) == {
            f"ds:ds1:2:{holder}:choose{PLAYERS.index(name)}": f"{holder}: choose {name}" for name in others
        }  # the taker's place in seat order keeps the id short; the other actions' ids are as before
        first, second = sorted(others, key=PLAYERS.index)
        refused = await click(world, f"ds:ds1:2:{holder}:choose{PLAYERS.index(second)}", choice, second)
        assert refused["content"] == f"This button is for {holder}, not for you." and phase_number(world) == 2
        forged_id = f"ds:ds1:2:{holder}:choose{PLAYERS.index(holder)}"  # the holder is no taker
        button = {"type": 2, "style": 1, "label": "forged", "custom_id": forged_id}
        forged = await click(world, forged_id, {**choice, "components": [{"type": 1, "components": [button]}]}, holder)
        assert forged["content"] == "Turn 2 of ds1 no longer waits for that choice: nothing was changed."
        assert phase_number(world) == 2 and active(world) == holder  # a hand-made id changes nothing

        reply = await click(world, f"ds:ds1:2:{holder}:choose{PLAYERS.index(second)}", choice, holder)
        assert "ORDERS ACCEPTED" in reply["content"] and f"choose {second}" in reply["content"], reply["content"]
        await world.delivered()
        assert active(world) == second  # the chosen taker, not the first in seat order, must reveal now
        text = " ".join(" ".join(thread_reports(world, "ds1")).split())  # the report's last column wraps
        assert f"{holder} chooses {second}: {second} takes over, paying {holder} 0 gems" in text, text
        assert all(":3:" in key for key in buttons(prompts(world)[-1]))  # the chosen taker's reveal or hold
        stale = await click(world, f"ds:ds1:2:{holder}:choose{PLAYERS.index(first)}", choice, holder)
        assert stale["content"] == "Turn 2 of ds1 is over (or no longer waits for you): nothing was changed."
        assert active(world) == second


async def test_a_click_or_a_form_that_nothing_takes_is_answered_privately_and_logged(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None,
    caplog: pytest.LogCaptureFixture,
) -> None:  # fmt: skip
    """A button of a message from an older referee (an id no item reads) or an unknown form: never left hanging."""
    async with running_world(fake_discord, sqlite_sessions) as world:
        await start(world)
        [prompt] = prompts(world)
        a = active(world)
        button = {"type": 2, "style": 1, "label": "old", "custom_id": "referee-v0:ds1:reveal"}
        old = {**prompt, "components": [{"type": 1, "components": [button]}]}
        with caplog.at_level(logging.WARNING, logger="bot.discord.client"):
            reply = await click(world, "referee-v0:ds1:reveal", old, a)
            sent = await fake_discord.submit_modal("referee:feedback", {"text": "hello"}, world.user(a))
            [form] = await fake_discord.wait_for_replies(sent)
        for answer in (reply, form):
            assert answer["flags"] == 64 and answer["content"] == NOT_IN_USE
        assert sum("nothing takes it" in r.getMessage() for r in caplog.records) == 2
        assert active(world) == a and phase_number(world) == 0  # nothing changed
        live = await fake_discord.click(f"ds:ds1:0:{a}:reveal", prompt, world.user(a))
        [accepted, *_] = await fake_discord.wait_for_replies(live)
        await world.delivered()
        assert "ORDERS ACCEPTED" in accepted["content"]
        assert NOT_IN_USE not in [m["content"] for m in fake_discord.replies(live)]  # a live button: not refused


async def test_a_prompt_refused_for_good_leaves_its_report_sent_and_the_next_prompt_posts(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None,
    caplog: pytest.LogCaptureFixture,
) -> None:  # fmt: skip
    """The report went out; only its buttons were refused (403 50013): the row is not parked as if unsent."""

    def prompt_post(request: Request) -> bool:
        return request.method == "POST" and bool((request.body or {}).get("components"))

    refused = Fault(prompt_post, 403, {"message": "Missing Permissions", "code": 50013}, times=1)
    fake_discord.faults.append(refused)
    async with running_world(fake_discord, sqlite_sessions) as world:
        with caplog.at_level(logging.WARNING, logger="bot.discord.transport"):
            await start(world)
        assert refused.hits == 1  # the first prompt posted was refused; the next public row posts it again
        assert any("prompt of ds1 was refused for good" in r.getMessage() for r in caplog.records)
        public = [r for r in rows(world.sessions) if r.recipient == "public:ds1" and r.kind != "status"]
        assert public and all(r.sent_at is not None and r.parked_at is None for r in public)
        assert any("STARTED" in m or "started" in m for m in thread_reports(world, "ds1"))

        a = active(world)
        [reply, *_] = await world.command(a, "orders", {"game": "ds1", "text": "reveal"})  # typed, without the button
        assert "ORDERS ACCEPTED" in reply["content"], reply["content"]
        await world.delivered()
        assert all(":1:" in key for key in buttons(prompts(world)[-1]))  # the next phase's buttons are posted
