"""the orders on file found by game, turn and seat (filing retires the seat's earlier set)

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01 15:10:00
"""

from __future__ import annotations

from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_order_submissions_seat", "order_submissions", ["game_id", "turn_number", "seat_name"])


def downgrade() -> None:
    op.drop_index("ix_order_submissions_seat", table_name="order_submissions")
