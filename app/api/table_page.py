"""The table page with the viewer's table in it: one request fewer before the first draw.

A same-origin GET of `/t/{code}` with a valid session cookie gets the page with a data block
in its head, `<script type="application/json" id="boot-data">`, holding who the viewer is
(what `GET /api/session` answers) and the table's `snapshot` exactly as the WebSocket would
send it to that player (the one redaction rule, `views.table_view`: only the viewer's own hole
cards; a spectator none). The page draws from it as soon as its modules run; its socket
resumes from the snapshot's `stream` and `seq`, so it gets only what happened since.

A data block is never executed, so the strict Content-Security-Policy (`script-src 'self'`,
no inline script) allows it. Its JSON is escaped so that no `<`, `>` or `&` appears in it (a
player named `</script><script>…` stays one JSON string). The answer is personal:
`private, no-store`.
With several processes, a table another process owns is asked of its owner through the
relay (a `snapshot` read, answered with that player's snapshot as above). Without a
session, or when the table is not running (or it or its owner does not answer within
`VIEW_TIMEOUT`), the plain page is served and the client asks the usual way.
"""

from __future__ import annotations

import asyncio
import gzip
import logging

import orjson
from fastapi import Request, Response

from app.api.first_paint import draw
from app.api.headers import PERSONAL
from app.api.identity import player_for
from app.scale.relay import Relay, RemoteTable
from app.tables.errors import TableError

log = logging.getLogger("omaha.page")

#: where the page gets its data block (index.html, in its head before the boot module)
MARK = b"<!--boot-data-->"
#: where the page gets the table drawn for its first paint (index.html, inside `#app`)
PAINT_MARK = b"<!--first-paint-->"
#: how long the page waits for the table actor before it is served without the snapshot
VIEW_TIMEOUT = 0.5
_ESCAPES = ((b"&", b"\\u0026"), (b"<", b"\\u003c"), (b">", b"\\u003e"))


def data_block(text: bytes) -> bytes:
    """JSON `text` as a data block that cannot end early: `<`, `>` and `&` (which occur only
    inside JSON strings) written as `\\u` escapes, which JSON.parse reads back."""
    for raw, escaped in _ESCAPES:
        text = text.replace(raw, escaped)
    return b'<script type="application/json" id="boot-data">' + text + b"</script>"


async def boot_data(request: Request, code: str) -> bytes | None:
    """Who the viewer is and the table as they see it, or None (no session, no such table
    here, the table busy or restoring)."""
    app = request.app
    if len(code) > 64 or request.headers.get("sec-fetch-site") == "cross-site":
        return None  # only to the site's own pages (and typed or bookmarked addresses)
    try:
        # (two independent reads: at once)
        player, table_id = await asyncio.gather(
            player_for(request, app.state.sessions, app.state.settings),
            app.state.table_store.table_by_code(code),
        )
        if player is None or table_id is None:
            return None
        table = app.state.tables.tables.get(table_id)
        async with asyncio.timeout(VIEW_TIMEOUT):
            if table is not None:
                snapshot: bytes | None = (await table.request("view", str(player.id)))["snapshot"]
            else:
                snapshot = await from_owner(app.state.relay, table_id, str(player.id))
        if snapshot is None:
            return None
    except (TableError, TimeoutError):
        return None
    except Exception as failure:  # the database is down: the page still loads
        log.warning("table page without its snapshot (%s)", type(failure).__name__)
        return None
    me = orjson.dumps({"player_id": str(player.id), "name": player.display_name})
    return b'{"me":' + me + b',"snapshot":' + snapshot + b"}"


async def from_owner(relay: Relay | None, table_id: str, player_id: str) -> bytes | None:
    """The snapshot from the process that owns the table, through the relay (several
    processes: app/scale/relay.py), or None when no other process owns it."""
    if relay is None:
        return None
    owner = (await relay.leases.owners([table_id])).get(table_id)
    if owner is None or owner == relay.name:  # not running, or being taken here
        return None
    answer = await RemoteTable(relay.gateway, table_id, owner).request("snapshot", player_id)
    return str(answer["snapshot"]).encode()


def page_with(page: bytes, drawn_page: bytes, data: bytes, request: Request) -> Response:
    """The page with its data block, and the table drawn from it for the first paint (the
    client replaces that drawing with its live view once its modules have run): `drawn_page`,
    whose modules load after that paint, or `page` when the snapshot cannot be drawn."""
    try:
        painted = draw(orjson.loads(data)["snapshot"]).encode()
    except (KeyError, TypeError, ValueError, IndexError) as failure:  # a snapshot it cannot draw
        log.warning("table page without its first paint (%s)", type(failure).__name__)
        painted = b""
    body = (drawn_page if painted else page).replace(MARK, data_block(data), 1)
    body = body.replace(PAINT_MARK, painted, 1)
    headers = {"Cache-Control": PERSONAL, "Vary": "Cookie, Accept-Encoding"}
    if "gzip" in request.headers.get("accept-encoding", ""):
        body = gzip.compress(body, 6, mtime=0)
        headers["Content-Encoding"] = "gzip"
    return Response(body, media_type="text/html; charset=utf-8", headers=headers)
