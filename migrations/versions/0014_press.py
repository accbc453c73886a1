"""press between players: a game's press settings, the press messages and the mutes

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-04 12:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("press", sa.String(length=8), nullable=False, server_default="white"))
        batch.add_column(sa.Column("press_gm_copies", sa.Boolean(), nullable=False, server_default=sa.true()))
        batch.add_column(sa.Column("press_in_record", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.create_table(
        "press_messages",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("game_id", sa.Integer(), sa.ForeignKey("games.id"), nullable=False),
        sa.Column("code", sa.String(length=8), nullable=False),
        sa.Column("sender_seat_id", sa.Integer(), sa.ForeignKey("seats.id"), nullable=False),
        sa.Column("sender_player_id", sa.Integer(), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("recipients", sa.JSON(), nullable=False),
        sa.Column("anonymous", sa.Boolean(), nullable=False),
        sa.Column("public", sa.Boolean(), nullable=False),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("text", sa.Text(), nullable=True),
        sa.UniqueConstraint("game_id", "code"),
    )
    op.create_index("ix_press_messages_game_id", "press_messages", ["game_id"])
    op.create_index("ix_press_messages_sent_at", "press_messages", ["sent_at"])
    op.create_index("ix_press_messages_sender_at", "press_messages", ["sender_player_id", "sent_at"])
    op.create_table(
        "press_mutes",
        sa.Column("game_id", sa.Integer(), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("seat_id", sa.Integer(), sa.ForeignKey("seats.id"), primary_key=True),
        sa.Column("muted_seat_id", sa.Integer(), sa.ForeignKey("seats.id"), primary_key=True),
    )


def downgrade() -> None:
    op.drop_table("press_mutes")
    op.drop_index("ix_press_messages_sender_at", table_name="press_messages")
    op.drop_index("ix_press_messages_sent_at", table_name="press_messages")
    op.drop_index("ix_press_messages_game_id", table_name="press_messages")
    op.drop_table("press_messages")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("press_in_record")
        batch.drop_column("press_gm_copies")
        batch.drop_column("press")
