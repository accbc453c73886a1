"""the rows waiting to be sent, indexed in the order a sender takes them

A sender's due query takes a channel's unsent rows oldest first.
``ix_outbox_unsent`` was (channel, next_attempt_at): it found the unsent
rows, but not in the order wanted, so the database had either to sort every
unsent row for each batch or, with ``ORDER BY id``, to walk the primary key
through every row ever sent until it had found a batch.  PostgreSQL took the
walk whenever its statistics were last gathered while many rows waited (a
deadline writes thousands of rows in seconds, and autovacuum analyzes a
table again only once a tenth of it has changed): it then believes most of
the table unsent.  Measured: 27-48 ms a batch of 200 over 19,000 rows of
history, against 0.3 ms in this index.

It is now (channel, created_at, id), and holds only the rows that wait
(``sent_at IS NULL AND parked_at IS NULL``: a parked row waits for the host,
not a sender).  The due query orders by (created_at, id), which the primary
key cannot give, so the one plan that avoids sorting every waiting row is
this index's first rows for the channel, whatever the history and whatever
the statistics say.  ``next_attempt_at`` is checked on the row: a row backed
off after a failure is rare, and stays in the index until sent or parked.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-02 13:10:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

WAITING = sa.text("sent_at IS NULL AND parked_at IS NULL")
UNSENT = sa.text("sent_at IS NULL")


def upgrade() -> None:
    op.drop_index("ix_outbox_unsent", table_name="outbox")
    op.create_index(
        "ix_outbox_unsent", "outbox", ["channel", "created_at", "id"], sqlite_where=WAITING, postgresql_where=WAITING
    )


def downgrade() -> None:
    op.drop_index("ix_outbox_unsent", table_name="outbox")
    op.create_index(
        "ix_outbox_unsent", "outbox", ["channel", "next_attempt_at"], sqlite_where=UNSENT, postgresql_where=UNSENT
    )
