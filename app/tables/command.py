"""A command in a table's mailbox as its senders post it (a kind and its data), and how it
is answered. The table reads it into a typed command (app/tables/commands.py)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from app.tables.errors import TableError
from app.tables.viewer import Viewer


@dataclass
class Command:
    kind: str
    player_id: str | None = None
    data: dict[str, Any] = field(default_factory=dict)
    future: asyncio.Future[dict[str, Any]] | None = None
    # Answered into this viewer's outbox instead of a future (`tell`): (viewer, message id).
    reply: tuple[Viewer, Any] | None = None

    def settle(self, result: dict[str, Any], error: TableError | None = None) -> None:
        """Answer the sender: into its outbox (`tell`), or through its future (`request`)."""
        if self.reply is not None:
            viewer, ref = self.reply
            message: dict[str, Any]
            if error is not None:
                message = {"type": "error", "code": error.code, "message": error.message}
            else:
                message = {"type": "ok", "of": self.kind, **result}
            if ref is not None:
                message["id"] = ref
            viewer.send(message)
        elif self.future is not None and not self.future.done():
            if error is not None:
                self.future.set_exception(error)
            else:
                self.future.set_result(result)
