"""``referee serve`` as a process against the fake Discord ("Configuration").

The two settings ``discord_api_base`` and ``discord_gateway_url`` point the
real runtime at the fake; the token comes from ``REFEREE_DISCORD_TOKEN``.
A game is created, joined, ordered and processed through slash commands
(the GM's ``/gm process`` behind its confirm button), and the turn's report
is read in the game's forum post.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path
from typing import Any

import pytest

from bot.host.cli import main
from tests.core.harness import SEATS
from tests.support.fake_discord import FakeDiscord

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]


def write_config(tmp_path: Path, fake: FakeDiscord) -> Path:
    config = tmp_path / "referee.toml"
    config.write_text(
        "[referee]\n"
        f'database = "{tmp_path / "referee.sqlite3"}"\n'
        "deadline_check_seconds = 0.2\n"
        "[referee.discord]\n"
        f"guild_id = {fake.guild_id}\nforum_channel_id = {fake.forum_channel_id}\ngm_role_id = {fake.gm_role_id}\n"
        f'api_base = "{fake.api_base}"\ngateway_url = "{fake.gateway_url}"\nsend_interval_seconds = 0.2\n'
    )
    assert main(["--config", str(config), "db", "upgrade"]) == 0
    return config


async def command(fake: FakeDiscord, name: str, options: dict[str, Any], user: dict[str, Any],
                  subcommand: str | None = None) -> dict[str, Any]:  # fmt: skip
    sent = await fake.slash(name, options, user, subcommand=subcommand)
    [reply, *_] = await fake.wait_for_replies(sent, timeout=20)
    return reply


async def test_referee_serve_plays_a_turn_on_the_fake_discord(fake_discord: FakeDiscord, tmp_path: Path) -> None:
    fake = fake_discord
    config = write_config(tmp_path, fake)
    environ = {**os.environ, "REFEREE_DISCORD_TOKEN": "fake-token"}
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot.host.cli", "--config", str(config), "serve",
        cwd=ROOT, env=environ, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )  # fmt: skip
    try:
        for _ in range(300):  # until the process has logged in, synced its commands and identified on the gateway
            if str(fake.guild_id) in fake.commands and fake.identifies and process.returncode is None:
                break
            await asyncio.sleep(0.1)
        assert fake.identifies, "referee serve did not connect to the fake's gateway"
        gm = fake.add_member("Gail", roles=(fake.gm_role_id,))
        players = {name: fake.add_member(name) for name in SEATS}
        made = await command(fake, "gm", {"kind": "golden-strider", "game": "gs1", "seats": 6}, gm, "create")
        assert "CREATED gs1" in made["content"], made["content"]
        for name, user in players.items():
            assert "JOINED gs1" in (await command(fake, "join", {"game": "gs1", "name": name}, user))["content"]
        assert "STARTED gs1" in (await command(fake, "gm", {"game": "gs1"}, gm, "start"))["content"]
        for user in players.values():
            reply = await command(fake, "orders", {"game": "gs1", "text": "cards 10 8 6 4 2"}, user)
            assert "ORDERS ACCEPTED" in reply["content"], reply["content"]
        ask = await command(fake, "gm", {"game": "gs1", "turn": 0, "reason": "all in"}, gm, "process")
        [button, _cancel] = [b for row in ask["components"] for b in row["components"]]
        clicked = await fake.click(button["custom_id"], ask, gm)
        [done] = await fake.wait_for_replies(clicked, timeout=20)
        assert "PROCESSED gs1" in done["content"], done["content"]

        def thread() -> list[str]:
            posts = [t for t in fake.threads() if t["name"].startswith("gs1 ")]
            return [m["content"] for t in posts for m in fake.messages[int(t["id"])]]

        await fake.wait_until(lambda: any("-- turn 0:" in m for m in thread()), timeout=20)
        report = next(m for m in thread() if "-- turn 0:" in m)
        assert report.startswith("```\n") and len(thread()) >= 3  # opening, announcements, the report
        await fake.wait_until(lambda: any("Orders: /orders game:gs1" in m for m in thread()), timeout=20)

        def pinned() -> list[str]:
            posts = [t for t in fake.threads() if t["name"].startswith("gs1 ")]
            return [m["content"] for t in posts for m in fake.pinned(t["id"])]

        # the wiring keeps the post's pinned status: turn 1 open, nobody has ordered it yet
        await fake.wait_until(lambda: any("Turn 1:" in m and "Orders in: none yet" in m for m in pinned()), timeout=20)
        assert len(pinned()) == 1
        for user in players.values():
            await fake.wait_until(lambda u=user: any("\nCopy for " in m["content"] for m in fake.dm_messages(u["id"])),
                                  timeout=20)  # fmt: skip
    finally:
        if process.returncode is None:
            process.send_signal(signal.SIGTERM)
        output = (await asyncio.wait_for(process.communicate(), 30))[0].decode()
    assert process.returncode == 0, output
    assert "Discord ready" in output and "referee stopped" in output, output
