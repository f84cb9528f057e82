"""the fencing epoch of a tournament's director (several processes: one directs it)

Revision ID: 0014
Revises: 0011
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | Sequence[str] | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Plain ADD COLUMN (no batch mode: the table is referenced by a foreign key).
    op.add_column(
        "tournaments",
        sa.Column("owner_epoch", sa.BigInteger(), server_default=sa.text("0"), nullable=False),
    )


def downgrade() -> None:
    with op.batch_alter_table("tournaments") as batch:
        batch.drop_column("owner_epoch")
