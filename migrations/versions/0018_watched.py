"""the hands a player watched: `watched`, a stretch of a table's hands per visit (its first
and last hand number at the table), written by the table as hands start while a player
watches without being dealt in; "My hands" lists them

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-04

Nothing to backfill: who watched before was never kept.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0018"
down_revision: str | Sequence[str] | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "watched",
        sa.Column("player_id", sa.Uuid(), nullable=False),
        sa.Column("table_id", sa.Uuid(), nullable=False),
        sa.Column("first_hand", sa.Integer(), nullable=False),
        sa.Column("last_hand", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_watched_player_id_players")
        ),
        sa.ForeignKeyConstraint(
            ["table_id"], ["tables.id"], name=op.f("fk_watched_table_id_tables")
        ),
        sa.PrimaryKeyConstraint("player_id", "table_id", "first_hand", name=op.f("pk_watched")),
    )


def downgrade() -> None:
    op.drop_table("watched")
