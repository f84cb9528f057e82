"""Complete hands of every game through the WebSocket protocol, against a real uvicorn server
with PostgreSQL and Redis: stacks equal the engine's replay of the stored deck and actions,
the ledger balances, and no socket message carries a card its viewer may not see."""

from __future__ import annotations

import asyncio
import random
import uuid
from pathlib import Path
from typing import Any

from pydantic import SecretStr
from sqlalchemy import select

from app.config import Settings
from app.poker import HandState, card_str
from app.store import decks
from app.store.db import create_engine, session_factory
from app.store.models import HandActionRow, HandRow, SeatRow
from app.store.tables import SqlTableStore
from app.tables.hand import action_from_json, setup_from_json
from tests.api.live import Client, bot, live_server
from tests.sizes import BOT_SAMPLES
from tests.tables.harness import cards_in

TABLES: list[dict[str, Any]] = [
    {"game": "omaha", "seats": 3, "run_it_twice": True, "straddle": True},
    {"game": "omaha-hi-lo", "betting": "fixed-limit", "seats": 3},
    {"game": "five-card-omaha", "betting": "no-limit", "seats": 2, "ante": 1},
    {"game": "big-o", "seats": 3, "boards": 2, "run_it_twice": True},
    {"game": "six-card-omaha", "seats": 3, "bomb_pot_every": 2},
    {"game": "six-card-omaha-hi-lo", "betting": "no-limit", "seats": 2},
    {"game": "courchevel", "seats": 3, "run_it_twice": True},
    {"game": "courchevel-hi-lo", "betting": "fixed-limit", "seats": 2, "boards": 2},
]
HANDS = 4


def live_settings(tmp_path: Path, database_url: str, redis_url: str | None) -> Settings:
    return Settings(
        data_dir=tmp_path / "data",
        database_url=database_url,
        redis_url=redis_url,
        secret_key=SecretStr("s" * 40),
        between_hands=0,
        away_grace=3600,
        presence_ttl=5,
        # every test client comes from 127.0.0.1: the per-address limits are tested on their own
        sessions_per_minute=10000,
        tables_per_minute=10000,
        bot_samples=BOT_SAMPLES,
    )


async def seat_players(base: str, config: dict[str, Any]) -> tuple[str, list[Client]]:
    host = Client(base)
    await host.join("host")
    code = await host.create_table(decision_time=0, **config)
    clients = [host]
    for i in range(1, config["seats"]):
        c = Client(base)
        await c.join(f"player{i}")
        clients.append(c)
    for i, c in enumerate(clients):
        await c.connect(code)
        reply = await c.request(type="sit", seat=i, buy_in=200)
        assert reply["type"] == "ok", reply
    return code, clients


def hands_seen(client: Client) -> int:
    return sum(1 for m in client.messages if m["type"] == "hand_ended")


async def replay_table(url: str, table_id: str, secret: str = "s" * 40) -> dict[str, Any]:
    """Every stored hand replayed by the engine; checks each result and the chain of stacks.
    Decks are sealed with the server's SECRET_KEY (`live_settings`)."""
    decks.use_secret(secret)
    engine = create_engine(url)
    out: dict[str, Any] = {"hands": {}, "seats": {}}
    try:
        sessions = session_factory(engine)
        tid = uuid.UUID(table_id)
        async with sessions() as s:
            hands = list(await s.scalars(select(HandRow).where(HandRow.table_id == tid)
                                         .order_by(HandRow.number)))  # fmt: skip
            stacks: dict[int, int] = {}
            for row in hands:
                actions = list(await s.scalars(select(HandActionRow).where(
                    HandActionRow.hand_id == row.id).order_by(HandActionRow.counter)))  # fmt: skip
                assert [a.counter for a in actions] == list(range(len(actions)))
                setup = setup_from_json(row.record["setup"])
                state = HandState.replay(setup, row.deck, [
                    action_from_json({"player": a.player, "kind": a.kind, "amount": a.amount,
                                      "agree": a.agree}) for a in actions])  # fmt: skip
                seats = row.record["seats"]
                for p, seat in enumerate(seats):  # the hand starts from the last result
                    if seat in stacks:  # (plus a top-up, when the player had busted)
                        assert setup.stacks[p] == stacks[seat] or stacks[seat] == 0
                        stacks[seat] = setup.stacks[p]
                if row.ended_at is not None:
                    assert state.complete and row.result is not None
                    result = {int(k): v for k, v in row.result["stacks"].items()}
                    assert result == {seat: state.stacks[p] for p, seat in enumerate(seats)}
                    stacks.update(result)
                out["hands"][str(row.id)] = (state, seats)
            seat_rows = await s.scalars(select(SeatRow).where(SeatRow.table_id == tid))
            out["seats"] = {r.number: (str(r.player_id), r.stack) for r in seat_rows}
            out["chain"] = stacks
        store = SqlTableStore(sessions)
        out["balance"] = await store.ledger_balance(table_id)
        out["stacks_total"] = await store.stacks_total(table_id)
    finally:
        await engine.dispose()
    return out


