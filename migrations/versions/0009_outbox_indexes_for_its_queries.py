"""the outbox's indexes fitted to its queries (fewer index writes a row; no query reads the history)

The outbox keeps every row it ever sent; its queries must not read them all.

* ``ix_outbox_unsent`` (channel, next_attempt_at) holds only the rows not
  yet sent (``WHERE sent_at IS NULL``): a sender's due query and the unsent
  counts read it, whatever the history.  It replaces ``ix_outbox_due``
  (channel, sent_at, next_attempt_at), which held every row: on SQLite with
  statistics (``ANALYZE``) the planner judged it no better than reading the
  table in id order, through every row ever sent, to find the due ones.
* ``ix_outbox_channel``, ``ix_outbox_next_attempt_at`` and
  ``ix_outbox_sent_at`` served no query the two others do not: dropped.
  Every row written, and every row marked sent (on PostgreSQL the update of
  an indexed column writes each index again), wrote them.
* ``ix_outbox_replies`` was (channel, recipient, kind, created_at), but the
  reply rate limit counts an address whatever its case (``lower(recipient)``),
  so it found its rows by the channel alone: every mail ever sent on it, for
  every mail read.  It is now (lower(recipient), channel, kind, created_at):
  led by the address, not the channel, so that SQLite without statistics
  (the bot never runs ``ANALYZE``) finds a channel's unsent rows in
  ``ix_outbox_unsent``, the one index led by the channel.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-02 07:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

UNSENT = sa.text("sent_at IS NULL")


def upgrade() -> None:
    for index in ("ix_outbox_channel", "ix_outbox_next_attempt_at", "ix_outbox_sent_at", "ix_outbox_due"):
        op.drop_index(index, table_name="outbox")
    op.create_index(
        "ix_outbox_unsent", "outbox", ["channel", "next_attempt_at"], sqlite_where=UNSENT, postgresql_where=UNSENT
    )
    op.drop_index("ix_outbox_replies", table_name="outbox")
    op.create_index("ix_outbox_replies", "outbox", [sa.text("lower(recipient)"), "channel", "kind", "created_at"])


def downgrade() -> None:
    op.drop_index("ix_outbox_replies", table_name="outbox")
    op.create_index("ix_outbox_replies", "outbox", ["channel", "recipient", "kind", "created_at"])
    op.drop_index("ix_outbox_unsent", table_name="outbox")
    op.create_index("ix_outbox_due", "outbox", ["channel", "sent_at", "next_attempt_at"])
    op.create_index("ix_outbox_sent_at", "outbox", ["sent_at"])
    op.create_index("ix_outbox_next_attempt_at", "outbox", ["next_attempt_at"])
    op.create_index("ix_outbox_channel", "outbox", ["channel"])
