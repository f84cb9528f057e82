"""The benches' fleet: the throwaway PostgreSQL and redis-server, the table server processes
as deployed (``python -m app serve``, configured by their environment, pinned to CPUs) and the
bare ceiling's, and reading a process's CPU and memory from ``/proc``. bench/load.py and the
benches built on it start everything through here."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

from bench import commits as commits_figures  # noqa: E402

PY = sys.executable
CLK_TCK = os.sysconf("SC_CLK_TCK")


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
