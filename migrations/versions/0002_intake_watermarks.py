"""intake watermarks; inbound content digest, server size, sender, command digest, outcome

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01 09:15:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "intake_watermarks",
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("read_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("name"),
    )
    with op.batch_alter_table("inbound_messages", schema=None) as batch_op:
        batch_op.add_column(sa.Column("content_digest", sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column("server_size", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("sender", sa.String(length=320), nullable=True))
        batch_op.add_column(sa.Column("command_digest", sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column("outcome", sa.Text(), nullable=True))
        batch_op.create_index(batch_op.f("ix_inbound_messages_content_digest"), ["content_digest"], unique=False)
        batch_op.create_index(batch_op.f("ix_inbound_messages_sender"), ["sender"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("inbound_messages", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_inbound_messages_sender"))
        batch_op.drop_index(batch_op.f("ix_inbound_messages_content_digest"))
        batch_op.drop_column("outcome")
        batch_op.drop_column("command_digest")
        batch_op.drop_column("sender")
        batch_op.drop_column("server_size")
        batch_op.drop_column("content_digest")
    op.drop_table("intake_watermarks")
