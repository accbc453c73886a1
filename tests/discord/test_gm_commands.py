"""The ``/gm`` group against the fake Discord with the bot's real client ("What GMs get").

Who may use it (the GM role, or the game's own game masters), the core's
own checks behind it (options validated by the game, the turn a process is
meant for), and confirm buttons for destructive commands (a click from
another member changes nothing).
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy.orm import Session, sessionmaker

from bot.core.model import commands as c
from bot.core.views import GameViews
from bot.discord.gm_commands import deadline_spec, parse_options
from bot.store.db import unit_of_work
from bot.store.models import AuditEntry, Game
from tests.core.harness import SEATS
from tests.discord.test_end_to_end import order_all, public_rows
from tests.discord.world import World, running_world
from tests.support.fake_discord import FakeDiscord

pytestmark = pytest.mark.integration


async def gm(world: World, who: dict[str, Any], sub: str, options: dict[str, Any]) -> list[dict[str, Any]]:
    """``/gm <sub> ...`` from ``who``; the replies (a refusal, a confirm, or the core's reply)."""
    sent = await world.fake.slash("gm", options, who, subcommand=sub)
    return await world.fake.wait_for_replies(sent)


def test_options_and_deadlines_are_read_into_the_cores_words() -> None:
    assert parse_options('race_length=30 name="x y"') == {"race_length": 30, "name": "x y"}
    assert parse_options("race_length=30, fast=true") == {"race_length": 30, "fast": True}
    assert parse_options("") == {}
    assert parse_options("race_length") == "'race_length' is not name=value"
    assert deadline_spec("+2d 3h") == "+2d3h" and deadline_spec("2026-03-02 18:00") == "2026-03-02 18:00"


async def test_only_the_gm_role_creates_and_only_a_gm_runs_the_game(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None,
    caplog: pytest.LogCaptureFixture,
) -> None:  # fmt: skip
    async with running_world(fake_discord, sqlite_sessions) as world:
        host = fake_discord.add_member("Gail", roles=(fake_discord.gm_role_id,))
        nobody = world.user("Nobody")
        with caplog.at_level(logging.WARNING, logger="bot.discord.gm_commands"):
            [refusal] = await gm(world, nobody, "create", {"kind": "golden-strider", "game": "gs1"})
        assert refusal["flags"] == 64 and "Only members with the game master role" in refusal["content"]
        assert any("refused" in r.getMessage() and nobody["id"] in r.getMessage() for r in caplog.records)
        assert GameViews(world.sessions).game("gs1") is None

        [bad] = await gm(world, host, "create", {"kind": "golden-strider", "game": "gs1", "options": "race_length=abc"})
        assert "race_length" in bad["content"] and GameViews(world.sessions).game("gs1") is None  # the game's checker
        [made] = await gm(world, host, "create", {"kind": "golden-strider", "game": "gs1", "seats": 6,
                                                  "options": "race_length=30", "time_zone": "Europe/Paris"})  # fmt: skip
        assert "CREATED gs1" in made["content"] and made["flags"] == 64
        assert "PASSWORD" not in made["content"] and "For GM commands by mail" in made["content"]

        for name in SEATS:
            await world.command(name, "join", {"game": "gs1", "name": name})
        [refused] = await gm(world, nobody, "start", {"game": "gs1"})
        assert "Only members with the game master role or the game masters of gs1" in refused["content"]
        assert GameViews(world.sessions).game("gs1").status == "forming"  # type: ignore[union-attr]
        [started] = await gm(world, host, "start", {"game": "gs1"})
        assert "STARTED gs1" in started["content"]
        [moved] = await gm(world, host, "extend", {"game": "gs1", "by": "2d 3h", "reason": "holiday"})
        # Started at 12:00 with the default 48 h turn: the deadline was 2026-03-03 12:00 UTC; 2 days 3 hours later.
        assert "DEADLINE gs1\n  New deadline: 2026-03-05 15:00 UTC" in moved["content"], moved["content"]
        [logged] = await gm(world, host, "log", {"game": "gs1"})
        assert f"SetDeadline by\n    {host['id']} (discord): holiday" in logged["content"], logged["content"]
        assert "CreateGame by" in logged["content"] and "StartGame by" in logged["content"]


async def test_process_asks_to_confirm_and_a_click_from_another_member_changes_nothing(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> None:
    async with running_world(fake_discord, sqlite_sessions) as world:
        host = fake_discord.add_member("Gail", roles=(fake_discord.gm_role_id,))
        await gm(world, host, "create", {"kind": "golden-strider", "game": "gs1", "seats": 6})
        for name in SEATS:
            await world.command(name, "join", {"game": "gs1", "name": name})
        await gm(world, host, "start", {"game": "gs1"})
        await order_all(world)
        views = GameViews(world.sessions)
        assert views.game("gs1").phase.number == 0  # type: ignore[union-attr]

        [ask] = await gm(world, host, "process", {"game": "gs1", "turn": 0, "reason": "all in"})
        assert ask["flags"] == 64 and "confirm?" in ask["content"]
        [button, cancel] = [b for row in ask["components"] for b in row["components"]]
        assert button["custom_id"] == f"gm:process:{host['id']}:gs1:0:all in"
        assert cancel["label"] == "Cancel" and cancel["custom_id"] == f"gmcancel:{host['id']}:process:gs1"
        assert views.game("gs1").phase.number == 0  # type: ignore[union-attr]  # nothing yet

        stranger = await fake_discord.click(button["custom_id"], ask, world.user("Ann"))
        [no] = await fake_discord.wait_for_replies(stranger)
        assert "not yours" in no["content"] and no["flags"] == 64
        assert views.game("gs1").phase.number == 0  # type: ignore[union-attr]

        mine = await fake_discord.click(button["custom_id"], ask, host)
        [done] = await fake_discord.wait_for_replies(mine)
        assert "PROCESSED gs1\n  Turn 0 was resolved now" in done["content"], done["content"]
        assert views.game("gs1").phase.number == 1  # type: ignore[union-attr]
        again = await fake_discord.click(button["custom_id"], ask, host)  # a double click processes nothing more
        [twice] = await fake_discord.wait_for_replies(again)
        assert "not open" in twice["content"] and views.game("gs1").phase.number == 1  # type: ignore[union-attr]
        await world.delivered()
        assert any(r.turn_number == 0 and r.kind == "report" for r in public_rows(world, "gs1"))
        assert any("-- turn 0:" in m["content"] for m in world.thread_messages("gs1"))


async def test_replace_gives_the_seat_to_a_member_after_confirmation(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> None:
    async with running_world(fake_discord, sqlite_sessions) as world:
        host = fake_discord.add_member("Gail", roles=(fake_discord.gm_role_id,))
        await gm(world, host, "create", {"kind": "golden-strider", "game": "gs1", "seats": 6})
        for name in SEATS:
            await world.command(name, "join", {"game": "gs1", "name": name})
        await gm(world, host, "start", {"game": "gs1"})
        sub = world.user("Sub")
        seats = await fake_discord.autocomplete("gm", {"game": "gs1", "seat": "a"}, "seat", host, subcommand="replace")
        callback = await fake_discord.wait_for_callback(seats)
        assert [ch["value"] for ch in callback["data"]["choices"]] == [
            "Ann",
            "Cat",
            "Dan",
            "Fay",
        ]  # containing "a", in seat order
        [ask] = await gm(world, host, "replace", {"game": "gs1", "seat": "Ann", "member": sub["id"], "reason": "away"})
        kinds = await fake_discord.autocomplete("gm", {"kind": "strid"}, "kind", host, subcommand="create")
        assert [ch["value"] for ch in (await fake_discord.wait_for_callback(kinds))["data"]["choices"]] == [
            "golden-strider"
        ]
        [button, _cancel] = [b for row in ask["components"] for b in row["components"]]
        assert button["custom_id"] == f"gm:replace:{host['id']}:gs1:Ann:{sub['id']}:away"
        done = await fake_discord.click(button["custom_id"], ask, host)
        [reply] = await fake_discord.wait_for_replies(done)
        assert (
            f"REPLACED in gs1\n  Seat Ann now belongs to {sub['id']}; they were sent a new\n  seat secret"
            in (reply["content"])
        ), reply["content"]
        [status, *_] = await world.command("Sub", "status", {"game": "gs1"})
        assert "Ann" in status["content"]
        await world.delivered()
        assert any("you have the seat Ann" in m["content"] for m in fake_discord.dm_messages(sub["id"]))


async def test_a_player_declares_an_absence_and_a_member_observes(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> None:
    async with running_world(fake_discord, sqlite_sessions) as world:
        host = fake_discord.add_member("Gail", roles=(fake_discord.gm_role_id,))
        await gm(world, host, "create", {"kind": "golden-strider", "game": "gs1", "seats": 6})
        for name in SEATS:
            await world.command(name, "join", {"game": "gs1", "name": name})
        await gm(world, host, "start", {"game": "gs1"})  # deadline 2026-03-03 12:00 UTC
        [away, *_] = await world.command("Ann", "absent", {"game": "gs1", "from": "2026-03-02", "to": "2026-03-04"})
        assert "ABSENT Ann, gs1\n  From 2026-03-02 to 2026-03-04" in away["content"], away["content"]
        assert "The deadline moved to 2026-03-05 12:00 UTC" in away["content"], away["content"]
        [nope, *_] = await world.command("Zed", "absent", {"game": "gs1", "from": "2026-03-02", "to": "2026-03-04"})
        assert "you have no seat in gs1; /join game:gs1 first" in nope["content"]

        [watching, *_] = await world.command("Zed", "observe", {"game": "gs1"})
        assert "OBSERVING gs1" in watching["content"]
        await order_all(world)
        assert await world.pass_deadline() == []  # the deadline moved past the absence
        world.harness.clock.advance(timedelta(days=4))
        assert await world.pass_deadline() == [("gs1", 0)]
        await world.delivered()
        zed = [m["content"] for m in fake_discord.dm_messages(world.user("Zed")["id"])]
        assert any("-- turn 0:" in m for m in zed) and not any("\nCopy for " in m for m in zed)  # public part only


async def test_cancel_changes_nothing_says_so_privately_and_refuses_another_member(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> None:
    async with running_world(fake_discord, sqlite_sessions) as world:
        host = fake_discord.add_member("Gail", roles=(fake_discord.gm_role_id,))
        await gm(world, host, "create", {"kind": "golden-strider", "game": "gs1", "seats": 6})
        for name in SEATS:
            await world.command(name, "join", {"game": "gs1", "name": name})
        await gm(world, host, "start", {"game": "gs1"})
        views = GameViews(world.sessions)
        [ask] = await gm(world, host, "eject", {"game": "gs1", "seat": "Ann", "reason": "gone"})
        [confirm, cancel] = [b for row in ask["components"] for b in row["components"]]
        assert (confirm["label"], cancel["label"]) == ("Confirm eject", "Cancel")

        stranger = await fake_discord.click(cancel["custom_id"], ask, world.user("Ben"))
        [no] = await fake_discord.wait_for_replies(stranger)
        assert "not yours" in no["content"] and no["flags"] == 64
        assert ask["components"] and "confirm?" in ask["content"]  # the GM's prompt is as it was

        mine = await fake_discord.click(cancel["custom_id"], ask, host)
        await fake_discord.wait_for_callback(mine)
        assert fake_discord.callbacks[int(mine["id"])][0]["type"] == 7  # the private prompt itself is changed
        assert ask["content"] == "Cancelled: eject of gs1 was not done; nothing changed." and not ask["components"]
        assert "Ann" in views.game("gs1").seats  # type: ignore[union-attr]
        with unit_of_work(world.sessions) as session:
            assert [e.action for e in session.query(AuditEntry)] == ["CreateGame", "StartGame"]  # no EjectPlayer
        [status, *_] = await world.command("Ann", "status", {"game": "gs1"})
        assert "STATUS gs1" in status["content"] and "no_seat" not in status["content"]


async def test_a_french_gms_confirmation_and_its_cancel_are_french(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> None:
    """The prompt, its buttons and the "Cancelled" edit in the language of the GM's Discord; the command
    words (eject) and the game's name as written."""
    async with running_world(fake_discord, sqlite_sessions) as world:
        host = fake_discord.add_member("Gaspard", roles=(fake_discord.gm_role_id,), locale="fr")
        await gm(world, host, "create", {"kind": "golden-strider", "game": "gs1", "seats": 6})
        for name in SEATS:
            await world.command(name, "join", {"game": "gs1", "name": name})
        await gm(world, host, "start", {"game": "gs1"})
        [ask] = await gm(world, host, "rollback", {"game": "gs1", "to_turn": 1, "reason": "oups"})
        assert "Ramener gs1 au début du tour 1, avec un nouveau tirage." in ask["content"], ask["content"]
        assert "confirmer ?" in ask["content"] and "confirm?" not in ask["content"], ask["content"]
        [confirm, cancel] = [b for row in ask["components"] for b in row["components"]]
        assert (confirm["label"], cancel["label"]) == ("Confirmer rollback", "Annuler")
        mine = await fake_discord.click(cancel["custom_id"], ask, host)
        await fake_discord.wait_for_callback(mine)
        assert ask["content"] == "Annulé : rollback de gs1 n'a pas été fait ; rien n'a changé.", ask["content"]


async def test_a_game_s_own_co_gm_without_the_role_runs_that_game_and_no_other(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None,
    caplog: pytest.LogCaptureFixture,
) -> None:  # fmt: skip
    """The rule: "Only members with the configured GM role, or the game's own GMs, may use them"."""
    async with running_world(fake_discord, sqlite_sessions) as world:
        world.harness.send("GM", c.CreateGame("gs1", "golden-strider", {}, "UTC", 60, False, "address"))
        world.harness.send("GM", c.CreateGame("gs2", "golden-strider", {}, "UTC", 60, False, "address"))
        cora = world.user("Cora")  # no GM role
        added = world.harness.send("GM", c.AddGameMaster("gs1", "discord", cora["id"], "helps out")).reply or ""
        assert "ADD GM" in added or "co-GM" in added, added
        for name in SEATS:
            await world.command(name, "join", {"game": "gs1", "name": name})
        views = GameViews(world.sessions)

        [started] = await gm(world, cora, "start", {"game": "gs1"})
        assert "STARTED gs1" in started["content"] and started["flags"] == 64, started["content"]
        assert views.game("gs1").status == "running"  # type: ignore[union-attr]
        [ask] = await gm(world, cora, "process", {"game": "gs1", "turn": 0, "reason": "all in"})
        assert "confirm?" in ask["content"]  # a destructive command is offered to the game's own GM too

        with caplog.at_level(logging.WARNING, logger="bot.discord.gm_commands"):
            [refused] = await gm(world, cora, "start", {"game": "gs2"})
            [no_create] = await gm(world, cora, "create", {"kind": "golden-strider", "game": "gs3"})
        assert "Only members with the game master role or the game masters of gs2" in refused["content"]
        assert refused["flags"] == 64 and views.game("gs2").status == "forming"  # type: ignore[union-attr]
        assert "Only members with the game master role may use /gm create" in no_create["content"]
        assert views.game("gs3") is None
        logged = [r.getMessage() for r in caplog.records if "refused" in r.getMessage()]
        assert len(logged) == 2 and all(cora["id"] in m for m in logged), logged

        # The GM role passes the Discord check; the core then lets only the game's own GMs run it.
        hal = fake_discord.add_member("Hal", roles=(fake_discord.gm_role_id,))
        [not_his] = await gm(world, hal, "start", {"game": "gs2"})
        assert "only the game master of gs2 can do this" in not_his["content"], not_his["content"]
        assert views.game("gs2").status == "forming"  # type: ignore[union-attr]


async def test_create_suggests_the_kinds_option_names_and_values_and_a_suggestion_is_taken(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> None:
    async with running_world(fake_discord, sqlite_sessions) as world:
        host = fake_discord.add_member("Gail", roles=(fake_discord.gm_role_id,))

        async def offered(options: dict[str, Any]) -> list[str]:
            sent = await fake_discord.autocomplete("gm", options, "options", host, subcommand="create")
            callback = await fake_discord.wait_for_callback(sent)
            assert callback["type"] == 8
            return [choice["value"] for choice in callback["data"]["choices"]]

        assert await offered({"kind": "golden-strider", "game": "gs1", "options": "race_length=30 st"}) == [
            "race_length=30 steeplechase=false"
        ]
        assert await offered({"kind": "dragon-stripes", "options": "takeover_selection=h"}) == [
            "takeover_selection=holder_chooses"
        ]
        assert await offered({"options": "race"}) == []  # no kind chosen yet: nothing to suggest
        [made] = await gm(world, host, "create", {"kind": "golden-strider", "game": "gs1",
                                                  "options": "race_length=30 steeplechase=true"})  # fmt: skip
        assert "CREATED gs1" in made["content"], made["content"]
        with unit_of_work(world.sessions) as session:
            [game] = session.query(Game).filter_by(slug="gs1").all()
            assert game.options["race_length"] == 30 and game.options["steeplechase"] is True


async def test_gm_commands_defer_before_the_permission_check_reads_the_database(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> None:
    """Discord's 3 s: whether a member is one of the game's GMs is a database read, so it comes after the deferral."""
    async with running_world(fake_discord, sqlite_sessions) as world:
        world.harness.send("GM", c.CreateGame("gs1", "golden-strider", {}, "UTC", 60, False, "address"))
        cora, nobody = world.user("Cora"), world.user("Nobody")
        world.harness.send("GM", c.AddGameMaster("gs1", "discord", cora["id"], "helps out"))
        for name in SEATS:
            await world.command(name, "join", {"game": "gs1", "name": name})

        def first_callback(sent: dict[str, Any]) -> dict[str, Any]:
            callback: dict[str, Any] = fake_discord.callbacks[int(sent["id"])][0]
            return callback

        refused = await fake_discord.slash("gm", {"game": "gs1"}, nobody, subcommand="start")
        [no] = await fake_discord.wait_for_replies(refused)
        assert first_callback(refused) == {"type": 5, "data": {"flags": 64}}  # deferred, privately
        assert "Only members with the game master role" in no["content"] and no["flags"] == 64

        await gm(world, cora, "start", {"game": "gs1"})
        asked = await fake_discord.slash("gm", {"game": "gs1", "seat": "Ann", "reason": "gone"}, cora,
                                         subcommand="eject")  # fmt: skip
        [ask] = await fake_discord.wait_for_replies(asked)
        assert first_callback(asked) == {"type": 5, "data": {"flags": 64}}
        assert ask["flags"] == 64 and "confirm?" in ask["content"]
        [confirm, _cancel] = [b for row in ask["components"] for b in row["components"]]
        done = await fake_discord.click(confirm["custom_id"], ask, cora)  # the button works on a follow-up
        [reply] = await fake_discord.wait_for_replies(done)
        assert "EJECTED" in reply["content"], reply["content"]


async def test_a_confirm_button_from_before_a_restart_still_confirms(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> None:
    async with running_world(fake_discord, sqlite_sessions) as world:
        host = fake_discord.add_member("Gail", roles=(fake_discord.gm_role_id,))
        await gm(world, host, "create", {"kind": "golden-strider", "game": "gs1", "seats": 6})
        for name in SEATS:
            await world.command(name, "join", {"game": "gs1", "name": name})
        await gm(world, host, "start", {"game": "gs1"})
        await order_all(world)
        [ask] = await gm(world, host, "process", {"game": "gs1", "turn": 0, "reason": "all in"})
        [button, _cancel] = [b for row in ask["components"] for b in row["components"]]
        harness = world.harness
    async with running_world(fake_discord, sqlite_sessions, harness=harness) as again:
        assert fake_discord.identifies == 2
        clicked = await fake_discord.click(button["custom_id"], ask, host)
        [done] = await fake_discord.wait_for_replies(clicked)
        assert "PROCESSED gs1" in done["content"], done["content"]
        assert GameViews(again.sessions).game("gs1").phase.number == 1  # type: ignore[union-attr]
