"""What one open WebSocket costs the server, apart from any set-up: `python -m app serve`
(SQLite, MEMORY_TRACE=1, app/memtrace.py) with its tables already made, then N spectator
connections, a snapshot, N more, a snapshot; the second N's difference divided by N is the
marginal cost of a connection: RSS, tracemalloc's total and top lines, and live objects by
type. The clients are raw sockets in this process (nothing of the server's is counted twice).

``.venv/bin/python bench/memconn.py --tables 100 --connections 600``   # ~1 minute

With --trace off (no MEMORY_TRACE) only RSS and the objects are compared: tracemalloc itself
adds ~16 bytes to every block it follows.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import os
import shutil
import sys
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import bots, fleet, memory  # noqa: E402
from bench.memtrace import ask_snapshot, short  # noqa: E402
from tests.raw_socket import PING, PONG, handshake, masked, read_frame  # noqa: E402

TOP = 25


class Socket:
    """A WebSocket client that reads the first frame (the snapshot), then only drains."""

    def __init__(self) -> None:
        self.writer: asyncio.StreamWriter | None = None
        self.drain: asyncio.Task[None] | None = None

    async def open(self, port: int, path: str, origin: str, cookie: str) -> None:
        status, reader, writer = await handshake(port, path, origin, cookie)
        if status != 101:
            raise RuntimeError(f"the handshake was answered {status}")
        await read_frame(reader)  # the snapshot
        self.writer = writer
        self.drain = asyncio.create_task(self._drain(reader))

    async def _drain(self, reader: asyncio.StreamReader) -> None:
        """Read frames, answering the server's pings (uvicorn closes a connection that does
        not answer within WS_PING_TIMEOUT)."""
        assert self.writer is not None
        while True:
            opcode, payload = await read_frame(reader)
            if opcode == PING:  # a pong with the same payload
                self.writer.write(masked(PONG, payload))

    def close(self) -> None:
        if self.drain is not None:
            self.drain.cancel()
        if self.writer is not None:
            self.writer.close()


class Snaps:
    def __init__(self, pid: int, folder: Path) -> None:
        self.pid, self.folder, self.n = pid, folder, 0

    def __call__(self, collect: bool = False) -> dict[str, object]:
        self.n += 1
        return ask_snapshot(self.pid, self.folder, self.n, collect)


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


async def main_async(args: argparse.Namespace) -> int:
    import httpx

    with memory.sqlite_server() as (target, pids):
        base = target.bases[0]
        port = int(base.rsplit(":", 1)[1])
        pid = pids[0]
        environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        entry = next(e for e in environ if e.startswith(b"DATA_DIR="))
        snaps = Snaps(pid, Path(entry.split(b"=", 1)[1].decode()))
        async with httpx.AsyncClient(base_url=base, timeout=60) as http:
            r = await http.post("/api/session", json={"name": "host"})
            r.raise_for_status()
            host = r.cookies["omaha_session"]
            codes = []
            for i in range(args.tables):
                r = await http.post("/api/tables", json={"name": f"t{i}", "game": "omaha",
                                    "seats": 6, "buy_in_max": bots.BUY_IN},
                                    cookies={"omaha_session": host})  # fmt: skip
                r.raise_for_status()
                codes.append(r.json()["code"])
            sessions = []
            for i in range(args.sessions):
                http.cookies.clear()
                r = await http.post("/api/session", json={"name": f"s{i}"})
                r.raise_for_status()
                sessions.append(r.cookies["omaha_session"])
        sockets: list[Socket] = []

        async def connect(count: int) -> None:
            limit = asyncio.Semaphore(20)

            async def one(i: int) -> None:
                s = Socket()
                sockets.append(s)
                async with limit:
                    await s.open(port, f"/ws/tables/{codes[i % len(codes)]}", base,
                                 f"omaha_session={sessions[i % len(sessions)]}")  # fmt: skip

            start = len(sockets)
            await asyncio.gather(*(one(start + i) for i in range(count)))
            await asyncio.sleep(2)  # the connections' presence and logging settle

        points = []
        try:
            for _ in range(3):
                points.append((len(sockets), snaps(args.collect), rss_kib(pid)))
                await connect(args.connections)
            points.append((len(sockets), snaps(args.collect), rss_kib(pid)))
        finally:
            for s in sockets:
                s.close()
        for (na, fa, ra), (nb, fb, rb) in itertools.pairwise(points):
            n = nb - na
            traced = (fb["traced"] - fa["traced"]) / 1024 / n  # type: ignore[operator]
            print(f"\n== {na} -> {nb} connections: RSS {(rb - ra) / n:+.1f} KiB each, traced "
                  f"{traced:+.1f} KiB each")  # fmt: skip
            ta, tb = fa["types"], fb["types"]
            assert isinstance(ta, dict) and isinstance(tb, dict)
            diffs = sorted(((tb.get(k, 0) - ta.get(k, 0)) / n, k) for k in set(ta) | set(tb))
            total = sum(d for d, _ in diffs)
            print(f"   objects {total:+.1f} each; " + ", ".join(
                f"{k} {d:+.2f}" for d, k in reversed(diffs[-30:]) if abs(d) >= 0.05))  # fmt: skip
        if args.keep:
            args.keep.mkdir(parents=True, exist_ok=True)
            for f in snaps.folder.glob("memtrace-*"):
                shutil.copy(f, args.keep / f.name)
        if args.trace:
            folder = snaps.folder
            ignore = [tracemalloc.Filter(False, tracemalloc.__file__)]
            a = tracemalloc.Snapshot.load(str(folder / f"memtrace-{len(points) - 1}.pickle"))
            b = tracemalloc.Snapshot.load(str(folder / f"memtrace-{len(points)}.pickle"))
            a, b = a.filter_traces(ignore), b.filter_traces(ignore)
            n = args.connections
            for key in ("lineno", "traceback"):
                print(f"\n-- top by {key}, bytes per connection (last {n})")
                for stat in b.compare_to(a, key)[:TOP]:
                    frames = [short(f) for f in stat.traceback][-5:]
                    print(f"{stat.size_diff / n:+8.0f} B {stat.count_diff / n:+6.2f} blocks: "
                          f"{' < '.join(reversed(frames))}")  # fmt: skip
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--sessions", type=int, default=100)
    parser.add_argument("--connections", type=int, default=600, help="per step (3 steps)")
    parser.add_argument("--collect", action="store_true", help="a full collection per snapshot")
    parser.add_argument("--keep", type=Path, help="copy the snapshots to this folder")
    parser.add_argument("--no-trace", dest="trace", action="store_false")
    args = parser.parse_args(argv)
    fleet.raise_open_files()
    os.environ["WS_PER_SESSION"] = "10000"
    os.environ["MEMORY_TRACE"] = "1"
    os.environ["MEMORY_TRACE_FRAMES"] = "8" if args.trace else "0"
    with contextlib.suppress(OSError):
        os.sched_setaffinity(0, fleet.bot_cpus())
    return asyncio.run(main_async(args))


if __name__ == "__main__":
    sys.exit(main())
