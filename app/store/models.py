"""SQLAlchemy models. Every table is created by an Alembic migration in migrations/versions.

A test compares these models with the migrated schema: change both together
(`make migration m="what changed"` writes the migration from the models). The schema imports
nothing from the rest of app: its text columns declare their own lengths, and a test checks
that every bound the server enforces on what goes in them fits (tests/store/test_models.py).
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    FetchedValue,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    UniqueConstraint,
    Uuid,
    false,
    func,
    text,
    true,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from app.store.decks import Sealed, SealedDeck

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


#: characters of a stored adjustment reason (a hand's waiting reasons joined: at most
#: `app.tables.adjust.REASONS_MAX`)
REASONS_LENGTH = 300


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class Player(Base):
    """Someone who has joined the server: a display name and a session.

    Only a hash of the session token is kept; the token itself lives in the browser's cookie.
    """

    __tablename__ = "players"

    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    display_name: Mapped[str] = mapped_column(String(32))
    session_token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    #: the session is refused after this (null: issued before expiry existed; never expires)
    session_expires_at: Mapped[datetime | None] = mapped_column(
        DateTime(timezone=True), nullable=True
    )
    #: a practice bot living in the server (its "token hash" is `bot:<id>`, no session)
    bot: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.current_timestamp()
    )


class PlayerPreferencesRow(Base):
    """A player's showdown preferences, theirs at every table and seat (migration 0017). No
    row: the defaults (auto-muck on, always show off). A seat copies them when the player sits
    (`SeatRow.auto_muck`, `SeatRow.always_show`), so a hand never reads this table."""

    __tablename__ = "player_preferences"

    player_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("players.id"), primary_key=True)
    auto_muck: Mapped[bool] = mapped_column(Boolean, default=True, server_default=true())
    always_show: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    updated_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.current_timestamp()
    )


class TableRow(Base):
    """A cash-game table: its settings (`TableConfig` as JSON), host, button and invite code.

    The code is the unguessable part of the invite link; whoever has it can watch the table.
    """

    __tablename__ = "tables"

    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    code: Mapped[str] = mapped_column(String(32), unique=True)
    host_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("players.id"))
    config: Mapped[dict[str, Any]] = mapped_column(JSON)
    button: Mapped[int | None] = mapped_column(Integer, nullable=True)
    paused: Mapped[bool] = mapped_column(Boolean, default=False)
    hand_number: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.current_timestamp()
    )
    closed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    #: stakes the host set during a hand, from the next hand on (`TableConfig` as JSON)
    next_config: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    #: seat requests waiting for the host's approval (a list of `SeatRequest` as JSON)
    requests: Mapped[list[dict[str, Any]] | None] = mapped_column(JSON, nullable=True)
    #: the host called a one-off bomb pot for the next hand
    bomb_pot_next: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    #: the fencing token of the table's owner: bumped by each process that takes the table;
    #: a write carrying an older one is refused (app.store.tables)
    owner_epoch: Mapped[int] = mapped_column(BigInteger, default=0, server_default=text("0"))
    #: the clock of the hand's turn across the host's pause (`app.tables.clock.TurnClock`)
    turn_clock: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)


class SeatRow(Base):
    """An occupied seat and its stack between hands (during a hand: as the hand started)."""

    __tablename__ = "seats"
    __table_args__ = (UniqueConstraint("table_id", "player_id"),)

    table_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("tables.id"), primary_key=True)
    number: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("players.id"))
    name: Mapped[str] = mapped_column(String(32))
    stack: Mapped[int] = mapped_column(BigInteger)
    sitting_out: Mapped[bool] = mapped_column(Boolean, default=False)
    waiting: Mapped[bool] = mapped_column(Boolean, default=True)
    post: Mapped[bool] = mapped_column(Boolean, default=False)
    time_bank: Mapped[float] = mapped_column(Float, default=0.0)
    # Accepted during a hand, applied at its end: kept so that a restart does not forget them.
    leaving: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    removed: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    straddle: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    pending_top_up: Mapped[int] = mapped_column(BigInteger, default=0, server_default=text("0"))
    pending_adjust: Mapped[int] = mapped_column(BigInteger, default=0, server_default=text("0"))
    #: the reasons of the adjustments waiting for the end of the hand, with `pending_adjust`
    pending_adjust_reason: Mapped[str] = mapped_column(
        String(REASONS_LENGTH), default="", server_default=""
    )
    #: blinds missed while sitting out (bits: 1 small, 2 big), owed on return
    missed_blinds: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    #: the player's switches: sit out from the next hand / when the big blind reaches them
    sit_out_next: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    sit_out_next_bb: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    #: the player's showdown preferences as this seat copied them when the player sat
    #: (`PlayerPreferencesRow`); `set_preference` at this table writes both
    auto_muck: Mapped[bool] = mapped_column(Boolean, default=True, server_default=true())
    always_show: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    #: the player's latest client seed for the deal (docs/fairness.md)
    client_seed: Mapped[str | None] = mapped_column(String(64), nullable=True)
    #: when the player went away (seconds since the epoch; null: here), for the away grace
    away_since: Mapped[float | None] = mapped_column(Float, nullable=True)


class HandRow(Base):
    """One hand: its setup and seat map (`record`), the deck order (server-side only, never
    sent to a client, sealed at rest: `app.store.decks`), and its result once over. The
    actions are rows of `hand_actions`.

    `serial` is the hand's number on this server (the `#N` of every export), given by the
    database as the row is inserted: a PostgreSQL sequence, an SQLite trigger (migration
    0006). `game` and `pot` (every chip awarded, set at the end) are what hand lists filter
    on, beside `(table_id, serial)` for the newest-first list of a table."""

    __tablename__ = "hands"
    __table_args__ = (
        UniqueConstraint("table_id", "number"),
        Index("ix_hands_open", "table_id", "ended_at"),
        Index("ix_hands_table_serial", "table_id", "serial"),
        Index("ix_hands_serial", "serial", unique=True),
    )

    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True)
    table_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("tables.id"))
    number: Mapped[int] = mapped_column(Integer)
    record: Mapped[dict[str, Any]] = mapped_column(JSON)
    deck: Mapped[list[int]] = mapped_column(SealedDeck)  # encrypted at rest
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    started_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.current_timestamp()
    )
    ended_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    serial: Mapped[int | None] = mapped_column(
        BigInteger, server_default=FetchedValue(), nullable=True
    )
    game: Mapped[str | None] = mapped_column(String(32), nullable=True)
    pot: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    #: each player's all-in luck in this hand (expected minus won; {} without an all-in),
    #: computed once when a ledger first asks (an exact equity can take seconds)
    luck: Mapped[dict[str, float] | None] = mapped_column(JSON, nullable=True)
    #: the deck's salts and client seeds (app.tables.fairness.HandDeal), sealed like the deck;
    #: null for a hand dealt before verifiable deals
    deal: Mapped[dict[str, Any] | None] = mapped_column(Sealed, nullable=True)
    #: the replayer's equities (no cards: shares of the pot), computed once off the event
    #: loop and kept (app.history.equity): `all_in`, and per set of hands a viewer may see
    equity: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)


class HandPlayerRow(Base):
    """Who was dealt in a hand, by position: a player's hands, newest first, come from
    `(player_id, serial)` without reading the hands' JSON."""

    __tablename__ = "hand_players"
    __table_args__ = (Index("ix_hand_players_player_serial", "player_id", "serial"),)

    hand_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("hands.id"), primary_key=True)
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("players.id"))
    serial: Mapped[int | None] = mapped_column(BigInteger, nullable=True)


