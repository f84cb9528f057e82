"""The relay, with three real server processes on one PostgreSQL and one redis-server: the
players of one table are connected to different processes (two of them relayed through Redis
Streams to the owner). Every hand ends with the stacks of the engine's replay of the stored
deck and actions, the ledger holds, and no connection ever gets a card its seat may not see."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

from tests.api.live import Client, bot
from tests.api.test_play import check_no_leak, hands_seen, replay_table
from tests.scale.cluster import cards_in_redis, owner, stream_lengths
from tests.scale.test_failover import SECRET, environment, processes, table_id_of

HANDS = 4


async def test_players_on_three_processes_play_one_table(
    tmp_path: Path, postgres_url: str, redis_url: str
) -> None:
    env = await environment(tmp_path, postgres_url, redis_url)
    with processes(env, "a", "b", "c") as procs:
        bases = [procs[name][1] for name in ("a", "b", "c")]
        clients = [Client(base) for base in bases]  # the host on a, the others on b and c
        for i, c in enumerate(clients):
            await c.join(f"p{i}")
        code = await clients[0].create_table(decision_time=0, seats=3, game="omaha-hi-lo")
        table_id = await table_id_of(postgres_url, code)
        assert owner(redis_url, table_id) == "a"
        spectator = Client(bases[2])
        await spectator.join("watcher")
        spectator.batch = True  # batched frames through the relay (docs/protocol.md)
        await spectator.connect(code)
        for i, c in enumerate(clients):
            await c.connect(code)
            reply = await c.request(type="sit", seat=i, buy_in=200)
            assert reply["type"] == "ok", reply
        # A command with no answer of the table's events in between: ok through the relay.
        reply = await clients[1].request(type="chat", text="hello from b")
        assert reply["type"] == "ok" and reply["of"] == "chat", reply
        await clients[2].wait_for(lambda m: m["type"] == "chat" and m["text"] == "hello from b")

        stop = asyncio.Event()
        rng = random.Random(16)
        bots = [asyncio.create_task(bot(c, random.Random(rng.random()), 10**6, stop))
                for c in clients]  # fmt: skip
        try:
            loop = asyncio.get_running_loop()
            deadline = loop.time() + 60
            while min(hands_seen(c) for c in clients) < HANDS:
                assert loop.time() < deadline, [hands_seen(c) for c in clients]
                await asyncio.sleep(0.05)
                for b in bots:
                    if b.done():
                        b.result()
            # Mid-game, through two gateways: Redis holds no card in clear.
            assert cards_in_redis(redis_url) == []
            assert (await clients[1].request(type="pause"))["type"] == "error"  # not the host
            assert (await clients[0].request(type="pause"))["type"] == "ok"
            state: dict[str, Any] = {}
            for _ in range(400):
                state = (await clients[0].http.get(f"/api/tables/{code}")).json()
                if state["hand"] is None or state["hand"]["phase"] == "complete":
                    break
                await asyncio.sleep(0.05)
            # The owner keeps the presence of relayed connections, with their seats.
            assert state["online"] == {c.player_id: i for i, c in enumerate(clients)}
        finally:
            stop.set()
            await asyncio.gather(*bots, return_exceptions=True)

        # The relayed spectator got bursts as array frames, their seqs without a gap (its
        # reader checks); a relayed player that did not ask got one message a frame.
        assert max(spectator.frames) > 1, (spectator.frames, spectator.closed, spectator.messages)
        assert clients[1].frames and max(clients[1].frames) == 0

        # The HTTP reads of the client work on any process (relayed to the owner).
        public = (await clients[1].http.get(f"/api/tables/{code}")).json()  # on b
        assert public["table"]["id"] == table_id and public["online"] == state["online"]
        listed = (await clients[2].http.get("/api/tables")).json()  # on c
        assert [t["code"] for t in listed] == [code] and listed[0]["seated"] == 3
        ledger = await clients[1].http.get(f"/api/tables/{code}/ledger")
        assert ledger.status_code == 200, ledger.text
        totals = ledger.json()["totals"]
        assert totals["chips_in"] >= 600  # and a top-up for any who busted
        assert totals["chips_in"] == totals["on_table"] + totals["cashed_out"]

        db = await replay_table(postgres_url, table_id, secret=SECRET)
        assert len(db["hands"]) >= HANDS
        ended: dict[str, list[Any]] = {}
        for c in clients:  # every connection saw every hand end as the engine replays it
            for m in c.messages:
                if m["type"] == "hand_ended":
                    ended.setdefault(m["hand"], []).append(m["stacks"])
        for hand_id, stacks in ended.items():
            assert len(stacks) == 3 and all(s == stacks[0] for s in stacks)
            state_, seats = db["hands"][hand_id]
            assert {int(k): v for k, v in stacks[0].items()} == {
                seat: state_.stacks[p] for p, seat in enumerate(seats)
            }
        assert db["balance"] == db["stacks_total"]
        checked = sum(check_no_leak(c, i, db["hands"]) for i, c in enumerate(clients))
        assert checked > 0
        check_no_leak(spectator, None, db["hands"])
        # What went through Redis is trimmed as it is read: no stream holds the game.
        assert all(n <= 2 * 512 for n in stream_lengths(redis_url).values())
        for c in (*clients, spectator):
            await c.close()
