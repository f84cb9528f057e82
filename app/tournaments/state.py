"""One tournament's state, what it runs with (its tables, its store, its clocks), and its
mailbox: the data every part of the director reads and changes.

The parts are plain functions over `Tournament`, one module per job: `field`
(registration, the start), `seating` (its tables, a player seated or unseated), `rounds`
(deals, hands' ends, places, moves), `finish` (the end), `clock` (pause, resume), `addon`,
`deal` and `chop` (a deal among the players left), `reading` (what it answers), `writes`
(store writes before an answer). `director.Director` is the actor that runs them.
"""

from __future__ import annotations

import asyncio
import secrets
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from app.tables.command import Command
from app.tables.errors import TableError
from app.tables.registry import TableRegistry
from app.tournaments.entry import Entry
from app.tournaments.figures import Figures
from app.tournaments.places import Standings
from app.tournaments.settings import Settings
from app.tournaments.store import MemoryTournamentStore, TournamentStore

#: the draws of seats and tables (the start's order is `Tournament.shuffle`)
draw = secrets.SystemRandom()


@dataclass
class FieldTable:
    """What the director knows of one of its tables between hands."""

    id: str
    seats: dict[int, str] = field(default_factory=dict)  # seat -> player
    stacks: dict[str, int] = field(default_factory=dict)
    button: int | None = None
    #: the last hand's big blind seat: a dead button's next big blind goes on from it
    big_blind: int | None = None
    playing: bool = False  # a deal was called and its hand has not ended yet
    #: the table actor that accepted that call (`TableCore.actor`; a restart is another)
    actor: str | None = None


@dataclass(frozen=True)
class HandLog:
    """One hand as the director saw it: which table, the level dealt, the tournament time of
    the deal, and the chips in play when it ended."""

    table: str
    number: int
    level: int
    elapsed: float
    chips: int | None = None


class Tournament:
    """The state of one tournament, owned by its director."""

    def __init__(
        self,
        settings: Settings,
        host_id: str,
        tables: TableRegistry,
        *,
        tournament_id: str | None = None,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
        between_hands: float = 2.0,
        shuffle: Callable[[list[str]], None] = draw.shuffle,
        store: TournamentStore | None = None,
        code: str | None = None,
        deal_hold: float = 30.0,
        tables_per_host: int | None = None,
    ) -> None:
        self.id = tournament_id or str(uuid.uuid4())
        self.code = code or secrets.token_urlsafe(16)
        self.store: TournamentStore = store or MemoryTournamentStore()
        self.settings = settings
        self.host_id = host_id
        self.registry = tables
        self.clock = clock
        self.wall = wall  # the wall clock (Unix seconds): a set start time
        self.between_hands = between_hands
        #: open tables the host may have, the tournament's counted (None: no limit)
        self.tables_per_host = tables_per_host
        self.shuffle = shuffle
        self.status = "registering"  # then running, paused, finished
        #: finished and its last command answered: later ones are refused at once (`post`)
        self.ended = False
        self.entries: dict[str, Entry] = {}  # by `Entry.key`
        self.live: dict[str, str] = {}  # player -> the key of their entry still in play
        self.standings = Standings(0)
        self.tables: dict[str, FieldTable] = {}
        #: tables broken during play (closed; their seeds revealed when the tournament ends)
        self.broken: list[str] = []
        self.table_codes: dict[str, str] = {}  # invite code -> id, of every table it opened
        self.hands: list[HandLog] = []
        self.mailbox: asyncio.Queue[Command] = asyncio.Queue()
        #: player left -> the deal they asked for and the stacks they saw (`chop`)
        self.chop_votes: dict[str, tuple[str, tuple[int, ...]]] = {}
        self.figures = Figures()  # the deal's figures, once per change of stacks
        self.deal_hold = deal_hold  # seconds the next deal waits for deal talks
        self.talks_until: float | None = None  # the clock when the deal talks end
        #: talks asked for: they start when the hand being played ends
        self.talks_pending = False
        #: (player, level): one call for talks a level each
        self.talks_called: set[tuple[str, int]] = set()
        self.elapsed_before = 0.0  # tournament time before `since`
        self.since: float | None = None  # the clock when it last started running
        self.deal_timer: asyncio.TimerHandle | None = None
        self.start_timer: asyncio.TimerHandle | None = None
        #: stacks of players between their table and the next (moves, the final table draw)
        self.carried: dict[str, int] = {}
        #: this round's bust-outs at every table (entry -> stack at the start of the hand),
        #: placed together when the round ends (`rounds.place_round`)
        self.round_busts: dict[str, int] = {}
        #: players placed whose tables have not taken them off yet (a table refused)
        self.leaving: list[str] = []
        #: the round's end (places, moves) was cut short by a table's refusal: the next
        #: `deal_all` carries it on before it deals
        self.round_open = False

    def entry_of(self, player_id: str) -> Entry:
        """A player's entry still in play."""
        return self.entries[self.live[player_id]]

    def elapsed(self) -> float:
        """Seconds of tournament time: the clock stops while paused."""
        if self.since is None:
            return self.elapsed_before
        return self.elapsed_before + self.clock() - self.since

    # ------------------------------------------------------------ mailbox, timers
    def post(self, command: Command) -> None:
        if self.status == "finished" and self.ended:
            command.settle({}, TableError("finished", "the tournament is over"))
            return
        self.mailbox.put_nowait(command)

    def hand_ended(self, event: dict[str, Any]) -> None:
        """A table's event (called in the table's task): queued for the director."""
        self.post(Command("hand_ended", data=event))

    def deal_all(self, delay: float = 0.0) -> None:
        """The next round's deal, posted `delay` seconds from now (one at a time)."""
        if self.deal_timer is not None:
            self.deal_timer.cancel()
        loop = asyncio.get_running_loop()
        self.deal_timer = loop.call_later(delay, self.post, Command("deal_all"))

    def stop(self) -> None:
        for timer in (self.deal_timer, self.start_timer):
            if timer is not None:
                timer.cancel()
