"""REST for hand histories: lists newest first by cursor, one hand, exports, the ledger.

Who sees what: a table's hands are open to whoever has its invite code (as its live state
is); one hand to the players dealt in, the table's host, or whoever gives the table's code.
Every answer is built for the viewer by the live table's redaction rule
(`app.history.record`): nobody, the host included, gets a folded or mucked hand of someone
else, and the deck order never leaves the server.
"""

from __future__ import annotations

import asyncio
from contextlib import AsyncExitStack
from dataclasses import dataclass
from functools import partial
from typing import Annotated, Any
from weakref import WeakValueDictionary

from fastapi import APIRouter, HTTPException, Query, Request, Response
from fastapi.responses import PlainTextResponse
from pydantic import BaseModel

from app.api.bodies import JsonRoute
from app.api.identity import MaybePlayerDep
from app.api.limits import check_rate
from app.history.equity import all_in_of_hands, merged_all_in
from app.history.phh import phh_hand, phhs_session
from app.history.pokerstars import export_hand, export_session
from app.history.record import StoredHand, build
from app.history.work import Busy, workers
from app.poker import GAMES
from app.store.history import PAGE_MAX, HandAccess, HistoryStore
from app.store.models import Player
from app.store.review import ReviewStore

router = APIRouter(tags=["hand history"], route_class=JsonRoute)


#: personal answers: never kept by a shared cache, nor by the browser
PRIVATE = "private, no-store"


def review_store(request: Request) -> ReviewStore:
    return review_of(request.app.state)


def review_of(state: Any) -> ReviewStore:
    """The app's review store (`app.state.review`), made on first use."""
    store: ReviewStore | None = getattr(state, "review", None)
    if store is None:
        store = state.review = ReviewStore(state.sessions)
    return store


def history(request: Request) -> HistoryStore:
    return history_of(request.app.state)


def history_of(state: Any) -> HistoryStore:
    """The app's history store (`app.state.history`), made on first use."""
    store: HistoryStore | None = getattr(state, "history", None)
    if store is None:
        store = state.history = HistoryStore(state.sessions)
    return store


class HandItem(BaseModel):
    number: int
    table: str
    code: str
    hand_at_table: int
    game: str
    pot: int
    started_at: str
    ended_at: str


class HandPage(BaseModel):
    hands: list[HandItem]
    next: str | None  # the cursor of the next page (older hands), null at the end


def _error(status: int, code: str, message: str) -> HTTPException:
    return HTTPException(status, detail={"code": code, "message": message})


def _cursor(cursor: str | None) -> int | None:
    if cursor is None:
        return None
    if not cursor.isdigit() or len(cursor) > 18:
        raise _error(422, "bad_cursor", "the cursor is the `next` of the previous page")
    return int(cursor)


def _game(game: str | None) -> str | None:
    if game is not None and game not in GAMES:
        raise _error(422, "bad_game", f"unknown game {game!r}; one of: {', '.join(GAMES)}")
    return game


GameQuery = Annotated[str | None, Query(description="only hands of this game")]
MinPotQuery = Annotated[int | None, Query(ge=0, le=10**15, description="only pots this big")]
CursorQuery = Annotated[str | None, Query(max_length=18, description="`next` of a page")]
LimitQuery = Annotated[int, Query(ge=1, le=PAGE_MAX)]


def _page(items: list[Any], limit: int) -> HandPage:
    more = len(items) > limit
    items = items[:limit]
    return HandPage(
        hands=[HandItem(**i.to_json()) for i in items],
        next=str(items[-1].number) if more and items else None,
    )


async def _table_id(request: Request, code: str) -> str:
    from app.api.tables import store

    table_id = await store(request).table_by_code(code) if len(code) <= 64 else None
    if table_id is None:
        raise _error(404, "no_such_table", "no such table")
    return table_id


@router.get("/api/tables/{code}/hands", response_model=HandPage)
async def table_hands(
    code: str,
    request: Request,
    game: GameQuery = None,
    min_pot: MinPotQuery = None,
    cursor: CursorQuery = None,
    limit: LimitQuery = 50,
) -> HandPage:
    """A table's finished hands, newest first, a page at a time (`next` is the cursor)."""
    table_id = await _table_id(request, code)
    items = await history(request).table_hands(
        table_id, game=_game(game), min_pot=min_pot, cursor=_cursor(cursor), limit=limit + 1
    )
    return _page(items, limit)


