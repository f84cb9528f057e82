"""A tournament under several real processes: its director and its tables run on one process
(the director's lease and epoch; its tables taken with it), and another process answers of it
through the one directing it (a table page's clock too); SIGKILL that process mid-play and
the other takes the director and every table and plays the tournament to its end: every hand
ended with a result, chips conserved at every table, the winner cashes out every chip, the
places are 1..N once each."""

from __future__ import annotations

import asyncio
import os
import signal
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import redis
from sqlalchemy import func, select

from app.store.db import create_engine, session_factory
from app.store.models import HandRow, LedgerEntry, TournamentEntryRow, TournamentRow
from app.store.tables import SqlTableStore
from tests.scale.cluster import incarnation_name
from tests.scale.test_failover import RENEW, TAKEN_WITHIN, environment, owner, processes
from tests.waits import within

PLAYERS, STACK = 6, 100
#: A first level nobody busts in, however long the reads take (players who never act are
#: folded by a short clock: the big blind wins the blinds, each pays as much as they win in
#: an orbit); it ends when the host says. Then blinds that grow fast: they blind away.
LEVELS = [{"small_blind": 1, "big_blind": 2, "minutes": 60}] + [
    {"small_blind": b, "big_blind": 2 * b, "minutes": 0.02} for b in (10, 25, 50, 100, 200, 400)
]


def director_of(redis_url: str, tid: str) -> str | None:
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        value = client.get(f"omaha:tournament:{tid}:owner")
        return incarnation_name(None if value is None else str(value))
    finally:
        client.close()


async def facts(url: str, tid: str) -> dict[str, Any]:
    engine = create_engine(url)
    try:
        sessions = session_factory(engine)
        async with sessions() as s:
            row = await s.get_one(TournamentRow, uuid.UUID(tid))
            of_it = TournamentEntryRow.tournament_id == row.id
            entries = list(await s.scalars(select(TournamentEntryRow).where(of_it)))
            tables = [uuid.UUID(t) for t in row.tables or []]
            at = LedgerEntry.table_id.in_(tables)
            ledger = list(await s.scalars(select(LedgerEntry).where(at).order_by(LedgerEntry.id)))
            counted = select(func.count()).select_from(HandRow).where(HandRow.table_id.in_(tables))
            hands = int(await s.scalar(counted) or 0)
            open_hands = int(await s.scalar(counted.where(HandRow.ended_at.is_(None))) or 0)
        store = SqlTableStore(sessions)
        balances = {str(t): (await store.ledger_balance(str(t)), await store.stacks_total(str(t)))
                    for t in tables}  # fmt: skip
        return {"status": row.status, "epoch": row.owner_epoch, "entries": entries,
                "ledger": ledger, "hands": hands, "open_hands": open_hands,
                "tables": [str(t) for t in tables], "balances": balances}  # fmt: skip
    finally:
        await engine.dispose()


