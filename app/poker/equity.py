"""All-in equity: each player's share of the pots in expectation over the cards to come.

When every player still in is all in before the river (their hands are tabled), the rest of
the board is dealt without any decision left. What each player "should" win then is the
average of what they would win over every way the remaining board cards can fall:
``equities`` divides each pot on every run-out exactly as the showdown does (each board its
share, each half of a hi-lo pot to its best hands, ties split) and averages.

Exact when the boards' run-outs number at most ``EXACT_LIMIT`` (every all-in on the flop
or later, and Courchevel's before the flop; two boards count twice: each board's division is
its own, so the average over the deal is the sum of each board's average); otherwise a
Monte Carlo of ``SAMPLES`` run-outs drawn by a ``random.Random`` seeded with ``SEED``, so
the same spot always gives the same figure. The unseen cards are the deck minus the tabled
hands and the board: folded hands are unknown to everyone, so they stay in the deck (a
figure computed with them would reveal something about them). Odd chips are not
modelled: shares are fractions of chips.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from math import comb
from typing import Final

from .cards import FULL_DECK, Card
from .evaluation import high_value, low_value
from .events import BoardDealt, CardsShown, PotsGathered
from .state import HandState

EXACT_LIMIT: Final = 1_000_000
SAMPLES: Final = 20_000
SEED: Final = 20261130


@dataclass(frozen=True, slots=True)
class AllInSpot:
    """The moment the hands were tabled: the live hands, the boards as they stood (run 0,
    one per board), the pots (amount, eligible players) and the hi-lo switch."""

    hi_lo: bool
    holes: Mapping[int, tuple[Card, ...]]
    boards: tuple[tuple[Card, ...], ...]
    pots: tuple[tuple[int, tuple[int, ...]], ...]


@dataclass(frozen=True, slots=True)
class Equity:
    expected: Mapping[int, float]  # player -> chips won in expectation
    pot: int  # the chips in play
    method: str  # "exact" or "monte-carlo"
    runouts: int  # run-outs counted (every one, or the samples)

    def share(self, player: int) -> float:
        return self.expected[player] / self.pot if self.pot else 0.0


def all_in_spot(state: HandState) -> AllInSpot | None:
    """The all-in moment of a played hand, if its hands were tabled before the river."""
    boards: list[list[Card]] = [[] for _ in range(state.config.boards)]
    pots: tuple[tuple[int, tuple[int, ...]], ...] = ()
    for event in state.log:
        if isinstance(event, BoardDealt) and event.run == 0:
            boards[event.board].extend(event.cards)
        elif isinstance(event, PotsGathered):
            pots = event.pots
        elif isinstance(event, CardsShown):
            if len(boards[0]) >= 5:
                return None  # a showdown after the river: nothing left to come
            live = [p for p in range(state.n) if not state.folded[p]]
            return AllInSpot(
                state.config.hi_lo,
                {p: state.hole[p] for p in live},
                tuple(tuple(b) for b in boards),
                pots,
            )
    return None


def runout_count(unseen: int, per_board: int, boards: int) -> int:
    """Run-outs of the whole deal: each board its ``per_board`` cards, boards disjoint."""
    total = 1
    for b in range(boards):
        total *= comb(unseen - b * per_board, per_board)
    return total


def _divide_board(
    spot: AllInSpot, board: Sequence[Card], share: float, acc: dict[int, float], players: list[int]
) -> None:
    """Add one board's division of every pot (``share`` of each: 1 / boards) to ``acc``."""
    holes = spot.holes
    high = {p: high_value(holes[p], board) for p in players}
    low = {p: low_value(holes[p], board) for p in players} if spot.hi_lo else None
    for amount, eligible in spot.pots:
        part = amount * share
        best = min(high[p] for p in eligible)
        high_winners = [p for p in eligible if high[p] == best]
        low_winners: list[int] = []
        if low is not None:
            qualified = [v for p in eligible if (v := low[p]) is not None]
            if qualified:
                lo = min(qualified)
                low_winners = [p for p in eligible if low[p] == lo]
        if low_winners:
            half = part / 2
            for p in high_winners:
                acc[p] += half / len(high_winners)
            for p in low_winners:
                acc[p] += half / len(low_winners)
        else:
            for p in high_winners:
                acc[p] += part / len(high_winners)


def equities(
    spot: AllInSpot,
    *,
    exact_limit: int = EXACT_LIMIT,
    samples: int = SAMPLES,
    seed: int = SEED,
) -> Equity:
    """Each live player's chips in expectation (see the module's docstring)."""
    players = sorted(spot.holes)
    known = {c for h in spot.holes.values() for c in h} | {c for b in spot.boards for c in b}
    unseen = [c for c in FULL_DECK if c not in known]
    need = 5 - len(spot.boards[0])
    nboards = len(spot.boards)
    acc = dict.fromkeys(players, 0.0)
    pot = sum(amount for amount, _ in spot.pots)
    count = runout_count(len(unseen), need, nboards)
    share = 1 / nboards
    combos = comb(len(unseen), need)
    if combos * nboards <= exact_limit:
        # Each board's division is its own, and over every run-out of the deal each board
        # alone sees every set of cards equally often: so the average over the deal is the
        # sum over the boards of each board's average over its own cards (exact).
        for board in spot.boards:
            part = dict.fromkeys(players, 0.0)
            for extra in combinations(unseen, need):
                _divide_board(spot, board + extra, share, part, players)
            for p in players:
                acc[p] += part[p] / combos
        method, runs = "exact", count
    else:
        rng = random.Random(seed)
        for _ in range(samples):
            drawn = rng.sample(unseen, need * nboards)
            for b, board in enumerate(spot.boards):
                extra = tuple(drawn[b * need : (b + 1) * need])
                _divide_board(spot, board + extra, share / samples, acc, players)
        method, runs = "monte-carlo", samples
    return Equity(dict(acc), pot, method, runs)
