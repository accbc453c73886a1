"""placeholder for revision 0011, made on another branch at the same time (dropped when merging)

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-03 13:30:00
"""

from __future__ import annotations

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
