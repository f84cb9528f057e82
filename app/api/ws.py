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
import logging
import re
import time
from typing import Any

import orjson
from fastapi import APIRouter, WebSocket
from pydantic import ValidationError
from sqlalchemy.exc import SQLAlchemyError
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocketDisconnect

from app.api.bodies import JsonRoute
from app.api.client_version import version_news
from app.api.hosts import origin_allowed
from app.api.identity import player_for
from app.api.limits import Connections, client_address
from app.config import Settings
from app.logging import log_ws_event
from app.presence import connection_id
from app.presence.keeper import Flag, Keeper, keep_online
from app.rate import TokenBucket
from app.scale.relay import RemoteTable, find_or_relay
from app.tables.errors import TableError
from app.tables.registry import TableRegistry
from app.tables.table import Table
from app.tables.viewer import CLOSE_TABLE_CLOSED, Viewer

from .messages import Ping, inbound

log = logging.getLogger("omaha.ws")
router = APIRouter(route_class=JsonRoute)

#: close codes (see docs/protocol.md)
CLOSE_POLICY = 1008
CLOSE_TOO_BIG = 1009
CLOSE_NO_TABLE = 4404
CLOSE_TRY_AGAIN = 1013
REPLY_TIMEOUT = 15.0


def safe_ref(value: Any) -> int | str | None:
    """A client's message `id` if it can be echoed: an integer of at most 2**53 in size or a
    string of at most 64 characters that is valid UTF-8 (no lone surrogate); else None."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) <= 2**53:
        return value
    if isinstance(value, str) and len(value) <= 64:
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return None
        return value
    return None


def message_ref(text: str | None, limit: int) -> int | str | None:
    """The echoable `id` of a message that is not read further (dropped over the rate), or
    None: not JSON, not an object, too large or no usable id."""
    if text is None or len(text) > limit:
        return None
    try:
        raw = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    return safe_ref(raw.get("id")) if isinstance(raw, dict) else None


_SINCE = re.compile(r"[0-9]{1,15}")
_STREAM = re.compile(r"[0-9a-f]{1,32}")


def resume_point(query: dict[str, str]) -> tuple[str | None, int | None] | None:
    """`stream` and `since` from the query string, strictly (ASCII digits and hex, bounded);
    None when either is malformed."""
    stream, since = query.get("stream"), query.get("since")
    if stream is not None and not _STREAM.fullmatch(stream):
        return None
    if since is not None and not _SINCE.fullmatch(since):
        return None
    return stream, int(since) if since is not None else None


#: the versions of batched frames this server speaks (`?batch=1`: a JSON array of messages)
BATCH_VERSIONS = frozenset({"1"})
#: a batched frame stops growing past this many characters (one larger message goes alone)
BATCH_CHARS = 65_536


def batching(query: dict[str, str]) -> bool | None:
    """Whether the client asked for batched frames (`batch=1`); None for a value this server
    does not speak (refused like a malformed `since`, so a newer client learns at once)."""
    version = query.get("batch")
    if version is None:
        return False
    return True if version in BATCH_VERSIONS else None


def frames(texts: list[str], batch: bool) -> list[str]:
    """The WebSocket text frames for messages taken together from one outbox: one frame each,
    or (`batch`) every run of two or more as one JSON array, at most BATCH_CHARS long."""
    if not batch or len(texts) == 1:
        return texts
    out: list[str] = []
    run: list[str] = []
    size = 0
    for text in texts:
        if run and size + len(text) + 1 > BATCH_CHARS:
            out.append(_joined(run))
            run, size = [], 0
        run.append(text)
        size += len(text) + 1
    out.append(_joined(run))
    return out


def _joined(run: list[str]) -> str:
    return run[0] if len(run) == 1 else "[" + ",".join(run) + "]"


def error(code: str, message: str, ref: Any = None) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "error", "code": code, "message": message}
    if ref is not None:
        out["id"] = ref
    return out


#: where `TableSockets` keeps the server's own ASGI `send` in a WebSocket scope
SERVER_SEND = "omaha.server_send"
#: the path of `table_socket`'s route, as the router matches it
_TABLE_PATH = re.compile(r"/ws/tables/([^/]+)")


class TableSockets:
    """ASGI middleware, the innermost: a table's WebSocket goes straight to `table_socket`,
    past the router and FastAPI's per-route machinery, with the server's own `send` kept in
    its scope for the writer. Every middleware outside it (host check, logging) still runs.

    Routed, each connection held for as long as it was open ~15 more coroutine frames,
    three AsyncExitStacks (a deque each), a Request, two Responses and a second WebSocket:
    ~9 KiB of RSS each, of thousands (bench/memconn.py). The route stays registered: a path this
    does not take reaches the same handler through the router. The writer sends every table
    message through `send`: Starlette's `WebSocket.send` (a state check per message) and the
    exception middleware's wrapper around `send` were ~5% of the server's CPU flat out
    (py-spy), for checks that only matter to the handshake and the close, which still go
    through `WebSocket`."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "websocket":
            await self.app(scope, receive, send)
            return
        # The protocol holds the scope and `send` holds the protocol: taken out again at
        # the end, or each connection is a reference cycle (see `_serve`).
        scope[SERVER_SEND] = send
        try:
            path, root = scope["path"], scope.get("root_path", "")
            if root and path.startswith(root + "/"):
                path = path[len(root) :]
            match = _TABLE_PATH.fullmatch(path)
            if match is None:
                await self.app(scope, receive, send)
            else:
                await table_socket(WebSocket(scope, receive, send), match.group(1))
        finally:
            del scope[SERVER_SEND]


