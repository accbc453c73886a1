"""a player's client language: the language their Discord says they read (an interaction's locale, when it is a
shipped language), remembered as their default until they choose one of their own (``LANGUAGE``), so that what
is sent to them later (reports, notices, DMs and mail) is in it too, not only the reply to that interaction

A player before this revision has none: their own choice, else their game's default, else English, as before.

Revision ID: 0025
Revises: 0024
Create Date: 2027-01-29 12:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0025"
down_revision = "0024"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("client_language", sa.String(16), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.drop_column("client_language")
