"""Understanding an interaction: Interaction -> Envelope, and the core's answer -> text (the role of bot.email.understand).

Each interaction is one envelope (docs/architecture.md, "The common command model"):

* ``source_id`` is ``discord:<interaction id>``: Discord never reuses an
  interaction id, so applying the same interaction twice is a no-op;
* the sender is ``Sender("discord", "<user id>", <display name>)``, and its
  trust is ``VERIFIED``: Discord authenticated the user who pressed the key;
* ``ReplyContext.channel_target`` names the interaction, for the record.

The envelope is applied by :func:`apply_envelope`, which turns the core's
``Applied`` into the text to answer.  Recipients of outbox rows on this
channel (see :func:`target_of`) are the other half of the contract, kept
here too so there is one place to adapt (with :mod:`bot.discord.transport`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import discord

from bot.core.messaging.rendering import reads_plain
from bot.core.model import commands as c
from bot.core.people.languages import ENGLISH, UnknownLanguage, parse_language
from bot.core.runtime.service import Applied, GameService
from bot.discord.render import LOCALE_LANGUAGE, reader_language, render_outcome

CHANNEL = "discord"


def sender_of(user: discord.abc.User) -> c.Sender:
    """The core's sender for a Discord user: the id (stable), and the name shown in the guild."""
    return c.Sender(CHANNEL, str(user.id), user.display_name)


def envelope_for(
    interaction: discord.Interaction, commands: tuple[c.Command, ...], now: datetime, *, may_create: bool = False
) -> c.Envelope:
    """One envelope for one interaction (a slash command, a modal, a button).

    ``may_create``: the member has the configured GM role, which lets them create games.
    The reply context names the language of the member's Discord (``language``, from the interaction's
    locale) when it is a shipped one other than English: the reply is in it until they choose their own, and
    so is the envelope (``client_language``): the core keeps it as the member's default for what it sends later.
    """
    context = {"subject": _describe(interaction), "interaction": str(interaction.id)}
    language = locale_language(interaction.locale)
    if language is not None:
        context[LOCALE_LANGUAGE] = language
    return c.Envelope(
        sender=sender_of(interaction.user),
        commands=commands,
        source_id=f"discord:{interaction.id}",
        received_at=now,
        reply_context=context,
        trust=c.Trust.VERIFIED,
        may_create=may_create,
        client_language=locale_code(interaction.locale),
    )


def locale_language(locale: discord.Locale | str | None) -> str | None:
    """The shipped language of a Discord locale (``fr``, ``de``: :mod:`bot.core.people.languages`), or None
    for English and any language not shipped (``en-GB``, ``ja``)."""
    code = locale_code(locale)
    return None if code == ENGLISH else code


def locale_code(locale: discord.Locale | str | None) -> str | None:
    """The shipped language of a Discord locale, English included (``en-GB``: ``en``), or None for a language
    not shipped (``ja``) or no locale."""
    if locale is None:
        return None
    try:
        return parse_language(str(locale.value if isinstance(locale, discord.Locale) else locale))
    except UnknownLanguage:
        return None


def _describe(interaction: discord.Interaction) -> str:
    """What the reply is to: the slash command, the button or menu clicked, the form sent."""
    command = interaction.command
    if command is not None:
        return f"/{command.qualified_name}"
    if interaction.type is discord.InteractionType.component:
        return "your click"
    if interaction.type is discord.InteractionType.modal_submit:
        return "your form"
    return "your message"


@dataclass(frozen=True)
class Answer:
    """What to show the sender of an interaction: its receipt, and the reply as text."""

    receipt: str
    text: str
    plain_form: bool = False
    """The sender chose ``FORMAT PLAIN``: the text is told as ordinary messages, not code blocks."""
    language: str | None = None
    """The language the text is in (its notes are said in it too: :func:`bot.discord.render.discord_messages`)."""


def apply_envelope(service: GameService, envelope: c.Envelope) -> Answer:
    """Apply ``envelope`` (blocking: run it in a worker thread) and say what to answer.

    A repeat (the same interaction id applied before) has no reply, and is told so.
    """
    applied = service.apply(envelope)
    text = reply_text(applied, envelope.reply_context)
    if text is None:
        text = f"This was already applied (receipt {applied.receipt}); nothing changed."
    if applied.reply is None:
        return Answer(applied.receipt, text)
    language = reader_language(applied.reply.data, envelope.reply_context)
    return Answer(applied.receipt, text, reads_plain(applied.reply.data), language)


def reply_text(applied: Applied, context: Mapping[str, Any] | None = None) -> str | None:
    """The reply in Discord's form (``templates/discord/reply.txt.j2``), or None when the interaction was a repeat.

    ``context`` is the envelope's reply context, the one its outbox row (the DM copy) carries, so both read alike.
    """
    if applied.reply is None:
        return None
    return render_outcome(applied.reply.template, applied.reply.data, context)


@dataclass(frozen=True)
class Target:
    """Where an outbox row goes on Discord: a user's DMs, or a game's public forum post."""

    kind: str  # "user" or "public"
    key: str  # a Discord user id, or a game slug


def target_of(channel: str, recipient: str) -> Target:
    """The Discord target of an outbox row.

    ``public:<slug>`` is a game's public place (the core's delivery writes it
    for every channel that has public places); a user is their bare Discord
    id (the address the core knows them by), or ``user:<id>``.
    """
    if channel != CHANNEL:
        raise ValueError(f"not a Discord recipient: {recipient!r} is on channel {channel!r}")
    kind, _, key = recipient.partition(":")
    if kind in ("user", "public") and key:
        return Target(kind, key)
    if recipient.isdecimal():
        return Target("user", recipient)
    raise ValueError(f"not a Discord recipient: {recipient!r}")


def user_recipients(user_id: int) -> tuple[str, ...]:
    """The recipient forms of a user's DMs (see :func:`target_of`)."""
    return (str(user_id), f"user:{user_id}")
