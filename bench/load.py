"""Load: how many tables one server process holds, against the bare WebSocket ceiling.

``.venv/bin/python bench/load.py --tables 500 --seconds 60 --pace human``
``.venv/bin/python bench/load.py --tables 100 --seconds 30 --pace flat``
``.venv/bin/python bench/load.py --pace human --tables 500 --seconds 20 --compare-processes 1,2``
``.venv/bin/python bench/load.py --pace flat --tables 20 --processes 2 --compare-relayed 0,0.5``

PostgreSQL runs with its default durability (fsync and synchronous_commit on) unless
``--fsync-off``; the report prints them. ``--processes N`` runs N server processes on the one
database and Redis (server i pinned to CPU i % CPUs, the bots then on every CPU); each table's
seats connect to its owner, or ``--relayed F`` of them to another process. The compare modes
run several such configurations in one invocation and print them side by side.

One run:
1. starts a throwaway PostgreSQL cluster and redis-server on loopback (tests/servers.py);
2. migrates a fresh database and starts the server as deployed: ``python -m app serve``
   (uvicorn, one worker) pinned to CPU 0, configured only through its environment variables;
3. starts bot processes (pinned to the other CPUs) that create N tables of six seats through
   the REST API, connect 6 x N WebSockets and play: each bot answers every ``turn`` that carries
   its legal actions with a random legal action after a think time (0 flat out; a human pace
   averages one action every 2 s per table). Bots speak docs/protocol.md and nothing else;
4. measures a window of ``--seconds`` once every seat is seated, then pauses every table, lets
   the hands in play finish, checks them and stops everything;
5. runs the bare ceiling (bench/ceiling.py) with the same uvicorn flags, the same connections
   in groups of six, the same pacing, the same number of messages per action and the same
   average message size as the server run delivered;
6. prints one table, server and ceiling side by side.

Every bot checks every message: the per-connection sequence has no holes; no card it may not
see (a card string in any message must be its own hole card, a board card or a shown card of
the current hand); hole cards only for its own seat; nothing shown for a folded seat; the
stacks at ``hand_ended`` add up to those at ``hand_started``; at the end each table's seat
stacks add up to its buy-ins and top-ups, every hand started has ended, and the shown cards,
boards and hole cards of a table never collide. Any violation fails the run (exit code 1).

Latency: the bot that acts records the send time; every seat of the table (all six are in the
same bot process) records the arrival of the first numbered message after the ``turn`` it
answers; latency is the last arrival minus the send, ``time.perf_counter`` in one process.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing as mp
import os
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: make ``app`` and ``tests`` importable
    sys.path.insert(0, str(ROOT))

from app.bots.policy import random_action  # noqa: E402  (the bots' one policy module)
from bench import commits as commits_figures  # noqa: E402

SEATS = 6
BUY_IN = 200
HUMAN_THINK = 2.0  # seconds: one action every 2 s per table on average
CARD_IN_TEXT = re.compile(r'"([2-9TJQKA][cdhs])"')
PY = sys.executable
CLK_TCK = os.sysconf("SC_CLK_TCK")
#: the bots ask for batched frames (`?batch=1`, docs/protocol.md): set per bot process
BATCH = {"on": False}


# --------------------------------------------------------------------------- servers
@contextlib.contextmanager
def redis_server() -> Iterator[str]:
    """A throwaway redis-server on a free loopback port, no persistence."""
    from tests.servers import free_port, redis_executable, wait_for_port

    executable = redis_executable()
    if executable is None:
        raise RuntimeError("redis-server is not installed (Debian: apt-get install redis-server)")
    port = free_port()
    folder = tempfile.mkdtemp(prefix="omaha-redis-")
    proc = subprocess.Popen(
        [executable, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
         "--appendonly", "no", "--dir", folder, "--loglevel", "warning"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        wait_for_port("127.0.0.1", port)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(10)
        if proc.poll() is None:
            proc.kill()
        shutil.rmtree(folder, ignore_errors=True)


@dataclass(frozen=True)
class Backing:
    """Where PostgreSQL and Redis listen."""

    pg_host: str
    pg_port: int
    pg_user: str
    redis_url: str

    def url(self, dbname: str) -> str:
        return f"postgresql://{self.pg_user}@{self.pg_host}:{self.pg_port}/{dbname}"


@contextlib.contextmanager
def backing_servers(durable: bool = True) -> Iterator[Backing]:
    """PostgreSQL with its default durability (fsync and synchronous_commit on, as docker
    compose runs it) unless `durable` is false, and redis-server."""
    from tests.servers import postgres_cluster

    # Each server process pools up to 50 connections and its group writers hold their own:
    # PostgreSQL's default of 100 is too few for two processes (the run fails with "too
    # many clients"), so the cluster allows 300.
    with postgres_cluster(durable, max_connections=300) as pg, redis_server() as redis_url:
        yield Backing(pg.host, pg.port, pg.user, redis_url)


def durability(backing: Backing) -> str:
    """PostgreSQL's durability settings as the server reports them (SHOW)."""
    names = ("fsync", "synchronous_commit", "full_page_writes")
    return ", ".join(f"{n}={asyncio.run(_pg(backing, f'SHOW {n}'))}" for n in names)


async def _pg(backing: Backing, sql: str, dbname: str = "postgres") -> Any:
    import asyncpg

    conn = await asyncpg.connect(backing.url(dbname))
    try:
        return await conn.fetchval(sql)
    finally:
        await conn.close()


def create_database(backing: Backing, dbname: str) -> str:
    asyncio.run(_pg(backing, f'DROP DATABASE IF EXISTS "{dbname}"'))
    asyncio.run(_pg(backing, f'CREATE DATABASE "{dbname}"'))
    return backing.url(dbname)


def commits(backing: Backing, dbname: str) -> int:
    """Committed transactions of `dbname` so far (pg_stat_database; flushed about once a
    second, so a delta over a window of many seconds is what to read)."""
    return int(
        asyncio.run(
            _pg(backing, f"SELECT xact_commit FROM pg_stat_database WHERE datname = '{dbname}'")
        )
        or 0
    )


def raise_open_files(wanted: int = 65536) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = min(wanted, hard) if hard != resource.RLIM_INFINITY else wanted
    if soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


#: the CPUs this process may use when first imported (before `main` pins itself)
CPUS = sorted(os.sched_getaffinity(0))


def cpus() -> list[int]:
    return CPUS


def server_cpus(index: int = 0, count: int = 1) -> set[int]:
    """One server process gets CPU 0 to itself when there is more than one; with several,
    process i is pinned to CPU i % CPUs (and the bots share every CPU with them)."""
    all_cpus = cpus()
    return {all_cpus[index % len(all_cpus)]}


def bot_cpus(servers: int = 1) -> set[int]:
    all_cpus = cpus()
    if servers > 1:
        return set(all_cpus)
    return set(all_cpus[1:]) or set(all_cpus)


def _pin(cpu_set: set[int]) -> Any:
    def pin() -> None:
        os.sched_setaffinity(0, cpu_set)

    return pin


def wait_http(url: str, proc: subprocess.Popen[bytes], timeout: float = 60.0) -> None:
    import httpx

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with {proc.returncode} before answering")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(url, timeout=1.0).status_code == 200:
                return
        time.sleep(0.1)
    raise RuntimeError(f"{url} did not answer in {timeout} s")


