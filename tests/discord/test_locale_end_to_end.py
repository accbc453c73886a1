"""A member whose Discord is set to German is answered in German without ever choosing (``/language``), by
the bot's real runtime against the fake Discord (whose members each have a locale: ``add_member(locale=)``);
a member's own ``/language`` comes before their Discord's; an English Discord is answered in English."""

from __future__ import annotations

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from bot.core.model import commands as c
from bot.store.db import unit_of_work
from bot.store.models import Player
from tests.discord.world import running_world
from tests.support.fake_discord import FakeDiscord

pytestmark = pytest.mark.integration


async def test_a_german_discord_is_answered_in_german_until_the_member_chooses(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> None:
    async with running_world(fake_discord, sqlite_sessions) as world:
        world.users["Greta"] = fake_discord.add_member("Greta", locale="de")
        world.users["Flore"] = fake_discord.add_member("Flore", locale="fr")
        world.users["Ann"] = fake_discord.add_member("Ann")  # an English Discord (en-GB)
        world.harness.send("GM", c.CreateGame("gs1", "golden-strider", {}, "Europe/Paris", 60, False, "address"))
        for name in ("Greta", "Flore", "Ann", "Ben", "Cat", "Dan"):
            await world.command(name, "join", {"game": "gs1", "name": name})
        assert "STARTED" in (world.harness.send("GM", c.StartGame("gs1")).reply or "")
        await world.command("Flore", "language", {"language": "de"})  # her choice, over her French Discord

        said = {}
        for name in ("Greta", "Flore", "Ann"):
            [reply, *_] = await world.command(name, "orders", {"game": "gs1", "text": "cards 10 8 6 4 2"})
            said[name] = reply["content"]
        assert "BEFEHLE ANGENOMMEN für gs1, " in said["Greta"] and ", Platz Greta" in said["Greta"], said["Greta"]
        assert "BEFEHLE ANGENOMMEN für gs1, " in said["Flore"], said["Flore"]
        assert "ORDERS ACCEPTED for gs1, " in said["Ann"] and "BEFEHLE" not in said["Ann"], said["Ann"]
        [wrong, *_] = await world.command("Greta", "zone", {"zone": "Europe/Berlinn"})
        assert "unbekannte Zeitzone 'Europe/Berlinn'" in wrong["content"], wrong["content"]
        refused = await fake_discord.slash("gm", {"game": "gs1"}, world.users["Greta"], subcommand="start")
        [told, *_] = await fake_discord.wait_for_replies(refused)
        assert "Nur Mitglieder mit der Spielleiterrolle oder die Spielleiter von gs1" in told["content"], told
        english = await fake_discord.slash("gm", {"game": "gs1"}, world.users["Ann"], subcommand="start")
        [told, *_] = await fake_discord.wait_for_replies(english)
        assert "Only members with the game master role or the game masters of gs1" in told["content"], told
        with unit_of_work(sqlite_sessions) as session:
            chosen = dict(session.execute(select(Player.display_name, Player.language)).tuples().all())
        assert chosen.get("Greta") is None and chosen.get("Flore") == "de"  # Greta never chose: her Discord's
