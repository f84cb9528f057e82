"""Nothing a request can trigger holds the event loop (issue 27, item 6), while the costly
endpoints are asked as fast as their limits allow on a real server (uvicorn in a thread of
this process): a running tournament of ten players paying ten places (its deal figures: exact
ICM of ten players, the costliest there is), its state and its tables' clocks (polled by every
page), a table's ledger (JSON and CSV), its deals export and hand histories (PokerStars, PHH),
and the results as CSV.

What is asserted does not depend on the machine's load: no callback of the server's loop
takes more than `HELD_MS` of its thread's CPU time (a computation that holds the loop holds
it for its whole CPU time; a busy machine only adds waiting, which that clock does not count).
`/healthz`'s wall-clock p99 is printed beside its 50 ms reference, and asserted when the
machine is quiet (idle p99 under `QUIET_MS`): on a machine shared with other work, waits for
the CPU alone can pass 50 ms."""

from __future__ import annotations

import asyncio
import gc
import statistics
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from app.__main__ import tune_gc
from app.main import create_app
from tests.api.test_play import live_settings
from tests.migrated import migrate
from tests.servers import free_port

#: ten places paid (basis points): the deal figures of ten players cost the most
PAYOUTS = [2800, 1800, 1300, 1000, 800, 700, 550, 450, 350, 250]
SAMPLES = 200  # /healthz readings under load, one every 20 ms
REFERENCE_MS = 50.0  # /healthz p99 (the figure)
HELD_MS = 20.0  # the most CPU time one callback of the server's loop may take
QUIET_MS = 10.0  # idle /healthz p99 under this: the machine is quiet, the wall clock tells


class LoopWatch:
    """The CPU time (`time.thread_time`) each callback of one thread's event loop takes: the
    longest, and what it was; the garbage collector's passes in that thread apart (the
    server's thresholds, `app.__main__.tune_gc`, make a full one minutes apart)."""

    def __init__(self) -> None:
        self.thread: int | None = None
        self.longest = 0.0
        self.what = ""
        self.collecting = 0.0  # the collector's CPU time in the callback being run
        self.longest_gc = 0.0
        self._gc_start = 0.0

    def _gc(self, phase: str, info: dict[str, int]) -> None:
        if threading.get_ident() != self.thread:
            return
        if phase == "start":
            self._gc_start = time.thread_time()
        else:
            took = time.thread_time() - self._gc_start
            self.collecting += took
            self.longest_gc = max(self.longest_gc, took)

    @contextmanager
    def watching(self) -> Iterator[None]:
        original = asyncio.events.Handle._run

        def timed(handle: asyncio.Handle) -> None:
            if threading.get_ident() != self.thread:
                return original(handle)
            self.collecting = 0.0
            path = request_path(handle)  # before the step: a request's task may end in it
            start = time.thread_time()
            try:
                return original(handle)
            finally:
                held = time.thread_time() - start - self.collecting
                if held > self.longest:
                    self.longest, self.what = held, f"{path or ''} {describe(handle)}"

        asyncio.events.Handle._run = timed  # type: ignore[method-assign,assignment]
        thresholds = gc.get_threshold()
        gc.callbacks.append(self._gc)
        tune_gc()  # as `python -m app serve` does
        try:
            yield
        finally:
            gc.unfreeze()
            gc.set_threshold(*thresholds)
            gc.callbacks.remove(self._gc)
            asyncio.events.Handle._run = original  # type: ignore[method-assign]


def request_path(handle: asyncio.Handle) -> str | None:
    """The path of the HTTP request whose task this callback steps (uvicorn's `run_asgi`)."""
    task = getattr(handle._callback, "__self__", None)  # type: ignore[attr-defined]
    coro: Any = task.get_coro() if isinstance(task, asyncio.Task) else None
    frame = getattr(coro, "cr_frame", None)
    cycle = frame.f_locals.get("self") if frame is not None else None
    scope = getattr(cycle, "scope", None)
    return str(scope.get("path")) if isinstance(scope, dict) else None


def describe(handle: asyncio.Handle) -> str:
    """A callback, and for a task's step the coroutines it waits in now (the endpoint)."""
    task = getattr(handle._callback, "__self__", None)  # type: ignore[attr-defined]
    if not isinstance(task, asyncio.Task):
        return repr(handle)[:300]
    names: list[str] = []
    coro: Any = task.get_coro()
    while coro is not None and len(names) < 40:
        code = getattr(coro, "cr_code", None) or getattr(coro, "gi_code", None)
        names.append(code.co_name if code is not None else type(coro).__name__)
        coro = getattr(coro, "cr_await", None) or getattr(coro, "gi_yieldfrom", None)
    return " > ".join(n for n in names if n not in ("__call__", "wrapped_app", "app"))


@contextmanager
def server_thread(tmp_path: Path, watch: LoopWatch, **changes: Any) -> Iterator[str]:
    """The server (its defaults' limits, SQLite) on its own event loop in a thread."""
    settings = live_settings(tmp_path, f"sqlite+aiosqlite:///{tmp_path}/omaha.sqlite3", None)
    defaults = {"sessions_per_minute": 30, "tables_per_minute": 10}
    settings = settings.model_copy(update={**defaults, **changes})
    asyncio.run(migrate(settings.effective_database_url))
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(
            create_app(settings),
            host="127.0.0.1",
            port=port,
            log_config=None,
            access_log=False,
            lifespan="on",
        )
    )

    def run() -> None:
        watch.thread = threading.get_ident()
        asyncio.run(server.serve())

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 120  # a bound, not a pace: a loaded machine starts slowly
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(30)


