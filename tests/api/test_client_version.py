"""A page names its client version on its socket (`client=`, docs/protocol.md section 3): one
that is not the server's current version, or that the server cannot read, is told so at once
(`client_version`, without `seq`, before the snapshot) and plays on as before; the current
version, or none named (bots), gets nothing more."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx

from app.api.client_version import version_news
from tests.api.live import Client, live_server
from tests.api.test_bounds import settings_for

STALE = "0123456789ab"


def test_only_a_version_other_than_the_current_one_is_answered() -> None:
    assert version_news({}, "abcdef012345") is None
    assert version_news({"client": "abcdef012345"}, "abcdef012345") is None
    for other in (STALE, "", "ABCDEF012345", "../x", "é", "f" * 5000):
        text = version_news({"client": other, "batch": "1"}, "abcdef012345")
        assert text is not None and json.loads(text) == {
            "type": "client_version",
            "current": "abcdef012345",
        }  # the server's own version, never what the page sent


async def current_version(base: str) -> str:
    async with httpx.AsyncClient(base_url=base) as http:
        page = (await http.get("/")).text
    found = re.search(r"/static/([0-9a-f]+)/", page)
    assert found is not None
    return found.group(1)


async def test_a_stale_page_is_told_and_plays_on(tmp_path: Path, sqlite_url: str) -> None:
    async with live_server(settings_for(tmp_path, sqlite_url)) as base:
        version = await current_version(base)
        stale, current, bot, odd = Client(base), Client(base), Client(base), Client(base)
        for name, c in (("s", stale), ("c", current), ("b", bot), ("o", odd)):
            await c.join(name)
        code = await stale.create_table(decision_time=0, seats=2)
        stale.client, stale.batch = STALE, True
        current.client = version
        odd.client = "NOT%20hex%2F..%2F" + "z" * 300  # malformed: answered the same
        for c in (stale, current, bot, odd):
            await c.connect(code)
        news = {"type": "client_version", "current": version}
        assert stale.messages[0] == news and stale.frames[0] == 0  # first, bare, no `seq`
        assert stale.messages[1]["type"] == "snapshot"
        assert odd.messages[0] == news
        assert all(m["type"] != "client_version" for c in (current, bot) for m in c.messages)
        # Still a player like any other: it sits and acts; the table's stream is unchanged.
        for seat, c in enumerate((stale, current)):
            assert (await c.request(type="sit", seat=seat, buy_in=100))["type"] == "ok"
        turn = await stale.wait_for(lambda m: m["type"] == "turn")
        actor = stale if turn.get("seat") == 0 else current
        turn = await actor.wait_for(lambda m: m["type"] == "turn" and "legal" in m)
        action = "call" if "call" in turn["legal"]["actions"] else "check"
        reply = await actor.request(
            type="act", hand=turn["hand"], counter=turn["counter"], action=action
        )
        assert reply["type"] == "ok", reply
        # Told again on every connection (a reconnect after a restart is when it matters).
        assert stale.ws is not None and stale.reader is not None
        await stale.ws.close()
        await stale.reader
        mark = len(stale.messages)
        await stale.connect(code, resume=True)
        await stale.wait_until(lambda: len(stale.messages) > mark)
        assert stale.messages[mark] == news
        assert sum(m["type"] == "client_version" for m in current.messages) == 0
        for c in (stale, current, bot, odd):
            await c.close()
