"""Discord's form of a message: fixed-width code blocks under 2,000 characters, Discord timestamps.

Discord refuses a message over 2,000 characters and renders markdown, so a
report (fixed-width text, columns aligned) is sent as one or more code
blocks, split only at line boundaries so a table row is never cut in two.
A single line too long for a block is hard-wrapped.  Timestamp
markup (``<t:unix:F>``) is rendered in each reader's own time zone, but not
inside a code block, so deadlines are repeated after the blocks.

Nothing a player or a game master typed may format a message or ping anyone:

* every message and edit carries :data:`NO_MENTIONS` (``allowed_mentions``
  that parse nothing: ``@everyone``, ``<@&role>`` and ``<@user>`` in a
  text stay inert); the client has it as its default too;
* inside a code block no two backticks touch (:func:`inert_backticks`), so
  no run of them, of any length, can close the block early;
* text that is not in a code block has its markdown and mentions escaped
  (:func:`plain`; the ``md`` template filter); a value a markdown template
  shows inside a code block of its own goes through the ``code`` filter
  (:func:`inert_backticks`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import discord

from bot.core.basics import linear
from bot.core.basics.translation import _, speaking
from bot.core.messaging.rendering import ITEM_FORM, READER_LANGUAGE, READER_ZONE, environment, render_message

FORM = "discord"
"""Discord's template folder (``templates/discord/``)."""

SHARED_FORM = "email"
"""The form whose templates Discord borrows for the messages it has no words of its own for (plain text)."""
BORROWED = frozenset({
    "absence", "broadcast", "deadline_moved", "ejected", "ended", "gm_handed_over", "gm_help", "help",
    "intakes_behind", "late_notice", "link_code", "linked", "orders_elsewhere", "orders_entered",
    "over_as_dealt", "password_locked", "paused", "prerendered", "press_gm_copy", "resumed", "rolled_back", "seat_joined", "seat_taken", "turn_parked",
    "seat_put_up", "substitute_found", "substitute_declined", "ready_marked", "option_changed",
    "unlinked", "unreachable",
})  # fmt: skip
"""The templates Discord renders in :data:`SHARED_FORM`, on purpose: every other message has its own
``templates/discord/`` template (``tests/discord/test_render.py`` checks that each of the shared form's
templates is one or the other), so a new message is never shown in another channel's words unnoticed."""

LIMIT = 2000
_FENCE_OPEN = "```\n"
_FENCE_CLOSE = "\n```"
ZERO_WIDTH_SPACE = "\u200b"

NO_MENTIONS = discord.AllowedMentions.none()
"""What every message the referee sends may ping: nobody (``parse: []``, no users, no roles, no reply)."""


def mentioning(user_ids: list[int]) -> discord.AllowedMentions:
    """``allowed_mentions`` that ping exactly these users, and nobody else (a feature that means to ping)."""
    return discord.AllowedMentions(everyone=False, roles=False, replied_user=False,
                                   users=[discord.Object(uid) for uid in user_ids])  # fmt: skip


def inert_backticks(text: str) -> str:
    """``text`` with a zero-width space after every backtick that another follows: no fence can form in it.

    A code block ends at the next run of three backticks, wherever it is;
    with no two backticks side by side, no run of any length is left.
    """
    parts = text.split("`")  # an empty part between two parts is two backticks touching
    last = len(parts) - 1
    return "`".join(part if part or index in (0, last) else ZERO_WIDTH_SPACE for index, part in enumerate(parts))


def plain(text: object) -> str:
    """``text`` shown as written in a markdown message: markdown escaped, mentions made inert (a zero-width space)."""
    return discord.utils.escape_mentions(discord.utils.escape_markdown(str(text)))


def code_blocks(text: str, limit: int = LIMIT) -> list[str]:
    """``text`` as fenced code blocks, each at most ``limit`` characters including its fences.

    Blocks break only between lines; a line longer than a block can hold is
    cut into pieces of the largest size that fits.  Backticks are kept from
    touching (:func:`inert_backticks`), so none can close the fence early.
    Empty text gives no block.
    """
    room = limit - len(_FENCE_OPEN) - len(_FENCE_CLOSE)
    if room < 1:
        raise ValueError(f"a limit of {limit} leaves no room inside the fences")
    lines: list[str] = []
    for line in inert_backticks(text).rstrip("\n").split("\n"):
        lines.extend(line[i : i + room] for i in range(0, max(len(line), 1), room))
    if not any(line.strip() for line in lines):
        return []
    blocks: list[str] = []
    current: list[str] = []
    size = -1  # the first line adds no newline
    for line in lines:
        if current and size + 1 + len(line) > room:
            blocks.append(_fence(current))
            current, size = [], -1
        current.append(line)
        size += 1 + len(line)
    if current:
        blocks.append(_fence(current))
    return blocks


def _fence(lines: list[str]) -> str:
    return _FENCE_OPEN + "\n".join(lines) + _FENCE_CLOSE


def timestamp(moment: datetime) -> str:
    """``<t:unix:F> (<t:unix:R>)``: the full date and time, and "in 3 hours", in the reader's own zone."""
    if moment.tzinfo is None:
        raise ValueError("a naive datetime has no instant; pass an aware one")
    unix = int(moment.timestamp())
    return f"<t:{unix}:F> (<t:{unix}:R>)"


def _discord_time(value: object) -> str:
    """Template filter ``discord_time``: a stored ISO moment as :func:`timestamp`, or a dash."""
    if value is None or value == "":
        return "-"
    moment = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
    return timestamp(moment if moment.tzinfo else moment.replace(tzinfo=UTC))


