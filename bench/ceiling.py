"""The bare WebSocket ceiling of bench/load.py: a minimal ASGI app that only sends prebuilt
messages, served by uvicorn with the same flags as the table server.

Connections come in groups (a group is a table of six seats): ``/ws?g=GROUP&size=BYTES``.
When a connection sends a text frame holding a number ``k`` (the "action"), the app puts
``k`` prebuilt messages of ``size`` bytes in the outbox of every connection of the group, the
last one marked, and a writer task per connection drains its outbox to the socket, the way the
table server's writers do. No JSON is built, nothing is validated, stored or looked up: what is
left is uvicorn, the WebSocket framing and the event loop, the floor under any server on them.

Deliberately free of project imports: ``uvicorn --app-dir bench ceiling:app``.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any
from urllib.parse import parse_qs

_cache: dict[tuple[int, bool], str] = {}


def prebuilt(size: int, last: bool) -> str:
    """A JSON text of exactly `size` characters (at least 30)."""
    key = (size, last)
    text = _cache.get(key)
    if text is None:
        head = '{"type":"x","last":' + ("1" if last else "0") + ',"pad":"'
        text = head + "a" * max(0, size - len(head) - 2) + '"}'
        _cache[key] = text
    return text


class Conn:
    __slots__ = ("outbox", "send", "wake")

    def __init__(self, send: Any) -> None:
        self.send = send
        self.outbox: deque[str] = deque()
        self.wake = asyncio.Event()


groups: dict[str, list[Conn]] = {}


async def _writer(conn: Conn) -> None:
    send = conn.send
    while True:
        while not conn.outbox:
            conn.wake.clear()
            await conn.wake.wait()
        batch = list(conn.outbox)
        conn.outbox.clear()
        for text in batch:
            await send({"type": "websocket.send", "text": text})


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return
    if scope["type"] == "http":
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"text/plain")]})  # fmt: skip
        await send({"type": "http.response.body", "body": b"ok"})
        return
    query = parse_qs(scope.get("query_string", b"").decode())
    group_id = query.get("g", ["0"])[0]
    size = int(query.get("size", ["200"])[0])
    message = await receive()
    if message["type"] != "websocket.connect":
        return
    await send({"type": "websocket.accept"})
    conn = Conn(send)
    group = groups.setdefault(group_id, [])
    group.append(conn)
    writer = asyncio.create_task(_writer(conn))
    body, last = prebuilt(size, False), prebuilt(size, True)
    try:
        while True:
            message = await receive()
            if message["type"] == "websocket.disconnect":
                break
            k = max(1, min(100, int(message.get("text") or "1")))
            for member in group:
                out = member.outbox
                for _ in range(k - 1):
                    out.append(body)
                out.append(last)
                member.wake.set()
    finally:
        writer.cancel()
        group.remove(conn)
        if not group:
            groups.pop(group_id, None)
