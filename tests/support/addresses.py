"""What the channels of the list call their addresses, for tests of messages that name them all.

The wording is each channel's own declaration (``AddressSyntax.described`` in
its ``channel.py``); a test compares a message with these instead of listing
the channels by hand, so a channel added to bot/channels/registry.py needs no edit of
it.  The first two are the referee's own channels, checked word for word by
:data:`OWN`.
"""

from __future__ import annotations

from bot.channels import registry as channels

OWN = ("email addresses", "Discord user ids")
"""The email and Discord channels' words, hand-checked (the web reads no address)."""


def described() -> list[str]:
    """Every channel's name for its addresses, in the list's order (those that read none left out)."""
    kinds = [channel.address.described for channel in channels.CHANNELS if channel.address.described]
    assert tuple(kinds[: len(OWN)]) == OWN, kinds
    return kinds


def expected_addresses() -> str:
    """``email addresses (or Discord user ids, ...)``: how a setting that takes addresses names them."""
    kinds = described()
    return kinds[0] + (f" (or {', '.join(kinds[1:])})" if kinds[1:] else "")