def server_env(database_url: str, redis_url: str, port: int, flat: bool,
               name: str = "p0") -> dict[str, str]:  # fmt: skip
    """The server's settings for a run: only its documented environment variables."""
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(
        DATABASE_URL=database_url,
        REDIS_URL=redis_url,
        HOST="127.0.0.1",
        PORT=str(port),
        PROCESS_NAME=name,
        SECRET_KEY="bench-" + "k" * 40,
        LOG_LEVEL="warning",
        DATA_DIR=tempfile.mkdtemp(prefix="omaha-bench-data-"),
        # Flat out, the next hand is dealt at once and a bot may act many times a second;
        # at a human pace the deployed defaults stand.
        BETWEEN_HANDS="0" if flat else os.environ.get("BETWEEN_HANDS", "2"),
        WS_RATE="1000" if flat else os.environ.get("WS_RATE", "20"),
        WS_BURST="1000" if flat else os.environ.get("WS_BURST", "40"),
        AWAY_GRACE="3600",
        # Every bot connects from this one address, thousands at once: the per-address and
        # connection limits meant for strangers on the Internet are lifted.
        SESSIONS_PER_MINUTE="100000",
        TABLES_PER_MINUTE="100000",
        TABLES_PER_HOST="100000",
        MAX_CONNECTIONS="100000",
        METRICS_TOKEN=commits_figures.TOKEN,  # the group writer's figures (bench/commits.py)
    )
    return env


@dataclass(frozen=True)
class Target:
    """Where the bots go: the server processes' base URLs and names (one for the ceiling);
    with several, Redis tells a table's owner, and `relayed` is the fraction of each table's
    seats that connect to a process that does not own it (0: all direct)."""

    bases: tuple[str, ...]
    names: tuple[str, ...] = ("p0",)
    redis_url: str = ""
    relayed: float = 0.0


@contextlib.contextmanager
def table_servers(backing: Backing, dbname: str, flat: bool,
                  count: int = 1) -> Iterator[tuple[Target, list[int]]]:  # fmt: skip
    """The migration (``python -m app migrate``'s, in this process) then `count` x
    ``python -m app serve`` on one database and one Redis, each on its own port with its own
    PROCESS_NAME, pinned (`server_cpus`)."""
    from tests.servers import free_port

    url = create_database(backing, dbname)
    ports = [free_port() for _ in range(count)]
    names = [f"p{i}" for i in range(count)]
    envs = [server_env(url, backing.redis_url, port, flat, name)
            for port, name in zip(ports, names, strict=True)]  # fmt: skip
    # `python -m app migrate`'s upgrade, in this process: a Python start less per run
    from app.store.migrate import upgrade

    upgrade("postgresql+asyncpg://" + url.split("://", 1)[1])
    logs = [open(Path(env["DATA_DIR"]) / "server.log", "wb") for env in envs]  # noqa: SIM115
    procs = [
        subprocess.Popen([PY, "-m", "app", "serve"], env=env, cwd=ROOT, stdout=log,
                         stderr=subprocess.STDOUT, preexec_fn=_pin(server_cpus(i, count)))
        for i, (env, log) in enumerate(zip(envs, logs, strict=True))
    ]  # fmt: skip
    try:
        for port, proc in zip(ports, procs, strict=True):
            wait_http(f"http://127.0.0.1:{port}/healthz", proc)
        bases = tuple(f"http://127.0.0.1:{port}" for port in ports)
        yield Target(bases, tuple(names), backing.redis_url), [p.pid for p in procs]
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc, log, env in zip(procs, logs, envs, strict=True):
            _stop(proc)
            log.close()
            text = (Path(env["DATA_DIR"]) / "server.log").read_text(errors="replace")
            problems = [ln for ln in text.splitlines() if "Traceback" in ln or "ERROR" in ln]
            if problems:
                print(f"server log ({len(problems)} error lines), the first of each kind:\n"
                      + "\n".join(first_of_each_kind(problems)) + "\ntail:\n" + text[-1500:],
                      file=sys.stderr)  # fmt: skip
            shutil.rmtree(env["DATA_DIR"], ignore_errors=True)


def first_of_each_kind(lines: list[str], most: int = 12) -> list[str]:
    """The first line of each kind of error (a line's words past its time stamp, its ids and
    numbers taken out): a burst of one failure reads as its cause, not its thousandth echo."""
    seen: dict[str, str] = {}
    for line in lines:
        kind = re.sub(r"[0-9a-f]{8}-[0-9a-f-]{27}|\d+(\.\d+)?", "#", line.split(" ", 2)[-1])
        seen.setdefault(kind, line)
    return list(seen.values())[:most]


@contextlib.contextmanager
def ceiling_server() -> Iterator[tuple[str, int]]:
    """bench/ceiling.py under uvicorn with the server's WebSocket flags, pinned like it."""
    from tests.servers import free_port

    port = free_port()
    proc = subprocess.Popen(
        [PY, "-m", "uvicorn", "--app-dir", str(ROOT / "bench"), "ceiling:app",
         "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning",
         "--no-access-log", "--ws-per-message-deflate", "false",
         "--ws-max-size", str(4096 * 16)],
        cwd=ROOT, preexec_fn=_pin(server_cpus()),
    )  # fmt: skip
    try:
        wait_http(f"http://127.0.0.1:{port}/", proc)
        yield f"http://127.0.0.1:{port}", proc.pid
    finally:
        _stop(proc)


