"""turn draws: a rollback reopens a turn with a fresh draw by default (its generator derives from the seed,
the turn and the draw, which each turn record keeps), or with the same draw and the orders on file kept

Every turn resolved before this revision drew once: draw 0, the generator of the seed and the turn alone.

Revision ID: 0019
Revises: 0018
Create Date: 2027-01-10 13:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("turns") as batch:
        batch.add_column(sa.Column("draw", sa.Integer(), nullable=False, server_default="0"))
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("draw", sa.Integer(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("redeal", sa.Boolean(), nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column("kept_draws", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("orders_kept_turn", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("orders_kept_turn")
        batch.drop_column("kept_draws")
        batch.drop_column("redeal")
        batch.drop_column("draw")
    with op.batch_alter_table("turns") as batch:
        batch.drop_column("draw")
