"""The WebSocket endpoint: the protocol of docs/protocol.md. It translates; it decides nothing.

Per connection: Origin check and cookie authentication before accepting; every inbound text
frame size-capped, rate-limited (token bucket) and validated into `messages.Inbound`; a
command to the table's mailbox; the answer (`ok` or a typed `error`) and every table event
go through the connection's bounded outbox, drained by its own writer task. The table actor
never waits for this socket; a connection that falls behind is closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from typing import Any

import orjson
from fastapi import APIRouter, WebSocket
from pydantic import ValidationError
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocketDisconnect

from app.api.identity import player_for
from app.config import Settings
from app.logging import log_ws_event
from app.presence import Presence
from app.tables.errors import TableError
from app.tables.registry import TableRegistry
from app.tables.table import Table
from app.tables.viewer import Viewer

from .messages import Ping, inbound

log = logging.getLogger("omaha.ws")
router = APIRouter()

#: close codes (see docs/protocol.md)
CLOSE_POLICY = 1008
CLOSE_TOO_BIG = 1009
CLOSE_NO_TABLE = 4404
REPLY_TIMEOUT = 15.0


class TokenBucket:
    """`rate` messages a second on average, bursts up to `burst`."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate, self.burst = rate, burst
        self.tokens = burst
        self.stamp = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


def origin_allowed(websocket: WebSocket, settings: Settings) -> bool:
    """ALLOWED_ORIGINS when set, else the same origin as the Host header. No Origin: refused
    (browsers always send one; other clients can send the server's own)."""
    origin = websocket.headers.get("origin", "").rstrip("/")
    if not origin:
        return False
    if settings.allowed_origins:
        return origin in settings.allowed_origins
    host = websocket.headers.get("host", "")
    return bool(host) and origin in (f"http://{host}", f"https://{host}")


def error(code: str, message: str, ref: Any = None) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "error", "code": code, "message": message}
    if ref is not None:
        out["id"] = ref
    return out


#: where `ServerSend` keeps the server's own ASGI `send` in a WebSocket scope
SERVER_SEND = "omaha.server_send"


