"""scale-out: the fencing epoch of a table's owner

Revision ID: 0009
Revises: 0007
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | Sequence[str] | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Bumped by each process that takes the table; every write of the table names the epoch
    # it was taken with and is refused once it moved on (app.store.tables, app.scale).
    op.add_column(
        "tables",
        sa.Column("owner_epoch", sa.BigInteger(), server_default=sa.text("0"), nullable=False),
    )


def downgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("owner_epoch")
