"""A client that stops reading does not delay anyone else: its outbox fills, the server
closes it, and the others' updates keep their pace (measured)."""

from __future__ import annotations

import asyncio
import json
import random
import socket
import statistics
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import websockets

from app.bots.policy import random_action
from tests.api.live import Client, live_server
from tests.api.test_play import live_settings


class Driver:
    """Bots that act at once on their turn; the latency of an action is the time from sending
    it to the watcher receiving the next turn it caused."""

    def __init__(self, players: list[Client], watcher: Client, rng: random.Random) -> None:
        self.players, self.watcher, self.rng = players, watcher, rng
        self.sent: dict[tuple[str, int], float] = {}
        self.handled: set[tuple[str, int]] = set()
        self.seen = {id(p): 0 for p in players}
        self.watched = 0

    async def play(self, actions: int, until: Any = None) -> list[float]:
        latencies: list[float] = []
        deadline = time.perf_counter() + 120
        while len(latencies) < actions:
            assert time.perf_counter() < deadline, (
                f"stalled after {len(latencies)} actions: {self.players[0].messages[-3:]}"
            )
            if until is not None and len(latencies) % 50 == 49 and await until():
                break
            for p in self.players:
                for m in p.messages[self.seen[id(p)] :]:
                    key = (m.get("hand"), m.get("counter"))
                    if m["type"] == "turn" and "legal" in m and key not in self.handled:
                        self.handled.add(key)  # type: ignore[arg-type]
                        self.sent[key] = time.perf_counter()  # type: ignore[index]
                        await p.send(type="act", hand=m["hand"], counter=m["counter"],
                                     **random_action(m["legal"], self.rng))  # fmt: skip
                    if m["type"] == "seat" and m["player_id"] == p.player_id and m["stack"] == 0:
                        await p.send(type="top_up", amount=500)
                self.seen[id(p)] = len(p.messages)
            for m in self.watcher.messages[self.watched :]:
                if m["type"] == "turn":
                    start = self.sent.get((m["hand"], m["counter"] - 1))
                    if start is not None:
                        latencies.append(time.perf_counter() - start)
            self.watched = len(self.watcher.messages)
            await asyncio.sleep(0.002)
        return latencies


def p90(values: list[float]) -> float:
    return statistics.quantiles(values, n=10)[-1]


async def test_a_client_that_stops_reading_does_not_delay_the_others(
    tmp_path: Path, postgres_url: str, redis_url: str
) -> None:
    settings = live_settings(tmp_path, postgres_url, redis_url).model_copy(
        update={"ws_outbox_limit": 32, "ws_rate": 1000.0, "ws_burst": 1000}
    )
    async with live_server(settings) as base:
        a, b, watcher = Client(base), Client(base), Client(base)
        for i, c in enumerate((a, b, watcher)):
            await c.join(f"c{i}")
        code = await a.create_table(decision_time=0, seats=2, buy_in_max=1000)
        for i, c in enumerate((a, b)):
            await c.connect(code)
            assert (await c.request(type="sit", seat=i, buy_in=1000))["type"] == "ok"
        await watcher.connect(code)
        driver = Driver([a, b], watcher, random.Random(3))
        baseline = await driver.play(300)

        # A spectator that stops reading: tiny receive buffer, and it never reads.
        staller = Client(base)
        await staller.join("staller")
        url = urlparse(base)
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
        sock.connect((url.hostname, url.port))
        stalled = await websockets.connect(
            base.replace("http", "ws", 1) + f"/ws/tables/{code}", sock=sock, origin=base,  # type: ignore[arg-type]
            additional_headers={"Cookie": f"omaha_session={staller.token}"},
            max_queue=1, compression=None,
        )  # fmt: skip

        async def spectators() -> int:
            return int((await a.http.get(f"/api/tables/{code}")).json()["spectators"])

        async def staller_dropped() -> bool:  # the watcher is the only spectator left
            return await spectators() == 1

        for _ in range(100):  # the staller is online (the public view names no spectator)
            if await spectators() == 2:
                break
            await asyncio.sleep(0.05)
        started = time.perf_counter()
        during = await driver.play(5000, until=staller_dropped)
        closed_after = time.perf_counter() - started
        print(
            f"\nlatency p90 without a stalled client {p90(baseline) * 1000:.1f} ms, "
            f"with one {p90(during) * 1000:.1f} ms over {len(during)} actions; "
            f"stalled client closed by the server after {closed_after:.1f}s"
        )
        assert await staller_dropped()
        # A table that waited on the staller would stall the others for good (or for a send
        # timeout, a second or more): half a second is a loaded machine's noise, not that.
        assert p90(during) < max(3 * p90(baseline), 0.5)
        # When it reads again it finds the close (4008: too slow, reconnect for a snapshot).
        codes = []

        async def drain() -> None:
            try:
                async for _ in stalled:
                    pass
            except websockets.ConnectionClosed:
                pass

        await asyncio.wait_for(drain(), 30)
        codes.append(stalled.close_code)
        assert codes == [4008] or codes == [1006], codes
        # And it comes back with a fresh snapshot.
        await staller.connect(code)
        snap = await staller.wait_for(lambda m: m["type"] == "snapshot")
        assert json.dumps(snap)
        for c in (a, b, watcher, staller):
            await c.close()