async def _open(
    request: Request, number: int, player: Player | None, code: str | None
) -> tuple[StoredHand, str | None]:
    opened = await open_hand(request, number, player, code)
    return opened.stored, opened.viewer


@dataclass(frozen=True)
class Opened:
    stored: StoredHand
    viewer: str | None
    dealt: bool  # the viewer was dealt in
    code: str  # the table's invite code (everyone who may open the hand may know it)


async def authorize(
    request: Request, number: int, player: Player | None, code: str | None
) -> tuple[HandAccess, str | None]:
    """Who may open the hand (and the viewer), or 404 to anyone who may not."""
    viewer = str(player.id) if player is not None else None
    access: HandAccess | None = await history(request).access(number) if number > 0 else None
    allowed = access is not None and (
        (viewer is not None and (viewer in access.players or viewer == access.host_id))
        or (code is not None and code == access.code)
    )
    if not allowed:  # the same answer whether it exists or not
        raise _error(404, "no_such_hand", "no such hand, or not one you may see")
    assert access is not None
    return access, viewer


async def open_hand(
    request: Request, number: int, player: Player | None, code: str | None
) -> Opened:
    """The stored hand as the viewer opens it; 404 to anyone who may not."""
    access, viewer = await authorize(request, number, player, code)
    (stored,) = await history(request).hands([number])
    return Opened(stored, viewer, viewer is not None and viewer in access.players, access.code)


CodeQuery = Annotated[str | None, Query(max_length=64, description="the table's invite code")]


@router.get("/api/hands/{number}")
async def one_hand(
    number: int, request: Request, response: Response, player: MaybePlayerDep,
    code: CodeQuery = None,
) -> dict[str, Any]:  # fmt: skip
    """One hand in full, as the viewer may see it: seats, every step, boards, pots, and the
    all-in equity once computed (`GET /api/hands/{number}/equity` computes it, with each
    street's). Open to its players, the table's host, and whoever gives `code`."""
    opened = await open_hand(request, number, player, code)
    record = await asyncio.to_thread(build, opened.stored, opened.viewer, equity=False)
    record["equity"] = ((await review_store(request).equity(number)) or {}).get("all_in")
    record["table"]["code"] = opened.code  # the way back to the table
    response.headers["Cache-Control"] = PRIVATE
    return record


@router.get("/api/hands/{number}/pokerstars.txt", response_class=PlainTextResponse)
async def one_hand_text(
    number: int, request: Request, player: MaybePlayerDep, code: CodeQuery = None
) -> PlainTextResponse:
    """The hand in PokerStars' text layout, from the viewer's seat."""
    stored, viewer = await _open(request, number, player, code)
    record = await asyncio.to_thread(build, stored, viewer, equity=False)
    return _download(export_hand(record), f"hand-{number}.txt", "text/plain")


@router.get("/api/hands/{number}/hand.phh", response_class=PlainTextResponse)
async def one_hand_phh(
    number: int, request: Request, player: MaybePlayerDep, code: CodeQuery = None
) -> PlainTextResponse:
    """The hand in PHH, from the viewer's seat (cards never shown are `??`)."""
    stored, viewer = await _open(request, number, player, code)
    text = await asyncio.to_thread(phh_hand, stored, viewer)
    return _download(text, f"hand-{number}.phh", "application/toml")


SinceQuery = Annotated[int | None, Query(ge=0, description="from this hand number")]
UntilQuery = Annotated[int | None, Query(ge=0, description="up to this hand number")]


async def _session(
    request: Request, code: str, since: int | None, until: int | None
) -> list[StoredHand]:
    table_id = await _table_id(request, code)
    numbers = await history(request).table_numbers(table_id, since=since, until=until)
    return await history(request).hands(numbers)


@router.get("/api/tables/{code}/hands.txt", response_class=PlainTextResponse)
async def session_text(
    code: str,
    request: Request,
    player: MaybePlayerDep,
    since: SinceQuery = None,
    until: UntilQuery = None,
) -> PlainTextResponse:
    """A table's hands (oldest first, at most 5,000) in PokerStars' layout."""
    await check_rate(request.app.state.read_rate, request, "reads")
    hands = await _session(request, code, since, until)
    viewer = str(player.id) if player is not None else None
    text = await asyncio.to_thread(
        lambda: export_session(build(h, viewer, equity=False) for h in hands)
    )
    return _download(text, "session.txt", "text/plain")


