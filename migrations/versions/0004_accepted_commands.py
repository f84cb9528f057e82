"""what a table accepted between hands and mid-hand: seat flags, pending chips, next stakes
and seat requests, so a restart restores every command answered `ok`

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        for name in ("leaving", "removed", "straddle"):
            batch.add_column(
                sa.Column(name, sa.Boolean(), server_default=sa.false(), nullable=False)
            )
        for name in ("pending_top_up", "pending_adjust"):
            batch.add_column(
                sa.Column(name, sa.BigInteger(), server_default=sa.text("0"), nullable=False)
            )
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("next_config", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("requests", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("requests")
        batch.drop_column("next_config")
    with op.batch_alter_table("seats") as batch:
        for name in ("pending_adjust", "pending_top_up", "straddle", "removed", "leaving"):
            batch.drop_column(name)
