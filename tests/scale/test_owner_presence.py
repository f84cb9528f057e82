"""A relayed connection's presence is kept by its table's owner through the same `Keeper` as
the process's own sockets: written once attached, its seat at once, refreshed with the
others, and off presence as soon as its gateway detaches it (`Owner.end_remote`), though its
keeper was waiting for a seat change, with no timer to wake it."""

from __future__ import annotations

from typing import Any

from app.presence.keeper import Keeper
from app.scale.owner import RemoteViewer
from app.scale.wire import Attach
from app.tables.viewer import Viewer
from tests.presence.test_keeper import BOUND, Counting, FakeTable, Ticks
from tests.scale.test_numbering import an_owner
from tests.waits import until


class Attachable(FakeTable):
    """A table that attaches whoever asks."""

    async def request(self, kind: str, player: str | None, **_: Any) -> None:
        assert kind == "attach"

    def post_detach(self, viewer: Viewer) -> None:
        pass


async def test_a_relayed_connection_is_kept_by_the_keeper_and_ended_at_once() -> None:
    presence, ticks = Counting(), Ticks()
    with an_owner() as owner:
        owner.keeper = keeper = Keeper(presence, sleep=ticks.sleep, write_timeout=BOUND)
        table = Attachable("t1")
        table.seats["p1"] = 3
        remote = RemoteViewer("c@2/1", "t1", "c@2", Viewer("p1"))
        owner.remote[remote.conn] = remote
        attached = Attach(remote.conn, "c@2", "b@1", "p1", None, None)
        task = owner.streams.spawn(owner._attached(table, remote, attached))  # type: ignore[arg-type]
        await until(lambda: len(presence.named("connect")) == 1, what="its first write")
        (entry,) = await presence.online("t1")
        assert entry.startswith("p1/") and remote.seat == 3 and remote.keeping is not None
        await ticks.asleep()
        await ticks.tick()
        assert presence.named("connect_many") == [{"t1": {entry: 3}}]
        table.move("p1", None)
        await until(lambda: remote.seat is None, what="the seat news")
        await until(lambda: ("t1", entry, None) in presence.named("connect"), what="written")
        owner.end_remote(remote.conn)  # as a Detach does
        await until(task.done, what="its keeper ended")
        await until(lambda: presence.named("disconnect") == [("t1", entry)], what="offline")
        assert await presence.online("t1") == {} and keeper.entries == {}
        assert remote.keeping is None
        await keeper.close()
