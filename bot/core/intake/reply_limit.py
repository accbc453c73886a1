"""How many replies an address has been sent lately, and what it sent last: the brake on mail loops.

An auto-responder that does not mark its mail as automatic (RFC 3834) would
answer every reply with another message, and each would get a reply.  A loop
looks like this: many messages, each with no command in it, or the same text
again and again.  A busy player looks different: many messages, each asking
for something new.  So the email intake (``bot.email.processor``)
asks two things before answering: :meth:`ReplyBudget.replies_since` (has the
address had its share of replies for the window?) and
:meth:`ReplyBudget.previous_commands` (did its previous message read the same
commands?).  Only above the share, and only for a message with no command or
the same commands as the one before, is the reply left out; the message is
still applied and kept.  The intake also asks :meth:`ReplyBudget.existing_games`:
a command that acts on a game is answered beyond the share only when the
game exists and the channel vouches for the sender, since anyone can write
a victim's address in a From line and have the referee answer there.  The counts come from the outbox and the inbox
themselves, so they need no table of their own and survive restarts.

In a batch, :meth:`ReplyBudget.preload` reads the recent replies of the batch's senders in one
query; each reply the batch queues is then added to its recipient's
(``bot.core.messaging.outbox.RepliesSeen``), so :meth:`ReplyBudget.replies_since` counts in
memory what the query would count, without writing the batch's deferred rows and asking
again for every message.  An address that was not loaded, or is not plain ASCII (whose case
the database may fold otherwise than Python), is asked of the database as before.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from bot.core.basics.batch import REPLIES, Batch, session_for, write_deferred
from bot.core.messaging.outbox import RepliesSeen
from bot.store.models import Game, InboundMessage, OutboxMessage


class ReplyBudget:
    """Counts the replies written to the outbox for one address."""

    def __init__(self, sessions: sessionmaker[Session]) -> None:
        self._sessions = sessions

    @contextmanager
    def _session(self, batch: Batch | None) -> Iterator[Session]:
        if batch is not None:
            write_deferred(batch.session)  # the replies and settled rows of the batch so far count
        with session_for(self._sessions, batch) as session:
            yield session

    def replies_since(self, channel: str, recipient: str, since: datetime, batch: Batch | None = None) -> int:
        """Replies queued for ``recipient`` on ``channel`` at or after ``since`` (address case ignored).

        In ``batch`` when given, so the replies queued earlier in the batch count too (from the
        batch's :meth:`preload` when it loaded ``recipient``).
        """
        key = recipient.strip().lower()
        if batch is not None:
            seen: RepliesSeen | None = batch.memo.get((REPLIES, channel))
            if seen is not None and since >= seen.since and key in seen.times:
                return sum(1 for at in seen.times[key] if at >= since)
        with self._session(batch) as session:
            count = session.scalar(
                select(func.count())
                .select_from(OutboxMessage)
                .where(
                    OutboxMessage.channel == channel,
                    func.lower(OutboxMessage.recipient) == key,
                    OutboxMessage.kind == "reply",
                    OutboxMessage.created_at >= since,
                )
            )
        return int(count or 0)

    def preload(self, channel: str, recipients: Iterable[str], since: datetime, batch: Batch) -> None:
        """Load, in one query, the replies queued for ``recipients`` on ``channel`` at or after
        ``since``, so that :meth:`replies_since` answers for them in ``batch`` (at ``since`` or
        later) without asking the database again (module docstring)."""
        keys = sorted({r.strip().lower() for r in recipients} - {""})
        keys = [key for key in keys if key.isascii()]
        if not keys:
            return
        write_deferred(batch.session)  # the replies the batch queued so far count
        times: dict[str, list[datetime]] = {key: [] for key in keys}
        for recipient, at in batch.session.execute(
            select(func.lower(OutboxMessage.recipient), OutboxMessage.created_at).where(
                OutboxMessage.channel == channel,
                func.lower(OutboxMessage.recipient).in_(keys),
                OutboxMessage.kind == "reply",
                OutboxMessage.created_at >= since,
            )
        ):
            times[recipient].append(at)
        batch.memo[(REPLIES, channel)] = RepliesSeen(since, times)

    def existing_games(self, slugs: set[str], batch: Batch | None = None) -> set[str]:
        """Which of ``slugs`` name games that exist (a command for a game nobody made changes nothing)."""
        if not slugs:
            return set()
        with self._session(batch) as session:
            return set(session.scalars(select(Game.slug).where(Game.slug.in_(sorted(slugs)))))

    def previous_commands(
        self, channel: str, sender: str, before_id: int, since: datetime, batch: Batch | None = None
    ) -> str | None:
        """The command digest of ``sender``'s latest settled message before row ``before_id``, since ``since``
        (in ``batch`` when given: the messages settled earlier in the batch count)."""
        with self._session(batch) as session:
            return session.scalar(
                select(InboundMessage.command_digest)
                .where(
                    InboundMessage.channel == channel,
                    InboundMessage.sender == sender.strip().lower(),
                    InboundMessage.id < before_id,
                    InboundMessage.received_at >= since,
                    InboundMessage.command_digest.is_not(None),
                )
                .order_by(InboundMessage.id.desc())
                .limit(1)
            )
