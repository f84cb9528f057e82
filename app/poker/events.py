"""Events: what an applied action caused, in order. Enough for per-seat views and for hand
histories. Hole cards appear only in ``HoleCardsDealt`` (for their owner) and ``CardsShown``;
burns never appear; mucked cards never appear."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import ClassVar, TypeVar

from .actions import ActionKind, Street
from .cards import Card

_E = TypeVar("_E", bound="Event")


def _quick(cls: type[_E]) -> type[_E]:
    """Give a frozen event class a quicker ``__init__`` (a hand makes ~40 events; issue 29).
    The frozen dataclass's own stores each field through ``object.__setattr__``; a slot's
    descriptor is a C call a field too. So a class of three fields or more is built as an
    unfrozen twin (the same slots, plain attribute stores, which CPython specialises) and
    switched back to itself: two class switches cost about two of those calls. The fields,
    their order and the frozen behaviour after ``__init__`` are the dataclass's."""
    names = [f.name for f in fields(cls)]
    args = ", ".join(["self", *names])
    if len(names) < 3:
        scope = {f"_set_{n}": getattr(cls, n).__set__ for n in names}
        body = "".join(f"    _set_{n}(self, {n})\n" for n in names) or "    pass\n"
    else:
        # The twin adds no slot, so an instance may switch between the two classes.
        unfrozen = {"__slots__": (), "__setattr__": object.__setattr__}
        unfrozen["__delattr__"] = object.__delattr__  # both, or CPython keeps the slow path
        twin = type(f"_Unfrozen{cls.__name__}", (cls,), unfrozen)
        scope = {"_switch": object.__setattr__, "_cls": cls, "_twin": twin}
        stores = "".join(f"    self.{n} = {n}\n" for n in names)
        body = f"    _switch(self, '__class__', _twin)\n{stores}    self.__class__ = _cls\n"
    exec(f"def __init__({args}):\n{body}", scope)
    init = scope["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    cls.__init__ = init  # type: ignore[method-assign]
    return cls


@dataclass(frozen=True, slots=True)
class Event:
    type: ClassVar[str] = "event"


@_quick
@dataclass(frozen=True, slots=True)
class ForcedBet(Event):
    type: ClassVar[str] = "forced_bet"
    player: int
    kind: str  # "ante", "blind", "post" (a live post to come in), "dead"
    amount: int
    all_in: bool


@_quick
@dataclass(frozen=True, slots=True)
class HoleCardsDealt(Event):
    type: ClassVar[str] = "hole_cards"
    player: int
    cards: tuple[Card, ...]


@_quick
@dataclass(frozen=True, slots=True)
class BoardDealt(Event):
    type: ClassVar[str] = "board"
    street: Street
    board: int  # 0 or 1 (double board)
    run: int  # 0, or 1 for the second runout of run it twice
    cards: tuple[Card, ...]  # the cards this deal added


@_quick
@dataclass(frozen=True, slots=True)
class BettingRoundStarted(Event):
    type: ClassVar[str] = "round"
    street: Street


@_quick
@dataclass(frozen=True, slots=True)
class Acted(Event):
    type: ClassVar[str] = "acted"
    player: int
    kind: ActionKind
    amount: int  # chips put in by this action
    bet: int  # the player's total bet for the street after it
    stack: int  # chips left behind
    all_in: bool


@_quick
@dataclass(frozen=True, slots=True)
class BetReturned(Event):
    type: ClassVar[str] = "bet_returned"
    player: int
    amount: int


@_quick
@dataclass(frozen=True, slots=True)
class PotsGathered(Event):
    type: ClassVar[str] = "pots"
    pots: tuple[tuple[int, tuple[int, ...]], ...]  # (amount, eligible players), main pot first


@_quick
@dataclass(frozen=True, slots=True)
class RunItTwiceOffered(Event):
    type: ClassVar[str] = "run_it_twice_offered"
    players: tuple[int, ...]


@_quick
@dataclass(frozen=True, slots=True)
class RunItTwiceVoted(Event):
    type: ClassVar[str] = "run_it_twice_voted"
    player: int
    agree: bool


@_quick
@dataclass(frozen=True, slots=True)
class RunsDecided(Event):
    type: ClassVar[str] = "runs"
    runs: int


@_quick
@dataclass(frozen=True, slots=True)
class CardsShown(Event):
    type: ClassVar[str] = "shown"
    player: int
    cards: tuple[Card, ...]


@_quick
@dataclass(frozen=True, slots=True)
class Mucked(Event):
    type: ClassVar[str] = "mucked"
    player: int


@_quick
@dataclass(frozen=True, slots=True)
class PotAwarded(Event):
    type: ClassVar[str] = "award"
    pot: int  # 0 is the main pot
    run: int
    board: int
    half: str  # "whole", "high" or "low"
    player: int
    amount: int
    hand: str | None  # "Flush, king high"; None when uncontested
    cards: tuple[Card, ...]  # the five cards used; empty when uncontested


@_quick
@dataclass(frozen=True, slots=True)
class HandEnded(Event):
    type: ClassVar[str] = "hand_ended"
    stacks: tuple[int, ...]
