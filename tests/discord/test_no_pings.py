"""Nothing the bot posts pings by accident or breaks out of its code block; names show as written.

The attacks: a ``/gm broadcast`` with runs of backticks (four used to leave a
live fence, closing the report's code block early) and ``@everyone <@&role>``;
seat names that are markdown (``__bold__`` formatted the pinned status).
Every request that creates or edits a message must carry ``allowed_mentions``
that parse nothing: the Discord tests' fixture checks that after every test
(:meth:`tests.support.fake_discord.FakeDiscord.unguarded_mentions`), and this
file checks the broadcast's own requests too, and that every send in
``bot/discord`` names ``allowed_mentions`` itself (the client's default is the
second guard, not the only one).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy.orm import Session, sessionmaker

from bot.discord.client import RefereeClient
from bot.discord.render import (
    ZERO_WIDTH_SPACE,
    code_blocks,
    discord_messages,
    inert_backticks,
    mentioning,
    render_outcome,
)
from tests.core.harness import SEATS
from tests.discord.test_gm_commands import gm
from tests.discord.test_gm_overrides import dms, running_game
from tests.discord.world import running_world
from tests.support.fake_discord import FakeDiscord, mentions_guarded, message_payload

BOT_DISCORD = Path(__file__).resolve().parents[2] / "bot" / "discord"
SENDS = {"send", "send_message", "edit", "edit_message", "create_thread"}
NOT_MESSAGES = {("events.py", "event")}
"""Calls of a SENDS name on what is not a message (a guild scheduled event: it has no mentions to allow)."""
FENCE = re.compile(r"`{3,}")
ROLE = "<@&112233445566778899>"
HOSTILE = " ".join("`" * n for n in range(3, 11)) + f" @everyone {ROLE} <@&123> @here"


def fences(message: str) -> list[tuple[int, int]]:
    """Where each run of three or more backticks is in ``message`` (start, length): each one is a fence to Discord."""
    return [(m.start(), len(m.group())) for m in FENCE.finditer(message)]


def assert_one_closed_block(message: str) -> None:
    """``message`` is one code block, its fences its first and last three characters, then at most a note."""
    block = message.split("\n```", 1)[0] + "\n```"
    assert fences(message) == [(0, 3), (len(block) - 3, 3)], message


# Runs of backticks of every length, at the start of lines and inside them, among words and mentions.
PIECES = st.one_of(
    st.integers(min_value=1, max_value=25).map(lambda n: "`" * n),
    st.sampled_from(["\n", " ", "orders", "@everyone", ROLE, "__bold__", "x", ZERO_WIDTH_SPACE]),
)


@settings(max_examples=1000, deadline=None)
@given(st.lists(PIECES, max_size=40).map("".join), st.integers(min_value=12, max_value=200))
def test_no_run_of_backticks_can_close_a_block(text: str, limit: int) -> None:
    for block in code_blocks(text, limit):
        assert len(block) <= limit and fences(block) == [(0, 3), (len(block) - 3, 3)], block
    assert "``" not in inert_backticks(text)
    assert inert_backticks(text).replace(ZERO_WIDTH_SPACE, "") == text.replace(ZERO_WIDTH_SPACE, "")


def test_four_backticks_and_longer_runs_stay_inside_the_block() -> None:
    for n in range(3, 11):
        [message] = discord_messages(f"{'`' * n}\nreport {'`' * n} end {'`' * n}")
        assert_one_closed_block(message)


def test_every_send_in_the_adapter_names_its_allowed_mentions() -> None:
    missing = []
    for path in sorted(BOT_DISCORD.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)) or node.func.attr not in SENDS:
                continue
            receiver = node.func.value.id if isinstance(node.func.value, ast.Name) else None
            if (path.name, receiver) in NOT_MESSAGES:
                continue
            if not any(keyword.arg == "allowed_mentions" for keyword in node.keywords):
                missing.append(f"{path.name}:{node.lineno} .{node.func.attr}(...)")
    assert not missing, missing


def test_a_feature_that_means_to_ping_names_its_users_and_no_one_else() -> None:
    allowed = mentioning([1234, 5678])
    assert allowed.to_dict() == {"parse": [], "users": [1234, 5678]}
    assert mentions_guarded({"allowed_mentions": allowed.to_dict()}, frozenset({"1234", "5678"}))
    assert not mentions_guarded({"allowed_mentions": allowed.to_dict()}, frozenset({"1234"}))


async def test_the_clients_default_pings_nobody() -> None:
    client = RefereeClient(1)
    try:
        assert client.allowed_mentions is not None and client.allowed_mentions.to_dict() == {"parse": []}
    finally:
        await client.close()


def test_the_status_board_escapes_every_name() -> None:
    names = ["__bold__", "@everyone", ROLE, "**star**", "`tick`", "~~gone~~", "||spoiler||", "> quote", "# head"]
    data = {"game": "gs1", "title": "Golden __Strider__", "status": "running", "seats": names, "turn": 2,
            "phase": "@here: round 2", "deadline": None, "time_zone": "UTC", "ordered": names[:4],
            "waiting": names[4:], "standings": [], "paused_until": None, "stuck": False}  # fmt: skip
    text = render_outcome("status", data)
    assert "**gs1** -- Golden \\_\\_Strider\\_\\_" in text, text
    for line in text.splitlines()[1:]:
        if line.startswith("`/"):
            continue  # the referee's own inline code: the commands to use
        unescaped = re.sub(r"\\.", "", line)  # what is left once every escaped character is taken out
        assert not re.search(r"[*_~|`]", unescaped) and "\\> quote" in text and "\\# head" in text, line
    assert "@everyone" not in text and "@here" not in text and ROLE not in text, text
    assert "@\u200beveryone" in text and "@\u200bhere" in text


async def test_a_broadcast_of_backtick_runs_and_mentions_stays_in_its_block_and_pings_nobody(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> None:
    async with running_world(fake_discord, sqlite_sessions) as world:
        host = await running_game(world)
        before = len(fake_discord.requests)
        [sent] = await gm(world, host, "broadcast", {"game": "gs1", "text": HOSTILE})
        assert "BROADCAST gs1" in sent["content"], sent["content"]
        await world.delivered()
        posted = [m["content"] for m in world.thread_posts("gs1") if "@everyone" in m["content"]]
        copies = [m for name in SEATS for m in dms(world, name) if "@everyone" in m]
        assert len(posted) == 1 and len(copies) == len(SEATS), (posted, copies)
        for message in posted + copies:
            assert_one_closed_block(message)
            shown = " ".join(message.replace(ZERO_WIDTH_SPACE, "").split())  # the report's wrapping undone
            assert shown.count(HOSTILE) == 1  # every backtick kept: shown as sent
        sends = [message_payload(r) for r in fake_discord.requests[before:]]
        carrying = [p for p in sends if p is not None and "@everyone" in str(p.get("content"))]
        assert len(carrying) == 1 + len(SEATS)
        assert all(p["allowed_mentions"] == {"parse": []} for p in carrying), carrying


async def test_markdown_seat_names_show_escaped_in_the_pinned_status(
    fake_discord: FakeDiscord, sqlite_sessions: sessionmaker[Session], discord_endpoints: None
) -> None:
    async with running_world(fake_discord, sqlite_sessions) as world:
        host = fake_discord.add_member("Gail", roles=(fake_discord.gm_role_id,))
        await gm(world, host, "create", {"kind": "golden-strider", "game": "gs1", "seats": 6})
        for who, name in (("Ann", "__bold__"), ("Ben", "山田太郎"), ("Cat", "x_y_z")):
            [reply] = await world.command(who, "join", {"game": "gs1", "name": name})
            assert "JOINED gs1" in reply["content"], reply["content"]
        await world.delivered()
        [status] = fake_discord.pinned(world.thread("gs1")["id"])
        text = status["content"]
        assert "3 seats taken: \\_\\_bold\\_\\_, 山田太郎, x\\_y\\_z." in text, text
        assert "**gs1**" in text  # the referee's own markdown still works


@pytest.mark.parametrize("text", ["`", "``", "```", "````", "`" * 10, "a```b````c", "```\n```"])
def test_examples_of_inert_backticks(text: str) -> None:
    assert "``" not in inert_backticks(text) and inert_backticks(text).replace(ZERO_WIDTH_SPACE, "") == text