def _stop(proc: subprocess.Popen[Any]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


# --------------------------------------------------------------------------- sampling
class ProcStat:
    """CPU seconds and memory of the server processes (summed), from /proc."""

    def __init__(self, pids: list[int]) -> None:
        self.pids = pids

    def cpu(self) -> float:
        total = 0.0
        for pid in self.pids:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / CLK_TCK  # utime, stime
        return total

    def memory_kib(self) -> dict[str, int]:
        out: dict[str, int] = {"VmRSS": 0, "VmHWM": 0}
        for pid in self.pids:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith(("VmRSS:", "VmHWM:")):
                    name, value = line.split(":", 1)
                    out[name] += int(value.split()[0])
        return out


# --------------------------------------------------------------------------- bots
@dataclass
class Counters:
    """What one bot process saw in the measured window (and the checks over the whole run)."""

    actions: int = 0  # `ok` answers to `act`
    sent: int = 0  # actions sent
    messages: int = 0  # messages received, all seats
    frames: int = 0  # WebSocket frames they came in (fewer with `--batch`)
    bytes: int = 0
    hands: int = 0  # hands ended (counted once per table)
    latencies: list[float] = field(default_factory=list)
    #: with relayed seats (`split`): the last relayed seat's arrival minus the last direct
    #: seat's, and the last direct seat's latency by whether the acting seat was relayed
    out_hops: list[float] = field(default_factory=list)
    direct_seats: dict[bool, list[float]] = field(default_factory=lambda: {False: [], True: []})
    errors: int = 0
    error_samples: list[str] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    closed: int = 0  # connections the server closed before the end
    unfinished: int = 0  # hands started but not ended after the drain
    tables_checked: int = 0
    cpu: float = 0.0
    connections: int = 0
    owned: dict[str, int] = field(default_factory=dict)  # tables per owning process
    relayed: int = 0  # connections to a process that does not own their table
    connect_retries: int = 0  # set-up connections refused (403: "try again") and retried

    def merge(self, other: Counters) -> None:
        for name, n in other.owned.items():
            self.owned[name] = self.owned.get(name, 0) + n
        for name in ("actions", "sent", "messages", "frames", "bytes", "hands", "errors", "closed",
                     "unfinished", "tables_checked", "connections", "relayed",
                     "connect_retries"):  # fmt: skip
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.cpu += other.cpu
        self.latencies += other.latencies
        self.out_hops += other.out_hops
        for relayed_actor, figures in other.direct_seats.items():
            self.direct_seats[relayed_actor] += figures
        self.error_samples += other.error_samples[: max(0, 10 - len(self.error_samples))]
        self.violations += other.violations[: max(0, 50 - len(self.violations))]


class Run:
    """The state of one bot process: the window, the pace, the counters."""

    def __init__(self, think: float, seed: int) -> None:
        self.think = think
        self.rng = random.Random(seed)
        self.measuring = False
        self.draining = False
        self.c = Counters()

    def violation(self, text: str) -> None:
        if len(self.c.violations) < 50:
            self.c.violations.append(text[:400])
        else:
            self.c.violations[-1] = "... and more"

    def delay(self) -> float:
        if self.draining or self.think <= 0:
            return 0.0
        return self.think * self.rng.uniform(0.5, 1.5)


class TableBots:
    """The six seats of one table, in one process: shared latency bookkeeping and the
    table-wide checks."""

    def __init__(self, run: Run, index: int) -> None:
        self.run = run
        self.index = index
        self.code = ""
        self.seats: list[Seat] = []
        self.sent_at: dict[tuple[str, int], float] = {}
        #: key -> [seats arrived, last arrival, last direct seat's, last relayed seat's]
        self.arrivals: dict[tuple[str, int], list[float]] = {}
        self.relayed_actor: dict[tuple[str, int], bool] = {}
        self.top_ups = 0
        self.hands_started: set[str] = set()
        self.hands_ended: set[str] = set()
        # per hand: seat -> own hole cards, boards, shown cards (table-wide cross-check)
        self.hole: dict[str, dict[int, tuple[str, ...]]] = {}
        self.boards: dict[str, set[str]] = {}
        self.shown: dict[str, dict[int, tuple[str, ...]]] = {}
        self.ended_seen: dict[str, int] = {}
        self.stacks: dict[int, int] = {}  # seat -> stack, as the host's connection last saw it

    def arrive(self, key: tuple[str, int], t: float, relayed: bool = False) -> None:
        got = self.arrivals.get(key)
        if got is None:
            got = self.arrivals[key] = [0, t, 0.0, 0.0]
        got[0] += 1
        got[1] = max(got[1], t)
        got[3 if relayed else 2] = max(got[3 if relayed else 2], t)
        if got[0] >= len(self.seats):
            del self.arrivals[key]
            sent = self.sent_at.pop(key, None)
            relayed_actor = self.relayed_actor.pop(key, False)
            if sent is not None and self.run.measuring:
                c = self.run.c
                c.latencies.append(got[1] - sent)
                if got[2] and got[3]:  # both kinds of seat: the relay's hops apart
                    c.out_hops.append(got[3] - got[2])
                    c.direct_seats[relayed_actor].append(got[2] - sent)

    def hand_checked(self, hand: str) -> None:
        """Once every seat has seen the hand end: cards across seats never collide."""
        self.ended_seen[hand] = self.ended_seen.get(hand, 0) + 1
        if self.ended_seen[hand] < len(self.seats):
            return
        del self.ended_seen[hand]
        hole = self.hole.pop(hand, {})
        boards = self.boards.pop(hand, set())
        shown = self.shown.pop(hand, {})
        seen: set[str] = set()
        for cards in hole.values():
            if seen & set(cards):
                self.run.violation(f"table {self.index} hand {hand}: hole cards dealt twice")
            seen |= set(cards)
        if seen & boards:
            self.run.violation(f"table {self.index} hand {hand}: a board card is a hole card")
        for seat, cards in shown.items():
            if seat in hole and set(cards) != set(hole[seat]):
                self.run.violation(f"table {self.index} hand {hand}: seat {seat} shown "
                                   f"{cards}, dealt {hole[seat]}")  # fmt: skip


class Seat:
    """One bot: a WebSocket to its table, a seat, random legal actions."""

    def __init__(self, table: TableBots, number: int, token: str) -> None:
        self.table = table
        self.run = table.run
        self.number = number
        self.token = token
        self.ws: Any = None
        self.relayed = False  # connected to a process that does not own the table
        self.seq: int | None = None
        self.awaiting: tuple[str, int] | None = None
        self.hand: str | None = None
        self.allowed: set[str] = set()
        self.folded: set[int] = set()
        self.start_total = 0
        self.stack = 0
        self.pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.next_id = 1
        self.acting: tuple[str, int] | None = None
        self.done = False
        self.reader: asyncio.Task[None] | None = None
        self.tasks: set[asyncio.Task[Any]] = set()

    async def connect(self, ws_base: str, origin: str) -> None:
        """Connect, trying again as the browser client does when the server closes before
        accepting (an HTTP 403: the table's lookup failed or it is changing hands, "come back
        in a moment"; under a relayed set-up on a busy machine a lookup can time out)."""
        from websockets.asyncio.client import connect
        from websockets.exceptions import InvalidStatus

        for attempt in range(6):
            try:
                self.ws = await connect(
                    f"{ws_base}/ws/tables/{self.table.code}" + ("?batch=1" if BATCH["on"] else ""),
                    origin=origin,  # type: ignore[arg-type]
                    additional_headers={"Cookie": f"omaha_session={self.token}"},
                    compression=None,
                    max_size=2**20,
                    ping_interval=None,
                    open_timeout=60,
                )
                break
            except InvalidStatus as refused:
                if refused.response.status_code != 403 or attempt == 5:
                    raise
                self.run.c.connect_retries += 1
                await asyncio.sleep(0.5 * (attempt + 1))
        self.reader = asyncio.create_task(self.read())

    async def request(self, **message: Any) -> dict[str, Any]:
        ref = self.next_id
        self.next_id += 1
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.pending[ref] = future
        await self.ws.send(json.dumps({"id": ref, **message}))
        return await asyncio.wait_for(future, 60)

    async def read(self) -> None:
        from websockets.exceptions import ConnectionClosed

        try:
            async for raw in self.ws:
                self.handle(raw)
        except ConnectionClosed:
            pass
        except Exception as exc:  # a bug in the checks must not hang the run
            self.run.violation(f"bot crashed: {exc!r}")
        finally:
            if not self.done:
                self.run.c.closed += 1
                code = getattr(self.ws, "close_code", None)
                self.run.violation(f"table {self.table.index} seat {self.number}: the server "
                                   f"closed the connection ({code})")  # fmt: skip
            for future in self.pending.values():
                if not future.done():
                    future.set_exception(ConnectionError("closed"))

    def handle(self, raw: str | bytes) -> None:
        t = time.perf_counter()
        run = self.run
        if run.measuring:
            run.c.frames += 1
            run.c.bytes += len(raw)
        data = json.loads(raw)
        if not isinstance(data, list):
            self.message(data, raw, t)
            return
        for m in data:  # a batched frame: each message in order, its own text for the checks
            self.message(m, json.dumps(m), t)

    def message(self, m: dict[str, Any], raw: str | bytes, t: float) -> None:
        run = self.run
        if run.measuring:
            run.c.messages += 1
        kind = m["type"]
        table = self.table
        if kind in ("ok", "error", "pong"):
            future = self.pending.pop(m.get("id", -1), None)
            if kind == "error":
                run.c.errors += 1
                if len(run.c.error_samples) < 10:
                    run.c.error_samples.append(str(raw)[:200])
            elif m.get("of") == "act" and run.measuring:
                run.c.actions += 1
            if future is not None and not future.done():
                future.set_result(m)
            return
        seq = m.get("seq")
        if kind == "snapshot":
            self.seq = seq
            self.snapshot(m)
        elif seq is not None:
            if self.seq is not None and seq != self.seq + 1:
                run.violation(f"table {table.index} seat {self.number}: seq {seq} after "
                              f"{self.seq}")  # fmt: skip
            self.seq = seq
            if self.awaiting is not None:
                table.arrive(self.awaiting, t, self.relayed)
                self.awaiting = None
        # (the hand's id: every kind below carries one; a snapshot's is not this one's)
        hand: str = m.get("hand", "") if kind != "snapshot" else ""
        if kind == "hand_started":
            self.hand = hand
            self.allowed = set()
            self.folded = set()
            self.start_total = sum(m["stacks"])
            if self.number == 0:
                table.hands_started.add(hand)
            if self.number in m["seats"]:
                self.stack = m["stacks"][m["seats"].index(self.number)]
        elif kind == "hole_cards":
            cards = m.get("cards")
            if cards is not None:
                if m["seat"] != self.number:
                    run.violation(f"table {table.index} seat {self.number}: got the hole cards "
                                  f"of seat {m['seat']}")  # fmt: skip
                else:
                    self.allowed.update(cards)
                    table.hole.setdefault(hand, {})[self.number] = tuple(cards)
        elif kind == "board":
            self.allowed.update(m["cards"])
            table.boards.setdefault(hand, set()).update(m["cards"])
        elif kind == "shown":
            if m["seat"] in self.folded:
                run.violation(f"table {table.index}: folded seat {m['seat']} shown to "
                              f"seat {self.number}")  # fmt: skip
            self.allowed.update(m["cards"])
            table.shown.setdefault(hand, {})[m["seat"]] = tuple(m["cards"])
        elif kind == "acted" and m["action"] == "fold":
            self.folded.add(m["seat"])
        # The card check: every card string anywhere in the message must be visible to us.
        if kind != "snapshot":
            for card in CARD_IN_TEXT.findall(raw if isinstance(raw, str) else raw.decode()):
                if card not in self.allowed:
                    run.violation(f"table {table.index} seat {self.number}: {kind} carries "
                                  f"{card}, which it may not see: {str(raw)[:200]}")  # fmt: skip
                    break
        if kind == "turn":
            key = (m["hand"], m["counter"])
            self.awaiting = key
            if "legal" in m:
                if m["seat"] != self.number:
                    run.violation(f"table {table.index} seat {self.number}: legal actions of "
                                  f"seat {m['seat']}")  # fmt: skip
                elif self.acting != key:
                    self.acting = key
                    action = random_action(m["legal"], run.rng)
                    delay = run.delay()
                    if delay:
                        asyncio.get_running_loop().call_later(delay, self.act, key, action)
                    else:
                        self.act(key, action)
        elif kind == "hand_ended":
            stacks = {int(k): v for k, v in m["stacks"].items()}
            if sum(stacks.values()) != self.start_total:
                run.violation(f"table {table.index} hand {hand}: chips not conserved: "
                              f"{self.start_total} at the start, {stacks} at the end")  # fmt: skip
            if self.number == 0:
                table.hands_ended.add(hand)
                if run.measuring:
                    run.c.hands += 1
            table.hand_checked(hand)
            self.hand = None
            if self.number in stacks:
                self.stack = stacks[self.number]
                if self.stack == 0 and not run.draining:
                    self.spawn(self.top_up())
        elif kind == "seat" and self.number == 0:
            table.stacks[m["seat"]] = m["stack"]
        elif kind == "left" and self.number == 0:
            table.stacks.pop(m["seat"], None)

    def snapshot(self, m: dict[str, Any]) -> None:
        hand = m.get("hand")
        self.allowed = set()
        if self.number == 0:
            for s in m["seats"]:
                if s is not None:
                    self.table.stacks[s["seat"]] = s["stack"]
        if hand is None:
            return
        self.hand = hand["id"]
        for run_boards in hand["boards"]:
            for board in run_boards:
                self.allowed.update(board)
        for p in hand["players"]:
            if "cards" in p:
                if p["shown"] or p["seat"] == self.number:
                    self.allowed.update(p["cards"])
                else:
                    self.run.violation(f"table {self.table.index} seat {self.number}: snapshot "
                                       f"carries the cards of seat {p['seat']}")  # fmt: skip
        for card in CARD_IN_TEXT.findall(json.dumps(m)):
            if card not in self.allowed:
                self.run.violation(f"table {self.table.index}: snapshot carries {card}")
                break

    def act(self, key: tuple[str, int], action: dict[str, Any]) -> None:
        self.table.sent_at[key] = time.perf_counter()
        self.table.relayed_actor[key] = self.relayed
        if self.run.measuring:
            self.run.c.sent += 1
        message = {"type": "act", "id": 0, "hand": key[0], "counter": key[1], **action}
        self.spawn(self._send(json.dumps(message)))

    def spawn(self, coroutine: Any) -> None:
        task = asyncio.ensure_future(coroutine)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _send(self, text: str) -> None:
        with contextlib.suppress(Exception):
            await self.ws.send(text)

    async def top_up(self) -> None:
        with contextlib.suppress(Exception):
            reply = await self.request(type="top_up", amount=BUY_IN)
            if reply["type"] == "ok" and reply.get("status") == "done":
                self.table.top_ups += BUY_IN
            elif reply["type"] == "ok":
                self.run.violation(f"table {self.table.index}: a top-up after the hand")


async def owner_base(target: Target, table_id: str, redis: Any) -> int:
    """The index of the process that owns the table (its lease in Redis)."""
    for _ in range(100):
        name = await redis.get(f"omaha:table:{table_id}:owner")
        if name:  # the owner's incarnation, `<PROCESS_NAME>@<random>` (app/scale/identity.py)
            text = name.decode() if isinstance(name, bytes) else name
            return target.names.index(text.split("@", 1)[0])
        await asyncio.sleep(0.05)
    raise RuntimeError(f"table {table_id} has no owner")


async def setup_table(table: TableBots, target: Target, redis: Any = None,
                      sit: bool = True) -> None:  # fmt: skip
    """Six players join, the first creates the table (through process index % N, placement
    picks its owner), all connect (to the owner; the first round(relayed x 6) seats to
    another process) and sit (unless not `sit`: six spectators)."""
    import httpx

    count = len(target.bases)
    base = target.bases[table.index % count]
    async with httpx.AsyncClient(base_url=base, timeout=60) as http:
        tokens = []
        for i in range(SEATS):
            http.cookies.clear()
            for attempt in range(3):
                try:
                    r = await http.post("/api/session", json={"name": f"bot{table.index}-{i}"})
                    break
                except httpx.TransportError:  # a kept-alive connection the server closed
                    # (its header timer, under thousands of set-ups at load ~12): a new one
                    if attempt == 2:
                        raise
            r.raise_for_status()
            tokens.append(r.cookies["omaha_session"])
        http.cookies.clear()
        r = await http.post(
            "/api/tables",
            json={"name": f"bench {table.index}", "game": "omaha", "seats": SEATS,
                  "buy_in_max": BUY_IN},
            cookies={"omaha_session": tokens[0]},
        )  # fmt: skip
        r.raise_for_status()
        table.code = r.json()["code"]
        table_id = r.json()["id"]
    table.seats = [Seat(table, i, tokens[i]) for i in range(SEATS)]
    owner = await owner_base(target, table_id, redis) if count > 1 else 0
    relayed = round(target.relayed * SEATS) if count > 1 else 0
    run = table.run
    run.c.owned[target.names[owner]] = run.c.owned.get(target.names[owner], 0) + 1
    run.c.relayed += relayed
    for seat in table.seats:
        index = owner if seat.number >= relayed else (owner + 1) % count
        seat.relayed = index != owner
        base = target.bases[index]
        await seat.connect(base.replace("http", "ws", 1), base)
    if not sit:
        while any(seat.seq is None for seat in table.seats):  # each has its snapshot
            await asyncio.sleep(0.05)
        return
    for seat in table.seats:
        for attempt in range(5):  # `unavailable` says "try again": SQLite under 3,000 sits
            # `post`: dealt in at the next hand, not after the big blind reaches the seat
            # (one waiting seat a hand: a 20 s human-pace window was mostly 2-4 handed, and
            # the seats sat last, the direct ones of a relayed run, had hardly acted)
            reply = await seat.request(type="sit", seat=seat.number, buy_in=BUY_IN, post=True)
            if reply.get("code") != "unavailable":
                break
            await asyncio.sleep(0.5 * (attempt + 1))
        if reply["type"] != "ok":
            raise RuntimeError(f"cannot sit: {reply}")
        seat.stack = BUY_IN


async def drain_table(table: TableBots, timeout: float) -> None:
    """Pause the table (no new hand), let the hand in play finish, check the chips."""
    host = table.seats[0]
    with contextlib.suppress(Exception):
        await host.request(type="pause")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and table.hands_started - table.hands_ended:
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.2)  # the seat records that follow a hand's end
    run = table.run
    unfinished = table.hands_started - table.hands_ended
    run.c.unfinished += len(unfinished)
    if unfinished:
        run.violation(f"table {table.index}: {len(unfinished)} hands never ended")
    total = sum(table.stacks.values())
    expected = BUY_IN * SEATS + table.top_ups
    if total != expected:
        run.violation(f"table {table.index}: seat stacks add up to {total}, buy-ins and "
                      f"top-ups to {expected}: {table.stacks}")  # fmt: skip
    run.c.tables_checked += 1


