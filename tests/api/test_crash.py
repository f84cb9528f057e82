"""Crash test: the server process is killed with SIGKILL in the middle of a hand, started
again, and the hand continues where it stopped; no chip is lost and no action is applied
twice (a resent action is refused as a duplicate)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import func, select

from app.store import decks
from app.store.db import create_engine, session_factory
from app.store.models import HandActionRow, HandRow
from app.store.tables import SqlTableStore
from tests.api.live import Client
from tests.api.test_play import replay_table
from tests.servers import free_port, wait_for_port

ROOT = Path(__file__).resolve().parents[2]


@contextmanager
def server_process(env: dict[str, str]) -> Iterator[subprocess.Popen[bytes]]:
    process = subprocess.Popen(
        [sys.executable, "-m", "app", "serve"], cwd=ROOT, env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        wait_for_port("127.0.0.1", int(env["PORT"]), timeout=30)
        yield process
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


async def actor_of(clients: list[Client]) -> tuple[Client, dict[str, Any]]:
    """The client whose latest turn (or snapshot) carries legal actions."""
    for _ in range(400):
        for c in clients:
            states = [m for m in c.messages
                      if m["type"] in ("turn", "acted", "hand_ended", "snapshot")]  # fmt: skip
            if not states:
                continue
            m = states[-1]
            if m["type"] == "turn" and "legal" in m:
                return c, {"hand": m["hand"], "counter": m["counter"], **m["legal"]}
            if m["type"] == "snapshot" and m["hand"] and "legal" in m["hand"]:
                hand = m["hand"]
                return c, {"hand": hand["id"], "counter": hand["counter"], **hand["legal"]}
        await asyncio.sleep(0.05)
    raise AssertionError("nobody is to act")


def passive(legal: dict[str, Any]) -> dict[str, Any]:
    actions = legal["actions"]
    if "run-twice" in actions:
        return {"action": "run-twice", "agree": False}
    if "show" in actions:
        return {"action": "show"}
    return {"action": "check" if "check" in actions else "call"}


async def test_sigkill_mid_hand_then_the_hand_continues(
    tmp_path: Path, postgres_url: str, redis_url: str
) -> None:
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": postgres_url,
        "REDIS_URL": redis_url,
        "HOST": "127.0.0.1",
        "PORT": str(port),
        "SECRET_KEY": "c" * 40,
        "DATA_DIR": str(tmp_path / "data"),
        "BETWEEN_HANDS": "0",
        "LOG_LEVEL": "warning",
    }
    migrate = subprocess.run([sys.executable, "-m", "app", "migrate"], cwd=ROOT, env=env,
                             capture_output=True, timeout=120)  # fmt: skip
    assert migrate.returncode == 0, migrate.stderr
    base = f"http://127.0.0.1:{port}"
    clients = [Client(base) for _ in range(3)]
    sent: list[tuple[str, int, dict[str, Any], int]] = []
    with server_process(env) as first:
        for i, c in enumerate(clients):
            await c.join(f"p{i}")
        host = clients[0]
        code = await host.create_table(decision_time=0, seats=3)
        await host.connect(code)
        assert (await host.request(type="pause"))["type"] == "ok"
        for i, c in enumerate(clients):
            if i:
                await c.connect(code)
            assert (await c.request(type="sit", seat=i, buy_in=100))["type"] == "ok"
        assert (await host.request(type="resume"))["type"] == "ok"
        assert (await host.request(type="pause"))["type"] == "ok"  # after this hand
        for _ in range(3):  # three actions, into the flop
            actor, legal = await actor_of(clients)
            action = passive(legal)
            reply = await actor.request(type="act", hand=legal["hand"], counter=legal["counter"],
                                        **action)  # fmt: skip
            assert reply["type"] == "ok", reply
            sent.append((legal["hand"], legal["counter"], action, clients.index(actor)))
        # Mid-hand: SIGKILL, no chance to flush or clean up.
        os.kill(first.pid, signal.SIGKILL)
        first.wait(10)
    for c in clients:
        await asyncio.gather(c.reader, return_exceptions=True)  # type: ignore[arg-type]
        c.messages.clear()

    hand_id = sent[0][0]
    with server_process(env):
        for c in clients:  # same cookies: the same players after the restart
            await c.connect(code)
            snapshot = await c.wait_for(lambda m: m["type"] == "snapshot")
            assert snapshot["hand"]["id"] == hand_id
            assert snapshot["hand"]["counter"] == len(sent)
        # The last action, resent with its hand id and counter: applied at most once.
        last_hand, last_counter, last_action, by = sent[-1]
        for i, c in enumerate(clients):
            reply = await c.request(type="act", hand=last_hand, counter=last_counter,
                                    **last_action)  # fmt: skip
            assert reply["type"] == "error"
            assert reply["code"] == ("duplicate" if i == by else "stale_counter"), reply
        # Finish the hand.
        while True:
            ended = [m for c in clients for m in c.messages if m["type"] == "hand_ended"]
            if ended:
                break
            actor, legal = await actor_of(clients)
            action = passive(legal)
            reply = await actor.request(type="act", hand=legal["hand"], counter=legal["counter"],
                                        **action)  # fmt: skip
            assert reply["type"] == "ok", reply
            sent.append((legal["hand"], legal["counter"], action, clients.index(actor)))
        for c in clients:
            await c.close()

    decks.use_secret("c" * 40)  # the server's SECRET_KEY: its decks are sealed with it
    engine = create_engine(postgres_url)
    try:
        sessions = session_factory(engine)
        async with sessions() as s:
            hid = uuid.UUID(hand_id)
            stored = await s.scalar(select(func.count()).select_from(HandActionRow)
                                    .where(HandActionRow.hand_id == hid))  # fmt: skip
            row = await s.get_one(HandRow, hid)
            table_id = str(row.table_id)
            assert row.ended_at is not None
        assert stored == len(sent)  # each action stored once, none twice
        store = SqlTableStore(sessions)
        assert await store.ledger_balance(table_id) == await store.stacks_total(table_id) == 300
    finally:
        await engine.dispose()
    db = await replay_table(postgres_url, table_id, secret="c" * 40)
    assert {seat: stack for seat, (_, stack) in db["seats"].items()} == db["chain"]
