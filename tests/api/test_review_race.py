"""Viewers asking for one hand's equity at the same moment: each gets 200 (never a 503
because another viewer's result was stored over theirs), every view is kept, and each answer
is the viewer's own (their cards and the shown ones only). In one process (several jobs of
one hand) and across two processes writing the same row (two apps on one PostgreSQL)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import httpx
from fastapi import FastAPI
from pydantic import SecretStr
from sqlalchemy import text

from app.config import Settings
from app.history.equity import SPECTATOR, answer, compute, merged, view_key, visible
from app.history.record import StoredHand, replay
from app.history.work import Workers
from app.main import create_app
from app.store.db import create_engine, session_factory
from app.store.history import HistoryStore
from app.store.review import ReviewStore
from tests.api.conftest import running
from tests.api.test_history import Evening, evening, server
from tests.api.test_review import equity_of
from tests.history.test_privacy import allowed
from tests.waits import within

T = TypeVar("T")


class GatedWorkers(Workers):
    """The real worker process, its jobs held until `gate` opens (so that every viewer's
    job is asked for before any is computed); counts the all-in computations."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = asyncio.Event()
        self.all_ins = 0

    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        await self.gate.wait()
        if fn is compute and args[-1]:
            self.all_ins += 1
        return await super().call(fn, *args)


async def shared_hand(e: Evening, history: HistoryStore) -> StoredHand:
    """A hand Ann and Ben were both dealt in, and which each saw differently (one's cards
    not shown: a view the other may not have)."""
    ann, ben = e.players[0][1], e.players[1][1]
    numbers = sorted(h.number for h in await history.table_hands(e.table_id, limit=100))
    for stored in await history.hands(numbers):
        hand = replay(stored)
        if ann in hand.players and ben in hand.players and visible(hand, ann) != visible(hand, ben):
            return stored
    raise AssertionError("no hand that Ann and Ben saw differently")


def check_private(stored: StoredHand, viewer: str | None, got: dict[str, Any]) -> None:
    """Only the viewer's own hand and the shown ones are in their equities."""
    hand = replay(stored)
    p = hand.position_of_player(viewer) if viewer is not None else None
    seen = {hand.seats[q] for q in visible(hand, viewer)}
    for street in got["streets"]:
        assert {x["seat"] for x in street["players"]} <= seen
    cards = {c for s in got["streets"] for board in s["boards"] for c in board}
    assert cards <= allowed(hand.state, p)


def check_stored(stored: StoredHand, equity: dict[str, Any], viewers: list[str | None]) -> None:
    """Every viewer's view kept, under the set of hands that viewer may see."""
    hand = replay(stored)
    for viewer in viewers:
        dealt = viewer is not None and hand.position_of_player(viewer) is not None
        who = viewer if dealt and viewer is not None else SPECTATOR
        assert equity["viewers"].get(who) == view_key(visible(hand, viewer)), who
        assert answer(equity, who) is not None, who


async def test_viewers_of_one_hand_at_once(database_url: str, tmp_path: Path) -> None:
    async with server(tmp_path, database_url) as (_, app):
        e = await evening(app)
        gated = app.state.review_workers = GatedWorkers()
        history = HistoryStore(app.state.sessions)
        stored = await shared_hand(e, history)
        (ann, ann_id), (ben, ben_id) = e.players[0], e.players[1]
        host, stranger = e.host[0], e.stranger[0]
        n = stored.serial
        asks = [
            asyncio.create_task(equity_of(ann, n)),
            asyncio.create_task(equity_of(ben, n)),
            asyncio.create_task(equity_of(host, n)),  # a spectator: hosts, not dealt in
            asyncio.create_task(equity_of(stranger, n, code=e.code)),  # one too, by the code
        ]
        # Every viewer's job asked for before any is computed.
        await within(
            lambda: all(gated.running(("equity", n, w)) for w in (ann_id, ben_id, SPECTATOR)),
            60,
            what="the three views' jobs",
        )
        gated.gate.set()
        got_ann, got_ben, got_host, got_stranger = await asyncio.gather(*asks)
        assert got_host == got_stranger  # one view, computed once
        for viewer, got in ((ann_id, got_ann), (ben_id, got_ben), (None, got_host)):
            check_private(stored, viewer, got)
        equity = await app.state.review.equity(n)
        check_stored(stored, equity, [ann_id, ben_id, None])
        assert answer(equity, ann_id) == got_ann and answer(equity, ben_id) == got_ben
        # The all-in equity is the hand's, not a viewer's: computed once, by the first job.
        assert gated.all_ins == 1
        await e.close()