async def play(indices: list[int], target: Target, think: float, go: Any, stop: Any,
               ready: Any, seed: int, sit: bool = True) -> Counters:  # fmt: skip
    """Bots at `indices`' tables play through the window; not `sit`: they only watch."""
    run = Run(think, seed)
    tables = [TableBots(run, i) for i in indices]
    limit = asyncio.Semaphore(16)
    redis = None
    if len(target.bases) > 1:
        from redis.asyncio import Redis

        redis = Redis.from_url(target.redis_url)

    async def one(table: TableBots) -> None:
        async with limit:
            await setup_table(table, target, redis, sit)

    await asyncio.gather(*(one(t) for t in tables))
    if redis is not None:
        await redis.aclose()
    run.c.connections = sum(len(t.seats) for t in tables)
    ready.put(len(tables))
    await _wait_event(go)
    cpu0 = _self_cpu()
    run.measuring = True
    await _wait_event(stop)
    run.measuring = False
    run.c.cpu = _self_cpu() - cpu0
    run.draining = True
    if sit:
        await asyncio.gather(*(drain_table(t, 60.0) for t in tables))
    for t in tables:
        for seat in t.seats:
            seat.done = True
    await asyncio.gather(*(s.ws.close() for t in tables for s in t.seats),
                         return_exceptions=True)  # fmt: skip
    return run.c


