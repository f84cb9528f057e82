"""Failover between real server processes sharing one PostgreSQL and one redis-server.

- SIGKILL the owner of a table mid-hand: another process owns it within the lease time plus
  one renewal interval, the clients resume there (a snapshot at the same counter), a resent
  action is `duplicate`, the hand ends as the engine's replay says, the ledger holds.
- SIGSTOP the owner past its lease, let another take the table and play on, SIGCONT the old
  owner: it drops the table without storing anything (checked from the database)."""

from __future__ import annotations

import asyncio
import os
import signal
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from sqlalchemy import select

from app.store import decks
from app.store.db import create_engine, session_factory
from app.store.models import HandActionRow, HandRow, TableRow
from app.store.tables import SqlTableStore
from tests.api.live import Client
from tests.api.test_crash import actor_of, finish, passive
from tests.api.test_play import replay_table
from tests.migrated import migrate
from tests.scale.cluster import Cluster
from tests.scale.cluster import owner as owner  # re-exported: the scale tests import it here

LEASE, RENEW = 1.5, 0.3
#: a lapsed lease is taken at the other process's next sweep: LEASE + RENEW on a quiet machine
#: (about 1.7 s here); the rest is for two servers starved by a loaded machine. A sweep that
#: does not take lapsed leases never takes the table.
TAKEN_WITHIN = LEASE + RENEW + 10.0
SECRET = "f" * 40


async def environment(tmp_path: Path, postgres_url: str, redis_url: str) -> dict[str, str]:
    await migrate(postgres_url)
    return {**os.environ, "DATABASE_URL": postgres_url, "REDIS_URL": redis_url,
            "HOST": "127.0.0.1", "SECRET_KEY": SECRET, "DATA_DIR": str(tmp_path / "data"),
            "BETWEEN_HANDS": "0", "LOG_LEVEL": "warning", "LEASE_SECONDS": str(LEASE),
            "LEASE_RENEW": str(RENEW),
            # A stop at a test's end waits on no hand (the drain's own tests set theirs): with
            # the default 30 s, a hand left waiting on a player held each close for 20 s.
            "DRAIN_SECONDS": "1"}  # fmt: skip


@contextmanager
def processes(env: dict[str, str], *names: str) -> Iterator[dict[str, tuple[Any, str]]]:
    """Server processes by name: (the process, its base URL), started side by side; each
    one's log in DATA_DIR (warnings and errors)."""
    cluster = Cluster(env)
    try:
        for name in names:
            cluster.launch(name)
        for name in names:
            cluster.wait(name)
        yield {n: (cluster.servers[n].process, cluster.servers[n].base) for n in names}
    finally:
        cluster.close()


async def table_id_of(url: str, code: str) -> str:
    engine = create_engine(url)
    try:
        async with session_factory(engine)() as s:
            return str(await s.scalar(select(TableRow.id).where(TableRow.code == code)))
    finally:
        await engine.dispose()


async def resume_at(client: Client, base: str, code: str, timeout: float = 15) -> dict[str, Any]:
    """Reconnect to `base` with the stream and seq held (the table may be unavailable for a
    moment: the client tries again, as the browser does on 1013) until a snapshot comes."""
    client.base = base
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        mark = len(client.messages)
        await client.connect(code, resume=True)
        assert client.reader is not None
        while True:
            for message in client.messages[mark:]:
                if message["type"] == "snapshot":
                    return message
            if client.reader.done():  # closed: 1013, try again soon
                break
            client.changed.clear()
            with suppress(TimeoutError):
                await asyncio.wait_for(client.changed.wait(), 0.5)
        assert loop.time() < deadline, "the table never came back"
        await asyncio.sleep(0.1)


async def seat_three(*bases: str) -> tuple[list[Client], str]:
    """Three players, the host first; player i on `bases[i]` (else on the first)."""
    clients = [Client(bases[min(i, len(bases) - 1)]) for i in range(3)]
    for i, c in enumerate(clients):
        await c.join(f"p{i}")
    code = await clients[0].create_table(decision_time=0, seats=3)
    for i, c in enumerate(clients):
        await c.connect(code)
        if i == 0:
            assert (await c.request(type="pause"))["type"] == "ok"
        assert (await c.request(type="sit", seat=i, buy_in=100))["type"] == "ok"
    assert (await clients[0].request(type="resume"))["type"] == "ok"
    assert (await clients[0].request(type="pause"))["type"] == "ok"  # after this hand
    return clients, code


async def play(clients: list[Client], count: int, sent: list[Any]) -> None:
    for _ in range(count):
        actor, legal = await actor_of(clients)
        action = passive(legal)
        reply = await actor.request(type="act", hand=legal["hand"], counter=legal["counter"],
                                    **action)  # fmt: skip
        assert reply["type"] == "ok", reply
        sent.append((legal["hand"], legal["counter"], action, clients.index(actor)))


