"""REST for reviewing afterwards: "My hands", each street's equity, statistics per player,
a session's graph, and a player's closed tables and past tournaments.

Every answer here is personal (`Cache-Control: private, no-store`) and made from what the
viewer may see: hand lists from their own hands (and the hands they watched, as spectators
see them), statistics from spectator records (no unshown card), equities from the hands
they may see.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from datetime import date, datetime, timedelta
from functools import reduce
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from sqlalchemy import select

from app.api.bodies import JsonRoute
from app.api.history import (
    PRIVATE,
    CodeQuery,
    CursorQuery,
    GameQuery,
    LimitQuery,
    _cursor,
    _error,
    _game,
    _table_id,
    all_in_luck,
    authorize,
    hand_lock,
    hand_lock_of,
    history,
    history_of,
    review_of,
    review_store,
)
from app.api.identity import MaybePlayerDep, PlayerDep
from app.history.equity import SPECTATOR, answer, compute, every_view, merged
from app.history.index import Index
from app.history.record import StoredHand, replay
from app.history.stats import Totals, totals
from app.history.work import Busy, Workers, workers
from app.poker.cards import card_str
from app.store.models import Player
from app.store.review import HandFilter

router = APIRouter(tags=["review"], route_class=JsonRoute)
log = logging.getLogger("omaha.review")

#: how long an equity request waits for the worker before it answers `pending`
EQUITY_WAIT = 2.0
#: answers kept per process (the stored ones are read once)
EQUITY_CACHE = 1024
POSITIONS = ("BTN", "SB", "BB", "UTG", "MP", "HJ", "CO")
RESULTS = ("won", "lost", "showdown", "all-in")


def index(request: Request) -> Index:
    found: Index | None = getattr(request.app.state, "review_index", None)
    if found is None:
        found = request.app.state.review_index = Index(history(request), review_store(request))
    return found


# ---------------------------------------------------------------------- equity
def _cache(request: Request) -> OrderedDict[tuple[int, str], dict[str, Any]]:
    found: OrderedDict[tuple[int, str], dict[str, Any]] | None = getattr(
        request.app.state, "equity_cache", None
    )
    if found is None:
        found = request.app.state.equity_cache = OrderedDict()
    return found


async def _compute_and_store(
    request: Request, number: int, viewer: str | None, who: str
) -> dict[str, Any] | None:
    """The viewer's equities computed in the worker and merged into the hand's stored ones
    (`hands.equity` after, None if the hand is gone). One job of a hand at a time in this
    process: the next reads what the first stored (the all-in equity is the hand's, computed
    once), or finds its own answer there (another process's job computed it)."""
    store = review_store(request)
    async with hand_lock(request, number):
        equity = await store.equity(number)
        if answer(equity, who) is not None:
            return equity
        fresh = not equity or "all_in" not in equity
        (stored,) = await history(request).hands([number])  # the deck: only to compute
        result = await workers(request.app.state).call(compute, stored, viewer, fresh)
        equity = await store.merge_equity(number, lambda before: merged(before, result))
    if result.get("luck") is not None:
        await history(request).save_luck({number: result["luck"]})
        await store.save_luck({number: result["luck"]})
    return equity


def prepare_equity(state: Any, table_id: str, hand_id: str) -> None:
    """A table's all-in hand ended, stored (`Table.on_all_in`): its equities for everyone
    who may ask (a spectator, each person dealt in) and its all-in equity and luck are
    computed in the worker now and stored with the hand, so the first viewer (and the
    ledger) finds them ready. Only when the worker has nothing else to do: it never delays
    a viewer's request (a hand skipped is computed when first asked for, as before). Never
    raises nor waits: the table calls it."""
    pool = workers(state)
    if not pool.idle():
        return
    job = pool.run(("prepare", hand_id), lambda: _prepare(state, pool, hand_id))
    job.add_done_callback(_logged)


async def _prepare(state: Any, pool: Workers, hand_id: str) -> None:
    history, review = history_of(state), review_of(state)
    number = await history.serial_of(hand_id)
    if number is None:  # not stored as ended after all (a table that reloaded meanwhile)
        return
    async with hand_lock_of(state, number):
        stored = await review.equity(number)
        fresh = not stored or "all_in" not in stored  # else the ledger's job came first
        (hand,) = await history.hands([number])  # the deck: only to compute
        views = await pool.call(every_view, hand, fresh)
        await review.merge_equity(number, lambda before: reduce(merged, views, before or {}))
    if fresh:
        await history.save_luck({number: views[0]["luck"]})
        await review.save_luck({number: views[0]["luck"]})


def _logged(job: asyncio.Future[None]) -> None:
    if not job.cancelled() and (error := job.exception()) is not None:
        log.error("an all-in hand's equities were not computed (%s)", type(error).__name__)


@router.get("/api/hands/{number}/equity")
async def hand_equity(
    number: int, request: Request, player: MaybePlayerDep, code: CodeQuery = None
) -> JSONResponse:
    """Each street's equity for the hands the viewer may see (their own and the shown
    ones; the others are random hands to it), and the all-in equity. Computed once, off
    the event loop, and stored: `202 {"status": "pending"}` meanwhile (ask again), and
    `202 {"status": "busy"}` when the worker's queue is full (ask again later: an expected
    wait, not a failure, which a 5xx would log in every browser's console)."""
    access, viewer = await authorize(request, number, player, code)
    who = viewer if viewer is not None and viewer in access.players else SPECTATOR
    cache = _cache(request)
    headers = {"Cache-Control": PRIVATE}
    if (number, who) in cache:
        cache.move_to_end((number, who))
        return JSONResponse(cache[(number, who)], headers=headers)
    ready = answer(await review_store(request).equity(number), who)
    if ready is None:
        try:
            job = workers(request.app.state).run(
                ("equity", number, who), lambda: _compute_and_store(request, number, viewer, who)
            )
        except Busy as busy:
            return JSONResponse(
                {"status": "busy", "detail": {"code": "busy", "message": str(busy)}},
                status_code=202,
                headers={**headers, "Retry-After": "2"},
            )
        try:
            equity = await asyncio.wait_for(asyncio.shield(job), EQUITY_WAIT)
        except TimeoutError:
            return JSONResponse({"status": "pending"}, status_code=202, headers=headers)
        ready = answer(equity, who)
        if ready is None:  # the hand's row is gone
            raise _error(503, "unavailable", "the equity could not be stored")
    cache[(number, who)] = ready
    while len(cache) > EQUITY_CACHE:
        cache.popitem(last=False)
    return JSONResponse(ready, headers=headers)


@router.get("/api/tables/{code}/hands/{at_table}")
async def hand_at_table(
    code: str, at_table: int, request: Request, response: Response, player: MaybePlayerDep
) -> dict[str, Any]:
    """A hand by the number players say (`/t/<code>/h/<n>`): the table's hand `at_table`,
    as `GET /api/hands/{number}?code=` gives it (its `number` is the stable id)."""
    from app.api.history import one_hand

    table_id = await _table_id(request, code)
    serial = await history(request).serial_at(table_id, at_table) if at_table > 0 else None
    if serial is None:
        raise _error(404, "no_such_hand", "no such hand at this table")
    return await one_hand(serial, request, response, player, code)


# -------------------------------------------------------------------- My hands
class MyHand(BaseModel):
    number: int  # the server's: the stable id in links
    hand_at_table: int
    table: str
    code: str
    game: str
    pot: int
    ended_at: str
    watched: bool  # not dealt in: watched as a spectator, or at a table the viewer hosts
    position: str | None
    net: int | None
    showdown: bool | None
    all_in: bool | None
    cards: list[str] | None  # the viewer's own, when dealt in
    boards: list[list[list[str]]]


class MyHandPage(BaseModel):
    hands: list[MyHand]
    next: str | None
    indexing: bool  # older hands are still being indexed: ask again for them


PositionQuery = Annotated[str | None, Query(description="BTN, SB, BB, UTG, MP, HJ, CO")]
ResultQuery = Annotated[str | None, Query(description="won, lost, showdown, all-in")]
DateQuery = Annotated[date | None, Query(description="YYYY-MM-DD (UTC)")]
NumberQuery = Annotated[int | None, Query(ge=1, le=10**15, description="a hand number")]
TableQuery = Annotated[str | None, Query(max_length=64, description="a table's code")]


def _details(hands: list[StoredHand], viewer: str) -> dict[int, dict[str, Any]]:
    out = {}
    for stored in hands:
        hand = replay(stored)
        p = hand.position_of_player(viewer)
        state = hand.state
        out[stored.serial] = {
            "cards": [card_str(c) for c in state.hole[p]] if p is not None else None,
            "boards": [[[card_str(c) for c in b] for b in run] for run in state.boards],
        }
    return out


@router.get("/api/hands", response_model=MyHandPage)
async def my_hands(
    request: Request,
    response: Response,
    player: PlayerDep,
    table: TableQuery = None,
    game: GameQuery = None,
    since: DateQuery = None,
    until: DateQuery = None,
    position: PositionQuery = None,
    result: ResultQuery = None,
    number: NumberQuery = None,
    cursor: CursorQuery = None,
    limit: LimitQuery = 50,
) -> MyHandPage:
    """Every hand the viewer played, at every table, and those they watched (as a spectator,
    or at a table they host) as a spectator saw them, newest first, a page at a time (`next`
    is the cursor): each with their cards, the boards, the pot and their net. Filters: a
    table (its code), a game, dates (`since`/`until`, days in UTC, `until` included), a
    position, a result, a number."""
    if position is not None and position not in POSITIONS:
        raise _error(422, "bad_position", f"position is one of {', '.join(POSITIONS)}")
    if result is not None and result not in RESULTS:
        raise _error(422, "bad_result", f"result is one of {', '.join(RESULTS)}")
    viewer = str(player.id)
    table_id = await _table_id(request, table) if table is not None else None

    def day(d: date | None, shift: int) -> datetime | None:
        return None if d is None else datetime(d.year, d.month, d.day) + timedelta(days=shift)

    where = HandFilter(table_id, _game(game), day(since, 0), day(until, 1), position, result,
                       number)  # fmt: skip
    done = await index(request).ensure(player_id=viewer)
    rows = await review_store(request).my_hands(viewer, where, _cursor(cursor), limit + 1)
    more = len(rows) > limit
    rows = rows[:limit]
    serials = [r["serial"] for r in rows]
    summaries = {h.number: h for h in await history(request).summaries(serials)}
    details = await asyncio.to_thread(_details, await history(request).hands(serials), viewer)
    hands = []
    for r in rows:
        h = summaries[r["serial"]]
        hands.append(
            MyHand(
                number=h.number,
                hand_at_table=h.hand_at_table,
                table=h.table,
                code=h.code,
                game=h.game,
                pot=h.pot,
                ended_at=h.ended_at.isoformat(),
                watched=r["watched"],
                position=r["position"],
                net=r["net"],
                showdown=r["showdown"],
                all_in=r["all_in"],
                **details[r["serial"]],
            )
        )
    response.headers["Cache-Control"] = PRIVATE
    return MyHandPage(hands=hands, next=str(serials[-1]) if more else None, indexing=not done)


# ------------------------------------------------------------------ statistics
async def _names(request: Request, ids: set[str]) -> dict[str, str]:
    import uuid

    async with request.app.state.sessions() as s:
        rows = await s.execute(
            select(Player.id, Player.display_name).where(Player.id.in_([uuid.UUID(i) for i in ids]))
        )
        return {str(r.id): r.display_name for r in rows}


def _players(figures: dict[str, Any], names: dict[str, str]) -> list[dict[str, Any]]:
    out = [
        {
            "player_id": pid,
            "name": names.get(pid, "?"),
            "all": games["all"],
            "games": {g: f for g, f in games.items() if g != "all"},
        }
        for pid, games in figures.items()
    ]
    return sorted(out, key=lambda p: (-p["all"]["hands"], p["name"]))


@router.get("/api/tables/{code}/stats")
async def table_stats(
    code: str, request: Request, response: Response, player: PlayerDep
) -> dict[str, Any]:
    """The session's statistics: per player over the table's hands, and per game
    (docs/hand-history.md has the definitions). Open to anyone with the code, as the
    ledger; no figure is made from an unshown card."""
    table_id = await _table_id(request, code)
    done = await index(request).ensure(table_id=table_id)
    figures = totals(await review_store(request).fact_rows(table_id=table_id))
    response.headers["Cache-Control"] = PRIVATE
    names = await _names(request, set(figures))
    return {"players": _players(figures, names), "indexing": not done}


@router.get("/api/players/{player_id}/stats")
async def player_stats(
    player_id: str, request: Request, response: Response, player: PlayerDep
) -> dict[str, Any]:
    """A player's statistics over the hands the viewer may review (the hands they were
    dealt in, and those of the tables they host), overall and per game."""
    import uuid

    try:
        target = str(uuid.UUID(player_id))
    except ValueError:
        raise _error(404, "no_such_player", "no such player") from None
    viewer = str(player.id)
    done = await index(request).ensure(player_id=viewer)
    rows = await review_store(request).fact_rows(player_id=target, visible_to=viewer)
    figures = totals(rows)
    names = await _names(request, {target})
    if target not in names:
        raise _error(404, "no_such_player", "no such player")
    response.headers["Cache-Control"] = PRIVATE
    games = figures.get(target, {})
    return {
        "player_id": target,
        "name": names[target],
        "all": games.get("all", Totals().figures()),
        "games": {g: f for g, f in games.items() if g != "all"},
        "indexing": not done,
    }


@router.get("/api/tables/{code}/graph")
async def table_graph(
    code: str, request: Request, response: Response, player: PlayerDep
) -> dict[str, Any]:
    """Each player's net over the session's hands (the hand's number at the table), with
    the all-in adjusted line; at most 500 points a player (a longer session is thinned)."""
    table_id = await _table_id(request, code)
    done = await index(request).ensure(table_id=table_id)
    # The adjusted line needs each all-in hand's luck: asked for here too, not only by the
    # ledger (computed in the background; until then a hand's adjusted point is its net).
    await all_in_luck(request, table_id)
    graph = await review_store(request).graph(table_id)
    names = await _names(request, {p["player_id"] for p in graph["players"]})
    for line in graph["players"]:
        line["name"] = names.get(line["player_id"], "?")
    response.headers["Cache-Control"] = PRIVATE
    return {**graph, "indexing": not done}


# --------------------------------------------------------------------- the past
@router.get("/api/me/past")
async def my_past(request: Request, response: Response, player: PlayerDep) -> dict[str, Any]:
    """The viewer's closed tables (hosted or played at) and finished tournaments, newest
    first: each table's ledger and session exports are under `/api/tables/{code}/...`."""
    response.headers["Cache-Control"] = PRIVATE
    return await review_store(request).past(str(player.id))
