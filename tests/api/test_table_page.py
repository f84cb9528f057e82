"""The table page carries the viewer's snapshot (app/api/table_page.py): only their own hole
cards, none for a spectator, a hostile name kept inside its JSON string, and the plain page
without a session or for another site's link."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from app.api.assets import generated
from app.api.table_page import data_block
from app.main import static_dir
from tests.api.live import Client, live_server
from tests.api.test_bounds import settings_for

HOSTILE = "</script><script>alert(1)<!--"  # 30 characters: a valid name
BLOCK = re.compile(r'<script type="application/json" id="boot-data">(.*?)</script>', re.S)


def embedded(page: str) -> dict[str, Any]:
    found = BLOCK.findall(page)
    assert len(found) == 1, page[:2000]
    assert "<" not in found[0] and ">" not in found[0] and "&" not in found[0]
    return json.loads(found[0])  # type: ignore[no-any-return]


def modules() -> set[str]:
    """The client's modules: static/'s and those the server makes (`js/words.js`)."""
    files = {p.relative_to(static_dir()).as_posix() for p in static_dir().rglob("*.*js")}
    return files | set(generated())


#: what a table page fetches only when it is used (a dynamic `import()`, static/js/lazy.js):
#: the other pages' code, the dialogs, the host's open panel, the hand log's view, the
#: replayer, a tournament's bar, the deal session's check, the screen-reader panel and its
#: command box, the turn alert
ON_DEMAND = {
    "js/commands.js", "js/deal-replay.js", "js/ledger-tabs.js", "js/notify.js", "js/replay.js",
    "js/tournament-ctrl.js", "js/views/dialogs.js", "js/views/graph.js", "js/views/hand-log.js",
    "js/views/home.js", "js/views/host.js", "js/views/ledger.js", "js/views/my-hands.js",
    "js/views/past.js", "js/views/replay.js", "js/views/screen-reader.js", "js/views/stats.js",
    "js/views/tournament-form.js", "js/views/tournament-page.js", "js/views/tournament.js",
}  # fmt: skip
#: the home page's, which a plain table page (no session: it asks for a name) preloads too
HOME = {
    "js/ledger-tabs.js", "js/views/graph.js", "js/views/home.js", "js/views/ledger.js",
    "js/views/past.js", "js/views/stats.js", "js/views/tournament-form.js",
    "js/views/tournament.js",
}  # fmt: skip


def drawn_page_loads_its_modules_later(page: str) -> None:
    """A page with the table drawn in it names one module, boot.js, which fetches the others
    the table needs once the drawing is painted (static/js/boot.js): its `data-later` lists
    each once (main.js, which it imports itself, aside), and none of those fetched on demand."""
    assert "data-first-paint" in page
    scripts = re.findall(r"<script ([^>]*)>", page)
    named = [s for s in scripts if 'type="module"' in s]
    assert len(named) == 1 and "/js/boot.js" in named[0], named
    later = re.findall(r'data-later="([^"]*)"', named[0])[0].split()
    version = later[0].split("/")[2]
    assert all(u.startswith(f"/static/{version}/") for u in later)
    preloaded = re.findall(r'rel="modulepreload" href="/static/[^/]+/([^"]+)"', page)
    assert sorted(preloaded) == ["js/api.js", "js/socket.js"]  # boot.js's own imports
    rest = {u.removeprefix(f"/static/{version}/") for u in later}
    assert len(later) == len(rest)
    assert rest | set(preloaded) | {"js/boot.js", "js/main.js"} == modules() - ON_DEMAND
    # the table's first view needs none of more.css: linked with the parts that do
    assert "more.css" not in page


def test_the_data_block_escapes_what_could_end_it() -> None:
    text = json.dumps({"name": HOSTILE + " & <!-- >"}).encode()
    block = data_block(text).decode()
    body = block.removeprefix('<script type="application/json" id="boot-data">')
    body = body.removesuffix("</script>")
    assert "<" not in body and ">" not in body
    assert json.loads(body) == {"name": HOSTILE + " & <!-- >"}


async def heads_up_dealt(a: Client, b: Client) -> tuple[str, dict[str, list[str]]]:
    """`a` makes a two-seat table, both sit and are dealt: its code and each one's cards."""
    code = await a.create_table(decision_time=0, seats=2)
    for i, c in enumerate((a, b)):
        await c.connect(code)
        assert (await c.request(type="sit", seat=i, buy_in=100))["type"] == "ok"
    await a.wait_for(lambda m: m["type"] == "turn")
    # Each one's own connection brings its cards: `a`'s turn says nothing of when `b`'s came
    # (read at once, they had not yet in a run beside a second suite).
    mine = {}
    for c in (a, b):
        dealt = await c.wait_for(lambda m: m["type"] == "hole_cards" and "cards" in m)
        mine[c.player_id] = dealt["cards"]
    return code, mine


