"""outcomes as data: outbox rows hold template + data; turn generations; the turn shunt; audit entries

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01 09:20:00

* ``outbox``: ``subject``, ``body`` and ``headers`` give way to ``data`` and
  ``context`` (channels render their own form); ``parked_at`` marks a row a
  channel refused for good.  Rows written before this revision keep their
  text as the template ``prerendered`` with ``{"subject", "body"}``, so an
  unsent message survives the upgrade.
* ``turns``: the key becomes (game, generation, turn number).
* ``games``: ``generation``, ``resolve_at`` and the shunt columns.
* ``audit_log``: ``channel``, ``reason``, and ``detail`` as JSON.
"""

from __future__ import annotations

import json
import warnings

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "identities",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("channel", sa.String(length=16), nullable=False),
        sa.Column("address", sa.String(length=320), nullable=False),
        sa.Column("linked_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("channel", "address"),
    )
    with op.batch_alter_table("identities") as batch:
        batch.create_index(batch.f("ix_identities_player_id"), ["player_id"], unique=False)
    op.execute(
        "INSERT INTO identities (player_id, channel, address, linked_at) "
        "SELECT id, 'email', email, created_at FROM players WHERE email IS NOT NULL"
    )
    op.execute(
        "INSERT INTO identities (player_id, channel, address, linked_at) "
        "SELECT id, 'discord', discord_id, created_at FROM players WHERE discord_id IS NOT NULL"
    )
    with op.batch_alter_table("players") as batch:
        # their (unnamed) unique constraints go with them, on SQLite's rebuild and on PostgreSQL alike
        batch.drop_column("email")
        batch.drop_column("discord_id")

    op.create_table(
        "public_places",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("channel", sa.String(length=16), nullable=False),
        sa.Column("place_id", sa.String(length=64), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.PrimaryKeyConstraint("game_id", "channel"),
    )
    op.execute(
        "INSERT INTO public_places (game_id, channel, place_id) "
        "SELECT id, 'discord', discord_thread_id FROM games WHERE discord_thread_id IS NOT NULL"
    )

    with op.batch_alter_table("games") as batch:
        batch.drop_column("discord_thread_id")
        batch.add_column(sa.Column("generation", sa.Integer(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("resolve_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("turn_failures", sa.Integer(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("turn_error", sa.Text(), nullable=True))
        batch.add_column(sa.Column("turn_parked_at", sa.DateTime(timezone=True), nullable=True))
        batch.create_index(batch.f("ix_games_resolve_at"), ["resolve_at"], unique=False)

    _rekey_turns(["game_id", "generation", "turn_number"], add_generation=True)

    with op.batch_alter_table("outbox") as batch:
        batch.add_column(sa.Column("data", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("context", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("parked_at", sa.DateTime(timezone=True), nullable=True))
    connection = op.get_bind()
    outbox = sa.table(
        "outbox",
        sa.column("id", sa.Integer()),
        sa.column("subject", sa.String()),
        sa.column("body", sa.Text()),
        sa.column("headers", sa.JSON()),
        sa.column("template", sa.String()),
        sa.column("data", sa.JSON()),
        sa.column("context", sa.JSON()),
    )
    for row in connection.execute(sa.select(outbox.c.id, outbox.c.subject, outbox.c.body, outbox.c.headers)).all():
        headers = row.headers if isinstance(row.headers, dict) else json.loads(row.headers or "{}")
        connection.execute(
            outbox.update()
            .where(outbox.c.id == row.id)
            .values(template="prerendered", data={"subject": row.subject, "body": row.body}, context=headers)
        )
    with op.batch_alter_table("outbox") as batch:
        batch.alter_column("data", existing_type=sa.JSON(), nullable=False)
        batch.alter_column("context", existing_type=sa.JSON(), nullable=False)
        batch.drop_column("subject")
        batch.drop_column("body")
        batch.drop_column("headers")

    with op.batch_alter_table("audit_log") as batch:
        batch.add_column(sa.Column("channel", sa.String(length=16), nullable=False, server_default=""))
        batch.add_column(sa.Column("reason", sa.Text(), nullable=False, server_default=""))
        batch.drop_column("detail")
    with op.batch_alter_table("audit_log") as batch:
        batch.add_column(sa.Column("detail", sa.JSON(), nullable=False, server_default="{}"))


def downgrade() -> None:
    with op.batch_alter_table("audit_log") as batch:
        batch.drop_column("detail")
        batch.drop_column("reason")
        batch.drop_column("channel")
    with op.batch_alter_table("audit_log") as batch:
        batch.add_column(sa.Column("detail", sa.Text(), nullable=False, server_default=""))

    with op.batch_alter_table("outbox") as batch:
        batch.add_column(sa.Column("subject", sa.String(length=300), nullable=False, server_default=""))
        batch.add_column(sa.Column("body", sa.Text(), nullable=False, server_default=""))
        batch.add_column(sa.Column("headers", sa.JSON(), nullable=False, server_default="{}"))
        batch.drop_column("parked_at")
        batch.drop_column("context")
        batch.drop_column("data")

    _rekey_turns(["game_id", "turn_number"], add_generation=False)

    with op.batch_alter_table("games") as batch:
        batch.drop_index(batch.f("ix_games_resolve_at"))
        batch.drop_column("turn_parked_at")
        batch.drop_column("turn_error")
        batch.drop_column("turn_failures")
        batch.drop_column("resolve_at")
        batch.drop_column("generation")
        batch.add_column(sa.Column("discord_thread_id", sa.String(length=32), nullable=True))
    op.drop_table("public_places")
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("email", sa.String(length=320), nullable=True))
        batch.add_column(sa.Column("discord_id", sa.String(length=32), nullable=True))
    op.execute(
        "UPDATE players SET email = (SELECT MIN(address) FROM identities i WHERE i.player_id = players.id AND channel = 'email')"
    )
    op.execute(
        "UPDATE players SET discord_id = "
        "(SELECT MIN(address) FROM identities i WHERE i.player_id = players.id AND channel = 'discord')"
    )
    op.drop_table("identities")


def _rekey_turns(columns: list[str], *, add_generation: bool) -> None:
    """Change the primary key of ``turns`` (PostgreSQL names it ``turns_pkey``; SQLite rebuilds the table)."""
    if op.get_bind().dialect.name == "postgresql":
        op.drop_constraint("turns_pkey", "turns", type_="primary")
        if add_generation:
            op.add_column("turns", sa.Column("generation", sa.Integer(), nullable=False, server_default="0"))
        else:
            op.drop_column("turns", "generation")
        op.create_primary_key("turns_pkey", "turns", columns)
        return
    with warnings.catch_warnings(), op.batch_alter_table("turns", recreate="always") as batch:
        # SQLAlchemy warns that the rebuilt table's key differs from the reflected one: that is the point.
        warnings.simplefilter("ignore", sa.exc.SAWarning)
        if add_generation:
            batch.add_column(sa.Column("generation", sa.Integer(), nullable=False, server_default="0"))
        batch.create_primary_key("pk_turns", columns)
        if not add_generation:
            batch.drop_column("generation")
