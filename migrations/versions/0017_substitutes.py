"""substitutes: the standby list, a seat put up for a substitute (and who offered to take it), a game's
options of putting seats up after missed turns and of handing them over at once

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-04 14:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "standbys",
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=40), nullable=False),
        sa.Column("since_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"]),
        sa.PrimaryKeyConstraint("player_id", "kind"),
    )
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("substitute_after", sa.Integer(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("substitute_auto", sa.Boolean(), nullable=False, server_default=sa.false()))
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("offered_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("offer_round", sa.Integer(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("candidate_id", sa.Integer(), nullable=True))
        batch.create_foreign_key("fk_seats_candidate_id_players", "players", ["candidate_id"], ["id"])


def downgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.drop_constraint("fk_seats_candidate_id_players", type_="foreignkey")
        batch.drop_column("candidate_id")
        batch.drop_column("offer_round")
        batch.drop_column("offered_at")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("substitute_auto")
        batch.drop_column("substitute_after")
    op.drop_table("standbys")