@router.get("/api/tables/{code}/hands.phhs", response_class=PlainTextResponse)
async def session_phhs(
    code: str,
    request: Request,
    player: MaybePlayerDep,
    since: SinceQuery = None,
    until: UntilQuery = None,
) -> PlainTextResponse:
    """A table's hands (oldest first, at most 5,000) as one PHH session file."""
    await check_rate(request.app.state.read_rate, request, "reads")
    hands = await _session(request, code, since, until)
    viewer = str(player.id) if player is not None else None
    text = await asyncio.to_thread(phhs_session, hands, viewer)
    return _download(text, "session.phhs", "application/toml")


async def all_in_luck(request: Request, table_id: str) -> dict[str, float]:
    """Each player's sum, over the table's all-in hands, of what they would win in
    expectation at the all-in minus what they won: the ledger's all-in adjustment, over
    the hands whose share is stored. The shares of newer hands are computed in the
    background, once each, and stored with the hands (an exact equity can take seconds:
    a ledger polled during play must not wait for it)."""
    store = history(request)
    tasks: dict[str, asyncio.Task[None]] | None = getattr(request.app.state, "luck_tasks", None)
    if tasks is None:
        tasks = request.app.state.luck_tasks = {}
    running = tasks.get(table_id)
    if running is None or running.done():
        pending = await store.luck_pending(table_id)
        if pending:
            tasks[table_id] = asyncio.create_task(_fill_luck(request, store, pending))
    return await store.luck_totals(table_id)


async def _fill_luck(request: Request, store: HistoryStore, pending: list[int]) -> None:
    """In the review worker (an exact equity is seconds of CPU), a chunk at a time; when
    the worker is busy the rest waits for the next reading. Each hand's all-in equity is
    stored for the replayer too, under the hand's lock: a replayer's job for one of these
    hands waits and finds it, and a hand whose job is running is left to that job (it
    stores the luck; a later reading takes up any it did not)."""
    pool, review = workers(request.app.state), review_store(request)
    for start in range(0, len(pending), 20):
        async with AsyncExitStack() as held:
            numbers = []
            for number in pending[start : start + 20]:
                lock = hand_lock(request, number)
                if not lock.locked():
                    await held.enter_async_context(lock)
                    numbers.append(number)
            if not numbers:
                continue
            chunk = await store.hands(numbers)
            if not chunk:
                continue
            try:
                job = pool.run(
                    ("luck", chunk[0].serial), partial(pool.call, all_in_of_hands, chunk)
                )
            except Busy:
                return
            found = await job
            await store.save_luck({n: part["luck"] for n, part in found.items()})
            await review.save_luck({n: part["luck"] for n, part in found.items()})
            for number, part in found.items():
                await review.merge_equity(number, partial(merged_all_in, part["all_in"]))


def hand_lock(request: Request, number: int) -> asyncio.Lock:
    return hand_lock_of(request.app.state, number)


def hand_lock_of(state: Any, number: int) -> asyncio.Lock:
    """The hand's lock in this process, while some job holds or waits for it: one
    computation of a hand's equities at a time (the replayer's, the ledger's, and the one
    made as an all-in hand ends)."""
    locks: WeakValueDictionary[int, asyncio.Lock] | None = getattr(state, "equity_locks", None)
    if locks is None:
        locks = state.equity_locks = WeakValueDictionary()
    lock = locks.get(number)
    if lock is None:
        lock = locks[number] = asyncio.Lock()
    return lock


async def stop_luck_tasks(state: Any) -> None:
    """At shutdown: stop computing (what is stored stays; the rest is done next time), and
    the review worker."""
    tasks: dict[str, asyncio.Task[None]] = getattr(state, "luck_tasks", {})
    for task in tasks.values():
        task.cancel()
    if tasks:
        await asyncio.wait(list(tasks.values()))
    pool = getattr(state, "review_workers", None)
    if pool is not None:
        await pool.close()


def _download(text: str, filename: str, media_type: str) -> PlainTextResponse:
    return PlainTextResponse(
        text,
        media_type=media_type,
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )
