"""press mutes by kind: a mute by a seat's name stops its signed press, a mute by a message's code its
anonymous press, never both (a mute by code that stopped signed press too told who wrote anonymously)

A mute made before this revision does not say how it was made; it keeps muting both kinds, as it did (the
player who asked for it keeps getting nothing from that seat), until it is undone.

Revision ID: 0018
Revises: 0017
Create Date: 2027-01-10 12:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("press_mutes") as batch:
        batch.add_column(sa.Column("signed", sa.Boolean(), nullable=False, server_default=sa.true()))
        batch.add_column(sa.Column("anonymous", sa.Boolean(), nullable=False, server_default=sa.true()))
    with op.batch_alter_table("press_mutes") as batch:  # new rows say what they mute
        batch.alter_column("signed", server_default=None)
        batch.alter_column("anonymous", server_default=None)


def downgrade() -> None:
    with op.batch_alter_table("press_mutes") as batch:
        batch.drop_column("anonymous")
        batch.drop_column("signed")
