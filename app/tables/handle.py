"""What the WebSocket endpoint (and the HTTP API) holds of a table: `TableHandle`, the outside
API of a table actor. `app.tables.table.Table` implements it for a table running in this
process, `app.scale.gateway.RemoteTable` for one another process runs (relayed through
Redis); the endpoint does not tell them apart, but to keep presence (the owner keeps a relayed
connection's). That both implement it is checked by mypy (`app.scale.gateway.handles`)."""

from __future__ import annotations

from typing import Any, Protocol

from app.tables.viewer import Viewer


class SeatNumber(Protocol):
    """A seat, as far as the endpoint looks at one: its number."""

    @property
    def number(self) -> int: ...


class TableHandle(Protocol):
    @property
    def id(self) -> str: ...

    @property
    def code(self) -> str: ...

    def seat_of(self, player_id: str) -> SeatNumber | None:
        """The player's seat (None: watching, or not known yet)."""
        ...

    async def request(self, kind: str, sender: str | None = None, /, **data: Any) -> dict[str, Any]:
        """A command or read from player `sender`, answered: its result, or `TableError`
        (then nothing changed). `attach` (`viewer`, `stream`, `since`) starts a connection:
        its snapshot or what it missed goes to the viewer's outbox."""
        ...

    def tell(
        self, kind: str, sender: str | None, viewer: Viewer, ref: Any, data: dict[str, Any]
    ) -> None:
        """A command whose answer (`ok` or `error`, with the client's `ref` as `id`) goes to
        `viewer`'s outbox after whatever the command broadcast; the sender does not wait."""
        ...

    def post_detach(self, viewer: Viewer) -> None:
        """The connection ended (no answer; safe in a `finally`)."""
        ...