async def test_the_page_holds_the_viewers_own_cards_only(tmp_path: Path, sqlite_url: str) -> None:
    async with live_server(settings_for(tmp_path, sqlite_url)) as base:
        a, b, spectator, stranger = Client(base), Client(base), Client(base), Client(base)
        await a.join("alice")
        await b.join(HOSTILE)
        await spectator.join("watcher")
        code, mine = await heads_up_dealt(a, b)
        for viewer, other in ((a, b), (b, a)):
            r = await viewer.http.get(f"/t/{code}", headers={"Sec-Fetch-Site": "same-origin"})
            assert r.status_code == 200
            assert r.headers["cache-control"] == "private, no-store"
            assert "script-src 'self';" in r.headers["content-security-policy"]
            data = embedded(r.text)
            assert data["me"]["player_id"] == viewer.player_id
            snap = data["snapshot"]
            assert snap["type"] == "snapshot" and snap["you"]["player_id"] == viewer.player_id
            assert snap["seq"] <= viewer.seq and snap["stream"] == viewer.stream
            players = snap["hand"]["players"]
            seen = {p["seat"]: p.get("cards") for p in players}
            my_seat, their_seat = (0, 1) if viewer is a else (1, 0)
            assert seen[my_seat] == mine[viewer.player_id]
            assert seen[their_seat] is None
            assert not any(f'"{card}"' in r.text for card in mine[other.player_id])
            # The hostile name is one JSON string: it did not end the block.
            assert snap["seats"][1]["name"] == HOSTILE
            assert "<script>alert(1)" not in r.text
            drawn_page_loads_its_modules_later(r.text)
        # A spectator: the table, no hole card at all.
        r = await spectator.http.get(f"/t/{code}")
        drawn_page_loads_its_modules_later(r.text)
        snap = embedded(r.text)["snapshot"]
        assert snap["you"]["seat"] is None
        assert all("cards" not in p for p in snap["hand"]["players"])
        assert not any(f'"{card}"' in r.text for cards in mine.values() for card in cards)
        # No session, another site's link, an unknown code: the plain page.
        for client, headers, path in (
            (stranger, {}, f"/t/{code}"),
            (a, {"Sec-Fetch-Site": "cross-site"}, f"/t/{code}"),
            (a, {}, "/t/nosuchcode"),
        ):
            r = await client.http.get(path, headers=headers)
            assert r.status_code == 200 and 'id="boot-data"' not in r.text
            assert r.headers["cache-control"] == "no-cache"
            assert "<!--boot-data-->" not in r.text
            # Nothing drawn: the modules load at once, every one preloaded.
            assert "data-first-paint" not in r.text and "data-later" not in r.text
            assert re.search(r'<script type="module" src="[^"]*/js/main\.js">', r.text)
            # every module of the table's and the home page's (which asks for a name) but the
            # two the page names by its script elements
            preloaded = re.findall(r'rel="modulepreload" href="/static/[^/]+/([^"]+)"', r.text)
            assert len(preloaded) == len(set(preloaded))
            assert set(preloaded) == (modules() - ON_DEMAND - {"js/boot.js", "js/main.js"}) | HOME
        for c in (a, b, spectator, stranger):
            await c.close()
