"""hand history: a server-wide hand number, the columns hand lists filter on, hand_players

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-30

`hands.serial` is given by the database at insert: a sequence's default on PostgreSQL, a
trigger on SQLite (the next number after the largest; SQLite writes one at a time). Existing
hands are numbered in the order they started, and get their game, pot and players.
"""

import uuid
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | Sequence[str] | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_SQLITE_TRIGGER = """
CREATE TRIGGER hands_serial AFTER INSERT ON hands WHEN NEW.serial IS NULL
BEGIN
    UPDATE hands SET serial = (SELECT COALESCE(MAX(serial), 0) + 1 FROM hands)
    WHERE id = NEW.id;
END
"""


def _backfill(bind: sa.Connection) -> None:
    """Number, classify and index the hands stored before this migration. Their decks are
    sealed from 0005 on: opened with the key of SECRET_KEY (`app.store.decks.use_secret`,
    which `python -m app migrate` calls first)."""
    from cryptography.exceptions import InvalidTag

    from app.store.decks import unseal
    from app.tables.hand import Hand, awarded

    hands = sa.table(
        "hands",
        sa.column("id", sa.Uuid()),
        sa.column("number", sa.Integer()),
        sa.column("record", sa.JSON()),
        sa.column("deck", sa.JSON()),
        sa.column("started_at", sa.DateTime()),
        sa.column("ended_at", sa.DateTime()),
        sa.column("serial", sa.BigInteger()),
        sa.column("game", sa.String()),
        sa.column("pot", sa.BigInteger()),
    )
    actions = sa.table(
        "hand_actions",
        sa.column("hand_id", sa.Uuid()),
        sa.column("counter", sa.Integer()),
        sa.column("player", sa.Integer()),
        sa.column("kind", sa.String()),
        sa.column("amount", sa.BigInteger()),
        sa.column("agree", sa.Boolean()),
    )
    players = sa.table(
        "hand_players",
        sa.column("hand_id", sa.Uuid()),
        sa.column("position", sa.Integer()),
        sa.column("player_id", sa.Uuid()),
        sa.column("serial", sa.BigInteger()),
    )
    rows = bind.execute(
        sa.select(hands.c.id, hands.c.number, hands.c.record, hands.c.deck, hands.c.ended_at)
        .where(hands.c.serial.is_(None))
        .order_by(hands.c.started_at, hands.c.number)
    ).all()
    start = bind.execute(sa.select(sa.func.coalesce(sa.func.max(hands.c.serial), 0))).scalar_one()
    for k, row in enumerate(rows, start=int(start) + 1):
        done: list[dict[str, Any]] = [
            {"player": a.player, "kind": a.kind, "amount": a.amount, "agree": a.agree}
            for a in bind.execute(
                sa.select(actions).where(actions.c.hand_id == row.id).order_by(actions.c.counter)
            )
        ]
        try:
            deck = unseal(row.deck)
        except InvalidTag:
            raise RuntimeError(
                "a stored deck does not open with this SECRET_KEY: migrate with the SECRET_KEY "
                "the server ran with"
            ) from None
        hand = Hand.replay(str(row.id), row.number, row.record, deck, done)
        pot = awarded(hand.state) if row.ended_at is not None else None
        bind.execute(
            hands.update()
            .where(hands.c.id == row.id)
            .values(serial=k, game=hand.state.config.game.key, pot=pot)
        )
        for position, player_id in enumerate(hand.players):
            bind.execute(
                players.insert().values(
                    hand_id=row.id, position=position, player_id=uuid.UUID(player_id), serial=k
                )
            )


def upgrade() -> None:
    bind = op.get_bind()
    postgres = bind.dialect.name == "postgresql"
    op.add_column("hands", sa.Column("serial", sa.BigInteger(), nullable=True))
    op.add_column("hands", sa.Column("game", sa.String(length=32), nullable=True))
    op.add_column("hands", sa.Column("pot", sa.BigInteger(), nullable=True))
    op.add_column("hands", sa.Column("luck", sa.JSON(), nullable=True))
    op.create_table(
        "hand_players",
        sa.Column("hand_id", sa.Uuid(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Uuid(), nullable=False),
        sa.Column("serial", sa.BigInteger(), nullable=True),
        sa.ForeignKeyConstraint(
            ["hand_id"], ["hands.id"], name=op.f("fk_hand_players_hand_id_hands")
        ),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_hand_players_player_id_players")
        ),
        sa.PrimaryKeyConstraint("hand_id", "position", name=op.f("pk_hand_players")),
    )
    _backfill(bind)
    if postgres:
        op.execute("CREATE SEQUENCE hands_serial_seq OWNED BY hands.serial")
        op.execute(
            "SELECT setval('hands_serial_seq', (SELECT COALESCE(MAX(serial), 0) + 1 FROM hands),"
            " false)"
        )
        op.execute("ALTER TABLE hands ALTER COLUMN serial SET DEFAULT nextval('hands_serial_seq')")
    else:
        op.execute(_SQLITE_TRIGGER)
    op.create_index("ix_hands_serial", "hands", ["serial"], unique=True)
    op.create_index("ix_hands_table_serial", "hands", ["table_id", "serial"], unique=False)
    op.create_index(
        "ix_hand_players_player_serial", "hand_players", ["player_id", "serial"], unique=False
    )


def downgrade() -> None:
    bind = op.get_bind()
    op.drop_index("ix_hand_players_player_serial", table_name="hand_players")
    op.drop_index("ix_hands_table_serial", table_name="hands")
    op.drop_index("ix_hands_serial", table_name="hands")
    if bind.dialect.name == "postgresql":
        op.execute("ALTER TABLE hands ALTER COLUMN serial DROP DEFAULT")
        op.execute("DROP SEQUENCE hands_serial_seq")
    else:
        op.execute("DROP TRIGGER hands_serial")
    op.drop_table("hand_players")
    op.drop_column("hands", "luck")
    op.drop_column("hands", "pot")
    op.drop_column("hands", "game")
    op.drop_column("hands", "serial")