def allowed_for(state: HandState, seats: list[int], seat: int | None) -> set[str]:
    seen = {card_str(c) for run in state.boards for board in run for c in board}
    for p in range(state.n):
        if state.shown[p] or (seat is not None and seats[p] == seat):
            seen.update(card_str(c) for c in state.hole[p])
    return seen


def check_no_leak(client: Client, seat: int | None, hands: dict[str, Any]) -> int:
    checked = 0
    for m in client.messages:
        found = cards_in(m)
        if not found:
            continue
        hand_id = m["hand"]["id"] if m["type"] == "snapshot" else m.get("hand")
        assert hand_id in hands, m
        state, seats = hands[hand_id]
        assert found <= allowed_for(state, seats, seat), (m, found)
        checked += len(found)
    return checked


async def play_table(base: str, url: str, config: dict[str, Any], seed: int) -> int:
    code, clients = await seat_players(base, config)
    spectator = Client(base)
    await spectator.join("watcher")
    await spectator.connect(code)
    stop = asyncio.Event()
    rng = random.Random(seed)
    bots = [asyncio.create_task(bot(c, random.Random(rng.random()), 10**6, stop)) for c in clients]
    try:
        while min(hands_seen(c) for c in clients) < HANDS:
            await asyncio.sleep(0.05)
            for b in bots:
                if b.done():
                    b.result()
        host = clients[0]
        assert (await host.request(type="pause"))["type"] == "ok"
        state: dict[str, Any] = {}
        for _ in range(400):
            state = (await host.http.get(f"/api/tables/{code}")).json()
            if state["hand"] is None or state["hand"]["phase"] == "complete":
                break
            await asyncio.sleep(0.05)
        assert state["hand"]["phase"] == "complete"
        online = state["online"]
        assert {c.player_id for c in clients} <= set(online)  # presence (Redis) sees them
        assert online[clients[1].player_id] == 1
    finally:
        stop.set()
        await asyncio.gather(*bots, return_exceptions=True)
    table_id = state["table"]["id"]
    db = await replay_table(url, table_id)
    # Final stacks: what the engine computes from the stored decks and actions.
    busted = {m["seat"] for c in clients for m in c.messages if m["type"] == "seat"
              and m["stack"] == 0}  # fmt: skip
    for seat, (_, stack) in db["seats"].items():
        assert stack == db["chain"][seat] or seat in busted
    last_end = [m for m in clients[0].messages if m["type"] == "hand_ended"][-1]
    for k, v in last_end["stacks"].items():
        assert v == db["chain"][int(k)]
    assert db["balance"] == db["stacks_total"]  # the ledger identity, between hands
    checked = 0
    for i, c in enumerate(clients):
        checked += check_no_leak(c, i, db["hands"])
    check_no_leak(spectator, None, db["hands"])
    assert checked > 0
    for c in [*clients, spectator]:
        await c.close()
    return len(db["hands"])


async def test_every_game_plays_through_the_protocol(
    tmp_path: Path, postgres_url: str, redis_url: str
) -> None:
    async with live_server(live_settings(tmp_path, postgres_url, redis_url)) as base:
        played = await asyncio.gather(
            *(play_table(base, postgres_url, cfg, seed) for seed, cfg in enumerate(TABLES))
        )
    assert min(played) >= HANDS