class ServerSend:
    """ASGI middleware: keeps the server's own `send` of a WebSocket connection in its scope.

    The writer sends every table message through it. Starlette's `WebSocket.send` (a state
    check per message) and the exception middleware's wrapper around `send` were ~5% of the
    server's CPU flat out (py-spy), for checks that only matter to the handshake and the close,
    which still go through `WebSocket`."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            scope[SERVER_SEND] = send
        await self.app(scope, receive, send)


async def _writer(websocket: WebSocket, viewer: Viewer) -> None:
    send = websocket.scope.get(SERVER_SEND) or websocket.send
    outbox, wake = viewer.outbox, viewer.wake
    while True:
        while not outbox and viewer.closed is None:
            wake.clear()
            await wake.wait()
        batch = viewer.take()
        if not batch:  # closed
            return
        for message in batch:
            if not isinstance(message, str):
                message = orjson.dumps(message).decode()
            await send({"type": "websocket.send", "text": message})


async def _presence_keeper(
    presence: Presence, table: Table, player_id: str, stop: asyncio.Event
) -> None:
    """Keep this connection online in presence, with its current seat. Stops on `stop` (a
    cancellation can be swallowed inside the Redis client, so it is not relied on)."""
    while not stop.is_set():
        seat = table.seat_of(player_id)
        with contextlib.suppress(Exception):
            await presence.connect(table.id, player_id, seat.number if seat else None)
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(max(0.5, presence.ttl / 3)):  # no task per wait
                await stop.wait()


@router.websocket("/ws/tables/{code}")
async def table_socket(websocket: WebSocket, code: str) -> None:
    app = websocket.app
    settings: Settings = app.state.settings
    if not origin_allowed(websocket, settings):
        log_ws_event("refused", table_id=None, seat=None, reason="origin")
        await websocket.close(CLOSE_POLICY)
        return
    player = await player_for(websocket, app.state.sessions)
    if player is None:
        log_ws_event("refused", table_id=None, seat=None, reason="no session")
        await websocket.close(CLOSE_POLICY)
        return
    registry: TableRegistry = app.state.tables
    table_id = await app.state.table_store.table_by_code(code) if len(code) <= 64 else None
    try:
        table = registry.get(table_id) if table_id else None
    except TableError:
        table = None
    if table is None:
        await websocket.close(CLOSE_NO_TABLE)
        return
    await websocket.accept()
    await _serve(websocket, table, str(player.id), player.display_name, settings)


async def _serve(
    websocket: WebSocket, table: Table, player_id: str, name: str, settings: Settings
) -> None:
    app = websocket.app
    presence: Presence = app.state.presence
    viewer = Viewer(player_id, limit=settings.ws_outbox_limit)
    writer = asyncio.create_task(_writer(websocket, viewer))
    reader = asyncio.create_task(_reader(websocket, table, viewer, name, settings))

    def stop_writer(code: int, reason: str) -> None:
        writer.cancel()  # it may be stuck sending to a client that stopped reading

    viewer.on_close = stop_writer
    since = websocket.query_params.get("since")
    stream = websocket.query_params.get("stream")
    try:
        await asyncio.wait_for(
            table.request(
                "attach", player_id, viewer=viewer, stream=stream,
                since=int(since) if since and since.isdigit() and len(since) < 16 else None,
            ),
            REPLY_TIMEOUT,
        )  # fmt: skip
    except (TableError, TimeoutError):
        writer.cancel()
        reader.cancel()
        await websocket.close(1011)
        return
    stop = asyncio.Event()
    keeper = asyncio.create_task(_presence_keeper(presence, table, player_id, stop))
    seat = table.seat_of(player_id)
    log_ws_event("connect", table_id=table.id, seat=seat.number if seat else None,
                 player_id=player_id)  # fmt: skip
    close_code, reason = 1000, "bye"
    try:
        done, _ = await asyncio.wait({writer, reader}, return_when=asyncio.FIRST_COMPLETED)
        if reader in done and not reader.cancelled() and reader.exception() is None:
            close_code, reason = reader.result()
        if viewer.closed is not None:
            close_code, reason = viewer.closed
    finally:
        stop.set()
        for task in (writer, reader, keeper):
            task.cancel()
        await asyncio.wait((writer, reader, keeper), timeout=5)
        table.post_detach(viewer)
        with contextlib.suppress(Exception):
            await presence.disconnect(table.id, player_id)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(websocket.close(close_code, reason[:120]), 1.0)
        seat = table.seat_of(player_id)
        log_ws_event("disconnect", table_id=table.id, seat=seat.number if seat else None,
                     player_id=player_id, code=close_code, reason=reason)  # fmt: skip


async def _reader(
    websocket: WebSocket, table: Table, viewer: Viewer, name: str, settings: Settings
) -> tuple[int, str]:
    presence: Presence = websocket.app.state.presence
    player_id = viewer.player_id or ""
    """Read, check, validate, forward. Returns the close code and reason when it stops."""
    bucket = TokenBucket(settings.ws_rate, settings.ws_burst)
    strikes = 0
    while True:
        try:
            frame = await websocket.receive()
        except WebSocketDisconnect:
            return 1000, "client left"
        if frame["type"] == "websocket.disconnect":
            return 1000, "client left"
        text = frame.get("text")
        if not bucket.take():
            strikes += 1
            if strikes > settings.ws_burst:
                return CLOSE_POLICY, "flood: too many messages"
            viewer.send(error("rate_limited", "too many messages: slow down"))
            continue
        strikes = 0
        if text is None:
            viewer.send(error("bad_frame", "messages are JSON text frames"))
            continue
        if len(text) > settings.ws_max_message:
            viewer.send(error("too_large", f"messages are at most {settings.ws_max_message} bytes"))
            continue
        try:
            message = inbound.validate_json(text)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first.get("loc", ()))
            code = "bad_json" if first.get("type") == "json_invalid" else "bad_message"
            ref = None
            with contextlib.suppress(Exception):
                raw = json.loads(text)
                if isinstance(raw, dict) and isinstance(raw.get("id"), int | str):
                    ref = raw["id"] if len(str(raw["id"])) <= 64 else None
            viewer.send(error(code, f"{where}: {first.get('msg', 'invalid')}"[:200], ref))
            continue
        if isinstance(message, Ping):
            viewer.send({"type": "pong", "id": message.id} if message.id is not None
                        else {"type": "pong"})  # fmt: skip
            continue
        data = message.command()
        if message.type == "act":
            # The hot path: the table answers into this connection's outbox itself, after
            # the events the action caused, so the reader neither waits nor wakes again.
            table.tell("act", viewer.player_id, viewer, message.id, data)
            continue
        if message.type in ("sit", "chat"):
            data["name"] = name
        try:
            # `timeout`, not `wait_for`: wait_for wraps the request in a task of its own.
            async with asyncio.timeout(REPLY_TIMEOUT):
                result = await table.request(message.type, viewer.player_id, **data)
        except TableError as refused:
            viewer.send(error(refused.code, refused.message, message.id))
            continue
        except TimeoutError:
            viewer.send(error("timeout", "the table did not answer in time", message.id))
            continue
        if message.type in ("sit", "leave"):
            seat = table.seat_of(player_id)
            with contextlib.suppress(Exception):
                await presence.connect(table.id, player_id, seat.number if seat else None)
        reply: dict[str, Any] = {"type": "ok", "of": message.type, **result}
        if message.id is not None:
            reply["id"] = message.id
        viewer.send(reply)
