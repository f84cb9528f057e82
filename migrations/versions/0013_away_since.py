"""when a seat's player went away (wall clock), so the away grace continues after a restart

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | Sequence[str] | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Plain ADD COLUMN (no batch mode: seats is referenced by foreign keys).
    op.add_column("seats", sa.Column("away_since", sa.Float(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("away_since")
