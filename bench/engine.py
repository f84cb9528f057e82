"""Engine benchmarks: ``.venv/bin/python bench/engine.py [--seed N] [--deals N] ...``.

Evaluation: Omaha high for 4, 5 and 6 hole cards and the eight-or-better low, this engine
against pokerkit (the test-only reference) on the SAME deals, generated from a fixed seed;
pokerkit, being slow, gets a prefix of our deals. Rates are evaluations per second of one
player's hand on a five-card board; card conversion is done before timing for both.

Each benchmark is a function returning ``Row``s; ``main`` prints them as one table.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make ``app`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.poker.cards import Card, card_str
from app.poker.evaluation import high_value, low_value

DEFAULT_SEED = 20250611

Deal = tuple[tuple[Card, ...], tuple[Card, ...]]


@dataclass(frozen=True, slots=True)
class Row:
    what: str
    ours_per_s: float
    ours_n: int
    reference_per_s: float | None  # None when pokerkit is not installed
    reference_n: int

    @property
    def ratio(self) -> float | None:
        return None if self.reference_per_s is None else self.ours_per_s / self.reference_per_s


def make_deals(n_hole: int, count: int, seed: int) -> list[Deal]:
    """``count`` independent deals of ``n_hole`` hole cards and a five-card board."""
    rng = random.Random(seed * 10 + n_hole)
    deck = list(range(52))
    out: list[Deal] = []
    for _ in range(count):
        cards = rng.sample(deck, n_hole + 5)
        out.append((tuple(cards[:n_hole]), tuple(cards[n_hole:])))
    return out


def _rate(evaluate: Callable[[Any, Any], object], deals: Sequence[tuple[Any, Any]]) -> float:
    """Evaluations per second, best of three passes (one pass if a pass is long)."""
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for hole, board in deals:
            evaluate(hole, board)
        elapsed = time.perf_counter() - start
        best = min(best, elapsed)
        if elapsed > 2:
            break
    return len(deals) / best


def bench_evaluation(
    *, seed: int = DEFAULT_SEED, deals: int = 200_000, pokerkit_deals: int = 2_000
) -> list[Row]:
    """Omaha high (4, 5, 6 hole cards) and low (4, 5, 6) evaluations per second."""
    try:
        import pokerkit
    except ImportError:  # pragma: no cover - the benchmark still reports our figures
        pokerkit = None  # type: ignore[assignment]

    rows: list[Row] = []
    for low in (False, True):
        for n_hole in (4, 5, 6):
            ours_deals = make_deals(n_hole, deals, seed)
            ours = _rate(low_value if low else high_value, ours_deals)
            reference: float | None = None
            if pokerkit is not None:
                pk_cards = [next(iter(pokerkit.Card.parse(card_str(c)))) for c in range(52)]
                prefix = [
                    ([pk_cards[c] for c in hole], [pk_cards[c] for c in board])
                    for hole, board in ours_deals[:pokerkit_deals]
                ]
                if low:
                    reference = _rate(pokerkit.OmahaEightOrBetterLowHand.from_game_or_none, prefix)
                else:
                    reference = _rate(pokerkit.OmahaHoldemHand.from_game, prefix)
            what = f"Omaha {'low (8 or better)' if low else 'high'}, {n_hole} hole cards"
            rows.append(Row(what, ours, deals, reference, min(pokerkit_deals, deals)))
    return rows


def format_table(rows: Sequence[Row]) -> str:
    header = ("benchmark", "engine /s", "deals", "pokerkit /s", "deals", "ratio")
    body = [
        (
            r.what,
            f"{r.ours_per_s:,.0f}",
            f"{r.ours_n:,}",
            "n/a" if r.reference_per_s is None else f"{r.reference_per_s:,.0f}",
            f"{r.reference_n:,}",
            "n/a" if r.ratio is None else f"{r.ratio:,.0f}x",
        )
        for r in rows
    ]
    widths = [max(len(line[i]) for line in (header, *body)) for i in range(len(header))]

    def fmt(line: Sequence[str]) -> str:
        first = line[0].ljust(widths[0])
        return "  ".join(
            [first, *(cell.rjust(w) for cell, w in zip(line[1:], widths[1:], strict=True))]
        )

    return "\n".join([fmt(header), fmt(["-" * w for w in widths]), *map(fmt, body)])


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--deals", type=int, default=200_000, help="deals per row, ours")
    parser.add_argument(
        "--pokerkit-deals", type=int, default=2_000, help="the prefix of them pokerkit gets"
    )
    args = parser.parse_args(argv)
    print(f"seed {args.seed}; Python {sys.version.split()[0]}")
    rows = bench_evaluation(seed=args.seed, deals=args.deals, pokerkit_deals=args.pokerkit_deals)
    print(format_table(rows))


if __name__ == "__main__":
    main()
