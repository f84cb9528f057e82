"""A seat at a table and the player in it, as the table keeps it between hands; the seat book.

A seat is a value (a named tuple): the table changes a seat by making the next one
(`seat._replace(...)`),
and where a seat stands in the game is one `SeatState`, moved only by `moved` (sit out, sit
in, dealt in, leave, removed): the five booleans the store keeps (`sitting_out`, `waiting`,
`post`, `leaving`, `removed`) are read from it, never set. `SeatBook` is the table's seats,
a value too, so a table's state before a write is kept by keeping a reference.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum, StrEnum
from typing import Any, Final, NamedTuple

#: ``Seat.missed_blinds`` bits.
MISSED_SMALL: Final = 1
MISSED_BIG: Final = 2


class SeatState(StrEnum):
    """Where a seat stands in the game (the protocol's `status` is read from it)."""

    #: in, and dealt in when the big blind reaches it (new, or back owing a blind)
    WAITING = "waiting"
    #: in, and posts to come in at once: a big blind, or what it missed
    POSTING = "posting"
    PLAYING = "playing"
    #: out; back before a blind passed it, it plays at once, else it waits (or posts)
    SITTING_OUT = "sitting_out"
    #: out before it was ever dealt in: back, it waits for the big blind (or posts)
    SITTING_OUT_WAITING = "sitting_out_waiting"
    #: folded when the action reaches it, cashed out after the hand
    LEAVING = "leaving"
    #: the same, by the host
    REMOVED = "removed"

    @classmethod
    def from_flags(
        cls, *, sitting_out: bool, waiting: bool, post: bool, leaving: bool, removed: bool
    ) -> SeatState:
        """The state of a seat stored as its flags."""
        if removed:
            return cls.REMOVED
        if leaving:
            return cls.LEAVING
        if sitting_out:
            return cls.SITTING_OUT_WAITING if waiting else cls.SITTING_OUT
        if waiting:
            return cls.POSTING if post else cls.WAITING
        return cls.PLAYING


class Move(Enum):
    SIT_OUT = "sit_out"
    SIT_IN = "sit_in"
    DEALT = "dealt"  # dealt into a hand: waiting and posting are over
    MISSED = "missed"  # a blind passed it out of play: back, it waits for the big blind
    LEAVE = "leave"
    REMOVE = "remove"


_OUT = (SeatState.SITTING_OUT, SeatState.SITTING_OUT_WAITING)
_WAITING = (SeatState.WAITING, SeatState.POSTING, SeatState.SITTING_OUT_WAITING)
GONE = (SeatState.LEAVING, SeatState.REMOVED)


def moved(state: SeatState, move: Move, *, post: bool = False, owes: bool = False) -> SeatState:
    """The one transition of a seat's state. `post`: coming in (sit in) posts rather than
    waits for the big blind; `owes`: the seat missed a blind while it sat out."""
    if move is Move.REMOVE:
        return SeatState.REMOVED
    if move is Move.LEAVE:
        return state if state in GONE else SeatState.LEAVING
    if state in GONE:  # cashed out after the hand, whatever else happens
        return state
    if move is Move.SIT_OUT:
        return SeatState.SITTING_OUT_WAITING if state in _WAITING else SeatState.SITTING_OUT
    if move is Move.DEALT:
        return SeatState.PLAYING
    if move is Move.MISSED:  # owing: back (or topped up), it waits for the big blind or posts
        if state is SeatState.SITTING_OUT:
            return SeatState.SITTING_OUT_WAITING
        return SeatState.WAITING if state is SeatState.PLAYING else state
    # SIT_IN: back before a blind passed, play on; owing one (or never dealt in), wait or post.
    if state is SeatState.PLAYING or (state is SeatState.SITTING_OUT and not owes):
        return SeatState.PLAYING
    return SeatState.POSTING if post else SeatState.WAITING


class Seat(NamedTuple):
    """One occupied seat (a named tuple: a value, cheap to copy with a change).

    ``stack`` is the player's chips between hands (during a hand the hand state holds the
    live stack; the seat's is the stack the hand started from). ``missed_blinds`` are the
    blinds the seat missed while sitting out (``MISSED_SMALL``, ``MISSED_BIG``): a player who
    comes back owes them (see ``app.tables.button``).
    """

    number: int
    player_id: str
    name: str
    stack: int
    state: SeatState = SeatState.WAITING
    straddle: bool = False
    away: bool = False
    #: when the player went away (wall clock, stored: the grace outlasts a restart)
    away_since: float | None = None
    time_bank: float = 0.0
    #: a practice bot (app.bots) plays this seat
    bot: bool = False
    #: the player's switches: sit out from the next hand, or when the big blind reaches them
    sit_out_next: bool = False
    sit_out_next_bb: bool = False
    #: chips added after the current hand (top-ups and host adjustments made during a hand)
    pending_top_up: int = 0
    pending_adjust: int = 0
    pending_adjust_reason: str = ""  # their reasons (app.tables.adjust)
    missed_blinds: int = 0
    #: the player's latest client seed for the deal (app.tables.fairness); "" none sent
    client_seed: str = ""
    #: the player's showdown preferences (stored with the seat): muck a hand the rules let
    #: them muck (a beaten one) at once; show every hand at once, even one they could muck
    auto_muck: bool = True
    always_show: bool = False
    #: the decisions in a row the clock acted on for this player (the table's moment, not
    #: stored), and whether that sat them out (`sit_out_after_timeouts`: a note shows it)
    timeouts: int = 0
    timed_out: bool = False

    def move(self, move: Move, *, post: bool = False) -> Seat:
        return self._replace(state=moved(self.state, move, post=post, owes=self.missed_blinds != 0))

    # The flags the store keeps and the seat rules (app.tables.button) read.
    @property
    def sitting_out(self) -> bool:
        return self.state in _OUT

    @property
    def waiting(self) -> bool:
        return self.state in _WAITING

    @property
    def post(self) -> bool:
        return self.state is SeatState.POSTING

    @property
    def leaving(self) -> bool:
        return self.state is SeatState.LEAVING

    @property
    def removed(self) -> bool:
        return self.state is SeatState.REMOVED

    @property
    def status(self) -> str:
        if self.state in GONE:
            return "leaving"
        if self.state in _OUT:
            return "sitting_out"
        return str(self.state)

    @property
    def missed(self) -> list[str]:
        """The blinds owed, as the protocol names them."""
        return [
            name
            for bit, name in ((MISSED_SMALL, "small_blind"), (MISSED_BIG, "big_blind"))
            if self.missed_blinds & bit
        ]

    def can_be_dealt(self) -> bool:
        return self.stack > 0 and self.state not in _OUT and self.state not in GONE


class SeatBook(tuple[Seat | None, ...]):
    """The seats of a table by number (None: empty): a tuple, so a value; `put` and `free`
    make the next."""

    __slots__ = ()

    @classmethod
    def empty(cls, size: int) -> SeatBook:
        return cls((None,) * size)

    @property
    def seats(self) -> tuple[Seat | None, ...]:
        return self

    def taken(self) -> Iterator[Seat]:
        return (s for s in self if s is not None)

    def of(self, player_id: str) -> Seat | None:
        for seat in self:
            if seat is not None and seat.player_id == player_id:
                return seat
        return None

    def put(self, *seats: Seat) -> SeatBook:
        out = list(self)
        for seat in seats:
            out[seat.number] = seat
        return SeatBook(out)

    def free(self, number: int) -> SeatBook:
        out = list(self)
        out[number] = None
        return SeatBook(out)


@dataclass(frozen=True, slots=True)
class SeatRequest:
    player_id: str
    name: str
    seat: int
    buy_in: int
    post: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "player_id": self.player_id,
            "name": self.name,
            "seat": self.seat,
            "buy_in": self.buy_in,
        }

    def stored(self) -> dict[str, Any]:
        return {**self.to_json(), "post": self.post}

    @classmethod
    def from_stored(cls, data: dict[str, Any]) -> SeatRequest:
        return cls(str(data["player_id"]), str(data["name"]), int(data["seat"]),
                   int(data["buy_in"]), bool(data.get("post", False)))  # fmt: skip
