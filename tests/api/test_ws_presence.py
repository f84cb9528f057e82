"""The WebSocket endpoint keeps its connections online through the app's one `Keeper`
(app/presence/keeper.py): each connection's entry is there while it is open, with its seat
as soon as it changes, and gone once it closes; the keeper ends with the app."""

from __future__ import annotations

from pathlib import Path

from app.main import create_app
from app.presence.keeper import Keeper
from tests.api.live import Client, live_server
from tests.api.test_play import live_settings
from tests.waits import within


async def test_sockets_are_kept_by_the_apps_keeper(tmp_path: Path, sqlite_url: str) -> None:
    app = create_app(live_settings(tmp_path, sqlite_url, None))
    async with live_server(live_settings(tmp_path, sqlite_url, None), app) as base:
        keeper: Keeper = app.state.keeper
        host, guest = Client(base), Client(base)
        await host.join("host")
        await guest.join("guest")
        code = await host.create_table(seats=3)
        await host.connect(code)
        await guest.connect(code)
        tables = app.state.tables.tables
        (table_id,) = tables

        def seats() -> dict[str, int | None]:
            kept = keeper.entries.get(table_id, {})
            return {entry.split("/")[0]: seat for entry, seat in kept.items()}

        await within(lambda: seats() == {host.player_id: None, guest.player_id: None},
                     what="both sockets online, watching")  # fmt: skip
        assert keeper.running  # one task for the process, not one timer per socket
        assert (await guest.request(type="sit", seat=2, buy_in=100))["type"] == "ok"
        await within(lambda: seats().get(guest.player_id) == 2, what="the seat, at once")
        assert await app.state.presence.online(table_id) == {
            e: s for e, s in keeper.entries[table_id].items()
        }
        await guest.close()
        await within(lambda: guest.player_id not in seats(), what="the closed socket gone")

        async def guest_offline() -> bool:
            online = await app.state.presence.online(table_id)
            return all(not e.startswith(guest.player_id) for e in online)

        await within(guest_offline, what="the closed socket disconnected")
        await host.close()
        await within(lambda: keeper.entries == {}, what="nothing kept")
    assert not keeper.running  # the app's shutdown closed it
