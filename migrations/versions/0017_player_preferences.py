"""a player's showdown preferences, theirs at every table: `player_preferences`, keyed by the
player's id; a seat copies them when the player sits (its columns of migration 0016 stay)

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-03

What players chose at their seats so far becomes theirs: a choice away from the default at
any of a player's seats wins (auto-muck turned off anywhere, always show turned on anywhere).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017"
down_revision: str | Sequence[str] | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# CASE, MIN and MAX: the same on SQLite (booleans are 0 and 1) and PostgreSQL (no MIN of a
# boolean there).
_AUTO_MUCK = "MIN(CASE WHEN auto_muck THEN 1 ELSE 0 END)"
_ALWAYS_SHOW = "MAX(CASE WHEN always_show THEN 1 ELSE 0 END)"


def upgrade() -> None:
    op.create_table(
        "player_preferences",
        sa.Column("player_id", sa.Uuid(), nullable=False),
        sa.Column("auto_muck", sa.Boolean(), server_default=sa.true(), nullable=False),
        sa.Column("always_show", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column(
            "updated_at",
            sa.DateTime(timezone=True),
            server_default=sa.func.current_timestamp(),
            nullable=False,
        ),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_player_preferences_player_id_players")
        ),
        sa.PrimaryKeyConstraint("player_id", name=op.f("pk_player_preferences")),
    )
    op.execute(
        "INSERT INTO player_preferences (player_id, auto_muck, always_show) "
        f"SELECT player_id, {_AUTO_MUCK} = 1, {_ALWAYS_SHOW} = 1 FROM seats "
        f"GROUP BY player_id HAVING {_AUTO_MUCK} = 0 OR {_ALWAYS_SHOW} = 1"
    )


def downgrade() -> None:
    op.drop_table("player_preferences")