# ---------------------------------------------------------------- ceiling bots
class CeilingGroup:
    """Six connections to the ceiling app, passing the "action" around like a table: the
    seat whose turn is next sends the next action once it has the whole burst of the last."""

    def __init__(self, run: Run, index: int, fanout: float) -> None:
        self.run = run
        self.index = index
        self.fanout = fanout
        self.credit = 0.0
        self.actor = 0
        self.bursts = 0  # actions sent
        self.sent_at: dict[int, float] = {}  # burst number -> send time
        self.arrivals: dict[int, list[float]] = {}  # burst number -> [seats, last arrival]
        self.conns: list[Any] = []
        self.tasks: set[asyncio.Task[Any]] = set()

    def trigger(self) -> None:
        if self.run.draining:
            return
        self.credit += self.fanout
        k = max(1, int(self.credit))
        self.credit -= k
        self.bursts += 1
        self.sent_at[self.bursts] = time.perf_counter()
        if self.run.measuring:
            self.run.c.sent += 1
            self.run.c.actions += 1
        conn = self.conns[self.actor]
        self.actor = (self.actor + 1) % len(self.conns)
        task = asyncio.ensure_future(conn.send(str(k)))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def first(self, burst: int, t: float) -> None:
        got = self.arrivals.get(burst)
        if got is None:
            got = self.arrivals[burst] = [0, t]
        got[0] += 1
        got[1] = max(got[1], t)
        if got[0] == len(self.conns):
            del self.arrivals[burst]
            sent = self.sent_at.pop(burst, None)
            if sent is not None and self.run.measuring:
                self.run.c.latencies.append(got[1] - sent)

    async def read(self, seat: int, ws: Any) -> None:
        from websockets.exceptions import ConnectionClosed

        run = self.run
        in_burst = False
        burst = 0  # every burst reaches every seat, in order: this seat's n-th is the n-th
        try:
            async for raw in ws:
                t = time.perf_counter()
                if run.measuring:
                    run.c.messages += 1
                    run.c.bytes += len(raw)
                m = json.loads(raw)
                if not in_burst:
                    in_burst = True
                    burst += 1
                    self.first(burst, t)
                if m["last"]:
                    in_burst = False
                    if seat == self.actor:
                        delay = run.delay()
                        if delay:
                            asyncio.get_running_loop().call_later(delay, self.trigger)
                        else:
                            self.trigger()
        except ConnectionClosed:
            pass


async def play_ceiling(indices: list[int], base: str, think: float, fanout: float, size: int,
                       go: Any, stop: Any, ready: Any, seed: int,
                       idle: bool = False) -> Counters:  # fmt: skip
    """Groups of six connections to the ceiling app; they pass actions around through the
    window unless `idle`."""
    from websockets.asyncio.client import connect

    run = Run(think, seed)
    groups = [CeilingGroup(run, i, fanout) for i in indices]
    ws_base = base.replace("http", "ws", 1)
    limit = asyncio.Semaphore(64)
    readers: list[asyncio.Task[None]] = []

    async def one(group: CeilingGroup) -> None:
        async with limit:
            for _ in range(SEATS):
                ws = await connect(f"{ws_base}/ws?g={group.index}&size={size}", compression=None,
                                   max_size=2**20, ping_interval=None,
                                   open_timeout=60)  # fmt: skip
                group.conns.append(ws)
        for seat, ws in enumerate(group.conns):
            readers.append(asyncio.create_task(group.read(seat, ws)))

    await asyncio.gather(*(one(g) for g in groups))
    run.c.connections = sum(len(g.conns) for g in groups)
    ready.put(len(groups))
    await _wait_event(go)
    cpu0 = _self_cpu()
    run.measuring = True
    for g in groups if not idle else ():  # tables start at random moments within a think time
        if think > 0:
            asyncio.get_running_loop().call_later(run.rng.uniform(0, think), g.trigger)
        else:
            g.trigger()
    await _wait_event(stop)
    run.measuring = False
    run.c.cpu = _self_cpu() - cpu0
    run.draining = True
    await asyncio.sleep(0.5)
    await asyncio.gather(*(ws.close() for g in groups for ws in g.conns), return_exceptions=True)
    for task in readers:
        task.cancel()
    return run.c


