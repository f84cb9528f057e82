"""Fault injection on real servers: PostgreSQL stopped, and frozen with SIGSTOP, in the middle
of a hand; Redis stopped. The server (uvicorn, in this process) must answer every command
(`unavailable`, never silence, never a dead table), play again within seconds of the fault
ending, lose no accepted action and no hand, and keep the ledger identity."""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr
from pytest_postgresql.janitor import DatabaseJanitor
from sqlalchemy import select

from app.config import Settings
from app.store import decks
from app.store.db import create_engine, session_factory
from app.store.models import HandActionRow, HandRow
from app.store.tables import SqlTableStore
from app.tables.clock import Stage
from tests.api.live import Client, app_of, live_server, server_state
from tests.api.test_crash import passive, to_act
from tests.api.test_play import replay_table
from tests.servers import PostgresServer, free_port, postgres_cluster, wait_for_port
from tests.waits import within

#: seconds within which a table must play again after a fault ends (a loaded 2-core machine)
BACK_WITHIN = 15.0


@pytest.fixture
def own_postgres() -> Iterator[PostgresServer]:
    """A PostgreSQL cluster for this test alone: it is stopped and frozen."""
    with postgres_cluster() as server:
        try:
            yield server
        finally:
            with contextlib.suppress(Exception):
                server.thaw()


def settings_for(tmp_path: Path, database_url: str, redis_url: str | None = None) -> Settings:
    decks.use_secret("f" * 40)  # the server's SECRET_KEY: the test reads its sealed decks
    return Settings(
        data_dir=tmp_path / "data",
        database_url=database_url,
        redis_url=redis_url,
        secret_key=SecretStr("f" * 40),
        between_hands=0,
        away_grace=3600,
        store_timeout=1.0,
    )


