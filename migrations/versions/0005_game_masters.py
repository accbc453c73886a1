"""game masters run real games: schedules, early processing, grace, reminders, joining, observers, absences;
outbox leases for several senders

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01 09:55:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def _game_columns() -> tuple[sa.Column[object], ...]:
    return (
        sa.Column("schedule", sa.String(length=80), nullable=False, server_default=""),
        sa.Column("min_gap_minutes", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("early_delay_minutes", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("grace_minutes", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("grace_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("reminders", sa.String(length=80), nullable=False, server_default="24h,1h"),
        sa.Column("max_seats", sa.Integer(), nullable=True),
        sa.Column("target_seats", sa.Integer(), nullable=True),
        sa.Column("joining_open", sa.Boolean(), nullable=False, server_default=sa.true()),
        sa.Column("join_policy", sa.String(length=16), nullable=False, server_default="anyone"),
        sa.Column("invited", sa.JSON(), nullable=False, server_default="[]"),
        sa.Column("observers_allowed", sa.Boolean(), nullable=False, server_default=sa.true()),
        sa.Column("absence_limit_days", sa.Integer(), nullable=False, server_default="14"),
        sa.Column("paused_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("gm_secret_hash", sa.String(length=128), nullable=True),
    )


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        for column in _game_columns():
            batch.add_column(column)
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("wait_turn", sa.Integer(), nullable=True))
    with op.batch_alter_table("outbox") as batch:  # several senders on one database (leases), and fast due queries
        batch.add_column(sa.Column("claimed_until", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("claimed_by", sa.String(length=32), nullable=True))
        batch.create_index("ix_outbox_due", ["channel", "sent_at", "next_attempt_at"], unique=False)
        batch.create_index("ix_outbox_replies", ["channel", "recipient", "kind", "created_at"], unique=False)
    op.create_table(
        "game_masters",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"]),
        sa.PrimaryKeyConstraint("game_id", "player_id"),
    )
    op.create_table(
        "observers",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"]),
        sa.PrimaryKeyConstraint("game_id", "player_id"),
    )
    op.create_table(
        "absences",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seat_name", sa.String(length=40), nullable=False),
        sa.Column("first_day", sa.Date(), nullable=False),
        sa.Column("last_day", sa.Date(), nullable=False),
        sa.Column("declared_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("absences") as batch:
        batch.create_index(batch.f("ix_absences_game_id"), ["game_id"], unique=False)
    op.create_table(
        "reminders_sent",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("generation", sa.Integer(), nullable=False),
        sa.Column("turn_number", sa.Integer(), nullable=False),
        sa.Column("offset_minutes", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("sent", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.PrimaryKeyConstraint("game_id", "generation", "turn_number", "offset_minutes"),
    )


def downgrade() -> None:
    op.drop_table("reminders_sent")
    with op.batch_alter_table("absences") as batch:
        batch.drop_index(batch.f("ix_absences_game_id"))
    op.drop_table("absences")
    op.drop_table("observers")
    op.drop_table("game_masters")
    with op.batch_alter_table("outbox") as batch:
        batch.drop_index("ix_outbox_replies")
        batch.drop_index("ix_outbox_due")
        batch.drop_column("claimed_by")
        batch.drop_column("claimed_until")
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("wait_turn")
    with op.batch_alter_table("games") as batch:
        for column in reversed(_game_columns()):
            batch.drop_column(column.name)
