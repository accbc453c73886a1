"""The list of channels, and the one parser of an address on any of them.

A new channel is one package with its ``channel.py`` (:mod:`bot.channels.contract`)
and one entry here; settings, ``referee doctor``, the core's configuration,
``referee serve`` and the import contracts (``"<channels>"`` in pyproject.toml,
expanded by tests/import_contracts.py) loop over this list.  Read it as ``channels.CHANNELS`` when it is used, not at
import, so a test may add a channel to it.

This module imports every channel; no channel imports it (channels are
independent of each other: the import contracts in pyproject.toml).
"""

from __future__ import annotations

from typing import Any

from bot.channels.contract import Channel
from bot.discord import channel as discord
from bot.email import channel as email
from bot.web import channel as web

CHANNELS: tuple[Channel[Any], ...] = (email.CHANNEL, discord.CHANNEL, web.CHANNEL)
"""Every channel; the first is the one a bare address falls to when no other syntax reads it."""


def parse_address(text: str) -> tuple[str, str]:
    """``<channel>:<address>`` or a bare address -> (channel, address as the core keeps it).

    A bare address belongs to the first channel whose syntax reads it (``ann@club.org`` is
    email, ``1234`` a Discord user id).  Raises ``ValueError`` when no channel reads it.
    """
    written = text.strip()
    name, sep, rest = written.partition(":")
    for channel in CHANNELS:
        if sep and name.strip().lower() == channel.name:
            address = channel.address.read(rest.strip())
            if address is None and not channel.address.described:
                raise ValueError(f"nobody is reached on {channel.label}: {written!r} is no address")
            if address is None:
                raise ValueError(f"{rest.strip()!r} is not one of the {channel.address.described}")
            return channel.name, address
    for channel in CHANNELS:
        address = channel.address.read(written)
        if address is not None:
            return channel.name, address
    raise ValueError(
        f"{written!r} is none of: " + ", ".join(c.address.described for c in CHANNELS if c.address.described)
    )


def format_address(channel: str, address: str) -> str:
    """The written form :func:`parse_address` reads back as (``channel``, ``address``)."""
    return f"{channel}:{address}"
