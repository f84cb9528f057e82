"""The per-connection rate limit (docs/protocol.md section 4), on the reader alone: a message
dropped over the rate that carries an `id` is answered `rate_limited` with that id (its sender
waits for it); one without an id is not, past the first; the answers are bounded: a client
that floods with ids is closed instead of being answered message for message."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from app.api.ws import _reader
from app.config import Settings
from app.tables.viewer import Viewer


class Frames:
    """A WebSocket that receives the given text frames, then the client leaves."""

    def __init__(self, texts: list[str]) -> None:
        self.frames = [{"type": "websocket.receive", "text": t} for t in texts]

    async def receive(self) -> dict[str, Any]:
        return self.frames.pop(0) if self.frames else {"type": "websocket.disconnect"}


class Table:
    """Records what it is told; must never be asked (only `act` and pings are sent)."""

    def __init__(self) -> None:
        self.told: list[Any] = []

    def tell(self, *args: Any) -> None:
        self.told.append(args)


def settings(tmp_path: Path, burst: int) -> Settings:
    # a rate so slow the bucket never refills during a test: only the burst is allowed
    return Settings(
        data_dir=tmp_path, secret_key=SecretStr("s" * 40), ws_rate=0.001, ws_burst=burst
    )


async def read(texts: list[str], tmp_path: Path, burst: int) -> tuple[Any, list[Any], Table]:
    viewer, table = Viewer("p1", limit=10_000), Table()
    ended = await _reader(Frames(texts), table, viewer, "p", settings(tmp_path, burst))  # type: ignore[arg-type]
    return ended, [m if isinstance(m, dict) else json.loads(m) for m in viewer.take()], table


def act(ref: Any) -> str:
    body = {"type": "act", "hand": "h1", "counter": 0, "action": "fold", "id": ref}
    return json.dumps({k: v for k, v in body.items() if v is not None})


async def test_a_dropped_message_with_an_id_is_answered_with_that_id(tmp_path: Path) -> None:
    texts = [act(1), act(2), act(3), act(4), act(None), act("five"), '{"type":"ping","id":6}']
    ended, out, table = await read([*texts, act(None)], tmp_path, burst=3)
    assert ended == (1000, "client left")
    assert [t[3] for t in table.told] == [1, 2, 3]  # the burst went to the table, nothing else
    assert out == [
        {"type": "error", "code": "rate_limited", "message": "too many messages: slow down",
         "id": ref} for ref in (4, "five", 6)
    ]  # fmt: skip


async def test_the_first_dropped_message_is_answered_even_without_an_id(tmp_path: Path) -> None:
    ended, out, _ = await read([act(1), act(None), act(None), act(None)], tmp_path, burst=1)
    assert ended == (1000, "client left")
    assert [(m["code"], "id" in m) for m in out] == [("rate_limited", False)]


async def test_a_flood_with_ids_is_closed_not_answered_per_message(tmp_path: Path) -> None:
    burst = 5
    ended, out, table = await read([act(i) for i in range(1000)], tmp_path, burst=burst)
    assert ended == (1008, "flood: too many messages")
    assert len(table.told) == burst
    # one answer per message over the rate, at most a second burst of them, then closed
    assert [m["id"] for m in out] == list(range(burst, 2 * burst))
