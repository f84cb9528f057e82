"""A session played with LOG_LEVEL=debug: its logs hold no cookie, no token, no deck and no
hole card (uvicorn and websockets log headers at debug, aiosqlite every statement's
parameters), and message text is redacted too."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import random
import re
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import select

from app.logging import setup_logging
from app.store.db import create_engine, session_factory
from app.store.models import HandRow
from tests.api.live import bot, heads_up, live_server
from tests.api.test_play import live_settings


@pytest.fixture
def debug_log() -> Iterator[io.StringIO]:
    root = logging.getLogger()
    saved = root.handlers[:], root.level, logging.getLogger("omaha").level
    setup_logging("debug", "json")
    handler = root.handlers[0]
    assert isinstance(handler, logging.StreamHandler)
    buffer = io.StringIO()
    handler.setStream(buffer)
    yield buffer
    root.handlers[:] = saved[0]
    root.setLevel(saved[1])
    logging.getLogger("omaha").setLevel(saved[2])


def card_forms(cards: list[str]) -> list[str]:
    """How a list of cards could appear in a log line."""
    a, b = cards[0], cards[1]
    return [f'"{a}","{b}"', f'"{a}", "{b}"', f"'{a}', '{b}'", a + b, f"{a} {b}"]


async def test_a_session_at_debug_level_logs_no_secret(
    tmp_path: Path, sqlite_url: str, debug_log: io.StringIO
) -> None:
    settings = live_settings(tmp_path, sqlite_url, None).model_copy(update={"log_level": "debug"})
    async with live_server(settings) as base:
        a, b, code = await heads_up(base)
        stop = asyncio.Event()
        await asyncio.wait_for(
            asyncio.gather(*(bot(c, random.Random(i), 3, stop) for i, c in enumerate((a, b)))), 60
        )
        logging.getLogger("omaha.test").info("a careless line: Cookie: omaha_session=%s", a.token)
        tokens = [a.token, b.token]
        holes = [m["cards"] for c in (a, b) for m in c.messages
                 if m["type"] == "hole_cards" and "cards" in m]  # fmt: skip
        table_id = (await a.http.get(f"/api/tables/{code}")).json()["table"]["id"]
        for c in (a, b):
            await c.close()
        engine = create_engine(sqlite_url)
        async with session_factory(engine)() as s:  # decks opened with the server's key
            rows = await s.scalars(select(HandRow).where(HandRow.table_id == uuid.UUID(table_id)))
            decks = [row.deck for row in rows]
        await engine.dispose()
    text = debug_log.getvalue()
    lines = [json.loads(line) for line in text.splitlines() if line.strip()]
    assert len(decks) >= 3 and len(holes) >= 6
    assert any(line["logger"].startswith("omaha") for line in lines)
    assert any("[redacted]" in line["msg"] for line in lines)  # the careless line
    for token in tokens:
        assert token not in text
    for deck in decks:
        for form in (json.dumps(deck), str(deck), json.dumps(deck, separators=(",", ":"))):
            assert form[1:-1] not in text
    for cards in holes:
        for form in card_forms(cards):
            # Alone (not inside an id): "9d8c" is also four hex digits of some UUID in the
            # log, one run in a few dozen.
            alone = re.compile(rf"(?<![0-9A-Za-z-]){re.escape(form)}(?![0-9A-Za-z-])")
            assert not alone.search(text), form
