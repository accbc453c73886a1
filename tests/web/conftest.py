"""The Discord tests' fixtures (the fake Discord and its endpoints), for the link in a game's forum post."""

from __future__ import annotations

from tests.discord.conftest import (  # noqa: F401  (fixtures)
    discord_endpoints,
    fake_discord,
    sqlite_sessions,
    sqlite_template,
)
