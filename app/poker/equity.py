"""All-in equity: each player's share of the pots in expectation over the cards to come.

When every player still in is all in before the river (their hands are tabled), the rest of
the board is dealt without any decision left. What each player "should" win then is the
average of what they would win over every way the remaining board cards can fall:
``equities`` divides each pot on every run-out exactly as the showdown does (each board its
share, each half of a hi-lo pot to its best hands, ties split) and averages.

Exact when the run-outs number at most ``EXACT_LIMIT`` (every flop all-in, most pre-flop
all-ins of two boards excepted); otherwise a Monte Carlo of ``SAMPLES`` run-outs drawn by a
``random.Random`` seeded with ``SEED``, so the same spot always gives the same figure. The
unseen cards are the deck minus the tabled hands and the board: folded hands are unknown to
everyone, so they stay in the deck (a figure computed with them would reveal something
about them). Odd chips are not modelled: shares are fractions of chips.
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
    total = 1
    for b in range(boards):
        total *= comb(unseen - b * per_board, per_board)
    return total


def _divide(
    spot: AllInSpot, full: Sequence[Sequence[Card]], acc: dict[int, float], players: list[int]
) -> None:
    """Add one run-out's division of every pot to ``acc``."""
    nboards = len(full)
    highs = [{p: high_value(spot.holes[p], board) for p in players} for board in full]
    lows = (
        [{p: low_value(spot.holes[p], board) for p in players} for board in full]
        if spot.hi_lo
        else None
    )
    for amount, eligible in spot.pots:
        per_board = amount / nboards
        for b in range(nboards):
            high = highs[b]
            best = min(high[p] for p in eligible)
            high_winners = [p for p in eligible if high[p] == best]
            low_winners: list[int] = []
            if lows is not None:
                low = lows[b]
                qualified = [v for p in eligible if (v := low[p]) is not None]
                if qualified:
                    lo = min(qualified)
                    low_winners = [p for p in eligible if low[p] == lo]
            if low_winners:
                half = per_board / 2
                for p in high_winners:
                    acc[p] += half / len(high_winners)
                for p in low_winners:
                    acc[p] += half / len(low_winners)
            else:
                for p in high_winners:
                    acc[p] += per_board / len(high_winners)


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
    if count <= exact_limit:
        if nboards == 1:
            board = spot.boards[0]
            for extra in combinations(unseen, need):
                _divide(spot, (board + extra,), acc, players)
        else:
            for first in combinations(unseen, need):
                rest = [c for c in unseen if c not in first]
                full0 = spot.boards[0] + first
                for second in combinations(rest, need):
                    _divide(spot, (full0, spot.boards[1] + second), acc, players)
        method, runs = "exact", count
    else:
        rng = random.Random(seed)
        for _ in range(samples):
            drawn = rng.sample(unseen, need * nboards)
            full = [
                spot.boards[b] + tuple(drawn[b * need : (b + 1) * need]) for b in range(nboards)
            ]
            _divide(spot, full, acc, players)
        method, runs = "monte-carlo", samples
    return Equity({p: acc[p] / runs for p in players}, pot, method, runs)
