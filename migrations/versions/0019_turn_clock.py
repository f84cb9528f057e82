"""the clock of a hand's turn across the host's pause (`tables.turn_clock`, JSON): a table
paused mid-hand and restarted stays stopped, and its turn resumes with what it had left

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-04
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0019"
down_revision: str | Sequence[str] | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Plain ADD COLUMN (no batch mode: tables is referenced by foreign keys). Nullable: a
    # table paused before it (or never paused mid-hand) has none, and its clock runs.
    op.add_column("tables", sa.Column("turn_clock", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("turn_clock")