async def check_stored(url: str, table_id: str, hand_id: str, sent: list[Any]) -> None:
    decks.use_secret(SECRET)  # the servers': their decks are sealed with it
    engine = create_engine(url)
    try:
        sessions = session_factory(engine)
        async with sessions() as s:
            query = select(HandActionRow).where(HandActionRow.hand_id == uuid.UUID(hand_id))
            rows = list(await s.scalars(query.order_by(HandActionRow.counter)))
            assert (await s.get_one(HandRow, uuid.UUID(hand_id))).ended_at is not None
        # each accepted action stored once, as accepted; then the shows and mucks of the
        # showdown the server made itself (stored actions like any other), nothing else
        assert [(r.counter, r.kind) for r in rows[: len(sent)]] == [
            (counter, action["action"]) for _, counter, action, _ in sent
        ]
        showdown = rows[len(sent) :]
        assert [r.counter for r in showdown] == list(range(len(sent), len(rows)))
        assert all(r.kind in ("show", "muck") for r in showdown)
        store = SqlTableStore(sessions)
        assert await store.ledger_balance(table_id) == await store.stacks_total(table_id) == 300
    finally:
        await engine.dispose()
    db = await replay_table(url, table_id, secret=SECRET)
    assert {seat: stack for seat, (_, stack) in db["seats"].items()} == db["chain"]


async def test_sigkill_the_owner_and_another_process_continues_the_hand(
    tmp_path: Path, postgres_url: str, redis_url: str
) -> None:
    env = await environment(tmp_path, postgres_url, redis_url)
    sent: list[Any] = []
    with processes(env, "a", "b") as procs:
        (first, base_a), (_, base_b) = procs["a"], procs["b"]
        # The third player is relayed: connected to b, which does not own the table.
        clients, code = await seat_three(base_a, base_a, base_b)
        table_id = await table_id_of(postgres_url, code)
        assert owner(redis_url, table_id) == "a"
        await play(clients, 3, sent)

        os.kill(first.pid, signal.SIGKILL)  # mid-hand, no chance to release anything
        killed = time.monotonic()
        while owner(redis_url, table_id) != "b":
            assert time.monotonic() - killed < TAKEN_WITHIN, "not taken in time"
            await asyncio.sleep(0.02)
        print(f"\ntaken {time.monotonic() - killed:.2f} s after the kill (lease {LEASE} s)")
        first.wait(10)

        hand_id = sent[0][0]
        for c in clients:
            await asyncio.wait_for(asyncio.gather(c.reader, return_exceptions=True), 10)  # type: ignore[arg-type]
            if c.base == base_b:  # relayed: b told it to resume (the owner changed)
                assert c.ws is not None and c.ws.close_code == 1012
            snapshot = await resume_at(c, base_b, code)
            assert snapshot["hand"]["id"] == hand_id
            assert snapshot["hand"]["counter"] == len(sent)  # the same counter
        last_hand, last_counter, last_action, by = sent[-1]
        for i, c in enumerate(clients):  # resent: applied at most once
            reply = await c.request(type="act", hand=last_hand, counter=last_counter,
                                    **last_action)  # fmt: skip
            assert reply["code"] == ("duplicate" if i == by else "stale_counter"), reply
        await finish(clients, sent)
        for c in clients:
            await c.close()
    await check_stored(postgres_url, table_id, hand_id, sent)


async def test_sigstop_the_owner_then_its_writes_are_refused_and_it_drops_the_table(
    tmp_path: Path, postgres_url: str, redis_url: str
) -> None:
    env = await environment(tmp_path, postgres_url, redis_url)
    sent: list[Any] = []
    with processes(env, "a", "b") as procs:
        (first, base_a), (_, base_b) = procs["a"], procs["b"]
        clients, code = await seat_three(base_a)
        table_id = await table_id_of(postgres_url, code)
        await play(clients, 2, sent)
        stale_actor, stale_legal = await actor_of(clients)  # to act, as a sees it

        os.kill(first.pid, signal.SIGSTOP)  # a freezes (a GC pause, a stopped VM)
        try:
            stopped = time.monotonic()
            while owner(redis_url, table_id) != "b":
                assert time.monotonic() - stopped < TAKEN_WITHIN, "not taken in time"
                await asyncio.sleep(0.02)
            # The players carry on at b (new connections; the old ones hang on frozen a).
            moved = []
            for c in clients:
                other = Client(base_b)
                other.token, other.player_id = c.token, c.player_id
                snapshot = await resume_at(other, base_b, code)
                assert snapshot["hand"]["counter"] == len(sent)
                moved.append(other)
            await play(moved, 2, sent)
            # Meanwhile a frozen a is sent the action it thinks is due, on an old connection.
            stale_ref = 777
            await stale_actor.send(id=stale_ref, type="act", hand=stale_legal["hand"],
                                   counter=stale_legal["counter"], action="fold")  # fmt: skip
        finally:
            os.kill(first.pid, signal.SIGCONT)
        # a wakes: the action is never `ok` (its write is refused by the epoch, or its lost
        # lease is noticed first); a drops the table and tells its connections to reconnect.
        for c in clients:
            await asyncio.wait_for(asyncio.gather(c.reader, return_exceptions=True), 10)  # type: ignore[arg-type]
            assert c.ws is not None and c.ws.close_code == 1012
        answers = [m for m in stale_actor.messages if m.get("id") == stale_ref]
        assert all(m["type"] == "error" for m in answers), answers
        assert owner(redis_url, table_id) == "b"
        await finish(moved, sent)
        await asyncio.sleep(RENEW * 3)  # a's sweeps: it does not take the table back
        assert owner(redis_url, table_id) == "b"
        for c in (*clients, *moved):
            await c.close()
    await check_stored(postgres_url, table_id, sent[0][0], sent)