async def test_a_tournament_goes_on_when_its_process_is_killed(
    tmp_path: Path, postgres_url: str, redis_url: str
) -> None:
    env = await environment(tmp_path, postgres_url, redis_url)
    with processes(env, "a", "b") as procs:
        (first, base_a), (_, base_b) = procs["a"], procs["b"]
        players = [httpx.AsyncClient(base_url=base_a) for _ in range(PLAYERS)]
        try:
            for i, p in enumerate(players):
                (await p.post("/api/session", json={"name": f"p{i}"})).raise_for_status()
            host = players[0]
            r = await host.post("/api/tournaments", json={
                "name": "failover", "starting_stack": STACK, "seats": 3, "structure": "custom",
                "levels": LEVELS, "decision_time": 0.05, "time_bank": 0, "payouts": "none",
                "max_players": PLAYERS})  # fmt: skip
            assert r.status_code == 201, r.text
            tid, code = r.json()["id"], r.json()["code"]
            for p in players:
                assert (await p.post(f"/api/tournaments/{code}/register")).status_code == 200
            assert (await host.post(f"/api/tournaments/{code}/start")).status_code == 200
            state = (await host.get(f"/api/tournaments/{code}")).json()
            tables = [t["id"] for t in state["tables"]]
            assert len(tables) == 2
            # b answers of a table's clock (the table page's) through a, which runs the table:
            # read now, at the first hand, before anyone can bust and a table close
            via_b = httpx.AsyncClient(base_url=base_b, cookies=host.cookies)
            seat_at = state["your_table"]
            r = await via_b.get(f"/api/tournaments/table/{seat_at}")
            assert r.status_code == 200, r.text
            assert r.json()["code"] == code and r.json()["name"] == "failover"
            stranger = httpx.AsyncClient(base_url=base_b)
            r = await stranger.get(f"/api/tournaments/table/{seat_at}")
            assert r.status_code == 200 and "code" not in r.json() and "level" in r.json()
            await stranger.aclose()
            assert (await via_b.get("/api/tournaments/table/nope")).status_code == 404

            async def under_way() -> bool:  # play under way on a
                return bool((await facts(postgres_url, tid))["hands"] >= 4)

            await within(under_way, 60, 0.05)
            assert director_of(redis_url, tid) == "a"
            assert {owner(redis_url, t) for t in tables} == {"a"}
            # b answers of it through a, which directs it: reads, actions, refusals
            r = await via_b.get(f"/api/tournaments/{code}")
            assert r.status_code == 200 and [t["id"] for t in r.json()["tables"]] == tables
            assert (await via_b.post(f"/api/tournaments/{code}/pause")).status_code == 200
            again = await via_b.post(f"/api/tournaments/{code}/pause")
            assert again.status_code == 409 and again.json()["detail"]["code"] == "not_running"
            assert (await via_b.get("/api/tournaments/nope")).status_code == 404
            epoch = (await facts(postgres_url, tid))["epoch"]
            # the host ends the first level through b, paused; killed right after the resume
            # (the blinds take levels to grow past the stacks: play goes on at b)
            r = await via_b.post(f"/api/tournaments/{code}/next_level")
            assert r.status_code == 200 and r.json()["level"] == 2, r.text
            assert (await via_b.post(f"/api/tournaments/{code}/resume")).status_code == 200
            os.kill(first.pid, signal.SIGKILL)
            killed = time.monotonic()
            await via_b.aclose()
            first.wait(10)
            while director_of(redis_url, tid) != "b":
                assert time.monotonic() - killed < TAKEN_WITHIN + 3 * RENEW, "never taken"
                await asyncio.sleep(0.02)
            # the director and its tables moved together
            await within(lambda: {owner(redis_url, t) for t in tables} - {None} == {"b"}, 30)
            watcher = httpx.AsyncClient(base_url=base_b)
            deadline = time.monotonic() + 90
            while True:  # the tournament plays on at b to its end
                r = await watcher.get(f"/api/tournaments/{code}")
                if r.status_code == 200 and r.json()["status"] == "finished":
                    break
                assert time.monotonic() < deadline, "the tournament never finished"
                await asyncio.sleep(0.2)
            await watcher.aclose()
        finally:
            for p in players:
                await p.aclose()
    end = await facts(postgres_url, tid)
    assert end["status"] == "finished"
    assert end["epoch"] > epoch  # b took the director's epoch
    assert end["open_hands"] == 0  # every hand ended with a result
    for table_id, (balance, stacks) in end["balances"].items():
        assert balance == stacks == 0, table_id  # closed: every chip cashed out
    # Everyone placed; players out in the same round with equal stacks at its start share a
    # place (those out in the round the kill cut short count as equal), as competition
    # ranks do: 1, 2, 3, 3, 5.
    places = sorted(e.place for e in end["entries"])
    assert len(places) == PLAYERS and places == [1 + places.index(p) for p in places]
    assert places.count(1) == 1
    winner = next(str(e.player_id) for e in end["entries"] if e.place == 1)
    last = end["ledger"][-1]
    assert (last.kind, str(last.player_id), last.amount) == ("cash_out", winner, PLAYERS * STACK)
    buy_ins = sum(e.amount for e in end["ledger"] if e.kind != "cash_out")
    outs = sum(e.amount for e in end["ledger"] if e.kind == "cash_out")
    assert buy_ins == outs  # moves are a cash-out at one table and a buy-in at the other