def session(base: str, name: str) -> httpx.Client:
    client = httpx.Client(base_url=base, timeout=30)
    assert client.post("/api/session", json={"name": name}).status_code == 200
    return client


def healthz_ms(base: str, count: int, until: Any = None, limit: float = 180.0) -> list[float]:
    """`count` readings of `/healthz`, 20 ms apart, on one kept-alive connection; then more
    until `until()` holds (at most `limit` seconds: what it waits for answers in seconds)."""
    times: list[float] = []
    deadline = time.monotonic() + limit
    with httpx.Client(base_url=base, timeout=30) as client:
        client.get("/healthz")
        while len(times) < count or (
            until is not None and not until() and time.monotonic() < deadline
        ):
            start = time.perf_counter()
            assert client.get("/healthz").status_code == 200
            times.append((time.perf_counter() - start) * 1000)
            time.sleep(0.02)
    return times


def p99(times: list[float]) -> float:
    return statistics.quantiles(times, n=100)[98]


def test_no_request_holds_the_event_loop(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    watch = LoopWatch()
    with watch.watching(), server_thread(tmp_path, watch) as base:
        host = session(base, "Host")
        body = {"name": "Ten", "starting_stack": 10_000, "seats": 10, "structure": "custom",
                "levels": [{"small_blind": 5, "big_blind": 10, "minutes": 60}],
                "payouts": PAYOUTS, "prize_pool": 10_000, "decision_time": 0.05,
                "time_bank": 0}  # fmt: skip
        created = host.post("/api/tournaments", json=body)
        assert created.status_code == 201, created.text
        code = created.json()["code"]
        players = [session(base, f"Player {k}") for k in range(10)]
        for p in players:
            assert p.post(f"/api/tournaments/{code}/register").status_code == 200
        assert host.post(f"/api/tournaments/{code}/start").status_code == 200
        # Nobody connects: the clock checks or folds for all, a hand every few tenths of a
        # second, and every hand changes the stacks, so the figures are made again and again.
        table = players[0].get(f"/api/tournaments/{code}").json()["your_table"]
        assert table
        idle = healthz_ms(base, SAMPLES // 2)
        watch.longest, watch.what, watch.longest_gc = 0.0, "", 0.0  # the start not counted

        paths = [f"/api/tournaments/{code}/deal", f"/api/tournaments/{code}",
                 f"/api/tournaments/table/{table}", f"/api/tables/{table}/ledger",
                 f"/api/tables/{table}/ledger.csv", f"/api/tables/{table}/deals.json",
                 f"/api/tables/{table}/hands.txt", f"/api/tables/{table}/hands.phhs",
                 f"/api/tournaments/{code}/results.csv"]  # fmt: skip
        statuses: Counter[tuple[str, int]] = Counter()
        stop = threading.Event()
        names = {"deal", "state", table, "ledger", "ledger.csv", "deals.json", "hands.txt",
                 "hands.phhs", "results.csv"}  # fmt: skip

        def all_answered() -> bool:
            # (the deal figures come from a worker process, whose start and first figures
            # take seconds of another process on a loaded machine: the window waits for them)
            return {name for (name, status) in list(statuses) if status == 200} == names

        def hammer(client: httpx.Client, offset: int) -> None:
            k = offset
            while not stop.is_set():
                path = paths[k % len(paths)]
                name = "state" if path.endswith(code) else path.rsplit("/", 1)[-1]
                statuses[(name, client.get(path).status_code)] += 1
                k += 1

        threads = [threading.Thread(target=hammer, args=(p, k)) for k, p in enumerate(players[:4])]
        for t in threads:
            t.start()
        try:
            loaded = healthz_ms(base, SAMPLES, until=all_answered)
        finally:
            stop.set()
            for t in threads:
                t.join(30)
        held, what, collector = watch.longest * 1000, watch.what, watch.longest_gc * 1000
        state: dict[str, Any] = players[0].get(f"/api/tournaments/{code}").json()
    with capsys.disabled():
        print(f"\n/healthz p99: idle {p99(idle):.1f} ms, hammered {p99(loaded):.1f} ms (median "
              f"{statistics.median(loaded):.1f} ms; reference: p99 < {REFERENCE_MS:.0f} ms)\n"
              f"the longest a loop callback held the CPU: {held:.1f} ms (reference: < "
              f"{HELD_MS:.0f} ms): {what}\nthe longest garbage collection: {collector:.1f} ms"
              f"\nanswers: {dict(sorted(statuses.items()))}")  # fmt: skip
    # Every endpoint was really asked and answered (up to its limit: 429), none failed.
    assert {name for (name, status) in statuses if status == 200} == names, statuses
    assert all(status in (200, 429) for (_, status) in statuses), statuses
    assert state["deal"] is not None and state["deal"]["of"] == 10
    assert held < HELD_MS, what
    if p99(idle) < QUIET_MS:
        assert p99(loaded) < REFERENCE_MS
