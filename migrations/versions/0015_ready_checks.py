"""ready checks: a game's window for its seats to confirm, the check's durable deadline, each seat's confirmation

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-04 12:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("ready_check_minutes", sa.Integer(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("ready_deadline_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("ready_round", sa.Integer(), nullable=False, server_default="0"))
        batch.create_index(batch.f("ix_games_ready_deadline_at"), ["ready_deadline_at"], unique=False)
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("ready_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("ready_at")
    with op.batch_alter_table("games") as batch:
        batch.drop_index(batch.f("ix_games_ready_deadline_at"))
        batch.drop_column("ready_round")
        batch.drop_column("ready_deadline_at")
        batch.drop_column("ready_check_minutes")