async def _wait_event(event: Any) -> None:
    while not event.is_set():
        await asyncio.sleep(0.02)


def _self_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def worker(kind: str, indices: list[int], target: Target, think: float, fanout: float,
           size: int, go: Any, stop: Any, ready: Any, results: Any, seed: int) -> None:  # fmt: skip
    """One bot process: its tables, on uvloop when installed; its counters to `results`."""
    with contextlib.suppress(OSError):
        os.sched_setaffinity(0, bot_cpus(len(target.bases)))
    raise_open_files()
    try:
        import uvloop

        runner: Any = uvloop.run
    except ImportError:
        runner = asyncio.run
    try:
        if kind in ("server", "server+batch", "server idle"):
            BATCH["on"] = kind == "server+batch"
            counters = runner(play(indices, target, think, go, stop, ready, seed,
                                   sit=kind != "server idle"))  # fmt: skip
        else:
            idle = kind == "ceiling idle"
            counters = runner(play_ceiling(indices, target.bases[0], think, fanout, size, go,
                                           stop, ready, seed, idle))  # fmt: skip
    except BaseException as exc:
        import traceback

        traceback.print_exc()  # drive() raises without it: the cause is here, on stderr
        ready.put(-1)
        counters = Counters()
        counters.violations.append(f"bot process failed: {exc!r}")
    results.put(counters)


# --------------------------------------------------------------------------- one run
@dataclass
class Result:
    kind: str
    tables: int
    seconds: float
    counters: Counters
    server_cpu: float = 0.0  # CPU seconds in the window
    rss_start_kib: int = 0  # before any bot connected
    rss_end_kib: int = 0
    hwm_kib: int = 0  # peak RSS
    commits: int = 0
    setup_seconds: float = 0.0
    #: the group writer's histograms over the window (bench/commits.py), the servers' sum
    store: dict[str, commits_figures.Histogram] = field(default_factory=dict)

    def rate(self, n: float) -> float:
        return n / self.seconds if self.seconds else 0.0

    def pct(self, q: float) -> float:
        data = sorted(self.counters.latencies)
        if not data:
            return float("nan")
        return data[min(len(data) - 1, int(q * len(data)))] * 1000


def drive(kind: str, target: Target, pids: list[int], tables: int, seconds: float, think: float,
          processes: int, fanout: float = 1.0, size: int = 200,
          on_go: Any = None, on_stop: Any = None) -> Result:  # fmt: skip
    """Start the bot processes against `base`, measure a window, collect their counters."""
    ctx = mp.get_context("spawn")
    go, stop = ctx.Event(), ctx.Event()
    ready, results = ctx.Queue(), ctx.Queue()
    processes = max(1, min(processes, tables))
    chunks = [list(range(i, tables, processes)) for i in range(processes)]
    procs = []
    for n, chunk in enumerate(chunks):
        args = (kind, chunk, target, think, fanout, size, go, stop, ready, results, 1000 * n + 7)
        procs.append(ctx.Process(target=worker, args=args, daemon=True))
    stat = ProcStat(pids)
    rss_start = stat.memory_kib()["VmRSS"]
    t0 = time.monotonic()
    for p in procs:
        p.start()
    try:
        got = 0
        for _ in procs:
            n = ready.get(timeout=600)
            if n < 0:
                raise RuntimeError("a bot process failed while setting up")
            got += n
        setup = time.monotonic() - t0
        time.sleep(0.5)
        before = on_go() if on_go else 0
        cpu0 = stat.cpu()
        start = time.monotonic()
        go.set()
        deadline = start + seconds
        while time.monotonic() < deadline:
            time.sleep(min(0.5, max(0.0, deadline - time.monotonic())))
        stop.set()
        elapsed = time.monotonic() - start
        cpu = stat.cpu() - cpu0
        memory = stat.memory_kib()
        after = on_stop() if on_stop else 0
        total = Counters()
        for _ in procs:
            total.merge(results.get(timeout=180))
    finally:
        stop.set()
        for p in procs:
            p.join(30)
            if p.is_alive():
                p.kill()
    return Result(kind, tables, elapsed, total, cpu, rss_start, memory["VmRSS"],
                  memory["VmHWM"], after - before, setup)  # fmt: skip


def run_server(backing: Backing, tables: int, seconds: float, think: float, processes: int,
               dbname: str = "omaha_bench", profile: str | None = None, servers: int = 1,
               relayed: float = 0.0, batch: bool = False,
               commits_figure: bool = True) -> Result:  # fmt: skip
    """The table server (`servers` processes) under `tables` tables of bots; with `profile`,
    py-spy samples the (first) server through the window and writes collapsed stacks there.
    `commits_figure` false: no database commits figure (0), and none of the 3.5 s of waits
    for pg_stat_database to flush around the window (the tests, which check correctness)."""
    with started_servers(backing, dbname, think <= 0, servers) as running:
        return run_on(running, backing, tables, seconds, think, processes, dbname, profile,
                      relayed, batch, commits_figure)  # fmt: skip


@contextlib.contextmanager
def started_servers(backing: Backing, dbname: str, flat: bool,
                    servers: int = 1) -> Iterator[tuple[Target, list[int]]]:  # fmt: skip
    """A clean Redis, then `table_servers`: for several `run_on` against the same processes
    (a correctness check of several bot runs; `run_server` starts them afresh per run)."""
    import redis

    client = redis.Redis.from_url(backing.redis_url)
    client.flushall()  # no lease, load or process left from an earlier run
    client.close()
    with table_servers(backing, dbname, flat, servers) as running:
        yield running


def run_on(running: tuple[Target, list[int]], backing: Backing, tables: int, seconds: float,
           think: float, processes: int, dbname: str = "omaha_bench",
           profile: str | None = None, relayed: float = 0.0, batch: bool = False,
           commits_figure: bool = True) -> Result:  # fmt: skip
    """`run_server`'s run, on servers already started (`started_servers`)."""
    target = Target(running[0].bases, running[0].names, running[0].redis_url, relayed)
    pids = running[1]
    pid = pids[0]
    if commits_figure:
        time.sleep(2.0)  # pg_stat_database flushes about once a second
    spy: list[subprocess.Popen[bytes]] = []
    scraped: list[dict[str, commits_figures.Histogram]] = []
    store: dict[str, commits_figures.Histogram] = {}

    def go() -> int:
        scraped[:] = [commits_figures.scrape(base) for base in target.bases]
        if profile:
            command = [str(Path(PY).parent / "py-spy"), "record", "--nonblocking",
                       "--format", "raw", "-o", profile, "-d", str(int(seconds)),
                       "-p", str(pid)]  # fmt: skip
            spy.append(subprocess.Popen(command, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL))  # fmt: skip
        return commits(backing, dbname) if commits_figure else 0

    def stop() -> int:
        store.update(commits_figures.window(target.bases, scraped))
        if commits_figure:
            time.sleep(1.5)
        for p in spy:
            p.wait(60)
        return commits(backing, dbname) if commits_figure else 0

    result = drive("server+batch" if batch else "server", target, pids, tables, seconds,
                   think, processes, on_go=go, on_stop=stop)  # fmt: skip
    result.store = store
    return result


def run_ceiling(tables: int, seconds: float, think: float, processes: int, fanout: float,
                size: int) -> Result:  # fmt: skip
    with ceiling_server() as (base, pid):
        return drive("ceiling", Target((base,)), [pid], tables, seconds, think, processes,
                     fanout, size)  # fmt: skip