environment(FORM).filters.update(discord_time=_discord_time, md=plain, code=inert_backticks)
environment(FORM).globals[ITEM_FORM] = lambda template: SHARED_FORM if template in BORROWED else FORM
"""A digest's items (``templates/discord/digest.txt.j2``) in the form Discord says each in."""


def deadline_note(text: str, language: str | None = None) -> str | None:
    """``Deadline: <t:..:F> (<t:..:R>)`` for the first ``Deadline: YYYY-MM-DD HH:MM UTC`` line of ``text``,
    both said in ``language`` (the reader's: ``Frist: ...`` in German).

    A bridge while messages are rendered text: the core writes deadlines in
    UTC (and the game's zone); Discord readers also get them in their own.
    """
    with speaking(language):
        label = _("Deadline: %(moment)s").split("%(moment)s")[0].strip()
        match = _deadline_line(label).search(text)
        if match is None:
            return None
        moment = datetime.strptime(match.group(1), "%Y-%m-%d %H:%M").replace(tzinfo=UTC)
        return _("Deadline: %(moment)s") % {"moment": timestamp(moment)}


@functools.cache
def _deadline_line(label: str) -> linear.Pattern[str]:
    """The pattern of a deadline's line in UTC after ``label`` (``Deadline:``, or a translation's: ``Frist:``)."""
    return linear.compile(rf"^\s*{re.escape(label)}\s+(\d{{4}}-\d\d-\d\d \d\d:\d\d) UTC", re.MULTILINE)


_PAGE = linear.compile(r"^(https?://[!-~]+/games/[a-z0-9][a-z0-9_-]{0,39})$", re.MULTILINE)


def page_note(text: str, language: str | None = None) -> str | None:
    """``Game page: <URL>`` (said in ``language``) for the game's web page that ``text`` links to on a line
    of its own (the report, the start): a link in a code block cannot be clicked.  In angle brackets: no
    preview."""
    match = _PAGE.search(text)
    if match is None:
        return None
    with speaking(language):
        return _("Game page: <%(url)s>") % {"url": match.group(1)}


def plain_messages(text: str, limit: int = LIMIT) -> list[str]:
    """``text`` in the plain form (``FORMAT PLAIN``: sentences and lists, no table to keep aligned) as
    ordinary messages of at most ``limit`` characters, not code blocks, so a screen reader reads them as
    text: markdown and mentions escaped (:func:`plain`), broken only between lines (a line longer than a
    message is cut).  Empty text gives none."""
    pieces: list[str] = []
    for line in text.rstrip("\n").split("\n"):
        shown = plain(line)
        pieces.extend(shown[i : i + limit] for i in range(0, max(len(shown), 1), limit))
    if not any(piece.strip() for piece in pieces):
        return []
    messages: list[str] = []
    current = ""
    for piece in pieces:
        joined = f"{current}\n{piece}" if current else piece
        if current and len(joined) > limit:
            messages.append(current)
            joined = piece
        current = joined
    if current.strip():
        messages.append(current)
    return messages


def discord_messages(text: str, limit: int = LIMIT, plain_form: bool = False, language: str | None = None) -> list[str]:
    """The messages that carry ``text`` on Discord: its code blocks (``plain_form``: the reader chose
    ``FORMAT PLAIN``, ordinary messages, :func:`plain_messages`), the deadline note and, after code blocks,
    the game's page (a link in plain text can be clicked as it is); the notes said in ``language``, the
    one ``text`` is in (:func:`reader_language`)."""
    if plain_form:
        messages = plain_messages(text, limit)
        note = deadline_note(text, language)
        if note is not None and messages:
            if len(messages[-1]) + 1 + len(note) <= limit:
                messages[-1] = f"{messages[-1]}\n{note}"
            else:
                messages.append(note)
        return messages
    blocks = code_blocks(text, limit)
    for note in (deadline_note(text, language), page_note(text, language)):
        if note is None or not blocks:
            continue
        if len(blocks[-1]) + 1 + len(note) <= limit:
            blocks[-1] = f"{blocks[-1]}\n{note}"
        else:
            blocks.append(note)
    return blocks


LOCALE_LANGUAGE = "language"
"""The reply context's key of the language of the member's Discord (``bot/discord/understand.py``)."""


def reader_language(data: Mapping[str, Any], context: Mapping[str, Any] | None = None) -> str | None:
    """The language an outcome is said in on Discord: the copy's ``reader_language``, else (a reply to a
    member who chose none) their Discord's, else None (English)."""
    chosen = data.get(READER_LANGUAGE) or (context or {}).get(LOCALE_LANGUAGE)
    return str(chosen) if chosen else None


def render_outcome(template: str, data: Mapping[str, Any], context: Mapping[str, Any] | None = None) -> str:
    """The text of an outcome (template + data) in Discord's form, its title (if any) first.

    ``templates/discord/<template>.txt.j2`` when Discord says it its own way
    (replies, reports: slash commands instead of mail commands); a template of
    :data:`BORROWED` in the plain-text :data:`SHARED_FORM`; any other raises
    ``jinja2.TemplateNotFound``.  The phrases of replies come from
    ``templates/discord/phrases.j2`` first.  A reply (its ``context``, the interaction's) to a member who
    chose no language is in their Discord's (:func:`bot.discord.understand.locale_language`).
    """
    values = {**data, "context": dict(context or {}), READER_ZONE: None}  # Discord shows its own timestamps
    language = reader_language(data, context)  # else the member's Discord's, until they choose their own
    if language:
        values[READER_LANGUAGE] = language
    form = SHARED_FORM if template in BORROWED else FORM
    rendered = render_message(form, template, values)
    return f"{rendered.title}\n\n{rendered.body}" if rendered.title else rendered.body
