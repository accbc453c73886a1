"""``/rules kind:`` on Discord (``RULES <kind>`` by mail): a game's whole rules page, through the bot's
real runtime and discord.py client against the fake Discord.

The page is ``docs/rules/<kind>.md`` laid out as text (:mod:`bot.core.basics.markdown_text`), the same
text a mail carries; Discord gets it privately (ephemeral) as code blocks, each under Discord's 2,000
characters and split between lines, so the blocks put back together give every line of the page in
order; the copy by DM says the same.  ``kind:`` suggests the kinds, then the games; a game's name
gives its kind's rules; a word that is neither is refused with the kinds there are.
"""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy.orm import Session, sessionmaker

from adjudicator import registry
from bot.core.basics.markdown_text import markdown_text
from bot.core.model import commands as c
from bot.discord.render import LIMIT, ZERO_WIDTH_SPACE
from bot.resources import rules_page
from tests.discord.world import World, running_world
from tests.support.fake_discord import FakeDiscord

pytestmark = pytest.mark.integration

LAST_LINE = "/help lists the commands."
"""The reply's last line (templates/discord/reply.txt.j2): once it is shown, every block is."""


async def rules(world: World, who: str, kind: str) -> list[dict[str, Any]]:
    """``/rules kind:<kind>`` from ``who``: every message of the answer (the answer ends with LAST_LINE)."""
    interaction = await world.fake.slash("rules", {"kind": kind}, world.user(who))
    await world.fake.wait_until(lambda: any(LAST_LINE in m["content"] for m in world.fake.replies(interaction)))
    return world.fake.replies(interaction)


def shown(messages: list[dict[str, Any]]) -> str:
    """The text the code blocks carry, put back together (each block split between lines)."""
    inner = []
    for message in messages:
        content = message["content"]
        assert content.startswith("```\n") and content.endswith("\n```"), content[:80]
        inner.append(content[4:-4])
    return "\n".join(inner).replace(ZERO_WIDTH_SPACE, "")


def in_order(lines: list[str], text: str) -> list[str]:
    """The lines of ``lines`` not found in ``text`` in their order (each after the one before)."""
    missing, at = [], 0
    for line in lines:
        found = text.find(line, at)
        if found < 0:
            missing.append(line)
        else:
            at = found + len(line)
    return missing


async def test_rules_shows_each_kinds_whole_page_privately_in_blocks_under_the_limit(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> None:
    split: list[str] = []
    async with running_world(fake_discord, sqlite_sessions) as world:
        for kind in registry.kinds():
            page = rules_page(kind)
            assert page is not None, kind
            messages = await rules(world, "Ann", kind)
            assert all(m["flags"] == 64 for m in messages), "every message is ephemeral"
            assert all(len(m["content"]) <= LIMIT for m in messages)
            text = shown(messages)
            assert text.startswith("Re: /rules"), text[:200]
            assert f"RULES {registry.get_rules(kind).title.upper()} ({kind})" in text
            lines = [line for line in markdown_text(page.read_text(encoding="utf-8")).splitlines() if line.strip()]
            assert in_order(lines, text) == [], kind  # a whole page, not a summary
            if len(lines) > 100:  # the referee's own pages: several blocks
                split.append(kind)
                assert len(messages) > 1, kind
            await world.delivered()
            dms = [m["content"] for m in fake_discord.dm_messages(world.user("Ann")["id"])]
            assert dms[-len(messages) :] == [m["content"] for m in messages], "the DM copy says the same"
    assert "golden-strider" in split, "a long page is shown in several blocks"


async def test_a_games_name_gives_its_kinds_rules_and_anything_else_is_refused(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> None:
    async with running_world(fake_discord, sqlite_sessions) as world:
        world.harness.send("GM", c.CreateGame("gs1", "golden-strider", {}, "UTC", 60, False, "password"))
        by_game = shown(await rules(world, "Ann", "GS1"))
        assert "RULES GOLDEN STRIDER (golden-strider)" in by_game and "NOT DONE" not in by_game
        refused = shown(await rules(world, "Ann", "chess"))
        assert "NOT DONE" in refused and "RULES" not in refused.split("NOT DONE")[0].split("\n", 1)[1]
        assert all(kind in " ".join(refused.split()) for kind in registry.kinds()), refused

        typed = await fake_discord.autocomplete("rules", {"kind": "strider"}, "kind", world.user("Ann"))
        callback = await fake_discord.wait_for_callback(typed)
        assert callback["type"] == 8
        assert [choice["value"] for choice in callback["data"]["choices"]] == ["golden-strider", "gs1"]
        everything = await fake_discord.autocomplete("rules", {"kind": ""}, "kind", world.user("Ann"))
        offered = [choice["value"] for choice in (await fake_discord.wait_for_callback(everything))["data"]["choices"]]
        assert offered == [*registry.kinds(), "gs1"], "every kind first, then the games"
        await world.delivered()  # the DM copies sent before the client closes (else a send meets a closed session)
