"""The one bot policy: the practice bots, the protocol tests' bots and the load bench use it.

Pure and deterministic given its random generator: no I/O, no clock. Everything it reads is
what a player sees in docs/protocol.md (its own cards, the board, the `turn` message's
`legal`), never the table's hidden state.

`share` estimates the part of the pot this hand wins against random hands of the live
opponents, by a few hundred run-outs of the unseen cards scored with the engine's own
evaluation (high, eight-or-better low, one or two boards). `decide` turns a share and the
price of a call into an action; `choose` is both (`choose_steps` the same, yielding between
slices of its run-outs, for a caller on an event loop). `random_action` is the bench's policy: any
legal action, cheap enough for thousands of seats.
"""

from __future__ import annotations

import random
from collections.abc import Generator, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app.poker import GAMES, parse_card
from app.poker.evaluation import high_value, low_value

SAMPLES = 300  # run-outs per decision: about +-3% on a share, a few ms of CPU
#: run-outs between two yields of `choose_steps`: at most about a millisecond of CPU on this
#: machine (six-handed Big O on two boards), so a bot never holds its event loop for long
STEP = 20
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
    total = 0.0
    for part in share_steps(game, hole, boards, opponents, rng, samples, samples):
        total += part
    return total / samples


def share_steps(
    game: str,
    hole: Sequence[str],
    boards: Sequence[Sequence[str]],
    opponents: int,
    rng: random.Random,
    samples: int = SAMPLES,
    step: int = SAMPLES,
) -> Iterator[float]:
    """`share`'s run-outs `step` at a time: yields the sum of each step's parts of the pot
    (their total over `samples` is the share), so that a caller on an event loop can let
    others run between steps."""
    spec = GAMES[game]
    mine = [parse_card(c) for c in hole]
    known = [[parse_card(c) for c in board] for board in boards] or [[]]
    if opponents <= 0:
        yield float(samples)
        return
    used = set(mine).union(*known)
    pool = [c for c in DECK if c not in used]
    per_hand = len(mine)
    missing = [5 - len(board) for board in known]
    need = opponents * per_hand + sum(missing)
    n = len(pool)
    if need > n:  # cannot happen in a legal game; be safe rather than raise
        yield samples / (opponents + 1)
        return
    weight = 1.0 / len(known)
    draw = rng.random
    total = 0.0
    for done in range(1, samples + 1):
        # A partial Fisher-Yates shuffle: the first `need` cards of the pool are a uniform
        # draw whatever its order before (random() is one C call; `rng.sample` costs several
        # Python calls a card, half of the bots' time).
        for i in range(need):
            j = i + int(draw() * (n - i))
            pool[i], pool[j] = pool[j], pool[i]
        others = [pool[i * per_hand : (i + 1) * per_hand] for i in range(opponents)]
        k = opponents * per_hand
        for board, gap in zip(known, missing, strict=True):
            full = board + pool[k : k + gap]
            k += gap
            total += weight * _board_share(mine, others, full, spec.hi_lo)
        if done % step == 0 or done == samples:
            yield total
            total = 0.0


def _board_share(
    mine: Sequence[int], others: Sequence[Sequence[int]], board: Sequence[int], hi_lo: bool
) -> float:
    """This hand's part of one board's pot: ties split, a low half when some low qualifies."""
    high = _part(high_value(mine, board), (high_value(o, board) for o in others))
    if not hi_lo:
        return high
    my_low = low_value(mine, board)
    if my_low is None:  # no low: the high half, or the whole pot when nobody has a low
        if high == 0.0:
            return 0.0
        lows = any(low_value(o, board) is not None for o in others)
        return high / 2 if lows else high
    low = _part(my_low, (v for o in others if (v := low_value(o, board)) is not None))
    return (high + low) / 2


def _part(value: int, others: Iterable[int]) -> float:
    """Smaller is stronger: 1 for the best, 1/k for a k-way tie, 0 when beaten (known at
    the first hand that beats it: the rest are not evaluated, a multiway pot's most)."""
    ties = 1
    for v in others:
        if v < value:
            return 0.0
        if v == value:
            ties += 1
    return 1.0 / ties


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
    steps = choose_steps(situation, rng, samples, samples)
    while True:
        try:
            next(steps)
        except StopIteration as done:
            action: dict[str, Any] = done.value
            return action


def choose_steps(
    situation: Situation, rng: random.Random, samples: int = SAMPLES, step: int = STEP
) -> Generator[None, None, dict[str, Any]]:
    """`choose`, yielding after every `step` run-outs; returns the action (the same as
    `choose`'s with the same generator state)."""
    legal = situation.legal
    actions = legal["actions"]
    if "run-twice" in actions or "show" in actions:
        return decide(legal, 0.0, situation.pot, situation.opponents)
    total = 0.0
    for part in share_steps(situation.game, situation.hole, situation.boards,
                            situation.opponents, rng, samples, step):  # fmt: skip
        total += part
        yield None
    return decide(legal, total / samples, situation.pot, situation.opponents)


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
