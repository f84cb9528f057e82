"""REST: a table's ledger and settle-up, for everyone at the table (anyone with its code and a
session). The figures come from the table actor, so the stacks and the ledger are of one
moment and the identity of docs/protocol.md section 7 holds on them. A tournament's table
answers its tournament's standings too (places and prizes), and no settle-up."""

from __future__ import annotations

import csv
import io
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import Response
from pydantic import BaseModel
from sqlalchemy.exc import SQLAlchemyError

from app.api.bodies import JsonRoute
from app.api.history import all_in_luck, review_store
from app.api.identity import PlayerDep
from app.api.limits import check_rate
from app.api.tables import table_by_code
from app.scale.relay import RemoteTable
from app.tables.errors import TableError
from app.tables.ledger import KINDS, ledger_lines, people_nets, settle_up
from app.tables.store_protocol import TableStore
from app.tables.table import Table

router = APIRouter(prefix="/api/tables", tags=["ledger"], route_class=JsonRoute)
LEDGER_TIMEOUT = 15.0


class LedgerLine(BaseModel):
    player_id: str
    name: str
    bot: bool
    seated: bool
    buy_in: int
    top_up: int
    adjustment: int
    cash_out: int
    stack: int
    in_play: int  # chips this player has in the middle of the hand being played
    net: int
    #: the net with each all-in hand's winnings replaced by their expectation at the all-in
    #: (docs/hand-history.md): luck taken out
    all_in_adjusted_net: float = 0.0


class PaymentOut(BaseModel):
    payer: str  # player ids
    payee: str
    amount: int
    text: str  # "Bob pays Alice 35"


class Totals(BaseModel):
    """Both sides of the ledger identity: `chips_in` == `on_table` + `cashed_out`."""

    chips_in: int  # buy-ins + top-ups + adjustments
    on_table: int  # stacks + chips in the middle
    cashed_out: int


class AdjustmentOut(BaseModel):
    """One host adjustment as entered in the ledger (those made during a hand are entered
    as one when it ends, their reasons joined by "; ")."""

    player_id: str
    name: str
    amount: int
    reason: str


class Unsettled(BaseModel):
    """The part of a person's net that nobody pays: won from or lost to the practice bots."""

    player_id: str
    name: str
    amount: int


class Standing(BaseModel):
    """One entry of a tournament: its place and prize once placed (None: still in), and
    the chips in front of a player still in at this table (None elsewhere or out)."""

    place: int | None
    player_id: str
    name: str
    bot: bool
    prize: int
    chips: int | None = None


class TournamentStandings(BaseModel):
    """A tournament table's result: the tournament's places and prizes, never a settle-up
    (its chips are tournament chips, nobody's money)."""

    code: str
    name: str
    status: str
    standings: list[Standing]


class Ledger(BaseModel):
    players: list[LedgerLine]
    totals: Totals
    #: between people only: a practice bot is never paid and never pays
    payments: list[PaymentOut]
    adjustments: list[AdjustmentOut] = []
    bots_net: int = 0  # what the practice bots won (negative: lost), all together
    unsettled: list[Unsettled] = []
    #: a tournament's table: its standings, and no payments (its chips are nobody's money)
    tournament: TournamentStandings | None = None


async def read_ledger(
    table: Table | RemoteTable, store: TableStore, luck: dict[str, float] | None = None
) -> Ledger:
    """The table's ledger from its owner (maybe through the relay) and the adjustments'
    reasons from the shared store."""
    try:
        result = await table.request("ledger", None)
    except TableError as error:
        raise HTTPException(503, detail={"code": error.code, "message": error.message}) from None
    return await _ledger(table.id, result["players"], store, luck)


async def table_ledger(request: Request, code: str) -> Ledger:
    """A table's ledger by its invite code. A closed table has no owner any more: its close
    cashed every seat out, so the stored entries alone give every line (nothing seated,
    nothing in play), and the home page's "Closed tables" link it."""
    store: TableStore = request.app.state.table_store
    try:
        table = await table_by_code(request, code)
    except HTTPException as error:
        table_id = await review_store(request).closed_table(code) if len(code) <= 64 else None
        if error.status_code != 404 or table_id is None:
            raise
        try:
            totals = await store.ledger_totals(table_id)
        except (SQLAlchemyError, OSError):
            raise HTTPException(
                503, detail={"code": "unavailable", "message": "the database did not answer"}
            ) from None
        luck = await all_in_luck(request, table_id)
        found = await _ledger(table_id, ledger_lines(totals, {}), store, luck)
    else:
        table_id = table.id
        found = await read_ledger(table, store, await all_in_luck(request, table.id))
    return await with_standings(request, table_id, found)


