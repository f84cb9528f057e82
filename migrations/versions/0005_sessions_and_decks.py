"""session expiry; decks stored encrypted (the column's JSON holds the sealed form)

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-30

Decks already stored stay readable as they are (a JSON list); every new deck is sealed with
AES-GCM (see app/store/decks.py). The server seals the old ones at start-up.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("session_expires_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.drop_column("session_expires_at")
