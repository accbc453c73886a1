"""receipts may repeat: a receipt is 32 bits of a hash of the envelope's source id, for a person to quote, not
a key; its unique constraint failed the envelope whose receipt repeated an earlier one (even odds near 77,000
stored envelopes), so it is an index now (the source id stays the envelope's key)

Revision ID: 0024
Revises: 0023
Create Date: 2027-01-28 12:00:00
"""

from __future__ import annotations

from alembic import op

revision = "0024"
down_revision = "0023"
branch_labels = None
depends_on = None

_SQLITE_NAMES = {"uq": "uq_%(table_name)s_%(column_0_name)s"}
"""SQLite's constraint has no name (0001 made it unnamed): batch mode names it by this convention to drop it."""


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        with op.batch_alter_table("processed_envelopes", naming_convention=_SQLITE_NAMES) as batch:
            batch.drop_constraint("uq_processed_envelopes_receipt", type_="unique")
    else:
        op.drop_constraint("processed_envelopes_receipt_key", "processed_envelopes", type_="unique")
    op.create_index("ix_processed_envelopes_receipt", "processed_envelopes", ["receipt"])


def downgrade() -> None:
    op.drop_index("ix_processed_envelopes_receipt", table_name="processed_envelopes")
    with op.batch_alter_table("processed_envelopes") as batch:
        batch.create_unique_constraint("processed_envelopes_receipt_key", ["receipt"])
