"""the host's evening: bot players, bomb pot next hand, sit-out switches, chat

Revision ID: 0007
Revises: 0002
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    false = sa.false()
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("bot", sa.Boolean(), server_default=false, nullable=False))
    with op.batch_alter_table("tables") as batch:
        batch.add_column(
            sa.Column("bomb_pot_next", sa.Boolean(), server_default=false, nullable=False)
        )
    with op.batch_alter_table("seats") as batch:
        batch.add_column(
            sa.Column("sit_out_next", sa.Boolean(), server_default=false, nullable=False)
        )
        batch.add_column(
            sa.Column("sit_out_next_bb", sa.Boolean(), server_default=false, nullable=False)
        )
    op.create_table(
        "chat",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("table_id", sa.Uuid(), nullable=False),
        sa.Column("player_id", sa.Uuid(), nullable=False),
        sa.Column("name", sa.String(length=32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("text", sa.String(length=200), nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("CURRENT_TIMESTAMP"),
            nullable=False,
        ),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_chat_player_id_players")
        ),
        sa.ForeignKeyConstraint(["table_id"], ["tables.id"], name=op.f("fk_chat_table_id_tables")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_chat")),
    )
    op.create_index(op.f("ix_chat_table_id"), "chat", ["table_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_chat_table_id"), table_name="chat")
    op.drop_table("chat")
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("sit_out_next_bb")
        batch.drop_column("sit_out_next")
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("bomb_pot_next")
    with op.batch_alter_table("players") as batch:
        batch.drop_column("bot")
