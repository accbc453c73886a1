"""a game's live status message in its public place; identities a channel cannot reach

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01 12:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("public_places") as batch:
        batch.add_column(sa.Column("status_id", sa.String(length=64), nullable=True))
    with op.batch_alter_table("identities") as batch:
        batch.add_column(sa.Column("unreachable_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("unreachable_reason", sa.String(length=200), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("identities") as batch:
        batch.drop_column("unreachable_reason")
        batch.drop_column("unreachable_at")
    with op.batch_alter_table("public_places") as batch:
        batch.drop_column("status_id")
