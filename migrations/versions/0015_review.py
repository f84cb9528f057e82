"""review: the replayer's stored equities, per-player hand facts for statistics and "My
hands", personal sign-in links and the sessions they open on other devices

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-01

`hand_stats` is filled by the review index (app.history.index) from the hands' records, for
old hands too, the first time a list or a statistic needs them: nothing to backfill here.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | Sequence[str] | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_FLAGS = (
    "all_in",
    "saw_flop",
    "showdown",
    "won_showdown",
    "vpip_chance",
    "vpip",
    "pfr",
    "three_bet_chance",
    "three_bet",
    "cbet_chance",
    "cbet",
)


def upgrade() -> None:
    # Plain ADD COLUMN (no batch mode: the table is referenced by foreign keys).
    op.add_column("hands", sa.Column("equity", sa.JSON(), nullable=True))
    op.create_table(
        "hand_stats",
        sa.Column("hand_id", sa.Uuid(), nullable=False),
        sa.Column("player_id", sa.Uuid(), nullable=False),
        sa.Column("table_id", sa.Uuid(), nullable=False),
        sa.Column("serial", sa.BigInteger(), nullable=False),
        sa.Column("at_table", sa.Integer(), nullable=False),
        sa.Column("game", sa.String(length=32), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("position", sa.String(length=4), nullable=False),
        sa.Column("net", sa.BigInteger(), nullable=False),
        sa.Column("luck", sa.Float(), nullable=True),
        *(sa.Column(flag, sa.Boolean(), nullable=False) for flag in _FLAGS),
        sa.Column("bets_raises", sa.Integer(), nullable=False),
        sa.Column("calls", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["hand_id"], ["hands.id"], name=op.f("fk_hand_stats_hand_id_hands")
        ),
        sa.ForeignKeyConstraint(
            ["table_id"], ["tables.id"], name=op.f("fk_hand_stats_table_id_tables")
        ),
        sa.PrimaryKeyConstraint("hand_id", "player_id", name=op.f("pk_hand_stats")),
    )
    op.create_index("ix_hand_stats_player_serial", "hand_stats", ["player_id", "serial"])
    op.create_index("ix_hand_stats_table_serial", "hand_stats", ["table_id", "serial"])
    op.create_table(
        "sign_in_links",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("player_id", sa.Uuid(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("CURRENT_TIMESTAMP"),
            nullable=False,
        ),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_sign_in_links_player_id_players")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sign_in_links")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_sign_in_links_token_hash")),
    )
    op.create_index(
        op.f("ix_sign_in_links_player_id"), "sign_in_links", ["player_id"], unique=False
    )

    op.create_table(
        "device_sessions",
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("player_id", sa.Uuid(), nullable=False),
        sa.Column("link_id", sa.Uuid(), nullable=True),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("CURRENT_TIMESTAMP"),
            nullable=False,
        ),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_device_sessions_player_id_players")
        ),
        sa.PrimaryKeyConstraint("token_hash", name=op.f("pk_device_sessions")),
    )
    op.create_index(
        op.f("ix_device_sessions_player_id"), "device_sessions", ["player_id"], unique=False
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_device_sessions_player_id"), table_name="device_sessions")
    op.drop_table("device_sessions")
    op.drop_index(op.f("ix_sign_in_links_player_id"), table_name="sign_in_links")
    op.drop_table("sign_in_links")
    op.drop_index("ix_hand_stats_table_serial", table_name="hand_stats")
    op.drop_index("ix_hand_stats_player_serial", table_name="hand_stats")
    op.drop_table("hand_stats")
    with op.batch_alter_table("hands") as batch:
        batch.drop_column("equity")
