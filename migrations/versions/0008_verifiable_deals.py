"""verifiable deals: server seeds per table session, client seeds, each hand's sealed deal

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | Sequence[str] | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Plain ADD COLUMN (nullable), no batch mode: see 0007.
    op.add_column("hands", sa.Column("deal", sa.JSON(), nullable=True))
    op.add_column("seats", sa.Column("client_seed", sa.String(length=64), nullable=True))
    op.create_table(
        "deal_seeds",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("table_id", sa.Uuid(), nullable=False),
        sa.Column("seed", sa.JSON(), nullable=False),
        sa.Column("seed_hash", sa.String(length=64), nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("CURRENT_TIMESTAMP"),
            nullable=False,
        ),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revealed", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.ForeignKeyConstraint(
            ["table_id"], ["tables.id"], name=op.f("fk_deal_seeds_table_id_tables")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_deal_seeds")),
    )
    op.create_index(op.f("ix_deal_seeds_table_id"), "deal_seeds", ["table_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_deal_seeds_table_id"), table_name="deal_seeds")
    op.drop_table("deal_seeds")
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("client_seed")
    with op.batch_alter_table("hands") as batch:
        batch.drop_column("deal")
