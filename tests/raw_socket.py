"""A WebSocket client written on a bare TCP stream, for the tests and benchmarks that count
what one connection costs the server (tests/api/test_connection_memory.py, bench/memconn.py):
no client library's buffers or tasks on the measuring side, and nothing but a handshake, the
frames read and a close."""

from __future__ import annotations

import asyncio
import base64
import os
import struct


async def handshake(
    port: int, path: str, origin: str, cookie: str
) -> tuple[int, asyncio.StreamReader, asyncio.StreamWriter]:
    """Connect to 127.0.0.1:`port` and ask for `path` as a WebSocket: the HTTP status of the
    answer (101, or the refusal's), its head read, and the stream."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write(
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
        f"Origin: {origin}\r\nCookie: {cookie}\r\n\r\n".encode()
    )
    head = await reader.readuntil(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), reader, writer


async def read_frame(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    """One frame from the server (unmasked): its opcode and payload."""
    first, length = await reader.readexactly(2)
    size = length & 0x7F
    if size >= 126:
        (size,) = struct.unpack("!H" if size == 126 else "!Q",
                                await reader.readexactly(2 if size == 126 else 8))  # fmt: skip
    return first & 0x0F, await reader.readexactly(size)


def masked(opcode: int, payload: bytes) -> bytes:
    """A final frame from the client (masked, as a client's must be), of under 126 bytes."""
    mask = os.urandom(4)
    return bytes([0x80 | opcode, 0x80 | len(payload)]) + mask + bytes(
        b ^ mask[i % 4] for i, b in enumerate(payload))  # fmt: skip


CLOSE, PING, PONG = 0x8, 0x9, 0xA
