"""What the table machine asks its actor to do: the effects of a command, as data.

The actor (app/tables/table.py) executes them in the order the machine made them, in one
place. Three of them are *needs*, which a command's flow yields and waits on: `Write`
(stored before anything after it happens: a failed write puts the machine back as it was
before it, and the command goes on from there with the failure), `Read`, and `Welcome`.
The others are appended to the machine's `effects` and cannot fail (a `Note`'s write
may, which is only logged).

A new timer kind is a `clock.TimerKind` and its handler (app/tables/machine.py); a new
effect is a class here and its line in `Table._execute`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.tables.clock import Timer
from app.tables.commands import TableCommand
from app.tables.ops import ReadOp, StoreOp
from app.tables.views import Record


@dataclass(slots=True)
class Write:
    """Store `op`. `best_effort`: a failure is reported to the machine (as the refusal) and
    changes nothing else; otherwise the machine is put back as it was before the write."""

    op: StoreOp
    best_effort: bool = False


@dataclass(slots=True)
class Read:
    op: ReadOp


@dataclass(slots=True)
class Emit:
    """Records for every viewer, each rendered for it. `hand_start`: the first is a hand's
    `hand_started` (what a reconnecting client may catch up from starts at the one before)."""

    records: tuple[Record, ...]
    hand_start: bool = False


@dataclass(slots=True)
class Welcome:
    """A viewer being attached gets what it missed since `since` of `stream`, or a snapshot
    of the table as it is at this point of the command (so a need: the command goes on once
    it is sent)."""

    viewer: int
    stream: str | None
    since: int | None


Need = Write | Read | Welcome


@dataclass(slots=True)
class Arm:
    """Post `Fire(timer, at)` at `at` (the table clock's time), replacing the timer's last."""

    timer: Timer
    at: float


@dataclass(slots=True)
class Cancel:
    timer: Timer


@dataclass(slots=True)
class Post:
    """A command to the table's own mailbox, after those already in it."""

    command: TableCommand


@dataclass(slots=True)
class TellDirector:
    """A tournament table's hand ended: tell its director."""

    event: dict[str, Any]


@dataclass(slots=True)
class Note:
    """Store `op`, not waited for: what the table keeps about its viewers, not its own state
    (who watched its hands), so a failure changes nothing at the table (it is logged)."""

    op: StoreOp


@dataclass(slots=True)
class AllInEnded:
    """A hand with an all-in (its hands tabled before the river) ended and is stored: the
    server may compute its equities ahead of any viewer (app/api/review.py)."""

    hand_id: str


@dataclass(slots=True)
class StartBot:
    player_id: str
    buy_in: int  # what it tops up to when busted (0: never)


@dataclass(slots=True)
class StopBot:
    player_id: str


Effect = Emit | Arm | Cancel | Post | Note | TellDirector | AllInEnded | StartBot | StopBot
