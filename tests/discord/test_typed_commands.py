"""The three-race game's ``/runners`` and L'autobus's ``/riders`` through the real ``CommandTree``.

Like ``/play`` (tests/discord/test_commands.py): autocomplete offers only the
player's own cards, the options are checked in code (nothing is applied when
they are wrong), and the text sent is the game's own order syntax, judged by
the game's parser as an email would be.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest_asyncio
from sqlalchemy.orm import Session, sessionmaker

from bot.core.model import commands as c
from bot.core.views import GameViews
from bot.discord.games.three_races import Team, next_cards
from bot.discord.runtime import point_at
from tests.core.harness import Harness
from tests.discord.test_commands import Bench, bench_client
from tests.support.fake_discord import AUTOCOMPLETE, SLASH, FakeDiscord

TEAMS = ["Ann", "Ben", "Cat", "Dan"]
RIDERS = ["Ann", "Ben", "Cat", "Dan", "Eve"]
CARDS = tuple(range(1, 13))


@pytest_asyncio.fixture
async def typed(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> AsyncIterator[Bench]:
    point_at(fake_discord.api_base, fake_discord.gateway_url)
    harness = Harness(sqlite_sessions)
    client = bench_client(fake_discord, sqlite_sessions, harness)
    await client.login("fake-token")
    try:
        yield Bench(fake_discord, client, harness)
    finally:
        await client.close()


async def started(bench: Bench, slug: str, kind: str, names: list[str]) -> dict[str, dict[str, Any]]:
    bench.harness.send("GM", c.CreateGame(slug, kind, {}, "UTC", 60, False, "address"))
    users = {name: bench.fake.add_member(name) for name in names}
    for name, user in users.items():
        await bench.call(SLASH, "join", {"game": slug, "name": name}, user)
    assert "STARTED" in (bench.harness.send("GM", c.StartGame(slug)).reply or "")
    return users


async def offered(bench: Bench, command: str, options: dict[str, Any], focused: str, user: dict[str, Any]) -> list[str]:
    payload = await bench.call(AUTOCOMPLETE, command, options, user, focused=focused)
    [callback] = bench.fake.callbacks[int(payload["id"])]
    return [ch["value"] for ch in callback["data"]["choices"]]


async def refused(bench: Bench, command: str, options: dict[str, Any], user: dict[str, Any]) -> str:
    """The private refusal of a command whose options the check in code rejects (at once, or after a deferral)."""
    payload = await bench.call(SLASH, command, options, user)
    [answer] = bench.fake.replies(payload)
    assert answer["flags"] == 64, answer
    text: str = answer["content"]
    assert text.startswith("Not sent: "), text
    return text


def ordered(bench: Bench, slug: str) -> str:
    reply = bench.harness.send("Zed", c.ShowStatus(slug)).reply or ""
    return next((line for line in reply.splitlines() if "Orders in from:" in line), "")


async def test_runners_offers_the_teams_own_cards_at_the_setup_and_at_each_deadline(typed: Bench) -> None:
    users = await started(typed, "tr1", "three-races", TEAMS)
    ann = users["Ann"]
    assert await offered(typed, "runners", {"game": "tr1", "race25": "", "race55": "1 2 3 4"}, "race25", ann) == [
        str(card) for card in range(5, 13)
    ]  # the setup: any card not given to another race
    assert await offered(typed, "runners", {"game": "tr1", "race25": "5 6 7"}, "race25", ann) == [
        "5 6 7 " + str(card) for card in (1, 2, 3, 4, 8, 9, 10, 11, 12)
    ]
    assert await offered(typed, "runners", {"game": "tr1", "race25": "5 6 7 8"}, "race25", ann) == ["5 6 7 8"]
    assert await offered(typed, "runners", {"game": "tr1", "race25": ""}, "race25", typed.fake.add_member("Zed")) == []

    for options, why in [({"race25": "2 4 5 10 11"}, "race25 has 5 cards; each runner gets exactly four"),
                         ({"race25": "2 4 13"}, "race25: '13' is not a card: cards are 1 to 12"),
                         ({"race25": "two"}, "'two' is not a card"),
                         ({"race25": "2 4 5 10", "race55": "2 6 9 11"}, "card 2 is given twice"),
                         ({}, "give the cards of at least one race")]:  # fmt: skip
        assert why in await refused(typed, "runners", {"game": "tr1", **options}, ann)
    assert "Ann" not in ordered(typed, "tr1")  # nothing was applied

    payload = await typed.call(SLASH, "runners", {"game": "tr1", "race25": "2 4 5 10", "race55": "1 6 9 11"}, ann)
    [text] = typed.texts(payload)
    assert "ORDERS ACCEPTED" in text and "25: 2 4 5 10 / 55: 1 6 9 11 / 85: 3 7 8 12" in text, text
    assert "Ann" in ordered(typed, "tr1")
    assert typed.harness.pass_deadline() == [("tr1", 0)]

    # Deadline 1 plays moves 1-2: one card per move, from the runner's own hand.
    assert await offered(typed, "runners", {"game": "tr1", "race25": ""}, "race25", ann) == ["2", "4", "5", "10"]
    assert await offered(typed, "runners", {"game": "tr1", "race25": "10"}, "race25", ann) == ["10 2", "10 4", "10 5"]
    assert await offered(typed, "runners", {"game": "tr1", "race25": "10 4"}, "race25", ann) == ["10 4"]
    assert await offered(typed, "runners", {"game": "tr1", "race25": "3"}, "race25", ann) == []  # not Ann's 25 card
    assert await offered(typed, "runners", {"game": "tr1", "race85": ""}, "race85", users["Ben"]) == [
        "3", "6", "9", "12"
    ]  # Ben sent no setup: the default split  # fmt: skip
    why = await refused(typed, "runners", {"game": "tr1", "race25": "10 4 5"}, ann)
    assert "race25 has 3 cards, but this deadline has 2 moves" in why

    options = {"game": "tr1", "race25": "10 4", "race55": "6 9", "race85": "12"}
    [text] = typed.texts(await typed.call(SLASH, "runners", options, ann))
    assert "ORDERS ACCEPTED" in text and "move 1: 25=10 55=6 85=12; move 2: 25=4 55=9" in text, text
    assert "no card for the 85 race" in text  # the parser's own note: rule 10 plays the lowest card left
    assert typed.harness.pass_deadline() == [("tr1", 1)]
    shown = GameViews(typed.harness.sessions).seat_view("tr1", "Ann").shown  # type: ignore[union-attr]
    assert shown["spent"]["25"] == [4, 10] and shown["spent"]["55"] == [6, 9]  # type: ignore[index]
    assert await offered(typed, "runners", {"game": "tr1", "race25": ""}, "race25", ann) == ["2", "5"]


def test_a_cycle_that_ends_inside_a_deadline_gives_the_cards_back() -> None:
    team = Team(False, (4, 5, 6), {25: (1, 2, 3, 4)}, {25: frozenset({1, 2, 3})}, (25, 55, 85), CARDS, 4, 4)
    assert next_cards(team, 25, [], []) == [4]
    assert next_cards(team, 25, [4], []) == [1, 2, 3, 4]  # move 4 ended the cycle
    assert next_cards(team, 25, [4, 4], []) == [1, 2, 3]
    assert next_cards(team, 25, [4, 4, 1], []) == []  # three moves, three cards
    assert next_cards(team, 25, [2], []) == []  # 2 was spent: nothing can follow it
    finished = Team(False, (1, 2), {25: (1, 2, 3, 4)}, {}, (55, 85), CARDS, 4, 4)
    assert next_cards(finished, 25, [], []) == []


async def test_runners_refuses_a_game_of_another_kind(typed: Bench) -> None:
    typed.harness.golden_strider_game("gs1", auth="address")
    user = typed.fake.add_member("Ann")
    assert "gs1 is not a three-race game" in await refused(typed, "runners", {"game": "gs1", "race25": "1"}, user)
    assert "gs1 is not an L'autobus game" in await refused(typed, "riders", {"game": "gs1", "rider1": "1"}, user)


async def test_riders_offers_each_riders_own_hand_and_no_special_on_turn_one(typed: Bench) -> None:
    users = await started(typed, "lb1", "lautobus", RIDERS)
    ann = users["Ann"]
    assert await offered(typed, "riders", {"game": "lb1", "rider1": ""}, "rider1", ann) == [
        "1",
        "2",
        "3",
        "4",
        "5",
        "6",
    ]
    assert (
        await offered(typed, "riders", {"game": "lb1", "rider3": "s"}, "rider3", ann) == []
    )  # the first turn: no SPRINT
    assert await offered(typed, "riders", {"game": "lb1", "rider1": ""}, "rider1", typed.fake.add_member("Zed")) == []

    for options, why in [({"rider1": "seven"}, "rider1: 'seven' is not a card"),
                         ({"rider2": "100"}, "rider2: '100' is not a card: write a number 1 to 99"),
                         ({}, "give a card to at least one rider")]:  # fmt: skip
        assert why in await refused(typed, "riders", {"game": "lb1", **options}, ann)
    assert "Ann" not in ordered(typed, "lb1")

    options = {"game": "lb1", "rider1": "3", "rider2": "5", "rider3": "1", "rider4": "2", "rider5": "6"}
    [text] = typed.texts(await typed.call(SLASH, "riders", options, ann))
    assert "ORDERS ACCEPTED" in text and "1: 3, 2: 5, 3: 1, 4: 2, 5: 6" in text, text
    [text] = typed.texts(await typed.call(SLASH, "riders", {"game": "lb1", "rider1": "ZERO"}, users["Ben"]))
    assert "1: zero" in text and "no special card may be played on\n    the first turn" in text, (
        text
    )  # the game's own warning
    assert "WARNING: no card for rider 2" in text
    assert typed.harness.pass_deadline() == [("lb1", 0)]

    shown = GameViews(typed.harness.sessions).public_view("lb1").shown  # type: ignore[union-attr]
    hand = next(cy["cards"] for cy in shown["cyclists"] if cy["team"] == "Ann" and cy["rider"] == 1)  # type: ignore[index]
    offer = await offered(typed, "riders", {"game": "lb1", "rider1": ""}, "rider1", ann)
    assert offer == [str(card) for card in hand] and offer[-2:] == ["zero", "sprint"]  # specials from turn 2 on
    assert await offered(typed, "riders", {"game": "lb1", "rider1": "s"}, "rider1", ann) == ["sprint"]
    [text] = typed.texts(await typed.call(SLASH, "riders", {"game": "lb1", "rider1": "sprint"}, ann))
    assert "ORDERS ACCEPTED" in text and "1: sprint" in text and "rider 1 plays SPRINT" in text, text
