"""REST: create a table, list the viewer's tables, read a table's public state."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from typing import Any, TypeVar

from fastapi import APIRouter, HTTPException, Request
from pydantic import BaseModel

from app.api.bodies import JsonRoute
from app.api.deps import PresenceDep
from app.api.identity import PlayerDep
from app.api.limits import check_rate
from app.config import Settings
from app.presence import players_online
from app.scale.placement import Placed, Placement
from app.scale.relay import RemoteTable, facts, find_or_relay
from app.store.tables import SqlTableStore
from app.tables.config import TableConfig
from app.tables.errors import TableError
from app.tables.labels import table_labels
from app.tables.registry import TableRegistry
from app.tables.table import Table
from app.tables.views import table_view

router = APIRouter(prefix="/api/tables", tags=["tables"], route_class=JsonRoute)
log = logging.getLogger("omaha.api")
T = TypeVar("T")


async def stored(request: Request, query: Awaitable[T]) -> T:
    """A read of the database, or 503 `unavailable` when it is down or does not answer in
    STORE_TIMEOUT (not a 500, and not a request hanging on a frozen server)."""
    settings: Settings = request.app.state.settings
    # In a task of its own: a cancelled read may hang in its rollback on a frozen server.
    task = asyncio.ensure_future(query)
    done, _ = await asyncio.wait((task,), timeout=settings.store_timeout)
    if not done:
        task.cancel()
    elif (error := task.exception()) is None:
        return task.result()
    log.warning("a table read failed (%s)", "timeout" if not done else type(error).__name__)
    detail = {"code": "unavailable", "message": "the database does not answer; try again"}
    raise HTTPException(503, detail=detail)


def registry(request: Request) -> TableRegistry:
    reg: TableRegistry = request.app.state.tables
    return reg


def store(request: Request) -> SqlTableStore:
    s: SqlTableStore = request.app.state.table_store
    return s


class Created(BaseModel):
    id: str
    code: str
    invite_url: str
    websocket: str


class TableSummary(BaseModel):
    code: str
    name: str
    game: str
    betting: str
    #: the game as a table's title line shows it (app.tables.labels), and the stakes
    label: str
    blinds: str
    seats: int
    seated: int
    online: int | None  # None: presence is not answering (Redis down)
    host: bool
    hand_running: bool


def summary(table: dict[str, Any], player_id: str, online: int | None) -> TableSummary:
    """From the table's `facts` (app.scale.relay: here, or from the process that runs it)."""
    c = TableConfig.model_validate(table["config"])
    labels = table_labels(c)
    return TableSummary(
        code=table["code"],
        name=c.name,
        game=c.game,
        betting=str(c.betting),
        label=labels["game"],
        blinds=labels["stakes"],
        seats=c.seats,
        seated=table["seated"],
        online=online,
        host=table["host_id"] == player_id,
        hand_running=table["hand_running"],
    )


def public_base(request: Request) -> str:
    """The server's address for links, with a trailing slash: PUBLIC_URL, else the address
    this request reached (its Host was checked by `HostCheck`)."""
    settings: Settings = request.app.state.settings
    if settings.public_url:
        return settings.public_url + "/"
    return str(request.base_url)


@router.post("", response_model=Created, status_code=201)
async def create_table(config: TableConfig, request: Request, player: PlayerDep) -> Created:
    """Create a table; its creator is the host. The invite link carries an unguessable code."""
    settings: Settings = request.app.state.settings
    if config.tournament:  # a tournament's tables are its director's
        raise HTTPException(
            422,
            detail={"code": "bad_config", "message": "a tournament makes its own tables"},
        )
    if await store(request).hosted_open_tables(str(player.id)) >= settings.tables_per_host:
        raise HTTPException(
            429,
            detail={
                "code": "too_many_tables",
                "message": f"you host {settings.tables_per_host} open tables: close one first",
            },
        )
    await check_rate(request.app.state.table_rate, request, "tables")
    placement: Placement | None = request.app.state.placement
    if placement is not None:  # several processes: the least loaded one runs it
        table: Placed | Table = await placement.create(str(player.id), config)
    else:
        table = await registry(request).create(str(player.id), config)
    base = public_base(request)
    ws_base = base.replace("http", "ws", 1)
    return Created(
        id=table.id,
        code=table.code,
        invite_url=f"{base}t/{table.code}",
        websocket=f"{ws_base}ws/tables/{table.code}",
    )


@router.get("", response_model=list[TableSummary])
async def my_tables(request: Request, player: PlayerDep, presence: PresenceDep) -> list[Any]:
    """The tables the viewer hosts or sits at, newest first, with who is online."""
    out = []
    reg = registry(request)
    relay = request.app.state.relay
    for table_id in await stored(request, store(request).tables_of(str(player.id))):
        try:
            table = await find_or_relay(relay, reg, table_id)
            known = facts(table) if isinstance(table, Table) else await table.request("facts")
        except TableError:
            continue
        online = await players_online(presence, table_id)
        out.append(summary(known, str(player.id), None if online is None else len(online)))
    return out


async def table_by_code(request: Request, code: str) -> Table | RemoteTable:
    """The table of an invite code: here, or relayed to the process that runs it."""
    if len(code) > 64:
        raise HTTPException(404, detail={"code": "no_such_table", "message": "no such table"})
    table_id = await stored(request, store(request).table_by_code(code))
    try:
        if table_id is None:
            raise TableError("no_such_table", "no such table")
        return await find_or_relay(request.app.state.relay, registry(request), table_id, code)
    except TableError as error:
        status = 503 if error.code == "unavailable" else 404
        raise HTTPException(status, detail={"code": error.code, "message": error.message}) from None


@router.get("/{code}")
async def public_state(code: str, request: Request, presence: PresenceDep) -> dict[str, Any]:
    """What anyone with the invite link sees: seats, stacks, the hand without hole cards, who
    of the seated is online (player id -> seat; `online` itself is null while presence does
    not answer) and how many spectators watch (no spectator's player id: a spectator is
    nobody's business)."""
    table = await table_by_code(request, code)
    try:
        view = table_view(table, None) if isinstance(table, Table) else await table.request("view")
    except TableError as error:
        raise HTTPException(503, detail={"code": error.code, "message": error.message}) from None
    view["type"] = "table_state"
    online = await players_online(presence, table.id)
    if online is None:
        view["online"], view["spectators"] = None, None
    else:
        view["online"] = {pid: seat for pid, seat in online.items() if seat is not None}
        view["spectators"] = sum(1 for seat in online.values() if seat is None)
    return view
