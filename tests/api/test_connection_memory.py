"""Nothing stays behind a WebSocket connection once it has closed.

The server freezes its heap and runs a full garbage collection rarely (app/__main__.py's
`tune_gc`), so a connection that leaves a reference cycle behind is, in practice, memory
that is never given back: every connection used to leave its HTTP protocol, its parser and
its scope so (issue 29: RSS grew ~1.4 MB per 160 connections, without levelling). Here the
collector is off while thousands of connections open and close, as the tuned server's
nearly is, and what they leave is counted as objects, not read from RSS (which moves with
the allocator): cycles left behind (what a collection finds) and live objects after it.

The server runs on uvloop, as `python -m app serve` does. (On the standard asyncio loop,
CPython 3.11's own socket transport is a reference cycle, which uvloop's is not.) The
client is a few lines over a raw socket, so that only the server's objects are counted.
"""

from __future__ import annotations

import asyncio
import gc
import json
import struct
import subprocess
import sys
from pathlib import Path

import uvloop
from pydantic import SecretStr

from app.config import Settings
from tests.api.live import Client, live_server, server_state
from tests.raw_socket import CLOSE, handshake, masked, read_frame

WARM_UP = 200
CONNECTIONS = 2_000
AT_ONCE = 4  # below WS_PER_SESSION: all are one player's
#: objects a closed connection may leave, on average: bounded caches still filling (the
#: SQL statement cache, sqlite3's cursor list) and nothing else
SLACK = 1.0


async def visit(port: int, path: str, origin: str, cookie: str) -> int:
    """Open a WebSocket, read its first frame, close it; the HTTP status of the handshake
    (101, or the refusal's)."""
    status, reader, writer = await handshake(port, path, origin, cookie)
    if status == 101:
        await read_frame(reader)  # the snapshot
        writer.write(masked(CLOSE, struct.pack("!H", 1000)))
        await reader.read()  # until the server closes
    writer.close()
    await writer.wait_closed()
    return status


def tracked() -> int:
    """Live objects the collector tracks, after a collection."""
    gc.collect()
    return len(gc.get_objects())


async def open_and_close(tmp_path: Path) -> tuple[int, int, list[int]]:
    settings = Settings(
        data_dir=tmp_path / "data",
        database_url=f"sqlite+aiosqlite:///{tmp_path}/omaha.sqlite3",
        redis_url=None,
        secret_key=SecretStr("x" * 40),
    )
    async with live_server(settings) as base:
        host = Client(base)
        await host.join("host")
        code = await host.create_table(decision_time=0, seats=2)
        port = int(base.rsplit(":", 1)[1])
        cookie = f"omaha_session={host.token}"
        # a normal connection, and one refused for a malformed `since`, alike
        paths = [f"/ws/tables/{code}", f"/ws/tables/{code}?since=x"]
        statuses: list[int] = []

        async def visits(count: int) -> None:  # AT_ONCE clients, each visiting in turn
            turns = iter(range(count))

            async def client() -> None:
                for i in turns:
                    statuses.append(await visit(port, paths[i % 2], base, cookie))

            await asyncio.gather(*(client() for _ in range(AT_ONCE)))

        state = server_state(base)

        async def settled() -> None:  # every handler has finished with its connection
            while state.connections or state.tasks:
                await asyncio.sleep(0.01)

        await visits(WARM_UP)
        await settled()
        gc.disable()
        try:
            before = tracked()
            await visits(CONNECTIONS)
            await settled()
            cycles = gc.collect()
            after = len(gc.get_objects())
        finally:
            gc.enable()
        await host.close()
    return cycles, after - before, statuses


def measure(tmp_path: Path) -> tuple[int, int, list[int]]:
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(open_and_close(tmp_path))


def test_closed_connections_leave_nothing_behind(tmp_path: Path) -> None:
    # In a process of its own: the objects counted are the whole process's, and a test run
    # before this one in the same worker may leave a thread that still allocates (a bot's
    # socket reader, a browser driver): once +3.5 objects a connection in a full run.
    run = subprocess.run(
        [sys.executable, "-m", "tests.api.test_connection_memory", str(tmp_path)],
        capture_output=True, text=True, timeout=600, cwd=ROOT, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    cycles, grown, statuses = json.loads(run.stdout.strip().splitlines()[-1])
    assert statuses.count(101) == (WARM_UP + CONNECTIONS) // 2  # the normal ones accepted
    assert statuses.count(403) == (WARM_UP + CONNECTIONS) // 2  # the others refused
    assert cycles <= SLACK * CONNECTIONS, f"{cycles / CONNECTIONS:.1f} objects in cycles each"
    assert grown <= SLACK * CONNECTIONS, f"{grown / CONNECTIONS:.1f} live objects each"


ROOT = Path(__file__).resolve().parents[2]

if __name__ == "__main__":
    print(json.dumps(measure(Path(sys.argv[1]))))
