"""A command in a table's mailbox, how it is answered, and who may send which."""

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


# Commands a player may send, and the ones only the host may send.
PLAYER_COMMANDS = frozenset(
    {"sit", "top_up", "sit_out", "sit_in", "leave", "straddle", "act", "show", "more_time",
     "sit_out_next", "sit_out_next_bb", "chat", "seed"}
)  # fmt: skip
HOST_COMMANDS = frozenset(
    {"approve", "refuse", "pause", "resume", "set_stakes", "remove", "adjust", "transfer_host",
     "add_bot", "bomb_pot_next", "spectator_chat", "close", "rotate_seed"}
)  # fmt: skip
#: commands that handle a failed write themselves (actions roll the hand back; timers retry)
SELF_UNDOING = frozenset(
    {"act", "attach", "detach", "view", "timeout", "auto", "grace", "next_hand", "doubt"}
)
