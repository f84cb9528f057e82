"""The one bot policy: the practice bots, the protocol tests' bots and the load bench use it.

Pure and deterministic given its random generator: no I/O, no clock. Everything it reads is
what a player sees in docs/protocol.md (its own cards, the board, the `turn` message's
`legal`), never the table's hidden state.

`share` estimates the part of the pot this hand wins against random hands of the live
opponents, by a few hundred run-outs of the unseen cards scored with the engine's own
evaluation (high, eight-or-better low, one or two boards). `decide` turns a share and the
price of a call into an action; `choose` is both. `random_action` is the bench's policy: any
legal action, cheap enough for thousands of seats.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app.poker import GAMES, parse_card
from app.poker.evaluation import high_value, low_value

SAMPLES = 300  # run-outs per decision: about +-3% on a share, a few ms of CPU
DECK = tuple(range(52))


@dataclass(frozen=True)
class Situation:
    """What a player knows when it is to act."""

    game: str  # a key of app.poker.GAMES
    hole: tuple[str, ...]  # own hole cards
    boards: tuple[tuple[str, ...], ...]  # the cards of each board so far (first run)
    opponents: int  # players still in the hand besides this one
    pot: int  # every chip in the middle, this round's bets included
    legal: Mapping[str, Any]  # the `legal` of the `turn` message


def share(
    game: str,
    hole: Sequence[str],
    boards: Sequence[Sequence[str]],
    opponents: int,
    rng: random.Random,
    samples: int = SAMPLES,
) -> float:
    """The expected fraction of the pot won against `opponents` random hands (0..1)."""
    spec = GAMES[game]
    mine = [parse_card(c) for c in hole]
    known = [[parse_card(c) for c in board] for board in boards] or [[]]
    if opponents <= 0:
        return 1.0
    used = set(mine).union(*known)
    unseen = [c for c in DECK if c not in used]
    per_hand = len(mine)
    missing = [5 - len(board) for board in known]
    need = opponents * per_hand + sum(missing)
    if need > len(unseen):  # cannot happen in a legal game; be safe rather than raise
        return 1.0 / (opponents + 1)
    weight = 1.0 / len(known)
    total = 0.0
    for _ in range(samples):
        cards = rng.sample(unseen, need)
        others = [cards[i * per_hand : (i + 1) * per_hand] for i in range(opponents)]
        k = opponents * per_hand
        for board, gap in zip(known, missing, strict=True):
            full = board + cards[k : k + gap]
            k += gap
            total += weight * _board_share(mine, others, full, spec.hi_lo)
    return total / samples


def _board_share(
    mine: Sequence[int], others: Sequence[Sequence[int]], board: Sequence[int], hi_lo: bool
) -> float:
    """This hand's part of one board's pot: ties split, a low half when some low qualifies."""
    high = _part(high_value(mine, board), [high_value(o, board) for o in others])
    if not hi_lo:
        return high
    my_low = low_value(mine, board)
    lows = [v for o in others if (v := low_value(o, board)) is not None]
    if my_low is None and not lows:
        return high
    low = 0.0 if my_low is None else _part(my_low, lows)
    return (high + low) / 2


def _part(value: int, others: Sequence[int]) -> float:
    """Smaller is stronger: 1 for the best, 1/k for a k-way tie, 0 when beaten."""
    best = min(others, default=value + 1)
    if value < best:
        return 1.0
    if value > best:
        return 0.0
    return 1.0 / (1 + sum(1 for v in others if v == value))


def decide(legal: Mapping[str, Any], share: float, pot: int, opponents: int) -> dict[str, Any]:
    """The action for a share of the pot and the price: raise strong hands, call when the
    share beats the pot odds, check when free, fold otherwise; vote yes to running it twice
    (less variance); at the showdown muck when allowed (the engine allows it only to a hand
    that wins nothing), else show."""
    actions = legal["actions"]
    if "run-twice" in actions:
        return {"action": "run-twice", "agree": True}
    if "show" in actions:
        return {"action": "muck"} if "muck" in actions else {"action": "show"}
    fair = 1.0 / (max(opponents, 1) + 1)
    raise_at = fair + (1.0 - fair) * 0.35  # heads-up 0.68, six-handed 0.46
    pot_at = fair + (1.0 - fair) * 0.6  # heads-up 0.8, six-handed 0.67
    call = int(legal.get("call", 0))
    for kind in ("bet", "raise"):
        if kind in actions and share >= raise_at:
            lo, hi, pot_to = int(legal["min_to"]), int(legal["max_to"]), int(legal["pot_to"])
            target = pot_to if share >= pot_at else (lo + pot_to) // 2
            return {"action": kind, "amount": max(lo, min(hi, target))}
    if "check" in actions:
        return {"action": "check"}
    price = call / (pot + call) if pot + call > 0 else 1.0
    if "call" in actions and share >= price:
        return {"action": "call"}
    return {"action": "fold"}


def choose(situation: Situation, rng: random.Random, samples: int = SAMPLES) -> dict[str, Any]:
    """`decide` on the share `share` estimates (no run-outs when none are needed)."""
    legal = situation.legal
    actions = legal["actions"]
    if "run-twice" in actions or "show" in actions:
        return decide(legal, 0.0, situation.pot, situation.opponents)
    estimate = share(
        situation.game, situation.hole, situation.boards, situation.opponents, rng, samples
    )
    return decide(legal, estimate, situation.pot, situation.opponents)


def random_action(legal: Mapping[str, Any], rng: random.Random) -> dict[str, Any]:
    """Any legal action, at random (the load bench: cheap, and every path gets exercised)."""
    actions = legal["actions"]
    if "run-twice" in actions:
        return {"action": "run-twice", "agree": rng.random() < 0.5}
    if "show" in actions:
        if "muck" in actions and rng.random() < 0.5:
            return {"action": "muck"}
        return {"action": "show"}
    r = rng.random()
    for kind in ("bet", "raise"):
        if kind in actions and r < 0.25:
            amount = rng.choice([legal["min_to"], legal["min_to"], legal["pot_to"],
                                 legal["max_to"]])  # fmt: skip
            return {"action": kind, "amount": amount}
    if "check" in actions:
        return {"action": "check"}
    if r < 0.4 and "fold" in actions:
        return {"action": "fold"}
    return {"action": "call"}
