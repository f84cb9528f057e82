"""Events: what an applied action caused, in order. Enough for per-seat views and for hand
histories. Hole cards appear only in ``HoleCardsDealt`` (for their owner) and ``CardsShown``;
burns never appear; mucked cards never appear."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .actions import ActionKind, Street
from .cards import Card
from .frozen import builder


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


# The engine builds its events with these (``frozen.builder``: about half the cost of a class
# call, and a hand builds ~40); ``Acted(...)`` and the others are the same events for
# everyone else.
forced_bet = builder(ForcedBet)
hole_cards_dealt = builder(HoleCardsDealt)
board_dealt = builder(BoardDealt)
betting_round_started = builder(BettingRoundStarted)
acted = builder(Acted)
bet_returned = builder(BetReturned)
pots_gathered = builder(PotsGathered)
run_it_twice_offered = builder(RunItTwiceOffered)
run_it_twice_voted = builder(RunItTwiceVoted)
runs_decided = builder(RunsDecided)
cards_shown = builder(CardsShown)
mucked = builder(Mucked)
pot_awarded = builder(PotAwarded)
hand_ended = builder(HandEnded)