async def _writer(websocket: WebSocket, viewer: Viewer, batch: bool = False) -> None:
    """Drain the outbox to the socket: what is queued when the writer wakes goes out together,
    one frame per message, or (`batch`) as one array frame, so a burst (an action and the next
    turn) reaches the client's page in one task and one painted frame. Nothing of a batch is
    held while it waits (a snapshot is kilobytes, times thousands of idle connections)."""
    send = websocket.scope.get(SERVER_SEND) or websocket.send
    while True:
        while not viewer.outbox and viewer.closed is None:
            await viewer.wait()
        out = _texts(viewer.take(), batch)
        if out is None:  # closed
            return
        out.reverse()
        while out:
            await send({"type": "websocket.send", "text": out.pop()})


def _texts(taken: list[dict[str, Any] | str], batch: bool) -> list[str] | None:
    """The frames for what was taken from an outbox; None for nothing (it was closed)."""
    if not taken:
        return None
    texts: list[str] = []
    for message in taken:
        if isinstance(message, str):
            texts.append(message)
            continue
        try:
            texts.append(orjson.dumps(message).decode())
        except (TypeError, orjson.JSONEncodeError):  # never the connection's end
            log.error("unserialisable message of type %s dropped", message.get("type"))
    return frames(texts, batch) if texts else []


