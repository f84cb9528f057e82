"""What a player may do, and the record of what was done."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum, StrEnum
from typing import Final


class Street(IntEnum):
    PREFLOP = 0
    FLOP = 1
    TURN = 2
    RIVER = 3

    @property
    def label(self) -> str:
        return self.name.lower()


class Phase(StrEnum):
    BETTING = "betting"
    RUN_IT_TWICE = "run-it-twice"  # all in before the river: the players vote
    SHOWDOWN = "showdown"  # in show order: show or muck
    COMPLETE = "complete"


class ActionKind(StrEnum):
    FOLD = "fold"
    CHECK = "check"
    CALL = "call"
    BET = "bet"  # ``amount`` is the total bet for the street ("bet to")
    RAISE = "raise"  # ``amount`` is the total bet for the street ("raise to")
    SHOW = "show"
    MUCK = "muck"
    RUN_TWICE = "run-twice"  # ``agree`` is the player's vote


@dataclass(frozen=True, slots=True)
class Action:
    player: int
    kind: ActionKind
    amount: int | None = None
    agree: bool | None = None

    def __str__(self) -> str:
        if self.amount is not None:
            return f"p{self.player + 1} {self.kind} to {self.amount}"
        if self.agree is not None:
            return f"p{self.player + 1} {self.kind} {'yes' if self.agree else 'no'}"
        return f"p{self.player + 1} {self.kind}"


@dataclass(frozen=True, slots=True)
class LegalActions:
    """Everything the player to act may do, with exact amounts.

    ``raise_kind`` is BET when nobody has bet this round, RAISE otherwise, None when no bet or
    raise is possible. ``min_to``/``max_to`` bound the street total the player may bet or
    raise to; ``pot_to`` is the pot-size amount (pot limit: equal to ``max_to``), capped by
    the stack. ``call`` is the chips a call puts in (0 when checking is possible).
    """

    player: int
    phase: Phase
    fold: bool = False
    check: bool = False
    call: int = 0
    raise_kind: ActionKind | None = None
    min_to: int = 0
    max_to: int = 0
    pot_to: int = 0
    show: bool = False
    muck: bool = False
    vote: bool = False

    def kinds(self) -> tuple[ActionKind, ...]:
        out: list[ActionKind] = []
        if self.fold:
            out.append(ActionKind.FOLD)
        if self.check:
            out.append(ActionKind.CHECK)
        if self.call:
            out.append(ActionKind.CALL)
        if self.raise_kind is not None:
            out.append(self.raise_kind)
        if self.show:
            out.append(ActionKind.SHOW)
        if self.muck:
            out.append(ActionKind.MUCK)
        if self.vote:
            out.append(ActionKind.RUN_TWICE)
        return tuple(out)


# The members the engine reads on every action, as plain module names: reading
# ``ActionKind.FOLD`` goes through the enum metaclass (its ``__getattr__`` hook keeps
# CPython from caching the lookup), ~0.1 µs each time and several times an action.
FOLD: Final = ActionKind.FOLD
CHECK: Final = ActionKind.CHECK
CALL: Final = ActionKind.CALL
BET: Final = ActionKind.BET
RAISE: Final = ActionKind.RAISE
SHOW: Final = ActionKind.SHOW
BETTING: Final = Phase.BETTING
SHOWDOWN: Final = Phase.SHOWDOWN
RUN_IT_TWICE: Final = Phase.RUN_IT_TWICE
COMPLETE: Final = Phase.COMPLETE
PREFLOP: Final = Street.PREFLOP
FLOP: Final = Street.FLOP
RIVER: Final = Street.RIVER
STREETS: Final = tuple(Street)  # by number: ``Street(n)`` is a slow enum call too
