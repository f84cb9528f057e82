"""Review's reads and writes: the hand facts behind statistics and "My hands" (`hand_stats`),
stored equities, a session's graph, and a player's closed tables and past tournaments.

Lists read only indexed columns and `hand_stats` (no hand's JSON), newest first by the
server's hand number, the cursor the last number of a page.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import Select, String, and_, cast, exists, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.history.stats import FACT_FIELDS
from app.store.models import (
    HandPlayerRow,
    HandRow,
    HandStatRow,
    TableRow,
    TournamentEntryRow,
    TournamentRow,
    WatchedRow,
)

#: hands indexed per call (each a replay on a thread: a few milliseconds)
INDEX_BATCH = 200
#: a session graph's points at most (a longer session is thinned evenly)
GRAPH_POINTS = 500
#: closed tables and past tournaments listed at most
PAST_MAX = 50


@dataclass(frozen=True)
class HandFilter:
    """What "My hands" may be narrowed to (None: any)."""

    table_id: str | None = None
    game: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    position: str | None = None
    result: str | None = None  # won, lost, showdown, all-in
    number: int | None = None  # the hand's number at its table, or the server's

    def personal(self) -> bool:
        """A filter on what the viewer did: hands they only watched cannot match."""
        return self.position is not None or self.result is not None


def _uuid(value: str) -> uuid.UUID:
    return uuid.UUID(value)


class ReviewStore:
    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self.sessions = sessions

    # ------------------------------------------------------------------ the index
    async def unindexed(
        self, *, table_id: str | None = None, player_id: str | None = None
    ) -> list[int]:
        """Finished hands without facts yet (a table's, or a player's), oldest first."""
        query = (
            select(HandRow.serial)
            .where(HandRow.ended_at.is_not(None))
            .where(~exists().where(HandStatRow.hand_id == HandRow.id))
            .order_by(HandRow.serial)
            .limit(INDEX_BATCH)
        )
        if table_id is not None:
            query = query.where(HandRow.table_id == _uuid(table_id))
        if player_id is not None:
            dealt = select(HandPlayerRow.hand_id).where(HandPlayerRow.player_id == _uuid(player_id))
            hosted = select(TableRow.id).where(TableRow.host_id == _uuid(player_id))
            query = query.where(or_(HandRow.id.in_(dealt), HandRow.table_id.in_(hosted)))
        async with self.sessions() as s:
            return [int(n or 0) for n in await s.scalars(query)]

    async def save_facts(self, rows: list[dict[str, Any]]) -> None:
        """One hand's rows at a time; a hand another process indexed meanwhile is skipped.
        (The hands are read first, on their own: on SQLite a transaction that reads and
        then writes is refused, not queued, when another wrote meanwhile.)"""
        by_hand: dict[int, list[dict[str, Any]]] = {}
        for row in rows:
            by_hand.setdefault(row["serial"], []).append(row)
        async with self.sessions() as s:
            hands = {
                int(h.serial or 0): h
                for h in await s.scalars(select(HandRow).where(HandRow.serial.in_(by_hand)))
            }
        for serial, hand_rows in by_hand.items():
            hand = hands.get(serial)
            if hand is None:
                continue
            luck = hand.luck or {}
            facts = [
                HandStatRow(
                    hand_id=hand.id,
                    player_id=_uuid(row["player_id"]),
                    table_id=hand.table_id,
                    serial=serial,
                    at_table=hand.number,
                    game=hand.game or "",
                    ended_at=hand.ended_at,
                    luck=luck.get(row["player_id"], 0.0) if hand.luck is not None else None,
                    **{k: row[k] for k in FACT_FIELDS},
                )
                for row in hand_rows
            ]
            try:
                async with self.sessions.begin() as s:
                    s.add_all(facts)
            except IntegrityError:
                continue

    async def save_luck(self, luck: dict[int, dict[str, float]]) -> None:
        """Each hand's luck on its facts' rows too (the all-in adjusted net)."""
        async with self.sessions() as s:
            rows = await s.execute(
                select(HandRow.serial, HandRow.id).where(HandRow.serial.in_(luck))
            )
            ids = {int(serial or 0): hand_id for serial, hand_id in rows}
        async with self.sessions.begin() as s:
            for serial, values in luck.items():
                hand_id = ids.get(serial)
                if hand_id is None:
                    continue
                await s.execute(
                    update(HandStatRow).where(HandStatRow.hand_id == hand_id).values(luck=0.0)
                )
                for pid, value in values.items():
                    await s.execute(
                        update(HandStatRow)
                        .where(HandStatRow.hand_id == hand_id, HandStatRow.player_id == _uuid(pid))
                        .values(luck=value)
                    )

    # ----------------------------------------------------------------- equities
    async def equity(self, serial: int) -> dict[str, Any] | None:
        async with self.sessions() as s:
            value: dict[str, Any] | None = await s.scalar(
                select(HandRow.equity).where(HandRow.serial == serial)
            )
            return value

    async def merge_equity(
        self, serial: int, add: Callable[[dict[str, Any] | None], dict[str, Any]]
    ) -> dict[str, Any] | None:
        """Store `add(stored)` as the hand's equities, and return it (None: no such hand).
        The row is held from the read to the write, so a viewer's result stored meanwhile by
        another job (of this process or another) is merged with, never written over."""
        row = HandRow.serial == serial
        async with self.sessions.begin() as s:
            if (await s.connection()).dialect.name == "sqlite":
                # SQLite has no row lock, and a transaction that read first is refused if
                # another wrote meanwhile: take the database's write lock first (a no-op
                # write: waited for, up to the busy timeout, like a row lock).
                await s.execute(update(HandRow).where(row).values(equity=HandRow.equity))
            # FOR NO KEY UPDATE: what an UPDATE of the row takes, not blocking the index's
            # inserts of rows that refer to the hand.
            found = (
                await s.execute(select(HandRow.equity).where(row).with_for_update(key_share=True))
            ).first()
            if found is None:
                return None
            value = add(found.equity)
            await s.execute(update(HandRow).where(row).values(equity=value))
            return value

    # ---------------------------------------------------------------- My hands
    async def my_hands(
        self, player_id: str, where: HandFilter, cursor: int | None, limit: int
    ) -> list[dict[str, Any]]:
        """The viewer's hands, newest first: those they were dealt in (with what they did),
        and, unless the filter is on what they did, those they watched without being dealt
        in: every hand of the tables they host, and those they watched as a spectator
        (`watched`: app/store/watching.py)."""
        pid = _uuid(player_id)
        played = (
            _filtered(
                select(
                    HandStatRow.serial,
                    HandStatRow.net,
                    HandStatRow.position,
                    HandStatRow.showdown,
                    HandStatRow.all_in,
                )
                .join(HandRow, HandRow.id == HandStatRow.hand_id)
                .where(HandStatRow.player_id == pid),
                where,
                cursor,
            )
            .order_by(HandStatRow.serial.desc())
            .limit(limit)
        )
        async with self.sessions() as s:
            out = [
                {
                    "serial": int(r.serial),
                    "net": int(r.net),
                    "position": r.position,
                    "showdown": r.showdown,
                    "all_in": r.all_in,
                    "watched": False,
                }
                for r in await s.execute(played)
            ]
            if not where.personal():
                # Watched: the hands of the tables they host, and those they watched as a
                # spectator (their visits' stretches of a table's hands), each query on its
                # own index; a hand in both (or in two visits) is listed once.
                dealt = select(HandPlayerRow.hand_id).where(HandPlayerRow.player_id == pid)
                hosted = (
                    select(HandRow.serial)
                    .join(TableRow, TableRow.id == HandRow.table_id)
                    .where(TableRow.host_id == pid)
                )
                seen = (
                    select(HandRow.serial)
                    .join(
                        WatchedRow,
                        and_(
                            WatchedRow.table_id == HandRow.table_id,
                            HandRow.number >= WatchedRow.first_hand,
                            HandRow.number <= WatchedRow.last_hand,
                        ),
                    )
                    .where(WatchedRow.player_id == pid)
                )
                listed = {r["serial"] for r in out}
                for query in (hosted, seen):
                    watched = (
                        _filtered(
                            query.where(HandRow.ended_at.is_not(None), HandRow.id.not_in(dealt)),
                            where,
                            cursor,
                        )
                        .order_by(HandRow.serial.desc())
                        .distinct()
                        .limit(limit)
                    )
                    for n in await s.scalars(watched):
                        if n is None or int(n) in listed:
                            continue
                        listed.add(int(n))
                        out.append(
                            {
                                "serial": int(n),
                                "net": None,
                                "position": None,
                                "showdown": None,
                                "all_in": None,
                                "watched": True,
                            }
                        )
        out.sort(key=lambda r: -r["serial"])
        return out[:limit]

    # -------------------------------------------------------------- statistics
    async def fact_rows(
        self,
        *,
        table_id: str | None = None,
        player_id: str | None = None,
        visible_to: str | None = None,
    ) -> list[dict[str, Any]]:
        """Facts of a table's hands, or of a player's hands at the tables `visible_to` may
        see (hosts, or was dealt in at)."""
        query = select(HandStatRow)
        if table_id is not None:
            query = query.where(HandStatRow.table_id == _uuid(table_id))
        if player_id is not None:
            query = query.where(HandStatRow.player_id == _uuid(player_id))
        if visible_to is not None:
            query = query.where(HandStatRow.table_id.in_(_tables_of(visible_to)))
        async with self.sessions() as s:
            rows = await s.scalars(query.order_by(HandStatRow.serial))
            return [_row(r) for r in rows]

    async def graph(self, table_id: str) -> dict[str, Any]:
        """Each player's net after each hand of the table, and the all-in adjusted line."""
        rows = await self.fact_rows(table_id=table_id)
        serials = sorted({r["serial"] for r in rows})
        at_table = {r["serial"]: r["at_table"] for r in rows}
        step = max(1, -(-len(serials) // GRAPH_POINTS))
        kept = serials[step - 1 :: step] if step > 1 else serials
        if serials and (not kept or kept[-1] != serials[-1]):
            kept.append(serials[-1])
        players: dict[str, dict[str, Any]] = {}
        running: dict[str, list[float]] = {}
        by_serial: dict[int, list[dict[str, Any]]] = {}
        for r in rows:
            by_serial.setdefault(r["serial"], []).append(r)
        keep = set(kept)
        for serial in serials:
            for r in by_serial[serial]:
                totals = running.setdefault(r["player_id"], [0.0, 0.0])
                totals[0] += r["net"]
                totals[1] += r["net"] + (r["luck"] or 0.0)
            if serial in keep:
                for pid, (net, adjusted) in running.items():
                    line = players.setdefault(pid, {"player_id": pid, "points": []})
                    line["points"].append(
                        {"hand": at_table[serial], "net": int(net), "adjusted": round(adjusted, 2)}
                    )
        return {"hands": len(serials), "players": list(players.values())}

    # ----------------------------------------------------------- the past
    async def closed_table(self, code: str) -> str | None:
        """The id of the closed table of this invite code (None: no such table, or open)."""
        async with self.sessions() as s:
            tid = await s.scalar(
                select(TableRow.id).where(TableRow.code == code, TableRow.closed_at.is_not(None))
            )
        return str(tid) if tid is not None else None

    async def past(self, player_id: str) -> dict[str, list[dict[str, Any]]]:
        """The player's closed tables (hosted or played at) and finished tournaments."""
        pid = _uuid(player_id)
        async with self.sessions() as s:
            tables = await s.execute(
                select(TableRow.code, TableRow.config, TableRow.closed_at)
                .where(TableRow.closed_at.is_not(None), TableRow.id.in_(_tables_of(player_id)))
                .order_by(TableRow.closed_at.desc())
                .limit(PAST_MAX)
            )
            entered = select(TournamentEntryRow.tournament_id).where(
                TournamentEntryRow.player_id == pid
            )
            tournaments = await s.execute(
                select(
                    TournamentRow.id,
                    TournamentRow.code,
                    TournamentRow.settings,
                    TournamentRow.finished_at,
                    TournamentRow.tables,
                )
                .where(TournamentRow.finished_at.is_not(None))
                .where(or_(TournamentRow.host_id == pid, TournamentRow.id.in_(entered)))
                .order_by(TournamentRow.finished_at.desc())
                .limit(PAST_MAX)
            )
            past_tournaments = []
            for t in tournaments:
                places = await s.execute(
                    select(TournamentEntryRow.place, TournamentEntryRow.prize)
                    .where(TournamentEntryRow.tournament_id == t.id)
                    .where(TournamentEntryRow.player_id == pid)
                    .order_by(TournamentEntryRow.number.desc())
                )
                mine = places.first()
                ids = [uuid.UUID(str(x)) for x in (t.tables or [])]
                # Each table by its name ("Sunday 2"), in the order the tournament opened them.
                # (Opened in one second, they are told apart by name: "Sunday 2" before "10".)
                named = await s.execute(
                    select(TableRow.code, TableRow.config, TableRow.created_at).where(
                        TableRow.id.in_(ids)
                    )
                )
                its_tables = [
                    {"code": row.code, "name": str(row.config.get("name", ""))}
                    for row in sorted(named, key=_opened)
                ]
                past_tournaments.append(
                    {
                        "code": t.code,
                        "name": str((t.settings or {}).get("name", "")),
                        "finished_at": t.finished_at.isoformat(),
                        "place": mine.place if mine else None,
                        "prize": int(mine.prize) if mine else 0,
                        "tables": its_tables,
                    }
                )
        # A finished tournament's tables are listed with it, not again as closed tables.
        with_tournament = {table["code"] for t in past_tournaments for table in t["tables"]}
        return {
            "tables": [
                {
                    "code": t.code,
                    "name": str(t.config.get("name", "")),
                    "game": str(t.config.get("game", "")),
                    "closed_at": t.closed_at.isoformat(),
                }
                for t in tables
                if t.code not in with_tournament
            ],
            "tournaments": past_tournaments,
        }

    async def tournament_of_table(self, table_id: str) -> dict[str, Any] | None:
        """The tournament that played at this table (None: a cash table) and its standings as
        stored: every entry, with its place and prize once placed (None: still in)."""
        # The tournament's tables are a JSON list of ids: matched as text (either database).
        listed = cast(TournamentRow.tables, String).contains(table_id)
        async with self.sessions() as s:
            t = (
                await s.execute(
                    select(
                        TournamentRow.id,
                        TournamentRow.code,
                        TournamentRow.settings,
                        TournamentRow.status,
                    ).where(listed)
                )
            ).first()
            if t is None:
                return None
            entries = await s.execute(
                select(
                    TournamentEntryRow.player_id,
                    TournamentEntryRow.name,
                    TournamentEntryRow.bot,
                    TournamentEntryRow.place,
                    TournamentEntryRow.prize,
                )
                .where(TournamentEntryRow.tournament_id == t.id)
                .order_by(TournamentEntryRow.id)
            )
            rows = [
                {"player_id": str(e.player_id), "name": e.name, "bot": e.bot, "place": e.place,
                 "prize": int(e.prize or 0)}
                for e in entries
            ]  # fmt: skip
        return {
            "code": t.code,
            "name": str((t.settings or {}).get("name", "")),
            "status": t.status,
            "entries": rows,
        }


def _opened(row: Any) -> tuple[datetime, int, str]:
    name = str(row.config.get("name", ""))
    return (row.created_at, len(name), name)


def _tables_of(player_id: str) -> Select[Any]:
    """The tables a player may review: hosted, or dealt in at."""
    pid = _uuid(player_id)
    played = select(HandRow.table_id).join(HandPlayerRow, HandPlayerRow.hand_id == HandRow.id)
    return select(TableRow.id).where(
        or_(TableRow.host_id == pid, TableRow.id.in_(played.where(HandPlayerRow.player_id == pid)))
    )


Query = TypeVar("Query", bound=Select)  # type: ignore[type-arg]


def _filtered(query: Query, where: HandFilter, cursor: int | None) -> Query:
    """`query` (which has HandRow) narrowed by the filter and the cursor."""
    if cursor is not None:
        query = query.where(HandRow.serial < cursor)
    if where.table_id is not None:
        query = query.where(HandRow.table_id == _uuid(where.table_id))
    if where.game is not None:
        query = query.where(HandRow.game == where.game)
    if where.since is not None:
        query = query.where(HandRow.ended_at >= where.since)
    if where.until is not None:
        query = query.where(HandRow.ended_at < where.until)
    if where.number is not None:
        query = query.where(or_(HandRow.number == where.number, HandRow.serial == where.number))
    if where.position is not None:
        query = query.where(HandStatRow.position == where.position)
    if where.result == "won":
        query = query.where(HandStatRow.net > 0)
    elif where.result == "lost":
        query = query.where(HandStatRow.net < 0)
    elif where.result == "showdown":
        query = query.where(HandStatRow.showdown.is_(True))
    elif where.result == "all-in":
        query = query.where(HandStatRow.all_in.is_(True))
    return query


def _row(r: HandStatRow) -> dict[str, Any]:
    out: dict[str, Any] = {k: getattr(r, k) for k in FACT_FIELDS}
    out.update(
        player_id=str(r.player_id),
        table_id=str(r.table_id),
        serial=int(r.serial),
        at_table=int(r.at_table),
        game=r.game,
        luck=r.luck,
    )
    return out