@router.websocket("/ws/tables/{code}")
async def table_socket(websocket: WebSocket, code: str) -> None:
    app = websocket.app
    settings: Settings = app.state.settings
    headers = websocket.headers
    if not origin_allowed(headers.get("origin", ""), headers.get("host", ""), settings):
        log_ws_event("refused", table_id=None, seat=None, reason="origin")
        await websocket.close(CLOSE_POLICY)
        return
    query = dict(websocket.query_params)
    resume, batch = resume_point(query), batching(query)
    news = version_news(query, app.state.assets.version)  # the page is out of date?
    if resume is None or batch is None:
        log_ws_event("refused", table_id=None, seat=None, reason="bad stream, since or batch")
        await websocket.close(CLOSE_POLICY)
        return
    try:
        player = await player_for(websocket, app.state.sessions, settings)
    except (SQLAlchemyError, OSError) as failure:  # the database is down: try again soon
        log.warning("cannot look a session up (%s)", type(failure).__name__)
        await websocket.close(CLOSE_TRY_AGAIN)
        return
    if player is None:
        log_ws_event("refused", table_id=None, seat=None, reason="no session")
        await websocket.close(CLOSE_POLICY)
        return
    registry: TableRegistry = app.state.tables
    table: Table | RemoteTable | None
    table_id: str | None = None
    try:
        table_id = await app.state.table_store.table_by_code(code) if len(code) <= 64 else None
        table = await find_or_relay(app.state.relay, registry, table_id) if table_id else None
    except TableError as refused:
        table = None
        if refused.code != "no_such_table":  # being restored, or changing hands: come back soon
            await websocket.close(CLOSE_TRY_AGAIN)
            return
    except Exception as failure:  # the database is down: the code cannot be looked up
        log.warning("cannot look a table up (%s)", type(failure).__name__)
        await websocket.close(CLOSE_TRY_AGAIN)
        return
    if table is None:
        # Accepted first, so that the client reads the close code (a close before the accept
        # is an HTTP 403, which it retries): a known code no table answers for was closed.
        with contextlib.suppress(Exception):
            await websocket.accept()
            await websocket.close(CLOSE_TABLE_CLOSED if table_id else CLOSE_NO_TABLE)
        return
    connections: Connections = app.state.connections
    player_id = str(player.id)
    refusal = connections.acquire(player_id, table.id)
    if refusal is not None:
        log_ws_event("refused", table_id=table.id, seat=None, reason="too many connections")
        with contextlib.suppress(Exception):
            await websocket.accept()
            await websocket.send_json(error("too_many_connections", refusal))
            await websocket.close(CLOSE_POLICY, "too many connections")
        return
    # This frame lasts as long as the connection: what only the handshake needed (the
    # player's ORM row with its session state, the query) is let go first.
    name = player.display_name
    del player, query, headers
    try:
        await websocket.accept()
        if news is not None:  # first, without `seq`: outside the table's stream
            with contextlib.suppress(Exception):  # gone already: `_serve` reads its close
                await websocket.send_text(news)
        await _serve(websocket, table, player_id, name, settings, resume, batch)
    finally:
        connections.release(player_id, table.id)


async def _serve(
    websocket: WebSocket,
    table: Table | RemoteTable,
    player_id: str,
    name: str,
    settings: Settings,
    resume: tuple[str | None, int | None],
    batch: bool = False,
) -> None:
    """Attach, then read in this task beside two of its own, the writer and the presence
    keeper, until the client leaves or the writer ends (the viewer closed, or the socket
    failed), which stops the reading. Every task is created inside the `try` whose `finally`
    cancels and awaits it: whatever fails, no task outlives the connection. (The reader is
    not a task of its own: a task, its context and `asyncio.wait`'s waiters are ~1.5 KiB of
    each of thousands of connections.)"""
    keeper: Keeper = websocket.app.state.keeper
    viewer = Viewer(player_id, limit=settings.ws_outbox_limit)
    stream, since = resume
    tasks: list[asyncio.Task[Any]] = []
    stop = Flag()
    entry = connection_id(player_id)  # one presence entry per connection: two tabs, two
    close_code, reason = 1000, "bye"
    try:
        try:  # from here on the table may hold the viewer: the `finally` detaches it
            async with asyncio.timeout(REPLY_TIMEOUT):
                await table.request("attach", player_id, viewer=viewer, stream=stream, since=since)
        except (TableError, TimeoutError):
            close_code, reason = 1011, "the table did not answer"
            return
        writer = asyncio.create_task(_writer(websocket, viewer, batch))
        tasks.append(writer)

        def stop_writer(code: int, why: str) -> None:
            writer.cancel()  # it may be stuck sending to a client that stopped reading

        viewer.on_close = stop_writer
        handler = asyncio.current_task()
        reading, stopped = True, False

        def writer_ended(_: object) -> None:
            nonlocal stopped
            if reading and handler is not None:
                stopped = True
                handler.cancel()

        writer.add_done_callback(writer_ended)
        if isinstance(table, Table):  # a relayed one's presence is kept by its owner
            tasks.append(asyncio.create_task(keep_online(keeper, table, player_id, entry, stop)))
        seat = table.seat_of(player_id)
        log_ws_event("connect", table_id=table.id, seat=seat.number if seat else None,
                     player_id=player_id, client=client_address(websocket.scope))  # fmt: skip
        try:
            close_code, reason = await _reader(websocket, table, viewer, name, settings)
        except asyncio.CancelledError:
            # Ours (the writer ended) unless someone else cancelled too: the server stopping.
            if not stopped or (handler is not None and handler.uncancel() > 0):
                raise
        except Exception:
            log.exception("reading from a connection failed")
        finally:
            reading = False
        if viewer.closed is not None:
            close_code, reason = viewer.closed
    finally:
        stop.set()
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=5)
        # A cancelled or failed task keeps its exception, whose traceback holds the task's
        # frame and so the viewer: the viewer must not lead back to the task, or the whole
        # connection is a reference cycle, left to a garbage collector the server runs rarely.
        viewer.on_close = None
        table.post_detach(viewer)
        if isinstance(table, Table):  # bounded, and never raises
            await keeper.disconnect(table.id, entry)
        with contextlib.suppress(Exception):
            async with asyncio.timeout(1.0):
                await websocket.close(close_code, reason[:120])
        seat = table.seat_of(player_id)
        log_ws_event("disconnect", table_id=table.id, seat=seat.number if seat else None,
                     player_id=player_id, code=close_code, reason=reason)  # fmt: skip


