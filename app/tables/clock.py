"""The table's clocks as data: every armed timer's deadline, what the turn timer is for, and
when the time bank started. Pure: the time is passed in (`now`, the table clock's seconds),
nothing here waits; the actor arms a real timer for each deadline (`effects.Arm`) and posts
`Fire(timer, at)` when it is due, which the machine takes only if that is still the
deadline (`DecisionClock.fired`): a timer replaced or cancelled meanwhile does nothing.

The timers: the turn (the decision time, then the time bank; the short clock of a
show-or-muck choice or a vote, app/tables/pace.py; or a retry of the clock's action), the
next deal, and each away player's grace period.

The host's pause stops the turn's clock (app/tables/pausing.py): no turn timer is armed
while it lasts, and `TurnClock` keeps (and the store with the table) how much of the turn
was gone when it stopped, so that the turn restarts with exactly what was left, after a
restart of the table too.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any, NamedTuple


class TimerKind(StrEnum):
    TURN = "turn"
    NEXT_HAND = "next_hand"
    GRACE = "grace"


class Timer(NamedTuple):
    kind: TimerKind
    player_id: str = ""  # GRACE: whose

    @classmethod
    def grace(cls, player_id: str) -> Timer:
        return cls(TimerKind.GRACE, player_id)


TURN = Timer(TimerKind.TURN)
NEXT_HAND = Timer(TimerKind.NEXT_HAND)


class Stage(StrEnum):
    """What the turn timer runs out on."""

    DECISION = "decision"
    BANK = "bank"
    RETRY = "retry"  # the clock's action could not be stored: it tries again
    SHORT = "short"  # a show-or-muck choice or a run-it-twice vote: no time bank after it


class Turn(NamedTuple):
    """The turn the turn timer is armed for."""

    hand: str
    counter: int
    stage: Stage


class TurnTime(NamedTuple):
    """How long the player to act has: `timeout` (None: no clock), their bank, and whether
    it runs now (`stage` BANK)."""

    timeout: float | None
    bank: float
    stage: Stage


class TurnClock(NamedTuple):
    """The clock of the hand's turn number `counter` across a pause: `elapsed` seconds of it
    were gone at `since` (the table clock's time, the wall clock) and it has run on from
    there; `since` None: it stopped there (the table is paused). A turn that came after it
    (an action while paused) starts stopped with nothing gone. Stored with the table."""

    hand: str
    counter: int
    elapsed: float
    since: float | None = None

    def stored(self) -> dict[str, Any]:
        return self._asdict()

    @classmethod
    def from_stored(cls, data: Mapping[str, Any] | None) -> TurnClock | None:
        if not data:
            return None
        since = data.get("since")
        return cls(str(data["hand"]), int(data["counter"]), float(data["elapsed"]),
                   None if since is None else float(since))  # fmt: skip

    def gone(self, hand: str, counter: int, now: float) -> float | None:
        """Seconds gone of the turn `counter` of `hand` by `now`, by this clock (None: it
        says nothing of that turn: another hand, or a later turn the clock ran for)."""
        if hand != self.hand or counter < self.counter:
            return None
        if counter > self.counter:  # a turn that started while the clock was stopped
            return 0.0 if self.since is None else None
        return self.elapsed if self.since is None else self.elapsed + max(0.0, now - self.since)


def turn_time(
    decision_time: float, bank: float, elapsed: float, *, clock_on: bool, seated: bool
) -> TurnTime:
    """The clock of a new turn. `elapsed`: seconds of it already gone (a turn resumed after a
    restart); past the decision time, the bank runs with what is left of it."""
    if not clock_on or decision_time <= 0:
        return TurnTime(None, bank, Stage.DECISION)
    left = decision_time - elapsed
    if left > 0 or not seated:
        return TurnTime(max(0.0, left), bank, Stage.DECISION)
    bank = max(0.0, bank + left)
    return TurnTime(bank, bank, Stage.BANK)


def grace_left(grace: float, away_since: float | None, now: float) -> float:
    """The away grace in full, less the time the player has been away (wall clock: it runs
    on while the server is down)."""
    if away_since is None:
        return grace
    return min(grace, max(0.0, grace - (now - away_since)))


class DecisionClock:
    """The deadlines of a table's timers, what its turn timer is for, and the bank's start."""

    def __init__(self) -> None:
        self.deadlines: dict[Timer, float] = {}
        self.turn: Turn | None = None
        #: when the player to act runs out of time (snapshots show what is left)
        self.turn_deadline: float | None = None
        #: when the player to act started their time bank (None: not in it)
        self.bank_started: float | None = None
        #: when the turn in play would have started had none of it gone before (a turn
        #: resumed after a restart or a pause): its seconds gone are `now - turn_started`
        self.turn_started: float | None = None
        #: the seconds left on the turn's clock while the pause stops it (None: not stopped)
        self.stopped_left: float | None = None
        #: what the turn's news said of the time bank: its seconds and whether it runs (None:
        #: no turn), so that a snapshot says it too
        self.bank_news: tuple[float, bool] | None = None

    def arm(self, timer: Timer, at: float) -> None:
        self.deadlines[timer] = at

    def cancel(self, timer: Timer) -> bool:
        """Disarm `timer`; False if it was not armed."""
        return self.deadlines.pop(timer, None) is not None

    def armed(self, timer: Timer) -> bool:
        return timer in self.deadlines

    def deadline(self, timer: Timer) -> float | None:
        return self.deadlines.get(timer)

    def fired(self, timer: Timer, at: float) -> bool:
        """`timer` is due at `at`: True (and disarmed) if that is its deadline still."""
        if self.deadlines.get(timer) != at:
            return False
        del self.deadlines[timer]
        return True

    def bank_left(self, bank: float, now: float) -> float:
        """The bank after the time spent in it so far."""
        started = self.bank_started
        return bank if started is None else max(0.0, bank - (now - started))
