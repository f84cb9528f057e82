"""SIGTERM one process under play: its tables deal no new hand, the hand in play ends there
(its players act through another process, relayed), then the table moves to the other
process between hands; the stopped process exits cleanly and no hand is cut."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import time
import uuid
from pathlib import Path
from typing import Any

from sqlalchemy import select

from app.store.db import create_engine, session_factory
from app.store.models import HandRow
from tests.api.live import Client, bot
from tests.api.test_crash import passive, to_act
from tests.api.test_play import hands_seen, replay_table
from tests.scale.test_failover import (
    SECRET,
    environment,
    owner,
    processes,
    resume_at,
    table_id_of,
)
from tests.waits import within


async def hand_rows(url: str, table_id: str) -> list[Any]:
    engine = create_engine(url)
    try:
        async with session_factory(engine)() as s:
            query = select(HandRow.id, HandRow.ended_at).where(
                HandRow.table_id == uuid.UUID(table_id)
            )
            return list(await s.execute(query))
    finally:
        await engine.dispose()


def last_state(client: Client) -> dict[str, Any]:
    kinds = ("turn", "acted", "hand_ended", "snapshot")
    return [m for m in client.messages if m["type"] in kinds][-1]


def in_play(client: Client) -> str | None:
    """The hand this client last saw start and not end."""
    current = None
    for m in client.messages:
        if m["type"] == "hand_started":
            current = m["hand"]
        elif m["type"] == "hand_ended" and m["hand"] == current:
            current = None
    return current


async def test_sigterm_hands_the_tables_over_between_hands(
    tmp_path: Path, postgres_url: str, redis_url: str
) -> None:
    env = {**await environment(tmp_path, postgres_url, redis_url), "DRAIN_SECONDS": "20"}
    with processes(env, "a", "b") as procs:
        (first, base_a), (_, base_b) = procs["a"], procs["b"]
        host = Client(base_a)
        await host.join("host")
        code = await host.create_table(decision_time=0, seats=3)  # a owns it
        table_id = await table_id_of(postgres_url, code)
        host.base = base_b
        clients = [host, Client(base_b), Client(base_b)]  # every player relayed through b
        for i, c in enumerate(clients):
            if i:
                await c.join(f"p{i}")
            await c.connect(code)
            assert (await c.request(type="sit", seat=i, buy_in=200))["type"] == "ok"
        stop = asyncio.Event()
        rng = random.Random(7)
        bots = [asyncio.create_task(bot(c, random.Random(rng.random()), 10**6, stop))
                for c in clients]  # fmt: skip
        try:
            loop = asyncio.get_running_loop()
            await within(lambda: hands_seen(host) >= 1 and in_play(host) is not None, 30)
            playing = in_play(host)
            assert owner(redis_url, table_id) == "a"
            os.kill(first.pid, signal.SIGTERM)
            stopped = time.monotonic()
            while owner(redis_url, table_id) != "b":
                assert time.monotonic() - stopped < 25, "never handed over"
                await asyncio.sleep(0.02)
            # Handed over between hands: the hand in play at SIGTERM had ended, on a.
            ended = {str(h): e for h, e in await hand_rows(postgres_url, table_id)}
            assert ended[str(playing)] is not None
            # a exits once its tables are handed over (uvicorn re-raises the SIGTERM it handled)
            assert first.wait(25) in (0, -signal.SIGTERM)
            for c in clients:  # b tells its relayed connections the table moved
                await asyncio.wait_for(asyncio.gather(c.reader, return_exceptions=True), 10)  # type: ignore[arg-type]
                assert c.ws is not None and c.ws.close_code == 1012
                await resume_at(c, base_b, code)
            before = hands_seen(host)
            deadline = loop.time() + 30
            acted: set[Any] = set()
            while hands_seen(host) < before + 2:  # play goes on at b
                assert loop.time() < deadline
                await asyncio.sleep(0.05)
                found = to_act(clients)  # the bots answer turns; a snapshot's turn is ours
                if found is not None and last_state(found[0])["type"] == "snapshot":
                    actor, legal = found
                    if (legal["hand"], legal["counter"]) not in acted:
                        acted.add((legal["hand"], legal["counter"]))
                        await actor.send(type="act", hand=legal["hand"],
                                         counter=legal["counter"], **passive(legal))  # fmt: skip
                for b in bots:
                    if b.done():
                        b.result()
            assert (await host.request(type="pause"))["type"] == "ok"
            await host.wait_for(lambda m: m["type"] == "table" and m.get("paused") is True)
            # The bots play out the hand in play at the pause (a pause deals no new hand)
            await within(lambda: in_play(host) is None, 30, what="the last hand's end")
        finally:
            stop.set()
            await asyncio.gather(*bots, return_exceptions=True)

        async def all_ended() -> bool:
            return all(e is not None for _, e in await hand_rows(postgres_url, table_id))

        await within(all_ended, 30, every=0.1, what="every hand stored as ended")
        db = await replay_table(postgres_url, table_id, secret=SECRET)
        assert db["balance"] == db["stacks_total"]
        for c in clients:
            await c.close()
