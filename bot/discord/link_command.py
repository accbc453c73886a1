"""``/link``: one person on Discord and by email.

``/link email:you@example.org`` asks the core to link that address to the
member (:class:`bot.core.model.commands.RequestLink`): a code is mailed there.
``/link code:ABCD-EF23`` gives it back (:class:`bot.core.model.commands.ConfirmLink`);
from then on orders by mail and on Discord count for the same seat, and
confirmations and reports reach both.  ``/link`` alone says how.  Both
answers are ephemeral, like every reply here.

The address is put in the email channel's canonical form here (lower case),
the form its intake gives the core; one that is not an address is answered
as not understood, never dropped.
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.core.model import commands as c
from bot.discord.answers import Answers
from bot.discord.command_words import slash_words
from bot.discord.declared_commands import makes

EMAIL_CHANNEL = "email"
"""The label the email channel gives its senders (its intake's ``Sender.channel``)."""

HOW = (
    "LINK\n"
    "  /link email:you@example.org   mails a code to that address\n"
    "  /link code:ABCD-EF23          gives it back: you are then one player\n"
    "                                by mail and here (the same seats; every\n"
    "                                confirmation and report reaches both)\n"
)


def email_address(text: str) -> str | None:
    """``text`` as the email channel's canonical address (``Ann@Example.org`` -> ``ann@example.org``), else None."""
    address = text.strip()
    local, _, domain = address.partition("@")
    if address.count("@") != 1 or not local or any(ch.isspace() or ch in "<>,;" for ch in address):
        return None
    if "." not in domain or domain.startswith(".") or domain.endswith(".") or len(address) > 254:
        return None
    return address.lower()


def link_command(answers: Answers) -> app_commands.Command[Any, ..., Any]:
    """The ``/link`` command, bound to ``answers`` (the core)."""

    @app_commands.command(name="link",
                          description=slash_words("Be one player by email and here: mail a code, then give it back"),
                          extras=makes(c.RequestLink, c.ConfirmLink))  # fmt: skip
    @app_commands.describe(
        email=slash_words("Your email address: a code is mailed there"), code=slash_words("The code from that mail")
    )
    async def link(interaction: discord.Interaction, email: str | None = None, code: str | None = None) -> None:
        if code is not None and code.strip():
            await answers.apply(interaction, c.ConfirmLink(code))
        elif email is not None and email.strip():
            address = email_address(email)
            if address is None:
                reason = f"'{email.strip()}' is not an email address (like you@example.org)"
                await answers.apply(interaction, c.NotUnderstood(f"/link email:{email.strip()}", reason))
            else:
                await answers.apply(interaction, c.RequestLink(EMAIL_CHANNEL, address))
        else:
            await answers.tell(interaction, HOW)

    return link
