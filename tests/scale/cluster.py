"""Real server processes sharing one PostgreSQL and one Redis, for the scale tests: started by
name, each on a port of its own, stopped, frozen, killed and started again under the same
name (a new incarnation), each one's log kept in DATA_DIR/<name>.<n>.log."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis

from tests.servers import free_port, wait_for_port

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Server:
    name: str
    port: int
    process: subprocess.Popen[bytes]
    log: Path

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def alive(self) -> bool:
        return self.process.poll() is None


@dataclass
class Cluster:
    """Processes by name; `start` the same name again after it ended: a restart."""

    env: dict[str, str]
    #: the latest process under each name; every one ever started (all stopped at `close`)
    servers: dict[str, Server] = field(default_factory=dict)
    started: list[Server] = field(default_factory=list)
    _starts: int = 0

    def launch(self, name: str, port: int | None = None) -> Server:
        """Start a process without waiting for it to listen."""
        self._starts += 1
        logs = Path(self.env["DATA_DIR"])
        logs.mkdir(parents=True, exist_ok=True)
        log = logs / f"{name}.{self._starts}.log"
        port = port or free_port()
        process = subprocess.Popen(
            [sys.executable, "-m", "app", "serve"],
            cwd=ROOT,
            env={**self.env, "PORT": str(port), "PROCESS_NAME": name},
            stdout=subprocess.DEVNULL,
            stderr=log.open("wb"),
        )
        server = Server(name, port, process, log)
        self.servers[name] = server
        self.started.append(server)
        return server

    def start(self, name: str, timeout: float = 90) -> Server:
        """Start a process and wait until it listens (it refuses to start: AssertionError)."""
        self.launch(name)
        return self.wait(name, timeout)

    def wait(self, name: str, timeout: float = 90) -> Server:
        """Wait until a launched process listens (a loaded test machine takes its time)."""
        server = self.servers[name]
        deadline = time.monotonic() + timeout
        while True:
            try:
                wait_for_port("127.0.0.1", server.port, timeout=0.5)
                return server
            except OSError:
                assert server.alive(), f"{name} did not start: {server.log.read_text()[-2000:]}"
                assert time.monotonic() < deadline, f"{name} never listened"

    def signal(self, name: str, sig: signal.Signals) -> None:
        os.kill(self.servers[name].process.pid, sig)

    def kill(self, name: str) -> None:
        server = self.servers[name]
        if server.alive():
            server.process.send_signal(signal.SIGCONT)
            server.process.kill()
        server.process.wait(30)

    def stop(self, name: str, timeout: float = 60) -> None:
        """SIGTERM (a drain), waited for; killed if it takes longer."""
        server = self.servers[name]
        if server.alive():
            server.process.send_signal(signal.SIGCONT)
            server.process.terminate()
        try:
            server.process.wait(timeout)
        except subprocess.TimeoutExpired:
            server.process.kill()
            server.process.wait()

    def close(self, *, kill: bool = False) -> None:
        """Stop every process (`kill`: SIGKILL, not the ordinary shutdown)."""
        for server in self.started:
            if server.alive():
                server.process.send_signal(signal.SIGCONT)
                server.process.kill() if kill else server.process.terminate()
        for server in self.started:
            try:
                server.process.wait(20)
            except subprocess.TimeoutExpired:
                server.process.kill()
                server.process.wait()


def incarnation_name(value: str | None) -> str | None:
    """The PROCESS_NAME of an incarnation (`<name>@<random>`), as leases and loads hold it."""
    return None if value is None else value.split("@", 1)[0]


def owner(redis_url: str, table_id: str) -> str | None:
    """The name of the process holding the table's lease (None: nobody)."""
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        value = client.get(f"omaha:table:{table_id}:owner")
        return incarnation_name(None if value is None else str(value))
    finally:
        client.close()


def held_by(redis_url: str, table_id: str) -> str:
    """The name of the process holding the table's lease, which one does."""
    name = owner(redis_url, table_id)
    assert name is not None, f"nobody holds table {table_id}"
    return name


_CLEAR_CARD = re.compile(r'"[2-9TJQKA][cdhs]"')


def cards_in_redis(redis_url: str) -> list[tuple[str, str]]:
    """Every card Redis holds in clear (a card as JSON writes it, `"Ah"`), with its key: what
    the relay writes that could hold one is sealed (docs/security.md)."""
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    found: list[tuple[str, str]] = []
    try:
        for key in client.scan_iter(count=1000):
            kind = client.type(key)
            texts: list[str] = []
            if kind == "string":
                texts = [str(client.get(key))]
            elif kind == "hash":
                texts = [str(v) for v in client.hgetall(key).values()]  # type: ignore[union-attr]
            elif kind == "zset":
                texts = [str(m) for m in client.zrange(key, 0, -1)]  # type: ignore[union-attr]
            elif kind == "stream":
                entries: Any = client.xrange(key)
                texts = [str(v) for _, fields in entries for v in fields.values()]
            found += [(str(key), m) for text in texts for m in _CLEAR_CARD.findall(text)]
    finally:
        client.close()
    return found


def stream_lengths(redis_url: str) -> dict[str, int]:
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        return {
            str(key): int(client.xlen(key))  # type: ignore[arg-type]
            for key in client.scan_iter(_type="STREAM", count=1000)
        }
    finally:
        client.close()