class Game:
    """Three players on one table, acting passively for whoever is to act; reconnects
    clients whose table reloaded; remembers every action the server answered `ok` to."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.clients: list[Client] = []
        self.code = ""
        self.accepted: set[tuple[str, int]] = set()
        self.loop = asyncio.get_running_loop()

    async def start(self, **config: Any) -> None:
        for i in range(3):
            c = Client(self.base)
            await c.join(f"p{i}")
            self.clients.append(c)
        self.code = await self.clients[0].create_table(seats=3, **config)
        for i, c in enumerate(self.clients):
            await c.connect(self.code)
            await self.sit(c, i)

    async def sit(self, c: Client, seat: int) -> None:
        """Sit, as a player would: `unavailable` (the store's 1 s bound passed on a loaded
        machine; nothing changed) is asked again. A write given up on may be stored after all
        (the table then reloads and closes the socket): `already_seated` is the seat."""
        deadline = self.loop.time() + 60  # a bound no passing run comes near
        while True:
            try:
                reply = await c.request(type="sit", seat=seat, buy_in=100)
            except Exception:  # the table reloaded: its socket closed
                reply = {"type": "error", "code": "closed"}
                await self.reconnect()
            if reply["type"] == "ok" or reply.get("code") == "already_seated":
                return
            assert reply.get("code") in ("unavailable", "closed"), reply
            assert self.loop.time() < deadline, reply
            await asyncio.sleep(0.1)

    async def reconnect(self) -> None:
        for c in self.clients:
            if c.reader is not None and not c.reader.done():
                continue
            for _ in range(200):
                try:
                    await c.connect(self.code)
                    break
                except Exception:
                    await asyncio.sleep(0.1)

    def to_act(self) -> tuple[Client, dict[str, Any]] | None:
        return to_act(self.clients)

    async def act_once(self, timeout: float = 10.0) -> dict[str, Any]:
        """The player to act acts; returns the reply (ok or error)."""
        deadline = self.loop.time() + timeout
        while (found := self.to_act()) is None:
            assert self.loop.time() < deadline, "nobody is to act"
            await self.reconnect()
            await asyncio.sleep(0.05)
        client, legal = found
        try:
            reply = await client.request(timeout=5, type="act", hand=legal["hand"],
                                         counter=legal["counter"], **passive(legal))  # fmt: skip
        except Exception:  # its connection closed (the table reloaded): reconnect
            await self.reconnect()
            return {"type": "error", "code": "closed"}
        if reply["type"] == "ok":
            self.accepted.add((legal["hand"], legal["counter"]))
        return reply

    def hands_ended(self) -> int:
        return max(sum(1 for m in c.messages if m["type"] == "hand_ended") for c in self.clients)

    async def play_hands(self, count: int, timeout: float) -> float:
        """Play until `count` more hands ended; returns the seconds to the first accepted
        action (how long the table took to play again)."""
        start, goal = self.loop.time(), self.hands_ended() + count
        first: float | None = None
        while self.hands_ended() < goal:
            assert self.loop.time() - start < timeout, "the table does not play again"
            reply = await self.act_once()
            if reply["type"] == "ok" and first is None:
                first = self.loop.time() - start
            elif reply["type"] != "ok":
                await asyncio.sleep(0.1)
        return first if first is not None else 0.0

    async def close(self) -> None:
        for c in self.clients:
            await c.close()


async def check_store(url: str, game: Game) -> None:
    """No accepted action lost, no hand lost, and the ledger identity."""
    decks.use_secret("f" * 40)  # the server's SECRET_KEY (its decks are sealed with it)
    engine = create_engine(url)
    try:
        sessions = session_factory(engine)
        async with sessions() as s:
            stored = {(str(h), c) for h, c in await s.execute(
                select(HandActionRow.hand_id, HandActionRow.counter))}  # fmt: skip
            hands = list(await s.scalars(select(HandRow).order_by(HandRow.number)))
        assert game.accepted <= stored, game.accepted - stored
        table_id = str(hands[0].table_id)
        assert [h.number for h in hands] == list(range(1, len(hands) + 1))
        assert sum(1 for h in hands if h.ended_at is None) <= 1
        store = SqlTableStore(sessions)
        assert await store.ledger_balance(table_id) == await store.stacks_total(table_id) == 300
    finally:
        await engine.dispose()
    db = await replay_table(url, table_id, secret="f" * 40)  # every stored hand replays
    chain = db["chain"]  # each seat's stack after the last hand it played
    assert {seat: stack for seat, (_, stack) in db["seats"].items() if seat in chain} == chain


async def own_database(server: PostgresServer) -> str:
    janitor = DatabaseJanitor(user=server.user, host=server.host, port=server.port,
                              dbname="omaha")  # fmt: skip
    janitor.init()
    return server.url("omaha")


async def test_postgresql_stopped_mid_hand(tmp_path: Path, own_postgres: PostgresServer) -> None:
    """Item 3 (and 4): during the outage every command, a seat command included, is
    `unavailable` and the table stays up (no 1012); the clock keeps retrying the automatic
    action it could not store; when PostgreSQL is back the hand goes on."""
    url = await own_database(own_postgres)
    async with live_server(settings_for(tmp_path, url)) as base:
        game = Game(base)
        await game.start(decision_time=1, time_bank=0)
        for _ in range(3):
            assert (await game.act_once())["type"] == "ok"
        own_postgres.stop()
        reply = await game.act_once()
        assert reply["type"] == "error" and reply["code"] == "unavailable", reply
        seated = game.clients[1]
        reply = await seated.request(timeout=5, type="sit_out")
        assert reply["type"] == "error" and reply["code"] == "unavailable", reply
        rest = await seated.http.get(f"/api/tables/{game.code}")  # REST: 503, not a 500
        assert rest.status_code == 503 and rest.json()["detail"]["code"] == "unavailable"
        # any route that reaches the database: 503 `unavailable` with Retry-After, not a 500
        renamed = await seated.http.post("/api/session", json={"name": "renamed"})
        assert renamed.status_code == 503, renamed.text
        assert renamed.json()["detail"]["code"] == "unavailable", renamed.text
        assert renamed.headers["retry-after"] == "1"
        # The clock runs out and fails to act, and tries again (and fails again).
        registry = app_of(base).state.tables
        [table] = [t for t in registry.tables.values() if t.code == game.code]
        retries: set[float] = set()

        def retried_twice() -> bool:
            turn, clock = table.core.clock.turn, table.core.clock
            if turn is not None and turn.stage is Stage.RETRY:
                retries.add(clock.turn_deadline)
            return len(retries) >= 2

        await within(retried_twice, what="the clock's action failing twice")
        assert all(c.reader is not None and not c.reader.done() for c in game.clients)
        assert not any(m["type"] == "error" and m["code"] == "internal"
                       for c in game.clients for m in c.messages)  # fmt: skip
        own_postgres.start()
        back = await game.play_hands(2, timeout=60)
        assert back < BACK_WITHIN
        await game.close()
    await check_store(url, game)


async def test_postgresql_frozen_mid_hand(tmp_path: Path, own_postgres: PostgresServer) -> None:
    """Item 5: with PostgreSQL frozen (SIGSTOP) the player got no answer for as long as it
    lasted. Now `unavailable` within STORE_TIMEOUT; after the thaw the table plays again."""
    url = await own_database(own_postgres)
    async with live_server(settings_for(tmp_path, url)) as base:
        game = Game(base)
        await game.start(decision_time=0)
        for _ in range(3):
            assert (await game.act_once())["type"] == "ok"
        own_postgres.freeze()
        try:
            loop = asyncio.get_running_loop()
            began = loop.time()
            reply = await game.act_once()
            assert reply["type"] == "error" and reply["code"] == "unavailable", reply
            assert loop.time() - began < 4.0
            reply = await game.clients[2].request(timeout=5, type="sit_out")
            assert reply["type"] == "error" and reply["code"] == "unavailable", reply
            rest = await game.clients[2].http.get(f"/api/tables/{game.code}", timeout=10)
            assert rest.status_code == 503  # in STORE_TIMEOUT, not hanging while it lasts
        finally:
            own_postgres.thaw()
        back = await game.play_hands(2, timeout=60)
        assert back < BACK_WITHIN
        await game.close()
    await check_store(url, game)


async def test_redis_stopped_rest_says_online_null(tmp_path: Path, postgres_url: str) -> None:
    """Item 5: with Redis down, REST answered 500. It answers, with `online: null`."""
    port = free_port()
    redis = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
         "--appendonly", "no"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        wait_for_port("127.0.0.1", port)
        settings = settings_for(tmp_path, postgres_url, f"redis://127.0.0.1:{port}/0")
        async with live_server(settings) as base:
            game = Game(base)
            await game.start(decision_time=0)
            host = game.clients[0]
            state = (await host.http.get(f"/api/tables/{game.code}")).json()
            assert set(state["online"]) == {c.player_id for c in game.clients}
            redis.terminate()
            redis.wait(10)
            state = await host.http.get(f"/api/tables/{game.code}")
            assert state.status_code == 200 and state.json()["online"] is None
            mine = await host.http.get("/api/tables")
            assert mine.status_code == 200 and mine.json()[0]["online"] is None
            assert (await game.act_once())["type"] == "ok"  # play goes on without presence
            await game.close()
    finally:
        if redis.poll() is None:
            redis.kill()
            redis.wait()


async def test_presence_counts_connections_and_follows_seat_changes(
    tmp_path: Path, postgres_url: str, redis_url: str
) -> None:
    """Item 12: closing one of a player's two tabs took them off `online`; an approved seat
    showed as null until the next heartbeat (a third of the TTL: 10 s here)."""
    settings = settings_for(tmp_path, postgres_url, redis_url).model_copy(
        update={"presence_ttl": 30}
    )
    async with live_server(settings) as base:
        host, guest = Client(base), Client(base)
        await host.join("host")
        await guest.join("guest")
        code = await host.create_table(seats=3, approval_required=True)
        await host.connect(code)
        await guest.connect(code)
        second = Client(base)  # the guest's second tab: same session
        second.token, second.player_id = guest.token, guest.player_id
        await second.connect(code)
        await second.wait_for(lambda m: m["type"] == "snapshot")

        async def online() -> dict[str, Any]:
            """Seated players online, and how many unseated people watch (no spectator's
            player id is public)."""
            r = await host.http.get(f"/api/tables/{code}")
            return {**r.json()["online"], "spectators": r.json()["spectators"]}

        async def eventually(predicate: Any) -> dict[str, Any]:
            for _ in range(60):  # 3 s and more: well under the 10 s of a heartbeat
                now = await online()
                if predicate(now):
                    return now
                await asyncio.sleep(0.05)
            raise AssertionError(now)

        await eventually(lambda o: o["spectators"] == 2)  # the host and the guest (two tabs)
        handlers = server_state(base).tasks  # one per open socket or request in flight
        await within(lambda: len(handlers) == 3, what="the three sockets' handlers alone")
        await second.close()
        # Its handler told presence of the close before it ended.
        await within(lambda: len(handlers) == 2, what="the closed tab's handler ended")
        assert (await online())["spectators"] == 2  # the guest's first tab is still open
        assert (await guest.request(type="sit", seat=1, buy_in=100))["status"] == "requested"
        await host.request(type="approve", player_id=guest.player_id)
        now = await eventually(lambda o: o.get(guest.player_id) == 1)  # within 2 s, not 10
        assert now[guest.player_id] == 1
        await host.close()
        await guest.close()
