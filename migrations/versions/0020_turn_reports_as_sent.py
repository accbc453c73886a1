"""turn reports as sent: what a turn's public report said beside the record (its deadline, how late it was,
the actions and the press it announced), so a page shows an old report as it was sent

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-10 10:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("turns") as batch:
        batch.add_column(sa.Column("sent", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("turns") as batch:
        batch.drop_column("sent")
