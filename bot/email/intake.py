"""Email's intake: a mailbox is a source of the core's intake runner, read by the mail reader.

The runner (:mod:`bot.core.runtime.intake_runner`) does what every channel's
intake does: list what the source has not acknowledged, store each new
message (raw, committed) before the server is told anything, understand and
apply it, settle its inbox row, acknowledge, retry and park, and keep the
watermark.  Email brings:

* its mailboxes (:class:`Mailbox`: IMAP in :mod:`bot.email.imap`, Maildir
  in :mod:`bot.email.maildir`), whose messages are keyed durably and dated by
  **the time they reached the server**: the IMAP ``INTERNALDATE`` (RFC 3501:
  "the internal date and time of the message on the server", which a
  delivering server sets when it saves the message), or the Maildir file's
  modification time (written by the delivery agent).  Not ``Date:`` (written
  by the sender's client: forgeable, often skewed) and not ``Received:``
  (free text, one per hop).  INTERNALDATE has whole seconds, which the
  watermark's floor allows for;
* the mail reader (:mod:`bot.email.mail_reader`: cheap limits before any
  parsing, then a time and memory budget in the reader process), which reads
  each fetched batch while the one before it is applied; a mail over its
  limits is stored with its arrival time, answered when its sender can be
  read cheaply, and parked for the host (:mod:`bot.email.processor`);
* a second copy of a mail is recognised by its content digest
  (:func:`bot.email.mime.content_digest`) under another key.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from bot.core.intake.understanding import Arrived, Read
from bot.core.intake.watermarks import Watermarks
from bot.core.runtime.intake_runner import IntakeResult, IntakeRunner, MessageRef, Source
from bot.email.mail_reader import MailReader, ToRead
from bot.email.processor import MailProcessor, core_read

__all__ = ["Intake", "IntakeResult", "MailUnderstanding", "Mailbox", "MessageRef"]

Mailbox = Source
"""A mail store the intake reads (the core's :class:`~bot.core.runtime.intake_runner.Source`)."""


class MailUnderstanding:
    """The mail reader as the core's :class:`~bot.core.intake.understanding.Understander`."""

    def __init__(self, reader: MailReader) -> None:
        self.reader = reader

    @staticmethod
    def _to_read(items: Sequence[Arrived]) -> list[ToRead]:
        return [ToRead(item.key, item.raw, item.received_at, item.cut) for item in items]

    def start(self, items: Sequence[Arrived]) -> None:
        self.reader.start(self._to_read(items))

    def result(self) -> list[Read]:
        return [core_read(mail) for mail in self.reader.result()]

    def read(self, items: Sequence[Arrived]) -> list[Read]:
        return [core_read(mail) for mail in self.reader.read(self._to_read(items))]

    def close(self) -> None:
        self.reader.close()


class Intake(IntakeRunner):
    """The core's intake runner over mailboxes, reading with ``reader`` (inline by default).

    ``watermarks`` (optional) records how far each pass read; ``settle`` is the margin of
    :mod:`bot.core.runtime.intake_runner`.  A message larger than the policy's
    ``max_message_bytes`` is fetched only that far (and answered "too large").
    """

    def __init__(
        self,
        processor: MailProcessor,
        watermarks: Watermarks | None = None,
        settle: timedelta = timedelta(seconds=1),
        reader: MailReader | None = None,
    ) -> None:
        self.reader = reader or MailReader(processor.policy)
        """Reads each fetched batch (inline unless it was given a process of its own)."""
        max_bytes = processor.policy.max_message_bytes
        super().__init__(processor, watermarks, settle, max_bytes, MailUnderstanding(self.reader))
