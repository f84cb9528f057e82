"""All-in equity: each player's share of the pots in expectation over the cards to come.

When every player still in is all in before the river (their hands are tabled), the rest of
the board is dealt without any decision left. What each player "should" win then is the
average of what they would win over every way the remaining board cards can fall:
``equities`` divides each pot on every run-out exactly as the showdown does (each board its
share, each half of a hi-lo pot to its best hands, ties split) and averages.

The work is counted in hand evaluations (run-outs x boards x hands). Exact when that is at
most ``EXACT_LIMIT`` (every all-in on the flop or later; two boards count twice: each
board's division is its own, so the average over the deal is the sum of each board's
average); otherwise a Monte Carlo of ``SAMPLES`` run-outs (fewer with many hands, never
under ``MIN_SAMPLES``: at most about ``EXACT_LIMIT`` evaluations) drawn by a
``random.Random`` seeded with ``SEED``, so the same spot always gives the same figure.
The unseen cards are the deck minus the tabled hands and the board: folded hands are
unknown to everyone, so they stay in the deck (a figure computed with them would reveal
something about them). Odd chips are not modelled: shares are fractions of chips.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from math import comb
from typing import Final

from .actions import ActionKind
from .cards import FULL_DECK, Card
from .evaluation import high_value, low_value
from .events import Acted, BoardDealt, CardsShown, HoleCardsDealt, PotsGathered
from .state import HandState

#: hand evaluations an equity may take (about a second of CPU)
EXACT_LIMIT: Final = 200_000
SAMPLES: Final = 20_000
MIN_SAMPLES: Final = 2_000
SEED: Final = 20261130
#: street equities (the replayer's): the same budget for each street, fewer samples (a
#: hand the viewer cannot see is a random one, drawn in each sample)
STREET_SAMPLES: Final = 2_000


def sample_count(samples: int, hands: int, boards: int, limit: int = EXACT_LIMIT) -> int:
    """Samples for a Monte Carlo over `hands` hands on `boards` boards, within `limit`
    evaluations (never fewer than `MIN_SAMPLES`, never more than asked)."""
    return min(samples, max(MIN_SAMPLES, limit // max(1, hands * boards)))


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
            if len(live) < 2:
                return None  # the winner of an uncontested pot showing
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
    _divide(spot.hi_lo, spot.holes, spot.pots, board, share, acc, players)


def _divide(
    hi_lo: bool,
    holes: Mapping[int, tuple[Card, ...]],
    pots: Sequence[tuple[float, tuple[int, ...]]],
    board: Sequence[Card],
    share: float,
    acc: dict[int, float],
    players: Sequence[int],
) -> None:
    high = {p: high_value(holes[p], board) for p in players}
    low = {p: low_value(holes[p], board) for p in players} if hi_lo else None
    for amount, eligible in pots:
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
    if combos * nboards * len(players) <= exact_limit:
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
        samples = sample_count(samples, len(players), nboards, exact_limit)
        for _ in range(samples):
            drawn = rng.sample(unseen, need * nboards)
            for b, board in enumerate(spot.boards):
                extra = tuple(drawn[b * need : (b + 1) * need])
                _divide_board(spot, board + extra, share / samples, acc, players)
        method, runs = "monte-carlo", samples
    return Equity(dict(acc), pot, method, runs)


# ------------------------------------------------------------------- street equities
@dataclass(frozen=True, slots=True)
class StreetSpot:
    """A street as it was dealt (run 0): the boards, the players still in, and of those the
    hands the viewer knows (``known``); the others (``unknown``) are random hands. ``dead``
    are other cards the viewer knows (their own folded hand)."""

    street: str  # "preflop", "flop", "turn", "river"
    hi_lo: bool
    hole_cards: int
    boards: tuple[tuple[Card, ...], ...]
    known: Mapping[int, tuple[Card, ...]]
    unknown: tuple[int, ...]
    dead: frozenset[Card]


@dataclass(frozen=True, slots=True)
class StreetEquity:
    street: str
    shares: Mapping[int, float]  # known player -> share of the pot in expectation
    method: str  # "exact" or "monte-carlo"
    runouts: int


_STREETS: Final = {0: "preflop", 1: "preflop", 3: "flop", 4: "turn", 5: "river"}


def street_spots(state: HandState, visible: set[int]) -> list[StreetSpot]:
    """Each street the hand reached with two players or more in it, as the viewer who knows
    the hands ``visible`` (their own, the shown ones) saw it. Folded hands of others are
    unknown to everyone: they stay in the deck, as in ``equities``."""
    cfg = state.config
    first = 1 if cfg.game.courchevel else 0  # the exposed card comes before the betting
    boards: list[list[Card]] = [[] for _ in range(cfg.boards)]
    folded: set[int] = set()
    out: list[StreetSpot] = []
    seen: set[str] = set()

    def record() -> None:
        dealt = min(len(b) for b in boards)
        street = _STREETS.get(dealt)
        if street is None or street in seen or dealt < first:
            return
        seen.add(street)
        contenders = [p for p in range(state.n) if p not in folded]
        known = {p: state.hole[p] for p in contenders if p in visible}
        if len(contenders) < 2 or not known:
            return
        dead = {c for p in visible - set(contenders) for c in state.hole[p]}
        out.append(
            StreetSpot(
                street,
                cfg.hi_lo,
                cfg.game.hole_cards,
                tuple(tuple(b) for b in boards),
                known,
                tuple(p for p in contenders if p not in visible),
                frozenset(dead),
            )
        )

    dealt_in = False
    for event in state.log:
        if isinstance(event, HoleCardsDealt):
            dealt_in = True
        elif isinstance(event, BoardDealt):
            if dealt_in:
                record()  # the street before it (a bomb pot has no betting to mark it)
            if event.run == 0:
                boards[event.board].extend(event.cards)
            continue
        if isinstance(event, Acted):
            record()
            if event.kind is ActionKind.FOLD:
                folded.add(event.player)
        elif isinstance(event, CardsShown | PotsGathered):
            record()
    record()
    return out


def street_equity(
    spot: StreetSpot,
    *,
    exact_limit: int = EXACT_LIMIT,
    samples: int = STREET_SAMPLES,
    seed: int = SEED,
) -> StreetEquity:
    """Each known player's share of the pot in expectation, the pot shared by everyone still
    in (each board its half, hi-lo halves, ties split): exact over the run-outs when every
    hand is known and they are few, else a Monte Carlo seeded by ``seed`` and the street."""
    known = {c for h in spot.known.values() for c in h}
    on_board = {c for b in spot.boards for c in b}
    unseen = [c for c in FULL_DECK if c not in known | on_board | spot.dead]
    need = 5 - len(spot.boards[0])
    nboards = len(spot.boards)
    players = sorted([*spot.known, *spot.unknown])
    pots: tuple[tuple[float, tuple[int, ...]], ...] = ((1.0, tuple(players)),)
    acc = dict.fromkeys(players, 0.0)
    combos = comb(len(unseen), need)
    if not spot.unknown and combos * nboards * len(players) <= exact_limit:
        for board in spot.boards:
            part = dict.fromkeys(players, 0.0)
            for extra in combinations(unseen, need):
                _divide(spot.hi_lo, spot.known, pots, board + extra, 1 / nboards, part, players)
            for p in players:
                acc[p] += part[p] / combos
        method, runs = "exact", combos * nboards
    else:
        rng = random.Random(f"{seed}:{spot.street}")
        samples = sample_count(samples, len(players), nboards, exact_limit)
        holes: dict[int, tuple[Card, ...]] = dict(spot.known)
        k = spot.hole_cards
        for _ in range(samples):
            drawn = rng.sample(unseen, k * len(spot.unknown) + need * nboards)
            for i, p in enumerate(spot.unknown):
                holes[p] = tuple(drawn[i * k : (i + 1) * k])
            rest = drawn[k * len(spot.unknown) :]
            for b, board in enumerate(spot.boards):
                extra = tuple(rest[b * need : (b + 1) * need])
                _divide(spot.hi_lo, holes, pots, board + extra, 1 / nboards / samples, acc, players)
        method, runs = "monte-carlo", samples
    return StreetEquity(spot.street, {p: acc[p] for p in spot.known}, method, runs)
