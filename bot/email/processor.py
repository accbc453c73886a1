"""Email's part in processing stored mail: how it is understood, the reply limit, forgetting secrets.

Applying, settling the inbox row, retrying and parking are the core's
(:class:`bot.core.runtime.intake_processor.Processor`); email plugs in:

* its understanding (:func:`bot.email.understand.understand`, or the mail
  reader's result, :mod:`bot.email.mail_reader`) as the core's readings: an
  envelope, a :class:`~bot.core.intake.understanding.Skip` for automatic mail,
  and a parked skip for a mail the reader gave up on (over its time or memory
  budget, :class:`bot.email.prescreen.NotRead`), answered when its sender can
  be read cheaply;
* the stored mail without the passwords and codes it carried (:mod:`bot.email.redact`);
* the reply limit below (:class:`MailReplies`).

**The reply limit** stops mail loops and backscatter without muting a busy
player.  Once the address has had ``ReplyLimit.replies`` replies within
``ReplyLimit.window``, a message is applied but not answered when:

* its sender is not vouched for (a From line anyone could have written: the
  address may be a forged victim's), unless it carries a password that
  proves a seat (or the GM) of a game that exists: a forger knows none; or
* its sender is vouched for, it carries no command that changes a game that
  exists (ORDERS, JOIN, RESIGN, START for an existing game, or CREATE: such a
  message changes a game or is refused, and its sender always hears which),
  and it has no command at all or reads exactly the same commands as the
  address's previous message.

So a forged victim gets at most the limit's worth of replies, however the
forged mail varies; an auto-responder without RFC 3834 headers sends text
that is no command (or the same text again and again), so it is stopped
after the limit; a vouched player asking STATUS of one game, then of
another, is still answered.  The rule is stated in
``templates/email/help.txt.j2``.

Every message's outcome is logged and kept on its inbox row (``referee inbox
list``): which orders were accepted or refused, what else it asked for, and
why automatic mail was only recorded.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import timedelta

from bot.core.basics.batch import Batch
from bot.core.basics.clock import Clock
from bot.core.intake.inbox import Inbox
from bot.core.intake.reply_limit import ReplyBudget
from bot.core.intake.understanding import Arrived, Inline, Read, Reading, Skip, Understood
from bot.core.model import commands as c
from bot.core.runtime.intake_processor import PassResult, Processor, command_digest, secrets_given
from bot.core.runtime.service import GameService
from bot.email.mail_reader import MailRead, ReadingFailed
from bot.email.prescreen import NotRead
from bot.email.redact import redact_mail
from bot.email.understand import EMAIL, IntakePolicy, Understanding, understand

__all__ = ["MailProcessor", "MailReplies", "PassResult", "ReplyLimit", "command_digest", "secrets_given"]

ACTING = (c.SubmitOrders, c.JoinGame, c.Resign, c.CreateGame, c.StartGame)
"""Commands that change a game or are refused: answered beyond the limit for a vouched sender and a game that exists."""
UNVOUCHED = "sender not vouched for"
"""The reply limit's reason for a sender nobody vouches for (answered only when a password proves it)."""


@dataclass(frozen=True)
class ReplyLimit:
    """Above ``replies`` replies per address per ``window``, loop-like mail is applied but not answered.

    See the module docstring for what counts as loop-like.
    """

    replies: int = 20
    window: timedelta = timedelta(hours=1)


def core_reading(reading: Understanding | ReadingFailed | NotRead | Exception) -> Reading:
    """What email's reader gave, as the core's reading."""
    if isinstance(reading, NotRead):
        return Skip(reading.reason, reading.reply, park=True)
    if isinstance(reading, Exception):
        return reading
    return _understood(reading)


def _understood(reading: Understanding) -> Understood | Skip:
    if reading.envelope is None:
        return Skip(reading.skip or "")
    return Understood(reading.envelope, reading.summary)


def core_read(mail: MailRead) -> Read:
    return Read(mail.key, core_reading(mail.reading), mail.message_id, mail.digest)


def inline_mail_reading(policy: IntakePolicy) -> Inline:
    """Reads stored mail in this process, in the transaction (no budget: the intake's
    :class:`bot.email.mail_reader.MailReader` reads it within one); a message whose reading
    raises fails alone (:class:`bot.core.intake.understanding.Inline`)."""

    def read(item: Arrived) -> Understood | Skip:
        return _understood(understand(item.raw, item.key, item.received_at, policy, item.cut))

    return Inline(read)


class MailReplies:
    """The reply limit (the module docstring), as the core's :class:`~bot.core.runtime.intake_processor.ReplyPolicy`."""

    def __init__(self, budget: ReplyBudget, limit: ReplyLimit, clock: Clock) -> None:
        self.budget = budget
        self.limit = limit
        self.clock = clock

    def prepare(self, batch: Batch, envelopes: Sequence[c.Envelope]) -> None:
        """Count the recent replies of the batch's senders in one query (:meth:`ReplyBudget.preload`)."""
        since = self.clock.now() - self.limit.window
        self.budget.preload(EMAIL, {envelope.sender.address for envelope in envelopes}, since, batch)

    def quiet_reason(self, row_id: int, envelope: c.Envelope, digest: str, batch: Batch) -> str | None:
        """Why this message gets no reply under the reply limit (module docstring), or None."""
        vouched = envelope.trust in (c.Trust.VOUCHED, c.Trust.VERIFIED)
        if vouched and self._acts_on_a_game(envelope, batch):
            return None
        since = self.clock.now() - self.limit.window
        address = envelope.sender.address
        replies = self.budget.replies_since(EMAIL, address, since, batch)
        if replies < self.limit.replies:
            return None
        if not vouched:
            return f"{UNVOUCHED}, after {replies} replies within {self.limit.window}"
        if all(isinstance(command, c.NotUnderstood) for command in envelope.commands):
            return f"no command, after {replies} replies within {self.limit.window}"
        if self.budget.previous_commands(EMAIL, address, row_id, since, batch) == digest:
            return f"the same commands as the previous message, after {replies} replies within {self.limit.window}"
        return None

    def quieted(self, envelope: c.Envelope, quiet: str, batch: Batch) -> c.Envelope:
        """The envelope as applied under the reply limit: never answered, except an unvouched sender's
        password-carrying commands for a game that exists, answered when the password proves them."""
        if quiet.startswith(UNVOUCHED) and envelope.password and self._acts_on_a_game(envelope, batch):
            return replace(envelope, answer_if_proven=True)
        return replace(envelope, automatic=True)

    def _acts_on_a_game(self, envelope: c.Envelope, batch: Batch) -> bool:
        """Whether the envelope creates a game or acts on one that exists (always answered for a vouched sender)."""
        acting = [command for command in envelope.commands if isinstance(command, ACTING)]
        if any(isinstance(command, c.CreateGame) for command in acting):
            return True
        slugs = {command.game for command in acting if not isinstance(command, c.CreateGame)}
        return bool(self.budget.existing_games(slugs, batch))


class MailProcessor(Processor):
    """The core's processor for the ``email`` channel, with email's understanding and policies."""

    def __init__(
        self,
        inbox: Inbox,
        service: GameService,
        clock: Clock,
        policy: IntakePolicy,
        budget: ReplyBudget | None = None,
        limit: ReplyLimit = ReplyLimit(),
    ) -> None:
        replies = MailReplies(budget, limit, clock) if budget is not None else None
        super().__init__(inbox, service, clock, EMAIL, inline_mail_reading(policy), replies, redact_mail)
        self.policy = policy
        self.budget = budget
        self.limit = limit
