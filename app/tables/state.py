"""What every part of the table actor shares: the table's state and the few methods one part
calls in another.

`Table` (app/tables/table.py) is one class assembled from one mixin per concern (`Seating`,
`Host`, `Clock`, `Dealer`, `Broadcast`, `Writes`, `Chat`, `Seeds`); each mixin subclasses this base,
so mypy checks every use of the shared state and of another concern's methods against one
declaration, and neither mypy nor Python makes a `Table` that leaves one unimplemented.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

from app.poker import Action
from app.rate import SlidingWindow
from app.tables.command import Command
from app.tables.config import TableConfig
from app.tables.fairness import HandDeal, ServerSeed
from app.tables.hand import Hand
from app.tables.runtime import Runtime
from app.tables.seat import Seat, SeatRequest
from app.tables.store_protocol import TableStore
from app.tables.viewer import Viewer
from app.tables.views import Record

if TYPE_CHECKING:
    from app.bots.player import Bot

T = TypeVar("T")


class TableState(ABC):
    """The state of one table, owned by its actor (set in `Table.__init__`)."""

    runtime: Runtime
    store: TableStore
    id: str
    code: str
    host_id: str
    config: TableConfig
    next_config: TableConfig | None
    button: int | None
    paused: bool
    hand_number: int
    #: the blind seats of the last hand before a restart (the dead button places the next)
    last_blinds: tuple[int | None, int | None]
    seats: list[Seat | None]
    hand: Hand | None
    requests: dict[str, SeatRequest]
    viewers: dict[int, Viewer]
    mailbox: asyncio.Queue[Command]
    stream: str
    seq: int
    records: deque[tuple[int, str, dict[str, str] | None]]
    _hand_starts: deque[int]
    turn_deadline: float | None
    _deck_source: Callable[[], list[int]] | None
    #: this session's server seed (app.tables.seeds); made before the first deal
    server_seed: ServerSeed | None
    _timer: asyncio.TimerHandle | None
    _bank_started: float | None
    _next_hand_timer: asyncio.TimerHandle | None
    _grace: dict[str, asyncio.TimerHandle]
    _recovered: bool
    _elapsed: float | None
    _doubt: asyncio.Future[None] | None
    in_flight: set[asyncio.Future[Any]]
    idle: bool
    seat_changes: asyncio.Event
    bomb_pot_next: bool
    chat: deque[dict[str, Any]]
    _chat_rate: SlidingWindow
    _bots: dict[str, tuple[Bot, asyncio.Task[None]]]
    _bot_failures: dict[str, int]
    closing: bool
    closed: bool
    draining: bool
    #: the actor is handling a command (a stopping process hands the table over between two)
    busy: bool
    #: a tournament table's director: told when a hand ends (`TournamentTable`)
    director: Callable[[dict[str, Any]], None] | None
    #: a tournament table deals only when its director called the deal
    deal_called: bool

    # Methods one concern calls in another (each defined once, in its concern's module).
    @abstractmethod
    async def _add_chips(self, seat: Seat, amount: int, kind: str) -> None: ...

    @abstractmethod
    async def _adjust_chips(self, seat: Seat, amount: int, reason: str) -> None: ...

    @abstractmethod
    async def _apply(self, hand: Hand, action: Action, auto: bool = False) -> None: ...

    @abstractmethod
    def _auto_act_if_gone(self) -> None: ...

    @abstractmethod
    def _cancel_clock(self) -> None: ...

    @abstractmethod
    async def _cash_out(self, seat: Seat) -> None: ...

    @abstractmethod
    def _check_buy_in(self, amount: object) -> int: ...

    @abstractmethod
    def _check_chips(self, amount: object, *, signed: bool = False) -> int: ...

    @abstractmethod
    async def _close_or_retry(self) -> None: ...

    @abstractmethod
    def _emit(self, *records: Record) -> None: ...

    @abstractmethod
    async def _ensure_seed(self) -> ServerSeed: ...

    @abstractmethod
    async def _deal_deck(self, number: int) -> tuple[list[int], HandDeal]: ...

    @abstractmethod
    async def _reveal_seed(self, *, then_new: bool) -> None: ...

    @abstractmethod
    def _free_seat(self, number: object) -> int: ...

    @abstractmethod
    def _hand_running(self) -> bool: ...

    @abstractmethod
    def _in_hand(self, seat: Seat) -> bool: ...

    @abstractmethod
    def _my_seat(self, c: Command) -> Seat: ...

    @abstractmethod
    async def _read(self, query: Coroutine[Any, Any, T]) -> T: ...

    @abstractmethod
    def _retry_next_hand(self) -> None: ...

    @abstractmethod
    async def _save_seats(self, *seats: Seat) -> None: ...

    @abstractmethod
    async def _save_table(self) -> None: ...

    @abstractmethod
    def _schedule_next_hand(self, delay: float, *, even_paused: bool = False) -> None: ...

    @abstractmethod
    def _seat_record(self, seat: Seat) -> Record: ...

    @abstractmethod
    async def _settle_seats(self) -> list[Seat]: ...

    @abstractmethod
    def _start_bot(self, seat: Seat) -> None: ...

    @abstractmethod
    def _start_grace(self, pid: str, delay: float) -> None: ...

    @abstractmethod
    async def _note_away(self, seat: Seat, away: bool) -> None: ...

    @abstractmethod
    def _grace_left(self, seat: Seat) -> float: ...

    @abstractmethod
    def _start_turn(self, elapsed: float = 0.0) -> None: ...

    @abstractmethod
    def _stop_bot(self, player_id: str) -> None: ...

    @abstractmethod
    async def _store(self, write: Coroutine[Any, Any, None], *, queued: bool = False) -> None: ...

    @abstractmethod
    def _table_record(self) -> Record: ...

    @staticmethod
    @abstractmethod
    def now() -> float: ...

    @abstractmethod
    def post(self, command: Command) -> None: ...

    @abstractmethod
    def seat_of(self, player_id: str) -> Seat | None: ...

    @abstractmethod
    def tell(
        self, kind: str, sender: str | None, viewer: Viewer, ref: Any, data: dict[str, Any]
    ) -> None: ...

    @abstractmethod
    def post_detach(self, viewer: Viewer) -> None: ...

    @abstractmethod
    def _check_tournament(self, c: Command) -> None: ...

    @abstractmethod
    def _tell_director(self) -> None: ...

    @abstractmethod
    async def _finish_close(self) -> None: ...
