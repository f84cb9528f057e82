"""A real server for protocol tests: uvicorn on a free loopback port in this event loop, and a
client that speaks docs/protocol.md over a real WebSocket (the `websockets` library)."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from typing import Any

import httpx
import uvicorn
import websockets
from fastapi import FastAPI
from uvicorn.server import ServerState
from websockets.asyncio.client import ClientConnection

from app.bots.policy import choose, random_action
from app.bots.tracker import Tracker
from app.config import Settings
from app.main import create_app, uvicorn_options
from tests.migrated import migrate
from tests.servers import free_port

#: the uvicorn server behind each running `live_server`'s base URL
SERVERS: dict[str, uvicorn.Server] = {}


def server_state(base: str) -> ServerState:
    """The uvicorn state (open connections, handler tasks) of the live server at `base`."""
    return SERVERS[base].server_state


def app_of(base: str) -> FastAPI:
    """The app the live server at `base` serves (uvicorn's config holds it, typed as any ASGI
    application or an import string)."""
    app = SERVERS[base].config.app
    assert isinstance(app, FastAPI)
    return app


@asynccontextmanager
async def live_server(settings: Settings, app: FastAPI | None = None) -> AsyncIterator[str]:
    """`app` (default: a new one from `settings`) served until the block ends."""
    await migrate(settings.effective_database_url)
    port = free_port()
    config = uvicorn.Config(
        app or create_app(settings),
        host="127.0.0.1",
        port=port,
        log_config=None,
        access_log=False,
        lifespan="on",
        **uvicorn_options(settings),  # type: ignore[arg-type]
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.01)
    base = f"http://127.0.0.1:{port}"
    SERVERS[base] = server
    try:
        yield base
    finally:
        del SERVERS[base]
        server.should_exit = True
        await asyncio.wait_for(task, 30)


class Client:
    """One browser: a session cookie, REST calls, and a WebSocket to one table."""

    def __init__(self, base: str) -> None:
        self.base = base
        # (httpx's 5 s is a browser's patience, not a loaded test machine's: a server that
        # does not answer is found by the test's own conditions). An idle connection is
        # dropped after 1 s, well before uvicorn's 5 s: at the same 5 s, a request sent as
        # the server closed the connection read "Server disconnected without sending a
        # response" (a relay test's poll after a minute of WebSocket play, beside a second
        # suite); a browser retries such a request, httpx does not.
        self.http = httpx.AsyncClient(
            base_url=base, timeout=60.0, limits=httpx.Limits(keepalive_expiry=1.0)
        )
        self.token = ""
        self.player_id = ""
        self.ws: ClientConnection | None = None
        self.messages: list[dict[str, Any]] = []
        self.reader: asyncio.Task[None] | None = None
        self.stream: str | None = None
        self.seq = 0
        self.changed = asyncio.Event()
        self.batch = False  # ask for batched frames (`batch=1`) when connecting
        self.client: str | None = None  # the client version it names (`client=`), if any
        self.frames: list[int] = []  # per text frame: how many messages it held (0: one, bare)
        self.frame_of: list[int] = []  # per message: the index of the frame it came in
        self.closed: tuple[int | None, str] | None = None  # the close frame, once closed

    async def join(self, name: str) -> None:
        r = await self.http.post("/api/session", json={"name": name})
        r.raise_for_status()
        self.player_id = r.json()["player_id"]
        self.token = r.cookies["omaha_session"]

    async def create_table(self, **config: Any) -> str:
        r = await self.http.post("/api/tables", json=config)
        assert r.status_code == 201, r.text
        return str(r.json()["code"])

    async def connect(self, code: str, *, resume: bool = False, origin: str | None = None) -> None:
        url = self.base.replace("http", "ws", 1) + f"/ws/tables/{code}"
        query = ["batch=1"] if self.batch else []
        if self.client is not None:
            query.append(f"client={self.client}")
        if resume and self.stream:
            query += [f"stream={self.stream}", f"since={self.seq}"]
        if query:
            url += "?" + "&".join(query)
        self.ws = await websockets.connect(
            url,
            origin=origin or self.base,  # type: ignore[arg-type]
            additional_headers={"Cookie": f"omaha_session={self.token}"},
            compression=None,
            max_size=2**20,
        )
        self.closed = None
        mark = len(self.messages)
        self.reader = asyncio.create_task(self._read())
        if not (resume and self.stream):
            # Attached: its snapshot came (or it was refused). A relayed connection is
            # attached by its table's owner after the socket opens, so what another client
            # does next could otherwise reach the table first and never be sent to this one.
            await self.wait_until(
                lambda: (
                    self.closed is not None
                    or any(m["type"] == "snapshot" for m in self.messages[mark:])
                )
            )

    async def _read(self) -> None:
        assert self.ws is not None
        try:
            async for raw in self.ws:
                data = json.loads(raw)
                self.frames.append(len(data) if isinstance(data, list) else 0)
                for message in data if isinstance(data, list) else [data]:
                    if message["type"] == "snapshot":
                        self.stream, self.seq = message["stream"], message["seq"]
                    elif "seq" in message:
                        assert message["seq"] == self.seq + 1, (message, self.seq)
                        self.seq = message["seq"]
                    self.messages.append(message)
                    self.frame_of.append(len(self.frames) - 1)
                self.changed.set()
        except websockets.ConnectionClosed as closed:
            self.closed = (closed.rcvd.code, closed.rcvd.reason) if closed.rcvd else (None, "")
        finally:
            self.changed.set()

    async def send(self, **message: Any) -> None:
        assert self.ws is not None
        await self.ws.send(json.dumps(message))

    async def wait_for(
        self, predicate: Any, timeout: float = 20.0, start: int = 0
    ) -> dict[str, Any]:
        """The first message matching, received or to come (from index `start` on)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        seen = start
        while True:
            for message in self.messages[seen:]:
                if predicate(message):
                    return message
            seen = len(self.messages)
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError(f"no matching message; last: {self.messages[-3:]}")
            self.changed.clear()
            with suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), remaining)

    async def wait_until(self, condition: Any, timeout: float = 20.0) -> None:
        """Until `condition()` holds, checked on each message and at the close."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not condition():
            remaining = deadline - loop.time()
            if remaining <= 0 or (self.reader is not None and self.reader.done()
                                  and not condition()):  # fmt: skip
                raise TimeoutError(f"not so; last: {self.messages[-3:]}, closed: {self.closed}")
            self.changed.clear()
            with suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), remaining)

    async def request(self, timeout: float = 20.0, **message: Any) -> dict[str, Any]:
        ref = random.getrandbits(40)
        mark = len(self.messages)
        await self.send(id=ref, **message)
        while True:
            reply = await self.wait_for(
                lambda m: m.get("id") == ref and m["type"] in ("ok", "error"), timeout
            )
            if self.messages.index(reply) >= mark:
                return reply

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self.reader is not None:
            await asyncio.gather(self.reader, return_exceptions=True)
        await self.http.aclose()


async def heads_up(base: str, buy_in: int = 100) -> tuple[Client, Client, str]:
    """Players "a" and "b" joined, at a new two-seat table without a clock, seated 0 and 1."""
    a, b = Client(base), Client(base)
    await a.join("a")
    await b.join("b")
    code = await a.create_table(decision_time=0, seats=2)
    for i, c in enumerate((a, b)):
        await c.connect(code)
        assert (await c.request(type="sit", seat=i, buy_in=buy_in))["type"] == "ok"
    return a, b, code


async def bot(
    client: Client, rng: random.Random, hands: int, stop: asyncio.Event, *, smart: bool = False
) -> None:
    """Act on every `turn` that carries our legal actions, until `hands` hands have ended:
    a random legal action, or with `smart` the practice bots' policy (app.bots.policy)."""
    handled: set[tuple[str, int]] = set()
    tracker = Tracker(client.player_id)
    seen = 0
    while not stop.is_set():
        for message in client.messages[seen:]:
            tracker.see(message)
            if (
                message["type"] == "seat"
                and message["player_id"] == client.player_id
                and message["stack"] == 0
            ):
                await client.send(type="top_up", amount=100)  # busted: buy back in
            if message["type"] == "turn" and "legal" in message:
                key = (message["hand"], message["counter"])
                if key in handled:
                    continue
                handled.add(key)
                situation = tracker.situation(message) if smart else None
                action = (
                    choose(situation, rng) if situation else random_action(message["legal"], rng)
                )
                await client.send(
                    type="act", hand=message["hand"], counter=message["counter"], **action
                )
        seen = len(client.messages)
        ended = sum(1 for m in client.messages if m["type"] == "hand_ended")
        if ended >= hands:
            return
        client.changed.clear()
        with suppress(TimeoutError):
            await asyncio.wait_for(client.changed.wait(), 1.0)
