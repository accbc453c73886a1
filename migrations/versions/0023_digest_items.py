"""the digest's items: a person's press, notices and reminders gathered for their digest (``DIGEST DAILY``,
``DIGEST TURN``) until the digest pass writes them to the outbox as one message

Nothing is gathered before this revision: every message was sent on its own.

Revision ID: 0023
Revises: 0022
Create Date: 2027-02-03 12:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0023"
down_revision = "0022"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "digest_items",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("turn_number", sa.Integer(), nullable=True),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("template", sa.String(length=120), nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.Column("redacted_data", sa.JSON(), nullable=True),
        sa.Column("key", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"]),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("player_id", "key"),
    )
    op.create_index("ix_digest_items_player_id", "digest_items", ["player_id"])


def downgrade() -> None:
    op.drop_index("ix_digest_items_player_id", table_name="digest_items")
    op.drop_table("digest_items")
