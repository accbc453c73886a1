"""Interaction -> Envelope, and outbox recipients -> Discord targets (the adapter's contract with the core)."""

from __future__ import annotations

from datetime import UTC, datetime

import discord
import pytest

from bot.core.model import commands as c
from bot.discord.render import render_outcome
from bot.discord.understand import Target, envelope_for, target_of
from tests.support.fake_discord import COMPONENT, MODAL_SUBMIT, SLASH, FakeDiscord


def interaction_from(fake: FakeDiscord, payload: dict[str, object]) -> discord.Interaction:
    client = discord.Client(intents=discord.Intents.default())
    state = client._connection
    state.user = discord.ClientUser(state=state, data=fake.bot_user)  # type: ignore[arg-type]  # before any Interaction: Guild.me reads it
    state.application_id = fake.application_id
    return discord.Interaction(data=payload, state=state)  # type: ignore[arg-type]


def test_one_interaction_is_one_verified_envelope() -> None:
    fake = FakeDiscord()
    user = fake.add_member("Ann Example")
    payload = fake.interaction_payload(SLASH, fake.command_data("status", {"game": "gs1"}), user)
    interaction = interaction_from(fake, payload)
    now = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
    envelope = envelope_for(interaction, (c.ShowStatus("gs1"),), now)
    assert envelope.sender == c.Sender("discord", user["id"], "Ann Example")
    assert envelope.source_id == f"discord:{payload['id']}"
    assert envelope.trust is c.Trust.VERIFIED and envelope.password is None and not envelope.automatic
    assert envelope.commands == (c.ShowStatus("gs1"),) and envelope.received_at == now
    # Built without a command tree, the interaction names no command: the reply says "your message".
    assert envelope.reply_context == {"subject": "your message", "interaction": str(payload["id"])}


@pytest.mark.parametrize(
    ("kind", "data", "subject"),
    [
        (COMPONENT, {"custom_id": "ds:gs1:3:A:hold", "component_type": 2}, "your click"),
        (MODAL_SUBMIT, {"custom_id": "orders:gs1", "components": []}, "your form"),
    ],
)
def test_a_reply_names_the_click_or_the_form_it_answers(kind: int, data: dict[str, object], subject: str) -> None:
    fake = FakeDiscord()
    user = fake.add_member("Ann Example")
    interaction = interaction_from(fake, fake.interaction_payload(kind, data, user))
    envelope = envelope_for(interaction, (c.ShowStatus("gs1"),), datetime(2026, 3, 1, tzinfo=UTC))
    assert envelope.reply_context["subject"] == subject


def test_the_core_default_trust_is_claimed() -> None:
    envelope = c.Envelope(c.Sender("email", "a@example.org"), (), "x", datetime(2026, 1, 1, tzinfo=UTC))
    assert envelope.trust is c.Trust.CLAIMED


@pytest.mark.parametrize(
    ("channel", "recipient", "target"),
    [
        ("discord", "user:123", Target("user", "123")),
        ("discord", "public:gs1", Target("public", "gs1")),
        ("discord", "123", Target("user", "123")),  # what the core writes today for a Discord player
    ],
)
def test_recipients(channel: str, recipient: str, target: Target) -> None:
    assert target_of(channel, recipient) == target


def test_a_row_of_another_channel_is_not_discords() -> None:
    # There is no "public" channel: a game's public copy is a discord row for public:<slug>.
    with pytest.raises(ValueError, match="not a Discord recipient"):
        target_of("public", "gs1")
    with pytest.raises(ValueError, match="not a Discord recipient"):
        target_of("email", "public:gs1")


@pytest.mark.parametrize("recipient", ["ann@example.org", "user:", "guild:1"])
def test_what_is_not_a_discord_recipient(recipient: str) -> None:
    with pytest.raises(ValueError, match="not a Discord recipient"):
        target_of("discord", recipient)


@pytest.mark.parametrize(("locale", "language"), [("fr", "fr"), ("de", "de"), ("en-GB", None), ("ja", None)])
def test_the_reply_is_in_the_members_discord_language_until_they_choose(locale: str, language: str | None) -> None:
    """The interaction's locale names the reply's language when it is a shipped one (French, German);
    a member's own choice (LANGUAGE, stamped by delivery) comes first."""
    fake = FakeDiscord()
    user = fake.add_member("Ann Example")
    payload = {**fake.interaction_payload(SLASH, fake.command_data("status", {"game": "gs1"}), user), "locale": locale}
    envelope = envelope_for(interaction_from(fake, payload), (c.ShowStatus("gs1"),), datetime(2026, 3, 1, tzinfo=UTC))
    assert envelope.reply_context.get("language") == language
    reply = {"received": "2026-03-01T00:00:00+00:00", "receipt": "R1", "items": [], "problems": [],
             "ignored": ["hello"], "game": None}  # fmt: skip
    said = render_outcome("reply", reply, envelope.reply_context)
    assert ({"fr": "IGNORÉ", "de": "IGNORIERT"}.get(language or "", "IGNORED")) in said, said
    own = render_outcome("reply", {**reply, "reader_language": "de"}, envelope.reply_context)
    assert "IGNORIERT" in own, own


def test_rules_are_in_the_members_discord_language() -> None:
    """``/rules`` to a member whose Discord is in German: the German page (``docs/rules/de/<kind>.md``),
    its example orders as written; in English, the English page."""
    from bot.core.basics.markdown_text import markdown_text
    from bot.resources import rules_page

    english_page = rules_page("lautobus")
    assert english_page is not None
    item = {"code": "rules", "title": "L'autobus", "kind": "lautobus",
            "text": markdown_text(english_page.read_text(encoding="utf-8"))}  # fmt: skip
    reply = {"received": "2026-03-01T00:00:00+00:00", "receipt": "R1", "items": [item], "problems": [],
             "ignored": [], "game": None}  # fmt: skip
    german = render_outcome("reply", reply, {"language": "de"})
    assert "ENTSCHEIDUNGEN" in german.upper() and "Windschatten" in german and "3 5 1 4 2" in german
    english = render_outcome("reply", reply, {})
    assert "Windschatten" not in english and "slipstream" in english
