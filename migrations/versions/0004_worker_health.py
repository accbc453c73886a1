"""worker health: the last error each supervised worker logged (``referee status``)

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01 10:10:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "worker_health",
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("error_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("error", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("name"),
    )


def downgrade() -> None:
    op.drop_table("worker_health")
