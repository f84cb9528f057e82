"""the reason of a host's stack adjustment, in the ledger and while it waits for the hand's end

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | Sequence[str] | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Plain ADD COLUMN (no batch mode: both tables are referenced by foreign keys).
    op.add_column("ledger", sa.Column("reason", sa.String(length=300), nullable=True))
    op.add_column(
        "seats",
        sa.Column(
            "pending_adjust_reason", sa.String(length=300), server_default="", nullable=False
        ),
    )


def downgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("pending_adjust_reason")
    with op.batch_alter_table("ledger") as batch:
        batch.drop_column("reason")
