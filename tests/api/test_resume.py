"""Reconnecting with the last sequence number: the missed events, not a snapshot; with an
unknown stream (a restarted server), a fresh snapshot."""

from __future__ import annotations

from pathlib import Path

from tests.api.live import heads_up, live_server
from tests.api.test_play import live_settings


async def test_reconnect_gets_what_it_missed(tmp_path: Path, sqlite_url: str) -> None:
    async with live_server(live_settings(tmp_path, sqlite_url, None)) as base:
        a, b, code = await heads_up(base)
        turn = await a.wait_for(lambda m: m["type"] == "turn")
        seq_before = b.seq
        assert b.ws is not None
        await b.ws.close()
        actor = a if "legal" in turn else None
        if actor is None:  # b is to act: a cannot move the hand; reconnect anyway
            pass
        else:
            await a.request(type="act", hand=turn["hand"], counter=turn["counter"], action="fold")
            await a.wait_for(lambda m: m["type"] == "hand_ended")
        b.messages.clear()
        await b.connect(code, resume=True)
        first = await b.wait_for(lambda m: True)
        assert first["type"] != "snapshot"
        assert first["seq"] == seq_before + 1  # exactly the next event, nothing skipped
        # An unknown stream gets a snapshot.
        assert b.ws is not None
        await b.ws.close()
        b.messages.clear()
        b.stream = "0" * 16
        await b.connect(code, resume=True)
        assert (await b.wait_for(lambda m: True))["type"] == "snapshot"
        for c in (a, b):
            await c.close()
