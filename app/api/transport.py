"""uvicorn's HTTP protocol with two bounds it lacks: a header-read timeout and a hard cap on
open connections.

uvicorn starts its keep-alive timer only after a first response, so a socket that connects
and never finishes its request headers (idle, or a slowloris trickle) is held for ever: 1,006
of them used every file descriptor under `ulimit -n 1024`. Here a connection that has not
completed a request's headers within HEADER_TIMEOUT seconds of opening (or of its previous
response) is closed, and a connection beyond MAX_CONNECTIONS is closed at once (uvicorn's
`limit_concurrency` answers 503 to a request but still holds the socket).
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.auto import AutoHTTPProtocol


def bounded_protocol(header_timeout: float, max_connections: int) -> type[asyncio.Protocol]:
    """The HTTP protocol class to give uvicorn (`Config(http=...)`)."""
    base: Any = AutoHTTPProtocol

    class Bounded(base):  # type: ignore[misc]
        def connection_made(self, transport: asyncio.Transport) -> None:
            super().connection_made(transport)
            if len(self.connections) > max_connections:
                transport.close()
                return
            self._arm_header_timer()

        def _arm_header_timer(self) -> None:
            # The request being answered when armed (None: none yet). If it is still the
            # current one when the timer fires, no new request's headers arrived in time.
            self._waiting_after = self.cycle
            self._header_timer = self.loop.call_later(header_timeout, self._headers_too_slow)

        def _headers_too_slow(self) -> None:
            # Still HTTP (not upgraded to a WebSocket, whose protocol then owns the
            # transport) and no new request since the timer was armed.
            transport = self.transport
            stale = self.cycle is self._waiting_after
            busy = self.cycle is not None and not self.cycle.response_complete
            if stale and not busy and transport.get_protocol() is self:
                transport.close()

        def handle_websocket_upgrade(self) -> None:
            # The WebSocket protocol owns the transport from here on and this one's
            # `connection_lost` is never called, so drop what ties it in cycles (the parser
            # calls back into it; the timer holds its method): left to the garbage collector,
            # which the server tunes to run a full collection rarely, every upgraded
            # connection stayed in memory (~7 KB each, docs/performance.md).
            super().handle_websocket_upgrade()
            self._cancel_header_timer()
            self.parser = None

        def _cancel_header_timer(self) -> None:
            timer = getattr(self, "_header_timer", None)
            if timer is not None:
                timer.cancel()
                self._header_timer = None

        def on_response_complete(self) -> None:
            # uvicorn's keep-alive timer stops at the first byte of the next request: a
            # client trickling the next request's headers would otherwise be held for ever.
            super().on_response_complete()
            self._cancel_header_timer()
            if not self.transport.is_closing():
                self._arm_header_timer()

        def connection_lost(self, exc: Exception | None) -> None:
            self._cancel_header_timer()
            super().connection_lost(exc)

    return Bounded


class _Inbox:
    """What uvicorn's WebSocket protocol uses of its `asyncio.Queue` (`put_nowait`, `get`,
    `empty`) without the queue's three deques (~760 bytes each when empty)."""

    __slots__ = ("_items", "_waiter")

    def __init__(self) -> None:
        self._items: list[Any] = []
        self._waiter: asyncio.Future[None] | None = None

    def put_nowait(self, item: Any) -> None:
        self._items.append(item)
        waiter, self._waiter = self._waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def empty(self) -> bool:
        return not self._items

    async def get(self) -> Any:
        while not self._items:  # one reader: the connection's handler
            waiter = asyncio.get_running_loop().create_future()
            self._waiter = waiter
            try:
                await waiter
            finally:
                if self._waiter is waiter:
                    self._waiter = None
        return self._items.pop(0)


class _Gate:
    """An `asyncio.Event` (`set`, `clear`, `wait`) whose waiters, rarely any (a socket
    whose kernel buffer is full), are a list made when the first one comes, not a deque
    made for every connection."""

    __slots__ = ("_open", "_waiters")

    def __init__(self) -> None:
        self._open = False
        self._waiters: list[asyncio.Future[None]] | None = None

    def set(self) -> None:
        self._open = True
        waiters, self._waiters = self._waiters, None
        for waiter in waiters or ():
            if not waiter.done():
                waiter.set_result(None)

    def clear(self) -> None:
        self._open = False

    def is_set(self) -> bool:
        return self._open

    async def wait(self) -> None:
        if self._open:
            return
        waiter = asyncio.get_running_loop().create_future()
        if self._waiters is None:
            self._waiters = []
        self._waiters.append(waiter)
        await waiter


def lean_websocket_protocol() -> type[asyncio.Protocol]:
    """uvicorn's sans-I/O WebSocket protocol, lighter for thousands of idle connections
    (issue 29, ~50 KiB each at most): its receive queue and `writable` event replaced by
    the equivalents above, and the handshake's request and response (both with their
    headers, ~3 KiB) let go once the handshake is done."""
    from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

    base: Any = WebSocketsSansIOProtocol

    class Lean(base):  # type: ignore[misc]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.queue = _Inbox()
            writable = _Gate()
            writable.set()
            self.writable = writable

        def start_keepalive(self) -> None:  # called once the handshake's answer is sent
            super().start_keepalive()
            self.request = self.response = None

    return Lean
