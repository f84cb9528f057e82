"""Crash test: the server process is killed with SIGKILL in the middle of a hand, started
again, and the hand continues where it stopped; no chip is lost and no action is applied
twice (a resent action is refused as a duplicate)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import func, select

from app.store import decks
from app.store.db import create_engine, session_factory
from app.store.migrate import upgrade
from app.store.models import HandActionRow, HandRow, LedgerEntry
from app.store.tables import SqlTableStore
from tests.api.live import Client
from tests.api.test_play import replay_table
from tests.servers import free_port, wait_for_port

ROOT = Path(__file__).resolve().parents[2]


@contextmanager
def server_process(env: dict[str, str]) -> Iterator[subprocess.Popen[bytes]]:
    # Its log goes to a file, not a pipe: a pipe nobody reads blocks a chatty server once its
    # buffer is full, and the file says why a server that never listened did not.
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "app", "serve"], cwd=ROOT, env=env,
            stdout=subprocess.DEVNULL, stderr=log,
        )  # fmt: skip
        try:
            try:
                wait_for_port("127.0.0.1", int(env["PORT"]), timeout=90)  # a loaded machine
            except OSError:
                log.seek(0)
                raise RuntimeError(log.read().decode(errors="replace")[-4000:]) from None
            yield process
        finally:
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(20)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()


def migrated_server(
    tmp_path: Path, postgres_url: str, redis_url: str | None = None, between_hands: str = "0"
) -> tuple[dict[str, str], int]:
    """The environment of one server process on a freshly migrated PostgreSQL (presence in
    Redis if given, else in process), and the free port it listens on."""
    port = free_port()
    env = {**os.environ, "DATABASE_URL": postgres_url, "HOST": "127.0.0.1", "PORT": str(port),
           "SECRET_KEY": "c" * 40, "DATA_DIR": str(tmp_path / "data"),
           "BETWEEN_HANDS": between_hands, "LOG_LEVEL": "warning"}  # fmt: skip
    if redis_url is None:
        env.pop("REDIS_URL", None)
    else:
        env["REDIS_URL"] = redis_url
    # `python -m app migrate`'s own upgrade, in this process (a thread: it runs its own event
    # loop): a subprocess cost a Python start, seconds on a loaded machine, for nothing tested.
    with ThreadPoolExecutor(1) as pool:
        pool.submit(upgrade, postgres_url).result(timeout=120)
    return env, port


def to_act(clients: list[Client]) -> tuple[Client, dict[str, Any]] | None:
    """The client whose latest turn (or snapshot) carries legal actions, if any yet."""
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
    return None


async def finish(clients: list[Client], sent: list[Any]) -> None:
    """Play to the hand's end, passively; the server shows down by itself (the hands it
    must show, the beaten ones mucked by the default auto-muck), so after the last bet
    nobody may be to act until the hand ends."""
    for _ in range(2000):
        if any(m["type"] == "hand_ended" for c in clients for m in c.messages):
            return
        found = to_act(clients)
        if found is None:
            await asyncio.sleep(0.05)
            continue
        actor, legal = found
        action = passive(legal)
        reply = await actor.request(type="act", hand=legal["hand"], counter=legal["counter"],
                                    **action)  # fmt: skip
        assert reply["type"] == "ok", reply
        sent.append((legal["hand"], legal["counter"], action, clients.index(actor)))
    raise AssertionError("the hand never ended")


async def actor_of(clients: list[Client]) -> tuple[Client, dict[str, Any]]:
    """`to_act`, waited for."""
    for _ in range(400):
        if (found := to_act(clients)) is not None:
            return found
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
    env, port = migrated_server(tmp_path, postgres_url, redis_url)
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
        await finish(clients, sent)
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
        # each action stored once, none twice; and the showdown's shows and mucks, which
        # the server made itself (one per player left at the showdown)
        showdown = [m for m in clients[0].messages if m["type"] in ("shown", "mucked")
                    and m.get("hand") == hand_id]  # fmt: skip
        assert stored == len(sent) + len(showdown)
        store = SqlTableStore(sessions)
        assert await store.ledger_balance(table_id) == await store.stacks_total(table_id) == 300
    finally:
        await engine.dispose()
    db = await replay_table(postgres_url, table_id, secret="c" * 40)
    assert {seat: stack for seat, (_, stack) in db["seats"].items()} == db["chain"]


async def test_sigkill_keeps_every_command_accepted_mid_hand(
    tmp_path: Path, postgres_url: str
) -> None:
    """Issue 10, items 1 and 2: `leave`, host `remove`, `set_stakes`, a pending `top_up` and
    `adjust`, a seat request and a straddle choice were answered `ok` mid-hand and lost by
    SIGKILL + restart. Each is restored, and applied once when the hand ends. A client that
    resumes with its old stream after the restart gets a snapshot (docs/protocol.md §3)."""
    env, port = migrated_server(tmp_path, postgres_url)
    base = f"http://127.0.0.1:{port}"
    host, p1, p2, p3 = (Client(base) for _ in range(4))
    with server_process(env) as first:
        for i, c in enumerate((host, p1, p2, p3)):
            await c.join(f"p{i}")
        code = await host.create_table(decision_time=0, seats=4, straddle=True,
                                       approval_required=True)  # fmt: skip
        for c in (host, p1, p2, p3):
            await c.connect(code)
        assert (await host.request(type="pause"))["type"] == "ok"
        assert (await host.request(type="sit", seat=0, buy_in=100))["type"] == "ok"
        for seat, c in ((1, p1), (2, p2)):
            assert (await c.request(type="sit", seat=seat, buy_in=100))["status"] == "requested"
            assert (await host.request(type="approve", player_id=c.player_id))["type"] == "ok"
        assert (await host.request(type="resume"))["type"] == "ok"
        await host.wait_for(lambda m: m["type"] == "hand_started")
        accepted: list[tuple[Client, dict[str, Any]]] = [
            (p1, {"type": "leave"}),
            (host, {"type": "remove", "seat": 2}),
            (host, {"type": "set_stakes", "small_blind": 2, "big_blind": 4}),
            (host, {"type": "top_up", "amount": 50}),
            (host, {"type": "adjust", "seat": 0, "amount": -10}),
            (host, {"type": "straddle", "on": True}),
            (p3, {"type": "sit", "seat": 3, "buy_in": 80}),
        ]
        for c, message in accepted:
            reply = await c.request(**message)
            assert reply["type"] == "ok", (message, reply)
        await host.wait_for(lambda m: m["type"] == "seat" and m["seat"] == 0 and m["straddle"])
        os.kill(first.pid, signal.SIGKILL)
        first.wait(10)
    for c in (host, p1, p2, p3):
        await asyncio.gather(c.reader, return_exceptions=True)  # type: ignore[arg-type]
    old_stream = host.stream
    host.messages.clear()

    with server_process(env):
        await host.connect(code, resume=True)  # the stream and seq from before the crash
        snapshot = await host.wait_for(lambda m: m["type"] == "snapshot")
        assert snapshot["stream"] != old_stream  # a restart is a new stream: a snapshot
        seats = snapshot["seats"]
        assert seats[1]["status"] == "leaving" and seats[2]["status"] == "leaving"
        assert seats[0]["straddle"] is True
        assert snapshot["table"]["next_config"]["big_blind"] == 4
        assert [r["player_id"] for r in snapshot["requests"]] == [p3.player_id]
        hand = snapshot["hand"]
        assert hand is not None
        # The leaver and the removed player are folded when the action reaches them; the
        # host checks or calls until the hand ends.
        while not any(m["type"] == "hand_ended" for m in host.messages):
            turns = [m for m in host.messages if m["type"] in ("turn", "snapshot")]
            last = turns[-1]
            legal = last.get("legal") if last["type"] == "turn" else last["hand"].get("legal")
            if legal is None:
                await asyncio.sleep(0.05)
                continue
            counter = last["counter"] if last["type"] == "turn" else last["hand"]["counter"]
            reply = await host.request(type="act", hand=hand["id"], counter=counter,
                                       **passive(legal))  # fmt: skip
            assert reply["type"] in ("ok", "error"), reply
        await host.wait_for(lambda m: m["type"] == "left" and m["seat"] == 2)
        ended = await host.wait_for(lambda m: m["type"] == "hand_ended")
        won = ended["stacks"]["0"]
        at = host.messages.index(ended)
        mine = await host.wait_for(  # the seat as settled after the hand
            lambda m: m["type"] == "seat" and m["seat"] == 0 and host.messages.index(m) > at
        )
        assert mine["stack"] == min(won + 50, 200) - 10  # top-up, then adjustment, once each
        await host.close()

    engine = create_engine(postgres_url)
    try:
        sessions = session_factory(engine)
        async with sessions() as s:
            tid = await s.scalar(select(HandRow.table_id).limit(1))
            kinds = list(await s.scalars(select(LedgerEntry.kind).where(
                LedgerEntry.table_id == tid)))  # fmt: skip
        expected = ["buy_in"] * 3 + ["cash_out"] * 2 + ["top_up", "adjustment"]
        assert sorted(kinds) == sorted(expected)
        store = SqlTableStore(sessions)
        table_id = str(tid)
        assert await store.ledger_balance(table_id) == await store.stacks_total(table_id)
    finally:
        await engine.dispose()
    for c in (p1, p2, p3):
        await c.close()
