"""From raw bytes to an envelope: reading, policy, and what the reply must carry.

:func:`understand` is pure (no I/O): the processor feeds it stored messages.
Its result says either "apply this envelope" or "record this message and do
nothing else" (automatic mail, or mail without a usable sender).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from email.message import Message

from bot.core.model import commands as c
from bot.email.mail_reading import read_commands, subject_text
from bot.email.mime import MailText, Problem, describe_size, read_mail
from bot.email.policy import automatic_reason, vouching
from bot.text.gm_vocabulary import AddressReader, addresses_read_by, written_address
from bot.text.reading import HIDDEN, Reading, clip, hide_secret_shapes

EMAIL = "email"
ADDRESS_AUTH_UNAVAILABLE = (
    "address-only authentication needs a mail server that vouches for senders, and this host names "
    "none (email_trusted_authserv_ids); create a password game, or ask the host to configure one"
)


@dataclass(frozen=True)
class IntakePolicy:
    """What understanding a message depends on (from the settings)."""

    own_addresses: frozenset[str] = frozenset()
    max_message_bytes: int = 10 * 1024 * 1024
    trusted_authserv_ids: frozenset[str] = frozenset()
    """Receiving servers whose Authentication-Results vouch for a sender (bot.email.policy)."""
    read_address: AddressReader = written_address
    """How an address in a GM command is read: ``referee serve`` gives the list of channels' one
    reader (:func:`bot.channels.registry.parse_address`), so mail and ``referee gm`` agree."""


@dataclass(frozen=True)
class Understanding:
    """The envelope to apply, or why the message is only recorded (``skip``)."""

    envelope: c.Envelope | None
    skip: str | None = None
    summary: str = ""
    """Command names and policy notes, for the log (never a secret, never message text)."""


def understand(
    raw: bytes,
    source_id: str,
    received_at: datetime,
    policy: IntakePolicy,
    server_size: int | None = None,
    parsed: Message | None = None,
) -> Understanding:
    """Read ``raw`` into an envelope with ``source_id`` as its idempotency key.

    ``server_size``: the size the server reported (``raw`` may be cut shorter); ``parsed``:
    ``raw`` already parsed (:func:`bot.email.mime.parse_plain`, with ``policy.max_message_bytes``).
    """
    mail = read_mail(raw, policy.max_message_bytes, server_size, parsed)
    automatic = automatic_reason(mail, policy.own_addresses)
    if automatic is not None:
        return Understanding(None, automatic, f"automatic mail: {automatic}")
    assert mail.from_address is not None  # automatic_reason flags mail without a From address
    if mail.too_large:
        reading = Reading(
            (
                c.NotUnderstood(
                    f"(a message of {describe_size(mail.size)})",
                    f"too large: messages of {describe_size(policy.max_message_bytes)} or more are not read; "
                    "send your commands as plain text without attachments",
                ),
            )
        )
    else:
        with addresses_read_by(policy.read_address):
            reading = read_commands(mail.subject, mail.text)
    verdict = vouching(mail, policy.trusted_authserv_ids)
    if mail.from_problem is not None:
        # Not verifiable: answered at the one address that could be read, nothing applied.
        commands: tuple[c.Command, ...] = (c.NotUnderstood("From:", f"{mail.from_problem}; nothing in this "
                                                           "message was acted upon"),)  # fmt: skip
    else:
        commands = _problems(mail.problems) + tuple(_allowed(command, policy) for command in reading.commands)
    ignored = reading.ignored + _skipped(mail)
    envelope = c.Envelope(
        sender=c.Sender(EMAIL, mail.from_address, mail.from_name),
        commands=commands,
        source_id=source_id,
        received_at=received_at,
        reply_context={
            "subject": _reply_subject(mail.subject, reading),
            "message_id": mail.message_id,
            "references": list(_references(mail)),
        },
        password=reading.password if mail.from_problem is None else None,
        ignored=ignored,
        trust=c.Trust.VOUCHED if verdict.vouched else c.Trust.CLAIMED,
        unverified_reason="" if verdict.vouched else verdict.reason,
    )
    names = " ".join(type(command).__name__ for command in commands) or "no commands"
    extra = (" +password" if reading.password else "") + (" (vouched)" if verdict.vouched else " (claimed)")
    return Understanding(envelope, None, f"{names}{extra}")


def _problems(problems: tuple[Problem, ...]) -> tuple[c.Command, ...]:
    return tuple(c.NotUnderstood(clip(p.line), p.reason) for p in problems)


def _allowed(command: c.Command, policy: IntakePolicy) -> c.Command:
    """``command``, or why it cannot be had by mail on this host: a game with address-only
    authentication needs a receiving server that vouches for senders (:mod:`bot.email.policy`)."""
    if isinstance(command, c.CreateGame) and command.auth == "address" and not policy.trusted_authserv_ids:
        return c.NotUnderstood(f"CREATE {command.game} AUTH address", ADDRESS_AUTH_UNAVAILABLE)
    return command


def _skipped(mail: MailText) -> tuple[str, ...]:
    notes = [attachment.describe() for attachment in mail.attachments]
    if mail.text_kind == "html":
        notes.insert(0, "the message had no plain-text part; its HTML was read as text")
    if mail.truncated_chars:
        notes.append(f"{mail.truncated_chars} characters at the end of the text (not read)")
    return tuple(notes)


def _reply_subject(subject: str, reading: Reading) -> str:
    """The subject to answer under: never one that shows the password, or a word shaped like a secret."""
    if reading.password and reading.password.lower() in subject.lower():
        return subject_text(subject).split()[0] + " " + HIDDEN if subject_text(subject) else "your message"
    return hide_secret_shapes(subject[:200])  # a secret in a subject that is no PASSWORD line (found by the fuzz test)


def _references(mail: MailText) -> tuple[str, ...]:
    references = list(mail.references)
    if not references and mail.in_reply_to:
        references.append(mail.in_reply_to)
    return tuple(references[-10:])
