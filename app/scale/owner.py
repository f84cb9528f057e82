"""The relay's owner side: the connections of other processes' gateways to the tables this
process owns (attached, told their commands, their messages forwarded to each gateway's out
stream), the reads of those tables, and the calls of other processes (a table to place here,
a tournament directed here)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field
from typing import Any

import orjson

from app.presence import connection_id
from app.presence.keeper import keep_online
from app.scale.streams import (
    BLOCK_MS,
    MOVED,
    READS,
    STREAM_MAX,
    STREAM_TTL_MS,
    RelayState,
    _refusal,
    _text,
)
from app.tables.errors import TableError
from app.tables.table import Table
from app.tables.viewer import CLOSE_RESTART, Viewer
from app.tables.views import table_view

log = logging.getLogger("omaha.relay")


def facts(table: Table) -> dict[str, Any]:
    """What a list of tables shows of one (`app.api.tables.summary`)."""
    return {
        "id": table.id,
        "code": table.code,
        "config": table.config.model_dump(mode="json"),
        "seated": sum(1 for s in table.seats if s is not None),
        "host_id": table.host_id,
        "hand_running": table.hand is not None and not table.hand.state.complete,
    }


@dataclass
class _Remote:
    """A connection on another gateway, attached to a table this process owns."""

    table_id: str
    gateway: str
    viewer: Viewer
    tasks: list[asyncio.Task[None]] = field(default_factory=list)
    stop: asyncio.Event = field(default_factory=asyncio.Event)


class Owner(RelayState):
    async def _read_in(self) -> None:
        """Apply the entries of the in streams of this process's tables, in order."""
        while not self._closing:
            running = self.tables.tables
            for table_id in [t for t in self.cursors if t not in running]:
                if table_id not in self.tables.launching:  # dropped, not being taken
                    del self.cursors[table_id]
            streams = {
                self.in_key(t): c for t, c in self.cursors.items() if t in self.tables.tables
            }
            if not streams:
                await asyncio.sleep(BLOCK_MS / 1000)
                continue
            try:
                found = await self.client.xread(streams, count=256, block=BLOCK_MS)  # type: ignore[arg-type]
            except Exception as error:
                log.warning("relay: cannot read the tables' streams (%s)", type(error).__name__)
                await asyncio.sleep(0.5)
                continue
            for key, entries in found or ():
                table_id = key.split(":")[2]
                for entry_id, fields in entries:
                    self.cursors[table_id] = entry_id
                    try:
                        self._apply(table_id, fields)
                    except Exception:
                        log.exception("relay: an entry of table %s failed", table_id)

    def _apply(self, table_id: str, fields: dict[str, str]) -> None:
        kind, conn = fields.get("k"), fields.get("c", "")
        table = self.tables.tables.get(table_id)
        if table is None or kind == "taken":
            return
        if kind == "attach":
            viewer = Viewer(fields["p"] or None, limit=self.outbox_limit)
            remote = _Remote(table_id, fields["g"], viewer)
            self.remote[conn] = remote
            since = int(fields["n"]) if fields["n"] else None
            remote.tasks.append(asyncio.ensure_future(self._forward(conn, remote)))
            remote.tasks.append(
                asyncio.ensure_future(self._attach(table, remote, fields["s"] or None, since))
            )
        elif kind == "cmd":
            known = self.remote.get(conn)
            if known is None or known.table_id != table_id:  # attached to a former owner
                self._spawn(self._add(self.out_key(conn.split("/")[0]), {"c": conn,
                            "x": str(CLOSE_RESTART), "r": MOVED}))  # fmt: skip
                return
            data = orjson.loads(fields["d"])
            table.tell(fields["t"], known.viewer.player_id, known.viewer,
                       orjson.loads(fields["i"]), data)  # fmt: skip
        elif kind == "detach":
            self._end_remote(conn)
        elif kind == "req":
            self._spawn(self._answer(table, conn, fields))

    async def _called(self, fields: dict[str, str]) -> None:
        """Answer another process: a new table here (`place`), or a tournament's read or
        action (`tour`) for a tournament this process directs."""
        reply, out = fields["c"], self.out_key(fields["g"])
        try:
            if fields["k"] == "place":
                if self.placement is None:
                    raise TableError("unavailable", "no placement here")
                result = await self.placement.place(fields)
            else:
                if self.on_tournament is None:
                    raise TableError("no_such_tournament", "no such tournament")
                result = await self.on_tournament(fields)
            answer = {"c": reply, "q": orjson.dumps(result).decode()}
        except TableError as refused:
            answer = {"c": reply, "e": _refusal(refused.code, refused.message)}
        except Exception as error:
            log.warning("relay: a call failed (%s)", type(error).__name__)
            answer = {"c": reply, "e": _refusal("unavailable", "that could not be done")}
        await self._add(out, answer)

    async def _answer(self, table: Table, reply: str, fields: dict[str, str]) -> None:
        kind, out = fields["t"], self.out_key(fields["g"])
        answer: dict[str, str]
        try:
            if kind == "view":
                result = table_view(table, None)
            elif kind == "facts":
                result = facts(table)
            elif kind == "snapshot":  # the table page's (app/api/table_page.py): `p`'s own
                async with asyncio.timeout(self.reply_timeout):
                    seen = await table.request("view", fields["p"] or None)
                result = {"snapshot": seen["snapshot"].decode()}  # as `p`'s socket gets it
            elif kind in READS:
                async with asyncio.timeout(self.reply_timeout):
                    result = await table.request(kind, fields["p"] or None,
                                                 **orjson.loads(fields["d"]))  # fmt: skip
            else:
                raise TableError("unknown_command", f"{kind!r} is not relayed")
            answer = {"c": reply, "q": orjson.dumps(result).decode()}
        except TableError as refused:
            answer = {"c": reply, "e": _refusal(refused.code, refused.message)}
        except TimeoutError:
            answer = {"c": reply, "e": _refusal("unavailable", "the table did not answer")}
        await self._add(out, answer)

    async def _attach(
        self, table: Any, remote: _Remote, stream: str | None, since: int | None
    ) -> None:
        viewer = remote.viewer
        try:
            async with asyncio.timeout(self.reply_timeout):
                await table.request("attach", viewer.player_id, viewer=viewer, stream=stream,
                                    since=since)  # fmt: skip
        except (TableError, TimeoutError):
            viewer.close(1011, "the table did not answer", flush=True)
            return
        if viewer.player_id is not None:
            entry = connection_id(viewer.player_id)
            await keep_online(self.presence, table, viewer.player_id, entry, remote.stop)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.presence.disconnect(table.id, entry), 2.0)

    def _end_remote(self, conn: str) -> None:
        remote = self.remote.pop(conn, None)
        if remote is None:
            return
        remote.stop.set()
        table = self.tables.tables.get(remote.table_id)
        if table is not None:
            table.post_detach(remote.viewer)
        remote.viewer.close(1000, "detached")

    async def _forward(self, conn: str, remote: _Remote) -> None:
        """The owner's writer for a remote connection: its outbox to its gateway's stream."""
        viewer, key = remote.viewer, self.out_key(remote.gateway)
        try:
            while True:
                while not viewer.outbox and viewer.closed is None:
                    viewer.wake.clear()
                    await viewer.wake.wait()
                batch = viewer.take()
                if not batch:
                    break
                # MULTI/EXEC: the gateway's blocked XREAD sees the whole burst at once (without
                # it, Redis wakes the reader after the first XADD), so a connection that asked
                # for batched frames gets it as one frame.
                async with self.client.pipeline(transaction=True) as pipe:
                    for message in batch:
                        pipe.xadd(key, {"c": conn, "m": _text(message)}, maxlen=STREAM_MAX,
                                  approximate=True)  # fmt: skip
                    pipe.pexpire(key, STREAM_TTL_MS)
                    await pipe.execute()
            if viewer.closed is not None and conn in self.remote:  # closed here, not detached
                code, reason = viewer.closed
                await self._add(key, {"c": conn, "x": str(code), "r": reason[:120]})
        except Exception as error:
            log.warning("relay: cannot forward to %s (%s)", remote.gateway, type(error).__name__)
        finally:
            if conn in self.remote:
                self._end_remote(conn)
