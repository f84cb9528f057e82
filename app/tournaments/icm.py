"""Deal figures for the players left: the chip chop (the prizes left shared in proportion to
the stacks) and ICM, the Malmuth–Harville model: a player finishes first with the probability
of their share of the chips, and, that place taken, each later place likewise among the
others. Exact (fractions); `whole` turns figures into whole units that add up."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from math import comb

#: beyond this many players the exact figures take too long even off the event loop
MAX_PLAYERS = 10


class DealError(ValueError):
    pass


def icm(stacks: Sequence[int], prizes: Sequence[int]) -> list[Fraction]:
    """Each player's expected prize under Malmuth–Harville. `prizes` are those of the places
    still to be paid, best first (fewer than the players: the rest get nothing).

    Over the sets of players placed so far rather than over orders: `reach[S]` is the chance
    that the players of S take the first |S| places (in some order), and the next place goes
    to `i` outside S with `reach[S] * stacks[i] / (chips outside S)`. So player i's equity is
    `stacks[i]` times the sum, over the sets S without i, of `reach[S] * prize / (chips
    outside S)`: one pass per paid place over the sets of that size, O(n·2ⁿ) in all."""
    n = len(stacks)
    if n == 0 or any(s <= 0 for s in stacks):
        raise DealError("every player left has chips")
    if n > MAX_PLAYERS:
        raise DealError(f"ICM is figured for at most {MAX_PLAYERS} players")
    total = sum(stacks)
    reach: dict[int, tuple[Fraction, int]] = {0: (Fraction(1), 0)}  # set -> chance, its chips
    weight = [Fraction(0)] * n
    for prize in prizes[:n]:
        after: dict[int, tuple[Fraction, int]] = {}
        for placed, (chance, chips) in reach.items():
            share = chance / (total - chips)
            paid = share * prize
            for i in range(n):
                if placed >> i & 1:
                    continue
                weight[i] += paid
                bigger = placed | 1 << i
                step = share * stacks[i]
                known = after.get(bigger)
                after[bigger] = (
                    (step, chips + stacks[i]) if known is None else (known[0] + step, known[1])
                )
        reach = after
    return [w * s for w, s in zip(weight, stacks, strict=True)]


def cost(players: int, paid: int) -> int:
    """The steps `icm` takes for this many players and paid places (each a sum of fractions)."""
    return sum(comb(players, k) * (players - k) for k in range(min(paid, players)))


def chip_chop(stacks: Sequence[int], prizes: Sequence[int]) -> list[Fraction]:
    """The prizes left (all of them, the paid places among the players left) shared in
    proportion to the stacks."""
    if not stacks or any(s <= 0 for s in stacks):
        raise DealError("every player left has chips")
    pool = sum(prizes[: len(stacks)])
    total = sum(stacks)
    return [Fraction(pool * s, total) for s in stacks]


def whole(figures: Sequence[Fraction]) -> list[int]:
    """Whole units adding up to the (whole) total of `figures`: each rounded down, the units
    left one each to the largest fractions (the first on a tie)."""
    total = sum(figures, Fraction(0))
    if total.denominator != 1:
        raise DealError("the figures add up to a whole amount")
    floors = [f.numerator // f.denominator for f in figures]
    left = int(total) - sum(floors)
    order = sorted(range(len(figures)), key=lambda i: (-(figures[i] - floors[i]), i))
    for i in order[:left]:
        floors[i] += 1
    return floors
