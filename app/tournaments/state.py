"""What every part of the tournament director shares: the tournament's state and the few
methods one part calls in another.

`Director` (app/tournaments/director.py) is one class assembled from one mixin per job
(`Field`, `Rounds`, `Clock`, `Addon`, `Chop`, `Reading`); each mixin subclasses this base, so
mypy checks every use of the shared state and of another job's methods against one
declaration, and neither mypy nor Python makes a `Director` that leaves one unimplemented.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

from app.tables.command import Command
from app.tables.registry import TableRegistry
from app.tournaments.entry import Entry
from app.tournaments.figures import Figures
from app.tournaments.places import Standings
from app.tournaments.settings import Settings
from app.tournaments.store import TournamentStore


@dataclass
class FieldTable:
    """What the director knows of one of its tables between hands."""

    id: str
    seats: dict[int, str] = field(default_factory=dict)  # seat -> player
    stacks: dict[str, int] = field(default_factory=dict)
    button: int | None = None
    playing: bool = False  # a deal was called and its hand has not ended yet


@dataclass(frozen=True)
class HandLog:
    """One hand as the director saw it: which table, the level dealt, the tournament time of
    the deal, and the chips in play when it ended."""

    table: str
    number: int
    level: int
    elapsed: float
    chips: int | None = None


class DirectorState(ABC):
    """The state of one tournament, owned by its director (set in `Director.__init__`)."""

    id: str
    code: str
    store: TournamentStore
    settings: Settings
    host_id: str
    registry: TableRegistry
    clock: Callable[[], float]
    wall: Callable[[], float]  # the wall clock (Unix seconds): a set start time
    between_hands: float
    #: open tables the host may have, the tournament's counted (None: no limit)
    tables_per_host: int | None
    shuffle: Callable[[list[str]], None]
    status: str  # registering, running, paused, finished
    entries: dict[str, Entry]  # by `Entry.key`
    live: dict[str, str]  # player -> the key of their entry still in play
    standings: Standings
    tables: dict[str, FieldTable]
    #: tables broken during play (closed; their seeds revealed when the tournament ends)
    broken: list[str]
    table_codes: dict[str, str]  # invite code -> id, of every table it opened
    #: hand-for-hand play at the bubble: shown on every table and the clock page
    hands: list[HandLog]
    mailbox: asyncio.Queue[Command]
    #: player left -> the deal they asked for and the stacks they saw (`chop.Chop`)
    chop_votes: dict[str, tuple[str, tuple[int, ...]]]
    figures: Figures  # the deal's figures, once per change of stacks
    deal_hold: float  # seconds the next deal waits for deal talks
    _talks_until: float | None  # the clock when the deal talks end
    _talks_pending: bool  # talks asked for: they start when the hand being played ends
    _talks_called: set[tuple[str, int]]  # (player, level): one call for talks a level each
    _elapsed: float  # tournament time before `_since`
    _since: float | None  # the clock when it last started running
    _timer: asyncio.TimerHandle | None
    _start_timer: asyncio.TimerHandle | None
    #: stacks of players between their table and the next (moves, the final table draw)
    _carried: dict[str, int]
    _round_busts: dict[str, int]  # this round's bust-outs: entry -> stack at the hand's start

    def entry_of(self, player_id: str) -> Entry:
        """A player's entry still in play."""
        return self.entries[self.live[player_id]]

    def elapsed(self) -> float:
        """Seconds of tournament time: the clock stops while paused."""
        if self._since is None:
            return self._elapsed
        return self._elapsed + self.clock() - self._since

    # Methods one job calls in another (each defined once, in its job's module).
    @abstractmethod
    def post(self, command: Command) -> None: ...

    @abstractmethod
    def hand_ended(self, event: dict[str, Any]) -> None: ...

    @abstractmethod
    def stop(self) -> None: ...

    @abstractmethod
    async def _write(self, write: Coroutine[Any, Any, None]) -> None: ...

    @abstractmethod
    async def _save_state(self) -> None: ...

    @abstractmethod
    def _deal_all(self, delay: float = 0.0) -> None: ...

    @abstractmethod
    async def _seat(self, pid: str, table_id: str, seat: int | None, stack: int) -> None: ...

    @abstractmethod
    async def _unseat(self, table_id: str, pid: str) -> None: ...

    @abstractmethod
    async def _on_start(self, c: Command) -> dict[str, Any]: ...

    @abstractmethod
    async def _finish(self, chop: str | None = None) -> None: ...

    @abstractmethod
    def _chop_agreed(self) -> str | None: ...

    @abstractmethod
    async def _chop(self, kind: str) -> dict[str, int]: ...

    @abstractmethod
    def _deal_talks(self) -> float: ...

    @abstractmethod
    def payouts(self) -> tuple[int, ...]: ...

    @abstractmethod
    def prize_pool(self) -> int: ...

    @abstractmethod
    def addon_open(self) -> bool: ...

    @abstractmethod
    def results(self) -> list[dict[str, Any]]: ...