class HandActionRow(Base):
    """An accepted action, numbered from 0 within its hand: (hand, counter) is unique, so an
    action is stored at most once."""

    __tablename__ = "hand_actions"

    hand_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("hands.id"), primary_key=True)
    counter: Mapped[int] = mapped_column(Integer, primary_key=True)
    player: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(16))
    amount: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    agree: Mapped[bool | None] = mapped_column(Boolean, nullable=True)
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.current_timestamp()
    )


class LedgerEntry(Base):
    """Chips entering a table (`buy_in`, `top_up`, `adjustment`, signed) or leaving it
    (`cash_out`). Their balance equals the stored seat stacks at every committed moment."""

    __tablename__ = "ledger"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("tables.id"), index=True)
    player_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("players.id"))
    kind: Mapped[str] = mapped_column(String(16))
    amount: Mapped[int] = mapped_column(BigInteger)
    #: why the host adjusted a stack (an `adjustment`'s reason; several joined by "; ")
    reason: Mapped[str | None] = mapped_column(String(REASONS_LENGTH), nullable=True)
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.current_timestamp()
    )


class DealSeedRow(Base):
    """A table session's server seed (docs/fairness.md): sealed at rest, its SHA-256 published
    before its first hand; `revealed` once the session ended with the reveal on."""

    __tablename__ = "deal_seeds"

    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True)
    table_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("tables.id"), index=True)
    seed: Mapped[str] = mapped_column(Sealed)  # hex, encrypted at rest
    seed_hash: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.current_timestamp()
    )
    ended_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    revealed: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())


class ChatRow(Base):
    """A chat message at a table, numbered with the table's events when it was sent."""

    __tablename__ = "chat"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("tables.id"), index=True)
    player_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("players.id"))
    name: Mapped[str] = mapped_column(String(32))
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    text: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.current_timestamp()
    )


