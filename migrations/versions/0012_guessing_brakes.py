"""brakes on guessing: wrong passwords per sender and game, link codes mailed per address

``password_failures``: one row per (game, channel, sender address) that gave
a wrong seat or game-master password; its wrong guesses since the last
lock-out, how many lock-outs it has had (each one twice as long) and until
when the current one lasts.  ``link_codes_mailed``: one row per (channel,
address) a link code was mailed to, with the times of the codes mailed within
the last day, so that deleting a pending link does not reset the count.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-03 13:40:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "password_failures",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("channel", sa.String(length=16), nullable=False),
        sa.Column("address", sa.String(length=320), nullable=False),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("lockouts", sa.Integer(), nullable=False),
        sa.Column("locked_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_failure_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("game_id", "channel", "address"),
    )
    op.create_table(
        "link_codes_mailed",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("channel", sa.String(length=16), nullable=False),
        sa.Column("address", sa.String(length=320), nullable=False),
        sa.Column("sent_at", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("channel", "address"),
    )


def downgrade() -> None:
    op.drop_table("link_codes_mailed")
    op.drop_table("password_failures")
