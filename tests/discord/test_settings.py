"""Discord's settings: the token from the environment, the rest from ``[referee.discord]``; Discord's own defaults."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.discord.channel import CHANNEL, DiscordSettings
from bot.discord.runtime import DiscordRuntime
from bot.host.wiring import service_config
from bot.settings.loader import Settings


def test_the_discord_table_and_the_token_from_the_environment(tmp_path: Path) -> None:
    config = tmp_path / "referee.toml"
    config.write_text(
        "[referee.discord]\nguild_id = 123\nforum_channel_id = 456\ngm_role_id = 789\n"
        'api_base = "http://127.0.0.1:9/api/v10"\ngateway_url = "ws://127.0.0.1:9/"\n'
    )
    loaded = Settings.load(config, environ={"REFEREE_DISCORD_TOKEN": "s3cret"})
    settings = loaded.of(CHANNEL)
    assert (settings.guild_id, settings.forum_channel_id, settings.gm_role_id) == (
        123,
        456,
        789,
    )
    assert settings.api_base == "http://127.0.0.1:9/api/v10" and settings.gateway_url == "ws://127.0.0.1:9/"
    assert settings.token == "s3cret" and "s3cret" not in repr(settings) and "s3cret" not in repr(loaded)


def test_the_defaults_are_discords_own() -> None:
    settings = Settings.load(environ={}).of(CHANNEL)
    assert settings.api_base == "https://discord.com/api/v10"
    assert settings.gateway_url == "wss://gateway.discord.gg/"
    assert settings.token == "" and settings.guild_id == 0


def test_the_runtime_refuses_to_start_without_token_or_guild(sqlite_sessions) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match="REFEREE_DISCORD_TOKEN"):
        DiscordRuntime(DiscordSettings(guild_id=1), sqlite_sessions)
    with pytest.raises(ValueError, match="guild_id"):
        DiscordRuntime(DiscordSettings(token="t"), sqlite_sessions)


def test_without_a_forum_channel_no_public_copy_is_written(sqlite_sessions) -> None:  # type: ignore[no-untyped-def]
    # A game's public copy is a "discord" row for public:<slug>, written only when Discord has a public place.
    without = Settings().with_section(CHANNEL, DiscordSettings(token="t", guild_id=1))
    with_forum = Settings().with_section(CHANNEL, DiscordSettings(token="t", guild_id=1, forum_channel_id=2))
    assert service_config(without).public_channels == ()
    assert service_config(with_forum).public_channels == ("discord",)
    for settings in (without, with_forum):
        assert DiscordRuntime(settings.of(CHANNEL), sqlite_sessions).delivery.channels == ("discord",)
