"""calendars that follow a deadline, board pictures by mail, a guild event per game

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-04 05:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("calendar_sequence", sa.Integer(), nullable=False, server_default="0"))
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("board_pictures", sa.Boolean(), nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column("calendar_epoch", sa.Integer(), nullable=False, server_default="0"))
    with op.batch_alter_table("public_places") as batch:
        batch.add_column(sa.Column("event_id", sa.String(length=64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("public_places") as batch:
        batch.drop_column("event_id")
    with op.batch_alter_table("players") as batch:
        batch.drop_column("calendar_epoch")
        batch.drop_column("board_pictures")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("calendar_sequence")