class TournamentRow(Base):
    """A tournament: its settings (`app.tournaments.director.Settings` as JSON), host, invite
    code, where it stands (`status`), its clock (seconds of tournament time when stored) and
    its tables."""

    __tablename__ = "tournaments"

    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    code: Mapped[str] = mapped_column(String(32), unique=True)
    host_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("players.id"))
    settings: Mapped[dict[str, Any]] = mapped_column(JSON)
    status: Mapped[str] = mapped_column(String(16), default="registering")
    elapsed: Mapped[float] = mapped_column(Float, default=0.0)
    tables: Mapped[list[str] | None] = mapped_column(JSON, nullable=True)
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.current_timestamp()
    )
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    #: the fencing token of the process directing it (bumped by each process that takes the
    #: director; a write carrying an older one is refused: app.store.tournaments)
    owner_epoch: Mapped[int] = mapped_column(BigInteger, default=0, server_default=text("0"))


class TournamentEntryRow(Base):
    """A player registered in a tournament, and once out (or the winner) their place and
    prize. No foreign key on the player: a practice bot's player row is made when seated."""

    __tablename__ = "tournament_entries"
    __table_args__ = (UniqueConstraint("tournament_id", "player_id", "number"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    tournament_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("tournaments.id"), index=True)
    player_id: Mapped[uuid.UUID] = mapped_column(Uuid)
    name: Mapped[str] = mapped_column(String(32))
    bot: Mapped[bool] = mapped_column(Boolean, default=False)
    place: Mapped[int | None] = mapped_column(Integer, nullable=True)
    prize: Mapped[int] = mapped_column(BigInteger, default=0)
    #: 1 for the first entry, 2, 3, ... for re-entries after busting
    number: Mapped[int] = mapped_column(Integer, default=1)
    #: bought the add-on (migration 0012)
    addon: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())


class HandStatRow(Base):
    """What one player did in one finished hand, as anyone at the table saw it (no card):
    the counts statistics are sums of (app.history.stats), and the facts "My hands" filters
    on. Written once per hand by the review index, from the hand's record."""

    __tablename__ = "hand_stats"
    __table_args__ = (
        Index("ix_hand_stats_player_serial", "player_id", "serial"),
        Index("ix_hand_stats_table_serial", "table_id", "serial"),
    )

    hand_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("hands.id"), primary_key=True)
    player_id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True)
    table_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("tables.id"))
    serial: Mapped[int] = mapped_column(BigInteger)
    at_table: Mapped[int] = mapped_column(Integer)
    game: Mapped[str] = mapped_column(String(32))
    ended_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    position: Mapped[str] = mapped_column(String(4))  # BTN, SB, BB, UTG, MP, HJ, CO
    net: Mapped[int] = mapped_column(BigInteger)
    #: expected minus won at the all-in (null until the hand's luck is computed)
    luck: Mapped[float | None] = mapped_column(Float, nullable=True)
    all_in: Mapped[bool] = mapped_column(Boolean)
    saw_flop: Mapped[bool] = mapped_column(Boolean)
    showdown: Mapped[bool] = mapped_column(Boolean)
    won_showdown: Mapped[bool] = mapped_column(Boolean)
    vpip_chance: Mapped[bool] = mapped_column(Boolean)
    vpip: Mapped[bool] = mapped_column(Boolean)
    pfr: Mapped[bool] = mapped_column(Boolean)
    three_bet_chance: Mapped[bool] = mapped_column(Boolean)
    three_bet: Mapped[bool] = mapped_column(Boolean)
    cbet_chance: Mapped[bool] = mapped_column(Boolean)
    cbet: Mapped[bool] = mapped_column(Boolean)
    bets_raises: Mapped[int] = mapped_column(Integer)  # after the flop
    calls: Mapped[int] = mapped_column(Integer)  # after the flop


class WatchedRow(Base):
    """A stretch of a table's hands a player watched (connected, not dealt in): its first
    and last hand number at the table (migration 0018). One row per visit that saw a hand,
    at most `app.store.watching.VISITS` per player and table (then the last one grows).
    Written by the table as a hand starts (app/tables/watching.py); "My hands" lists them."""

    __tablename__ = "watched"

    player_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("players.id"), primary_key=True)
    table_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("tables.id"), primary_key=True)
    first_hand: Mapped[int] = mapped_column(Integer, primary_key=True)
    last_hand: Mapped[int] = mapped_column(Integer)


class SignInLinkRow(Base):
    """A personal sign-in link: usable once, until it expires or is revoked. Only the
    token's SHA-256 is kept (the link itself is shown once, and never logged)."""

    __tablename__ = "sign_in_links"

    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    player_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("players.id"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.current_timestamp()
    )
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class DeviceSessionRow(Base):
    """A session of a player on another device, opened with a sign-in link: the player's
    own session (`players.session_token_hash`) stays where it is. Only the token's SHA-256
    is kept."""

    __tablename__ = "device_sessions"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    player_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("players.id"), index=True)
    #: the sign-in link that opened it (revoking the link ends the session)
    link_id: Mapped[uuid.UUID | None] = mapped_column(Uuid, nullable=True)
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.current_timestamp()
    )
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
