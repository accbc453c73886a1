"""player settings: a player's own time zone (the times they are told are shown in it first) and quiet hours
(mail that can wait is held until they end), kept on the player, so they hold on every channel linked to them

A player before this revision has neither: times in the game's zone and UTC, mail at any hour, as before.

Revision ID: 0021
Revises: 0020
Create Date: 2027-01-20 12:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("time_zone", sa.String(64), nullable=True))
        batch.add_column(sa.Column("quiet_hours", sa.String(11), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.drop_column("quiet_hours")
        batch.drop_column("time_zone")
