"""Events: what an applied action caused, in order. Enough for per-seat views and for hand
histories. Hole cards appear only in ``HoleCardsDealt`` (for their owner) and ``CardsShown``;
burns never appear; mucked cards never appear."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import ClassVar, ParamSpec, TypeVar

from .actions import ActionKind, Street
from .cards import Card

_P = ParamSpec("_P")
_E = TypeVar("_E", bound="Event")


def _builder(cls: Callable[_P, _E]) -> Callable[_P, _E]:
    """A function building ``cls``'s events, with ``cls``'s own arguments: the same frozen
    dataclass instance as ``cls(...)``, at about half the cost (a hand builds ~40; issue 29).
    A class call runs ``__init__`` in a C-level frame of its own, and a frozen dataclass
    stores each field through ``object.__setattr__``. The builder is a plain function (the
    interpreter calls it in line) that makes an unfrozen twin of the class (the same slots,
    nothing added, no ``__init__``), stores the fields as plain slot stores, which CPython
    specialises, and switches the instance to ``cls``: frozen from then on."""
    assert isinstance(cls, type)
    names = [f.name for f in fields(cls)]
    unfrozen = {
        "__slots__": (),  # nothing added: an instance may switch to ``cls``
        "__setattr__": object.__setattr__,
        "__delattr__": object.__delattr__,  # both, or CPython keeps the slow path
        "__init__": object.__init__,
    }
    twin = type(f"_Unfrozen{cls.__name__}", (cls,), unfrozen)
    name = "".join(f"_{c.lower()}" if c.isupper() else c for c in cls.__name__).lstrip("_")
    stores = "".join(f"    event.{n} = {n}\n" for n in names)
    scope = {"_cls": cls, "_twin": twin}
    source = f"def {name}({', '.join(names)}):\n    event = _twin()\n{stores}"
    exec(f"{source}    event.__class__ = _cls\n    return event\n", scope)
    built: Callable[_P, _E] = scope[name]
    built.__qualname__ = built.__name__
    built.__module__ = __name__
    built.__doc__ = f"The event ``{cls.__name__}(...)``, built quicker (``_builder``)."
    return built


@dataclass(frozen=True, slots=True)
class Event:
    type: ClassVar[str] = "event"


@dataclass(frozen=True, slots=True)
class ForcedBet(Event):
    type: ClassVar[str] = "forced_bet"
    player: int
    kind: str  # "ante", "blind", "post" (a live post to come in), "dead"
    amount: int
    all_in: bool


@dataclass(frozen=True, slots=True)
class HoleCardsDealt(Event):
    type: ClassVar[str] = "hole_cards"
    player: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class BoardDealt(Event):
    type: ClassVar[str] = "board"
    street: Street
    board: int  # 0 or 1 (double board)
    run: int  # 0, or 1 for the second runout of run it twice
    cards: tuple[Card, ...]  # the cards this deal added


@dataclass(frozen=True, slots=True)
class BettingRoundStarted(Event):
    type: ClassVar[str] = "round"
    street: Street


@dataclass(frozen=True, slots=True)
class Acted(Event):
    type: ClassVar[str] = "acted"
    player: int
    kind: ActionKind
    amount: int  # chips put in by this action
    bet: int  # the player's total bet for the street after it
    stack: int  # chips left behind
    all_in: bool


@dataclass(frozen=True, slots=True)
class BetReturned(Event):
    type: ClassVar[str] = "bet_returned"
    player: int
    amount: int


@dataclass(frozen=True, slots=True)
class PotsGathered(Event):
    type: ClassVar[str] = "pots"
    pots: tuple[tuple[int, tuple[int, ...]], ...]  # (amount, eligible players), main pot first


@dataclass(frozen=True, slots=True)
class RunItTwiceOffered(Event):
    type: ClassVar[str] = "run_it_twice_offered"
    players: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class RunItTwiceVoted(Event):
    type: ClassVar[str] = "run_it_twice_voted"
    player: int
    agree: bool


@dataclass(frozen=True, slots=True)
class RunsDecided(Event):
    type: ClassVar[str] = "runs"
    runs: int


@dataclass(frozen=True, slots=True)
class CardsShown(Event):
    type: ClassVar[str] = "shown"
    player: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Mucked(Event):
    type: ClassVar[str] = "mucked"
    player: int


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


@dataclass(frozen=True, slots=True)
class HandEnded(Event):
    type: ClassVar[str] = "hand_ended"
    stacks: tuple[int, ...]


# The engine builds its events with these (``_builder``); ``Acted(...)`` and the others are
# the same events for everyone else.
forced_bet = _builder(ForcedBet)
hole_cards_dealt = _builder(HoleCardsDealt)
board_dealt = _builder(BoardDealt)
betting_round_started = _builder(BettingRoundStarted)
acted = _builder(Acted)
bet_returned = _builder(BetReturned)
pots_gathered = _builder(PotsGathered)
run_it_twice_offered = _builder(RunItTwiceOffered)
run_it_twice_voted = _builder(RunItTwiceVoted)
runs_decided = _builder(RunsDecided)
cards_shown = _builder(CardsShown)
mucked = _builder(Mucked)
pot_awarded = _builder(PotAwarded)
hand_ended = _builder(HandEnded)