async def _reader(
    websocket: WebSocket,
    table: Table | RemoteTable,
    viewer: Viewer,
    name: str,
    settings: Settings,
) -> tuple[int, str]:
    """Read, check, validate, forward. Returns the close code and reason when it stops."""
    bucket = TokenBucket(settings.ws_rate, settings.ws_burst)
    # The `rate_limited` answers have a bucket of their own, so a flood cannot make the server
    # write a flood: a client that empties it too is closed (1008) rather than left waiting.
    answers = TokenBucket(settings.ws_rate, settings.ws_burst)
    limit = settings.ws_max_message
    # Over the rate since this moment (None: not limited). One `rate_limited` error when it
    # starts, and one for each message dropped after it that carries an `id` (its sender
    # waits for that answer); none for the others; still over the rate after
    # WS_FLOOD_SECONDS: closed. It ends only once the bucket is half full again, so a steady
    # flood (which a trickle of allowed messages would otherwise excuse) is closed.
    limited_since: float | None = None
    while True:
        try:
            frame = await websocket.receive()
        except WebSocketDisconnect:
            return 1000, "client left"
        if frame["type"] == "websocket.disconnect":
            return 1000, "client left"
        text = frame.get("text")
        allowed = bucket.take()
        if limited_since is not None:
            if bucket.tokens >= bucket.burst / 2:
                limited_since = None
            elif time.monotonic() - limited_since > settings.ws_flood_seconds:
                return CLOSE_POLICY, "flood: too many messages"
            else:
                ref = message_ref(text, limit)
                if ref is not None:
                    if not answers.take():
                        return CLOSE_POLICY, "flood: too many messages"
                    viewer.send(error("rate_limited", "too many messages: slow down", ref))
                continue
        if not allowed:
            limited_since = time.monotonic()
            answers.take()  # counted, but always sent: a spell starts at most once per
            # WS_BURST / 2 / WS_RATE seconds (it ends only once the bucket is half full)
            ref = message_ref(text, limit)
            viewer.send(error("rate_limited", "too many messages: slow down", ref))
            continue
        if text is None:
            viewer.send(error("bad_frame", "messages are JSON text frames"))
            continue
        # Size in bytes (UTF-8), counted only when the characters alone could exceed it.
        if len(text) > limit // 4 and (
            len(text) > limit or len(text.encode("utf-8", "surrogatepass")) > limit
        ):
            viewer.send(error("too_large", f"messages are at most {limit} bytes"))
            continue
        try:
            message = inbound.validate_json(text)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first.get("loc", ()))
            code = "bad_json" if first.get("type") == "json_invalid" else "bad_message"
            # orjson, never the standard library's parser: that one recurses on Python's
            # stack, and a collection at its depth runs finalizers that cannot even call.
            ref = message_ref(text, limit)
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
        if isinstance(table, RemoteTable):  # answered by its owner, through the relay
            table.tell(message.type, viewer.player_id, viewer, message.id, data)
            continue
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
        reply: dict[str, Any] = {"type": "ok", "of": message.type, **result}
        if message.id is not None:
            reply["id"] = message.id
        viewer.send(reply)
