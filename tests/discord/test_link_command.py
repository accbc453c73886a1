"""``/link``'s reading of an address (bot/discord/link_command.py): the email channel's canonical form, or None."""

from __future__ import annotations

import pytest

from bot.discord.link_command import email_address


@pytest.mark.parametrize(
    ("typed", "canonical"),
    [
        ("ann@example.org", "ann@example.org"),
        ("  Ann.Archer+games@Example.ORG ", "ann.archer+games@example.org"),
        ("ann@mail.example.co.uk", "ann@mail.example.co.uk"),
        ("ann", None),
        ("ann@example", None),
        ("ann@@example.org", None),
        ("@example.org", None),
        ("ann at example.org", None),
        ("Ann <ann@example.org>", None),
        ("ann@example.org, ben@example.org", None),
        ("ann@.example.org", None),
        ("ann@example.org.", None),
        (f"{'a' * 250}@example.org", None),
    ],
)
def test_an_address_is_taken_in_canonical_form_or_refused(typed: str, canonical: str | None) -> None:
    assert email_address(typed) == canonical