async def test_merges_of_one_hand_from_two_engines_keep_every_view(
    database_url: str, tmp_path: Path
) -> None:
    """The store's merge alone, as two processes do it (an engine each: on SQLite, two
    connections to the file): many at once, each adding a view; none is lost."""
    async with server(tmp_path, database_url) as (_, app):
        e = await evening(app)
        history = HistoryStore(app.state.sessions)
        n = (await shared_hand(e, history)).serial
        engines = [create_engine(database_url) for _ in range(2)]
        stores = [ReviewStore(session_factory(engine)) for engine in engines]

        def adding(viewer: str) -> Callable[[dict[str, Any] | None], dict[str, Any]]:
            result: dict[str, Any] = {
                "key": viewer,
                "viewer": viewer,
                "streets": [],
                "all_in": None,
            }
            return lambda before: merged(before, result)

        viewers = [f"v{i}" for i in range(24)]
        await asyncio.gather(
            *(stores[i % 2].merge_equity(n, adding(v)) for i, v in enumerate(viewers))
        )
        equity = await stores[0].equity(n)
        assert equity is not None and sorted(equity["viewers"]) == sorted(viewers)
        assert await stores[1].merge_equity(10**12, adding("nobody")) is None  # no such hand
        for engine in engines:
            await engine.dispose()
        await e.close()


async def both_waiting(url: str) -> bool:
    """Two sessions of the database wait on a lock (the two processes' writes)."""
    engine = create_engine(url)
    try:
        async with engine.connect() as c:
            found = await c.scalar(
                text(
                    "SELECT count(*) FROM pg_stat_activity"
                    " WHERE datname = current_database() AND wait_event_type = 'Lock'"
                )
            )
            return int(found or 0) >= 2
    finally:
        await engine.dispose()


@asynccontextmanager
async def process(tmp_path: Path, name: str, url: str, redis_url: str) -> AsyncIterator[FastAPI]:
    """A server process (`name`) sharing the database and Redis with the others."""
    settings = Settings(
        data_dir=tmp_path / name / "data",
        database_url=url,
        redis_url=redis_url,
        secret_key=SecretStr("x" * 40),
        process_name=name,
    )
    app = create_app(settings)
    async with running(app):
        yield app


async def test_two_processes_store_their_views_of_one_hand(
    postgres_url: str, redis_url: str, tmp_path: Path
) -> None:
    """Each process's job reads the hand's equities, computes, and writes: the row is held
    (as a slow writer would) until both have computed and are about to write, so neither can
    have read what the other wrote; both views must still be kept."""
    async with server(tmp_path, postgres_url):
        pass  # the schema
    async with (
        process(tmp_path, "a", postgres_url, redis_url) as first,
        process(tmp_path, "b", postgres_url, redis_url) as second,
    ):
        e = await evening(first)
        history = HistoryStore(first.state.sessions)
        stored = await shared_hand(e, history)
        (ann, ann_id), (ben, ben_id) = e.players[0], e.players[1]
        ben_there = httpx.AsyncClient(
            transport=httpx.ASGITransport(app=second),
            base_url="http://127.0.0.1",
            cookies=ben.cookies,
        )
        n = stored.serial
        holder = create_engine(postgres_url)
        async with holder.connect() as held:
            await held.execute(
                text("SELECT 1 FROM hands WHERE serial = :n FOR NO KEY UPDATE"), {"n": n}
            )
            asks = [
                asyncio.create_task(equity_of(ann, n)),
                asyncio.create_task(equity_of(ben_there, n)),
            ]
            await within(
                lambda: both_waiting(postgres_url), 120, 0.05, "both processes' writes held"
            )
            await held.commit()
        await holder.dispose()
        got_ann, got_ben = await asyncio.gather(*asks)
        check_private(stored, ann_id, got_ann)
        check_private(stored, ben_id, got_ben)
        equity = await first.state.review.equity(n)
        check_stored(stored, equity, [ann_id, ben_id])
        assert answer(equity, ann_id) == got_ann and answer(equity, ben_id) == got_ben
        await ben_there.aclose()
        await e.close()
