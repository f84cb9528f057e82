"""Each relayed connection's entries are numbered both ways (app/scale/gateway.py, owner.py),
in one event loop and without Redis: an entry added twice (an `XADD` that timed out, was sent
again, and had run after all) is applied once; a lost one closes the connection with 1012
(the client resumes) instead of leaving a hole; an owner the connection is not attached to
can close it, and nothing else."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import redis.asyncio as aioredis

from app.presence import InProcessPresence
from app.scale.gateway import Gateway, RelayedConnection, RemoteTable
from app.scale.lease import Leases
from app.scale.owner import Owner, RemoteViewer
from app.scale.relay import Relay
from app.scale.wire import Attached, Closed, Command, Message, Seated, Wire
from app.tables.registry import TableRegistry
from app.tables.viewer import CLOSE_RESTART, Viewer
from tests.tables.stores import MemoryTableStore


@contextmanager
def relay() -> Iterator[Relay]:
    """A relay whose Redis is never reached by what these tests do."""
    client = aioredis.Redis(port=1)  # no connection is made until a command is sent
    leases = Leases(client, "b@1", 5.0)
    yield Relay(client, leases, TableRegistry(MemoryTableStore()), InProcessPresence(),
                wire=Wire.from_secret("k" * 40), outbox_limit=64)  # fmt: skip


@contextmanager
def a_gateway() -> Iterator[Gateway]:
    with relay() as whole:
        yield whole.gateway


@contextmanager
def an_owner() -> Iterator[Owner]:
    with relay() as whole:
        yield whole.owner


def relayed(gateway: Gateway, conn: str = "b@1/1") -> RelayedConnection:
    table = RemoteTable(gateway, "t1", "a@1")
    connection = RelayedConnection(conn, table, Viewer("p1"))
    table.connection = connection
    gateway.local[conn] = connection
    return connection


def texts(viewer: Viewer) -> list[Any]:
    return viewer.take()


async def test_the_gateway_delivers_each_numbered_entry_once_in_order() -> None:
    with a_gateway() as gateway:
        c = relayed(gateway)
        for entry in (Message(c.conn, 1, "one"), Attached(c.conn, 2, 3), Message(c.conn, 1, "one"),
                      Message(c.conn, 3, "two"), Seated(c.conn, 2, 3), Seated(c.conn, 4, None),
                      Message(c.conn, 3, "two")):  # fmt: skip
            gateway.route(entry)
        assert texts(c.viewer) == ["one", "two"]
        assert c.attached and c.settled.is_set() and c.seat is None and c.received == 4
        assert c.viewer.closed is None


async def test_a_relayed_player_s_seat_is_known_where_its_socket_is() -> None:
    with a_gateway() as gateway:
        c = relayed(gateway)
        assert c.table.seat_of("p1") is None
        gateway.route(Attached(c.conn, 1, 3))  # logged as the player in seat 3
        seat = c.table.seat_of("p1")
        assert seat is not None and seat.number == 3 and c.table.seat_of("p2") is None
        gateway.route(Seated(c.conn, 2, None))
        assert c.table.seat_of("p1") is None


async def test_a_lost_entry_closes_the_connection_to_resume_not_a_hole() -> None:
    with a_gateway() as gateway:
        c = relayed(gateway)
        gateway.route(Message(c.conn, 1, "one"))
        gateway.route(Message(c.conn, 3, "three"))  # the second never came (Redis lost it)
        gateway.route(Message(c.conn, 4, "four"))
        assert c.viewer.closed is not None and c.viewer.closed[0] == CLOSE_RESTART
        assert texts(c.viewer) == ["one"]  # what came before the gap still goes out


async def test_a_close_from_an_owner_it_is_not_attached_to_closes_it() -> None:
    with a_gateway() as gateway:
        c = relayed(gateway)
        gateway.route(Message(c.conn, 1, "one"))
        gateway.route(Closed(c.conn, 0, CLOSE_RESTART, "moved"))
        assert c.viewer.closed == (CLOSE_RESTART, "moved") and texts(c.viewer) == ["one"]
        other = relayed(gateway, "b@1/2")  # another connection's entries never reach it
        gateway.route(Message("b@1/3", 1, "not yours"))
        assert texts(other.viewer) == [] and other.received == 0


class Told:
    """A table that notes what it is told."""

    id = "t1"

    def __init__(self) -> None:
        self.told: list[tuple[str, Any]] = []

    def tell(self, kind: str, sender: str | None, viewer: Viewer, ref: Any, data: Any) -> None:
        self.told.append((kind, ref))


async def test_the_owner_applies_each_numbered_command_once_and_a_gap_closes() -> None:
    with an_owner() as owner:
        remote = RemoteViewer("c@2/1", "t1", "c@2", Viewer("p1"))
        owner.remote[remote.conn] = remote
        table = Told()
        for n in (1, 2, 2, 1, 3):  # 2 and 1 added again after a timeout
            owner.command(table, Command(remote.conn, n, "act", n, {}))  # type: ignore[arg-type]
        assert table.told == [("act", 1), ("act", 2), ("act", 3)]
        owner.command(table, Command(remote.conn, 5, "act", 5, {}))  # type: ignore[arg-type]
        assert remote.viewer.closed is not None and remote.viewer.closed[0] == CLOSE_RESTART
        owner.command(table, Command(remote.conn, 4, "act", 4, {}))  # type: ignore[arg-type]
        assert table.told == [("act", 1), ("act", 2), ("act", 3)]  # closing: nothing more


async def test_the_owner_numbers_what_it_sends_then_the_seat_news() -> None:
    remote = RemoteViewer("c@2/1", "t1", "c@2", Viewer("p1"))
    remote.seated(4, first=True)
    entries = remote.numbered(["snapshot", {"type": "ok", "id": 1}])
    assert entries == [Message("c@2/1", 1, "snapshot"), Message("c@2/1", 2, '{"type":"ok","id":1}'),
                       Attached("c@2/1", 3, 4)]  # fmt: skip
    remote.seated(4)  # unchanged: no news
    remote.seated(None)
    assert remote.numbered([]) == [Seated("c@2/1", 4, None)]