async def with_standings(request: Request, table_id: str, ledger: Ledger) -> Ledger:
    """A tournament table's ledger as its players read it: the tournament's standings (the
    stored places and prizes; the chips of those still in at this table), no settle-up."""
    try:
        played = await review_store(request).tournament_of_table(table_id)
    except (SQLAlchemyError, OSError):
        raise HTTPException(
            503, detail={"code": "unavailable", "message": "the database did not answer"}
        ) from None
    if played is None:
        return ledger
    here = {line.player_id: line.stack + line.in_play for line in ledger.players if line.seated}
    last: dict[str, dict[str, Any]] = {}
    for entry in played["entries"]:  # a re-entry's row stands for its player (the latest)
        last[entry["player_id"]] = entry
    rows = [
        Standing(**e, chips=here.get(e["player_id"]) if e["place"] is None else None)
        for e in played["entries"]
        if e["place"] is not None or last[e["player_id"]] is e
    ]
    # Those still in first (most chips first), then by place.
    rows.sort(key=lambda r: (r.place is not None, r.place or 0, -(r.chips or 0), r.name))
    standings = TournamentStandings(
        code=played["code"], name=played["name"], status=played["status"], standings=rows
    )
    return ledger.model_copy(
        update={"tournament": standings, "payments": [], "unsettled": [], "bots_net": 0}
    )


async def _ledger(
    table_id: str, rows: list[dict[str, Any]], store: TableStore, luck: dict[str, float] | None
) -> Ledger:
    lines = [LedgerLine(**row) for row in rows]
    for line in lines:
        line.all_in_adjusted_net = round(line.net + (luck or {}).get(line.player_id, 0.0), 2)
    names = {line.player_id: line.name for line in lines}
    bots = {line.player_id for line in lines if line.bot}
    settled, left = people_nets({line.player_id: line.net for line in lines}, bots)
    payments = [
        PaymentOut(
            payer=p.payer,
            payee=p.payee,
            amount=p.amount,
            text=f"{names[p.payer]} pays {names[p.payee]} {p.amount}",
        )
        for p in settle_up(settled)
    ]
    unsettled = [
        Unsettled(player_id=pid, name=names[pid], amount=amount)
        for pid, amount in sorted(left.items(), key=lambda x: (-abs(x[1]), names[x[0]]))
    ]
    totals = Totals(
        chips_in=sum(line.buy_in + line.top_up + line.adjustment for line in lines),
        on_table=sum(line.stack + line.in_play for line in lines),
        cashed_out=sum(line.cash_out for line in lines),
    )
    try:
        entered = await store.adjustments(table_id)
    except (SQLAlchemyError, OSError):  # a database that does not answer: typed, as above
        raise HTTPException(
            503, detail={"code": "unavailable", "message": "the database did not answer"}
        ) from None
    adjustments = [AdjustmentOut(**vars(a)) for a in entered]
    return Ledger(
        players=lines,
        totals=totals,
        payments=payments,
        adjustments=adjustments,
        bots_net=sum(line.net for line in lines if line.bot),
        unsettled=unsettled,
    )


@router.get("/{code}/ledger", response_model=Ledger)
async def ledger(code: str, request: Request, player: PlayerDep) -> Ledger:
    """Per player: buy-ins, top-ups, adjustments, cash-outs, stack, chips in play and net
    (bots marked), the identity's totals, and the fewest payments between people that square
    every person's net (a practice bot's result is apart: `bots_net`, `unsettled`)."""
    await check_rate(request.app.state.read_rate, request, "reads")
    return await table_ledger(request, code)


def _csv(rows: list[list[Any]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    for row in rows:
        # A cell starting like a formula is quoted as text for spreadsheets (names are free).
        writer.writerow(
            ["'" + c if isinstance(c, str) and c[:1] in ("=", "+", "-", "@") else c for c in row]
        )
    return out.getvalue()


@router.get("/{code}/ledger.csv", response_class=Response)
async def ledger_csv(code: str, request: Request, player: PlayerDep) -> Response:
    """The ledger as CSV: one row per player, then the settle-up payments, then the host's
    adjustments with their reasons, then (with practice bots) what nobody pays."""
    await check_rate(request.app.state.read_rate, request, "reads")
    data = await table_ledger(request, code)
    if data.tournament is not None:
        return _standings_csv(code, data.tournament)
    header = ["player_id", "name", "bot", "seated", *KINDS, "stack", "in_play", "net",
              "all_in_adjusted_net"]  # fmt: skip
    rows: list[list[Any]] = [header]
    for line in data.players:
        rows.append([getattr(line, column) for column in header])
    rows.append([])
    rows.append(["payer", "payee", "amount", "text"])
    for p in data.payments:
        rows.append([names_of(data, p.payer), names_of(data, p.payee), p.amount, p.text])
    rows.append([])
    rows.append(["adjusted", "amount", "reason"])
    for a in data.adjustments:
        rows.append([a.name, a.amount, a.reason])
    if data.unsettled:  # won from or lost to the practice bots: nobody pays it
        rows.append([])
        rows.append(["not_settled", "amount"])
        for u in data.unsettled:
            rows.append([u.name, u.amount])
    return Response(
        _csv(rows),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="ledger-{code[:8]}.csv"'},
    )


def _standings_csv(code: str, t: TournamentStandings) -> Response:
    """A tournament table's CSV: the standings (place, player, prize; chips of those in)."""
    rows: list[list[Any]] = [["place", "player", "bot", "prize", "chips"]]
    for r in t.standings:
        rows.append([r.place if r.place is not None else "", r.name, r.bot, r.prize,
                     r.chips if r.chips is not None else ""])  # fmt: skip
    return Response(
        _csv(rows),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="standings-{code[:8]}.csv"'},
    )


def names_of(data: Ledger, player_id: str) -> str:
    return next(line.name for line in data.players if line.player_id == player_id)