# --------------------------------------------------------------------------- report
def report(server: Result, ceiling: Result | None, think: float) -> str:
    s = server.counters
    conns = s.connections
    pace = (
        "flat out (think 0)"
        if think <= 0
        else f"human pace (one action every {think:g} s per table on average)"
    )
    lines = [
        f"{server.tables} tables x {SEATS} seats = {conns} connections; {pace}; window "
        f"{server.seconds:.1f} s (setup {server.setup_seconds:.1f} s)",
        f"{'figure':<44} {'server':>14} {'ceiling':>14} {'ratio':>7}",
        f"{'-' * 44} {'-' * 14} {'-' * 14} {'-' * 7}",
    ]

    def row(what: str, a: float | None, b: float | None, fmt: str = ",.0f",
            ratio: bool = False) -> None:  # fmt: skip
        left = "" if a is None else format(a, fmt)
        right = "" if b is None else format(b, fmt)
        r = f"{a / b:.2f}" if ratio and a is not None and b else ""
        lines.append(f"{what:<44} {left:>14} {right:>14} {r:>7}")

    c = ceiling.counters if ceiling else None
    row("actions processed /s", server.rate(s.actions), ceiling.rate(c.actions) if c and
        ceiling else None, ratio=True)  # fmt: skip
    row("per-seat messages delivered /s", server.rate(s.messages),
        ceiling.rate(c.messages) if c and ceiling else None, ratio=True)  # fmt: skip
    row("per-seat WebSocket frames delivered /s", server.rate(s.frames),
        ceiling.rate(c.messages) if c and ceiling else None, ratio=True)  # fmt: skip
    row("  messages per action per seat", s.messages / max(1, s.actions) / SEATS,
        c.messages / max(1, c.actions) / SEATS if c else None, ".2f")  # fmt: skip
    row("  average message size (bytes)", s.bytes / max(1, s.messages),
        c.bytes / max(1, c.messages) if c else None)  # fmt: skip
    for q in (0.50, 0.95, 0.99):
        row(f"latency p{int(q * 100)} (ms), action to last seat", server.pct(q),
            ceiling.pct(q) if ceiling else None, ".1f")  # fmt: skip
    row("latency max (ms)", max(s.latencies, default=0) * 1000,
        max(c.latencies, default=0) * 1000 if c else None, ".1f")  # fmt: skip
    row("hands completed", s.hands, None)
    row("hands completed /s", server.rate(s.hands), None, ",.1f")
    row("server CPU (% of one core)", 100 * server.server_cpu / server.seconds,
        100 * ceiling.server_cpu / ceiling.seconds if ceiling else None, ".0f")  # fmt: skip
    row("bots' CPU (% of one core, all bot processes)", 100 * s.cpu / server.seconds,
        100 * c.cpu / ceiling.seconds if c and ceiling else None, ".0f")  # fmt: skip
    row("server RSS before connections (MiB)", server.rss_start_kib / 1024,
        ceiling.rss_start_kib / 1024 if ceiling else None, ".1f")  # fmt: skip
    row("server peak RSS (MiB)", server.hwm_kib / 1024,
        ceiling.hwm_kib / 1024 if ceiling else None, ".1f")  # fmt: skip
    grown = server.hwm_kib - server.rss_start_kib
    row("peak RSS growth per table (KiB)", grown / max(1, server.tables),
        (ceiling.hwm_kib - ceiling.rss_start_kib) / max(1, ceiling.tables) if ceiling else None,
        ".1f")  # fmt: skip
    row("peak RSS growth per connection (KiB)", grown / max(1, conns),
        (ceiling.hwm_kib - ceiling.rss_start_kib) / max(1, c.connections) if c and ceiling
        else None, ".1f")  # fmt: skip
    row("peak RSS per connection, all of it (KiB)", server.hwm_kib / max(1, conns),
        ceiling.hwm_kib / max(1, c.connections) if c and ceiling else None, ".1f")  # fmt: skip
    row("database commits /s", server.rate(server.commits), None, ",.0f")
    if server.store:
        for what, value in commits_figures.describe(server.store, server.seconds):
            lines.append(f"{what:<44} {value:>14}")
    lines.append("")
    lines.append(f"checks: {s.tables_checked} tables checked, {s.errors} error frames, "
                 f"{len(s.violations)} violations, {s.closed} connections closed by the "
                 f"server, {s.unfinished} hands unfinished")  # fmt: skip
    for v in s.violations[:10]:
        lines.append(f"  violation: {v}")
    for e in s.error_samples[:5]:
        lines.append(f"  error frame: {e}")
    return "\n".join(lines)


def _q(data: list[float], q: float) -> float:
    data = sorted(data)
    return data[min(len(data) - 1, int(q * len(data)))] * 1000 if data else float("nan")


def relay_split(c: Counters) -> list[str]:
    """Where a relayed run's added latency goes, from the bots' own clocks: the way out (a
    message's last relayed seat after its last direct seat, same table, same bot process)
    and the way in (the direct seats' latency when the acting seat is relayed, against
    when it is direct; their p50s' and p99s' difference)."""
    if not c.out_hops:
        return []
    direct, relayed = c.direct_seats[False], c.direct_seats[True]
    lines = [f"{'  relay out: last relayed - last direct':<40} p50 {_q(c.out_hops, 0.5):.1f}"
             f"  p99 {_q(c.out_hops, 0.99):.1f} ms ({len(c.out_hops)} messages)"]  # fmt: skip
    if direct and relayed:
        lines.append(
            f"{'  relay in: direct seats, relayed - direct':<40} "
            f"p50 {_q(relayed, 0.5) - _q(direct, 0.5):+.1f}  "
            f"p99 {_q(relayed, 0.99) - _q(direct, 0.99):+.1f} ms "
            f"(actor direct p50 {_q(direct, 0.5):.1f}, relayed {_q(relayed, 0.5):.1f})"
        )
    return lines


def side_by_side(results: list[tuple[str, Result]], think: float, settings: str) -> str:
    """Several runs of the same configuration side by side (1 and 2 processes; direct and
    relayed), the last column's ratio to the first."""
    first = results[0][1]
    pace = "flat out (think 0)" if think <= 0 else f"human pace (think {think:g} s)"
    width = max(14, *(len(label) for label, _ in results))
    lines = [
        f"{first.tables} tables x {SEATS} seats; {pace}; window {first.seconds:.0f} s each",
        f"PostgreSQL: {settings}",
        f"{'figure':<40} " + " ".join(f"{label:>{width}}" for label, _ in results)
        + f" {'ratio':>7}",
        f"{'-' * 40} " + " ".join("-" * width for _ in results) + f" {'-' * 7}",
    ]  # fmt: skip

    def row(what: str, get: Any, fmt: str = ",.0f") -> None:
        values = [float(get(r)) for _, r in results]
        ratio = f"{values[-1] / values[0]:.2f}" if values[0] else ""
        lines.append(f"{what:<40} " + " ".join(f"{format(v, fmt):>{width}}" for v in values)
                     + f" {ratio:>7}")  # fmt: skip

    row("actions processed /s", lambda r: r.rate(r.counters.actions))
    row("per-seat messages delivered /s", lambda r: r.rate(r.counters.messages))
    for q in (0.50, 0.95, 0.99):
        row(f"latency p{int(q * 100)} (ms), action to last seat", lambda r, q=q: r.pct(q), ".1f")
    for q in (0.50, 0.99):  # what the last run adds to the first (the relay's target: ms)
        added = results[-1][1].pct(q) - first.pct(q)
        lines.append(f"{f'  p{int(q * 100)} added (ms), last - first':<40} {added:>{width}.1f}")
    row("latency max (ms)", lambda r: max(r.counters.latencies, default=0) * 1000, ".1f")
    lines += relay_split(results[-1][1].counters)
    row("hands completed /s", lambda r: r.rate(r.counters.hands), ",.1f")
    row("servers' CPU (% of one core, all)", lambda r: 100 * r.server_cpu / r.seconds)
    row("bots' CPU (% of one core, all)", lambda r: 100 * r.counters.cpu / r.seconds)
    row("servers' peak RSS (MiB, all)", lambda r: r.hwm_kib / 1024, ".1f")
    row("database commits /s", lambda r: r.rate(r.commits))
    lines.append("")
    for label, r in results:
        c = r.counters
        owned = ", ".join(f"{n} {name}" for name, n in sorted(c.owned.items()))
        lines.append(f"{label}: tables owned {owned}; {c.relayed} of {c.connections} "
                     f"connections relayed; {c.connect_retries} set-up connections "
                     "refused and tried again")  # fmt: skip
    for label, r in results:
        c = r.counters
        lines.append(f"checks {label}: {c.tables_checked} tables checked, {c.errors} error "
                     f"frames, {len(c.violations)} violations, {c.closed} closed by the "
                     f"server, {c.unfinished} hands unfinished")  # fmt: skip
        for v in c.violations[:5]:
            lines.append(f"  violation: {v}")
        for e in c.error_samples[:3]:
            lines.append(f"  error frame: {e}")
    return "\n".join(lines)


