"""Reliability records on Discord: ``/reliability`` (``RECORD ME`` by mail) and ``/gm create min_reliability``,
through the bot's real runtime and discord.py client against the fake Discord.

Five of six seats order the setup by ``/orders``; Ben orders nothing; once the
deadline worker has resolved the turn, ``/reliability`` shows Ben the turn missed
and Ann the turn ordered.  After four more turns nobody orders, a game created by
``/gm create`` with ``min_reliability`` 50 refuses Ben's ``/join`` with his figure
and the minimum, and admits a newcomer (no record yet).
"""

from __future__ import annotations

import pytest
from sqlalchemy.orm import Session, sessionmaker

from bot.core.views import GameViews
from tests.discord.test_end_to_end import SEATS, start_game
from tests.discord.world import running_world
from tests.support.fake_discord import FakeDiscord

pytestmark = pytest.mark.integration


def one_line(text: str) -> str:
    return " ".join(text.split())


async def test_a_missed_turn_moves_the_figure_read_with_slash_reliability(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> None:
    async with running_world(fake_discord, sqlite_sessions) as world:
        [before] = await world.command("Ben", "reliability")
        assert before["flags"] == 64 and "You have owed no turns yet." in before["content"]
        await start_game(world)
        for name in SEATS:
            if name != "Ben":
                [reply, *_] = await world.command(name, "orders", {"game": "gs1", "text": "cards 10 8 6 4 2"})
                assert "ORDERS ACCEPTED" in reply["content"], reply["content"]
        assert await world.pass_deadline() == [("gs1", 0)]
        [ben] = await world.command("Ben", "reliability")
        [ann] = await world.command("Ann", "reliability")
        assert "Turns owed: 1. Ordered in time: 0 (0%). Missed: 1" in one_line(ben["content"]), ben["content"]
        assert "Turns owed: 1. Ordered in time: 1 (100%). Missed: 0" in one_line(ann["content"]), ann["content"]
        [status, *_] = await world.command("Cat", "status", {"game": "gs1"})
        assert "    Ben: ordered 0 of 1 turn in time, 1 missed" in status["content"].splitlines(), status["content"]

        for turn in range(1, 5):  # nobody orders: Ben has missed 5 of 5
            assert await world.pass_deadline() == [("gs1", turn)]
        gail = fake_discord.add_member("Gail", roles=(fake_discord.gm_role_id,))
        made = await fake_discord.slash("gm", {"kind": "golden-strider", "game": "picky", "min_reliability": 50},
                                        gail, subcommand="create")  # fmt: skip
        assert "CREATED picky" in (await fake_discord.wait_for_replies(made))[0]["content"]
        [refused, *_] = await world.command("Ben", "join", {"game": "picky"})
        said = one_line(refused["content"])
        assert "game picky takes players who ordered in time at least 50% of the turns they owed" in said, said
        assert "you ordered 0 of 5 (0%), 5 missed (/reliability shows your record)" in said, said
        [admitted, *_] = await world.command("Newcomer", "join", {"game": "picky"})
        assert "JOINED picky" in admitted["content"], admitted["content"]
        view = GameViews(world.sessions).game("picky")
        assert view is not None and view.seats == ("Newcomer",)
        for reply in (before, ben, ann, status, refused, admitted):
            assert all(len(line) <= 78 for line in reply["content"].splitlines())
