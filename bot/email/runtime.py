"""The email channel's supervised workers: the intake (IMAP or Maildir) and the sender (SMTP or Maildir).

Both are the core's channel workers (:mod:`bot.core.runtime.channel_workers`),
named for email: ``referee serve`` runs them beside the deadline worker and
any other channel's workers, and restarts one that fails without stopping the rest.
"""

from __future__ import annotations

import logging

from bot.core.runtime.channel_workers import IntakeLoop, IntakeWorker, SenderWorker
from bot.email.transport import MailSender

__all__ = ["EmailIntakeWorker", "EmailSenderWorker", "IntakeLoop"]

log = logging.getLogger(__name__)


class EmailIntakeWorker(IntakeWorker):
    """Reads the mailbox until stopped."""

    def __init__(self, intake: IntakeLoop) -> None:
        super().__init__("email-intake", intake, log)


class EmailSenderWorker(SenderWorker):
    """Drains the outbox's email rows until stopped."""

    def __init__(self, sender: MailSender) -> None:
        super().__init__("email-sender", sender.loop, "mail server", log)
        self.sender = sender