def ok(result: Result) -> bool:
    c = result.counters
    return not c.violations and not c.errors and not c.closed and not c.unfinished


def fractions(text: str) -> list[float]:
    return [float(x) for x in text.split(",")]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--pace", choices=("flat", "human"), default="flat")
    parser.add_argument("--think", type=float, default=None,
                        help="mean think time per action (s); overrides --pace")  # fmt: skip
    parser.add_argument("--bots", type=int, default=None,
                        help="bot processes (default: 1 per 100 tables, 1 to 4)")  # fmt: skip
    parser.add_argument("--no-ceiling", action="store_true")
    parser.add_argument("--batch", choices=("off", "on", "both"), default="off",
                        help="bots ask for batched frames; both: a run without, then one with "
                        "(the ceiling once, for the run without)")  # fmt: skip
    parser.add_argument("--profile", metavar="FILE",
                        help="py-spy the server through the window (collapsed stacks)")  # fmt: skip
    parser.add_argument("--processes", type=int, default=1,
                        help="server processes on one database and one Redis")  # fmt: skip
    parser.add_argument("--relayed", type=float, default=0.0,
                        help="fraction of each table's seats connected to a process that "
                             "does not own it (needs --processes 2 or more)")  # fmt: skip
    parser.add_argument("--compare-processes", metavar="N,M", default=None,
                        help="run the same load on N then M processes, one table")  # fmt: skip
    parser.add_argument("--compare-relayed", metavar="F,G", default=None,
                        help="run the same load on --processes (at least 2) with these "
                             "relayed fractions, one table")  # fmt: skip
    parser.add_argument(
        "--fsync-off",
        action="store_true",
        help="PostgreSQL without fsync/full_page_writes (as the tests run it)",
    )
    args = parser.parse_args(argv)
    think = args.think if args.think is not None else (0.0 if args.pace == "flat" else HUMAN_THINK)
    bots = args.bots or max(1, min(4, args.tables // 100 + 1))
    runs: list[tuple[str, int, float]] = []  # label, server processes, relayed fraction
    if args.compare_processes:
        for n in (int(x) for x in args.compare_processes.split(",")):
            runs.append((f"{n} process{'es' if n > 1 else ''}", n, args.relayed))
    elif args.compare_relayed:
        for f in fractions(args.compare_relayed):
            runs.append((f"{round(f * SEATS)}/6 relayed", max(2, args.processes), f))
    else:
        runs.append(("server", args.processes, args.relayed))
    raise_open_files()
    # PostgreSQL and redis-server inherit this: CPU 1 (with the bots when one server process
    # has CPU 0 to itself); server process i is pinned to CPU i % CPUs, and when there are
    # several the bots run on every CPU: on 2 cores servers and bots compete.
    with contextlib.suppress(OSError):
        os.sched_setaffinity(0, bot_cpus())
    print(f"machine: {os.cpu_count()} CPUs, Python {sys.version.split()[0]}, load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}; {bots} bot processes",
          flush=True)  # fmt: skip
    for label, n, f in runs:
        pins = ", ".join(f"p{i} on CPU {sorted(server_cpus(i, n))}" for i in range(n))
        print(f"{label}: {n} server process(es), {pins}; bots on CPU {sorted(bot_cpus(n))}; "
              f"{round(f * SEATS) if n > 1 else 0} of 6 seats per table relayed",
              flush=True)  # fmt: skip
    results: list[tuple[str, Result]] = []
    with backing_servers(durable=not args.fsync_off) as backing:
        settings = durability(backing)
        for label, n, f in runs:
            results.append(
                (
                    label,
                    run_server(
                        backing,
                        args.tables,
                        args.seconds,
                        think,
                        bots,
                        profile=args.profile,
                        servers=n,
                        relayed=f,
                        batch=args.batch == "on",
                    ),
                )
            )
        batched = None
        if args.batch == "both" and len(runs) == 1:
            batched = run_server(backing, args.tables, args.seconds, think, bots,
                                 dbname="omaha_bench_batch", servers=runs[0][1],
                                 relayed=runs[0][2], batch=True)  # fmt: skip
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if len(runs) > 1:
        print(side_by_side(results, think, settings), flush=True)
        return 0 if all(ok(r) for _, r in results) else 1
    server = results[0][1]
    ceiling = None
    if not args.no_ceiling:
        s = server.counters
        fanout = s.messages / max(1, s.actions) / SEATS
        size = round(s.bytes / max(1, s.messages))
        ceiling = run_ceiling(args.tables, args.seconds, think, bots, fanout, size)
    print(f"PostgreSQL: {settings}")
    print(report(server, ceiling, think), flush=True)
    if batched is not None:
        print("\nthe same with batched frames (?batch=1), against the ceiling above:")
        print(report(batched, ceiling, think), flush=True)
        print(compare(server, batched))
    return 0 if ok(server) and (batched is None or ok(batched)) else 1


def compare(plain: Result, batched: Result) -> str:
    """Batched against plain frames, from the same invocation: ratios (batched / plain)."""
    a, b = plain.counters, batched.counters

    def per_action(r: Result) -> float:
        return r.server_cpu / max(1, r.counters.actions) * 1e6

    speed = batched.rate(b.actions) / max(1e-9, plain.rate(a.actions))
    cpu = per_action(batched) / max(1e-9, per_action(plain))
    frames = (a.frames / max(1, a.messages), b.frames / max(1, b.messages))
    return "\n".join([
        "batched / plain frames, same invocation:",
        f"  actions processed /s     {speed:.2f}",
        f"  server CPU per action    {cpu:.2f}  ({per_action(plain):.0f} -> "
        f"{per_action(batched):.0f} us)",
        f"  frames per message       {frames[0]:.2f} -> {frames[1]:.2f}",
        f"  latency p50 / p95 (ms)   {plain.pct(0.5):.1f} / {plain.pct(0.95):.1f} -> "
        f"{batched.pct(0.5):.1f} / {batched.pct(0.95):.1f}",
    ])  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
