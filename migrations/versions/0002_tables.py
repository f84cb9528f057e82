"""tables, seats, hands, hand actions and the chip ledger

Revision ID: 0002
Revises: 0001
Create Date: 2025-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _now() -> sa.TextClause:
    return sa.text("CURRENT_TIMESTAMP")


def upgrade() -> None:
    op.create_table(
        "tables",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("code", sa.String(length=32), nullable=False),
        sa.Column("host_id", sa.Uuid(), nullable=False),
        sa.Column("config", sa.JSON(), nullable=False),
        sa.Column("button", sa.Integer(), nullable=True),
        sa.Column("paused", sa.Boolean(), nullable=False),
        sa.Column("hand_number", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=_now(), nullable=False),
        sa.Column("closed_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["host_id"], ["players.id"], name=op.f("fk_tables_host_id_players")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tables")),
        sa.UniqueConstraint("code", name=op.f("uq_tables_code")),
    )
    op.create_table(
        "seats",
        sa.Column("table_id", sa.Uuid(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Uuid(), nullable=False),
        sa.Column("name", sa.String(length=32), nullable=False),
        sa.Column("stack", sa.BigInteger(), nullable=False),
        sa.Column("sitting_out", sa.Boolean(), nullable=False),
        sa.Column("waiting", sa.Boolean(), nullable=False),
        sa.Column("post", sa.Boolean(), nullable=False),
        sa.Column("time_bank", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_seats_player_id_players")
        ),
        sa.ForeignKeyConstraint(["table_id"], ["tables.id"], name=op.f("fk_seats_table_id_tables")),
        sa.PrimaryKeyConstraint("table_id", "number", name=op.f("pk_seats")),
        sa.UniqueConstraint("table_id", "player_id", name=op.f("uq_seats_table_id")),
    )
    op.create_table(
        "hands",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("table_id", sa.Uuid(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("record", sa.JSON(), nullable=False),
        sa.Column("deck", sa.JSON(), nullable=False),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("started_at", sa.DateTime(timezone=True), server_default=_now(), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["table_id"], ["tables.id"], name=op.f("fk_hands_table_id_tables")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_hands")),
        sa.UniqueConstraint("table_id", "number", name=op.f("uq_hands_table_id")),
    )
    op.create_index("ix_hands_open", "hands", ["table_id", "ended_at"], unique=False)
    op.create_table(
        "hand_actions",
        sa.Column("hand_id", sa.Uuid(), nullable=False),
        sa.Column("counter", sa.Integer(), nullable=False),
        sa.Column("player", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=True),
        sa.Column("agree", sa.Boolean(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=_now(), nullable=False),
        sa.ForeignKeyConstraint(
            ["hand_id"], ["hands.id"], name=op.f("fk_hand_actions_hand_id_hands")
        ),
        sa.PrimaryKeyConstraint("hand_id", "counter", name=op.f("pk_hand_actions")),
    )
    op.create_table(
        "ledger",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("table_id", sa.Uuid(), nullable=False),
        sa.Column("player_id", sa.Uuid(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=_now(), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_ledger_player_id_players")
        ),
        sa.ForeignKeyConstraint(
            ["table_id"], ["tables.id"], name=op.f("fk_ledger_table_id_tables")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ledger")),
    )
    op.create_index(op.f("ix_ledger_table_id"), "ledger", ["table_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_ledger_table_id"), table_name="ledger")
    op.drop_table("ledger")
    op.drop_table("hand_actions")
    op.drop_index("ix_hands_open", table_name="hands")
    op.drop_table("hands")
    op.drop_table("seats")
    op.drop_table("tables")
