"""player settings, second part: a player's language (``LANGUAGE fr``), the form of what they are told
(``FORMAT PLAIN``: sentences and lists instead of tables) and their digest (``DIGEST DAILY 08:00``,
``DIGEST TURN``); and a game's default language, set by its GM, for its players who chose none

A player or game before this revision has none: English, tables, every message on its own, as before.

Revision ID: 0022
Revises: 0021
Create Date: 2027-01-27 12:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("language", sa.String(16), nullable=True))
        batch.add_column(sa.Column("text_format", sa.String(8), nullable=True))
        batch.add_column(sa.Column("digest", sa.String(16), nullable=True))
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("language", sa.String(16), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("language")
    with op.batch_alter_table("players") as batch:
        batch.drop_column("digest")
        batch.drop_column("text_format")
        batch.drop_column("language")
