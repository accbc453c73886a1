"""who held each seat when (players' reliability records), a game's least reliability to join

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-04 12:00:00

The history starts here: each seat's present player is taken to have held it
since it was joined (a seat replaced before this revision is charged wholly to
its present player, and a resigned seat keeps charging its player for the turns
after the resignation until now, when it is closed).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "seat_holders",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seat_name", sa.String(length=40), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("since_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("first_turn", sa.Integer(), nullable=False),
        sa.Column("until_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("ended", sa.String(length=16), nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_seat_holders_game_seat", "seat_holders", ["game_id", "seat_name"])
    op.create_index("ix_seat_holders_player_id", "seat_holders", ["player_id"])
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("min_reliability", sa.Integer(), nullable=True))
    op.execute(
        "INSERT INTO seat_holders (game_id, seat_name, player_id, since_at, first_turn, until_at, ended) "
        "SELECT game_id, name, player_id, joined_at, 0, "
        "CASE WHEN resigned THEN CURRENT_TIMESTAMP ELSE NULL END, "
        "CASE WHEN resigned THEN 'resigned' ELSE NULL END FROM seats"
    )


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("min_reliability")
    op.drop_index("ix_seat_holders_player_id", table_name="seat_holders")
    op.drop_index("ix_seat_holders_game_seat", table_name="seat_holders")
    op.drop_table("seat_holders")
