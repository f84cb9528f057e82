"""The lighter stand-ins app/api/transport.py gives uvicorn's WebSocket protocol (issue 29:
memory per connection) behave as the asyncio.Queue and asyncio.Event they replace, as far as
the protocol uses them; and the protocol lets go of the handshake once it is done."""

from __future__ import annotations

import asyncio

from pydantic import SecretStr

from app.api.transport import _Gate, _Inbox, lean_websocket_protocol
from app.config import Settings
from app.main import uvicorn_options


async def test_the_inbox_hands_items_over_in_order_and_wakes_a_waiting_reader() -> None:
    inbox = _Inbox()
    assert inbox.empty()
    inbox.put_nowait(1)
    inbox.put_nowait(2)
    assert not inbox.empty()
    assert await inbox.get() == 1
    assert await inbox.get() == 2
    reader = asyncio.ensure_future(inbox.get())
    await asyncio.sleep(0)  # the reader now waits on an empty inbox
    assert not reader.done()
    inbox.put_nowait(3)
    assert await reader == 3
    assert inbox.empty()


async def test_a_cancelled_reader_leaves_the_inbox_usable() -> None:
    inbox = _Inbox()
    reader = asyncio.ensure_future(inbox.get())
    await asyncio.sleep(0)
    reader.cancel()
    await asyncio.gather(reader, return_exceptions=True)
    inbox.put_nowait("after")
    assert await inbox.get() == "after"


async def test_the_gate_blocks_while_closed_and_lets_every_waiter_through_when_set() -> None:
    gate = _Gate()
    gate.set()
    await gate.wait()  # open: at once
    gate.clear()
    assert not gate.is_set()
    waiters = [asyncio.ensure_future(gate.wait()) for _ in range(3)]
    await asyncio.sleep(0)
    assert not any(w.done() for w in waiters)
    gate.set()
    await asyncio.gather(*waiters)
    assert gate.is_set()


def test_the_server_uses_the_lean_protocol() -> None:
    ws = uvicorn_options(Settings(secret_key=SecretStr("x" * 40)))["ws"]
    assert isinstance(ws, type) and ws.__name__ == lean_websocket_protocol().__name__
