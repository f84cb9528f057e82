"""a seat's showdown preferences: auto-muck a beaten hand (on by default), always show

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016"
down_revision: str | Sequence[str] | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Plain ADD COLUMN (no batch mode: seats is referenced by foreign keys).
    op.add_column(
        "seats", sa.Column("auto_muck", sa.Boolean(), nullable=False, server_default=sa.true())
    )
    op.add_column(
        "seats", sa.Column("always_show", sa.Boolean(), nullable=False, server_default=sa.false())
    )


def downgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("always_show")
        batch.drop_column("auto_muck")
