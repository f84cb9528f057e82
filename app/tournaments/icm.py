"""Deal figures for the players left: the chip chop (the prizes left shared in proportion to
the stacks) and ICM, the Malmuth–Harville model: a player finishes first with the probability
of their share of the chips, and, that place taken, each later place likewise among the
others. Exact (fractions); `whole` turns figures into whole units that add up."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from functools import cache

#: beyond this many players the exact sum over orders is too slow for a page (10! orders)
MAX_PLAYERS = 10


class DealError(ValueError):
    pass


def icm(stacks: Sequence[int], prizes: Sequence[int]) -> list[Fraction]:
    """Each player's expected prize under Malmuth–Harville. `prizes` are those of the places
    still to be paid, best first (fewer than the players: the rest get nothing)."""
    n = len(stacks)
    if n == 0 or any(s <= 0 for s in stacks):
        raise DealError("every player left has chips")
    if n > MAX_PLAYERS:
        raise DealError(f"ICM is figured for at most {MAX_PLAYERS} players")
    paid = tuple(prizes[:n])
    chips = tuple(stacks)

    @cache
    def equity(left: frozenset[int], place: int) -> tuple[Fraction, ...]:
        """Expected prize of each player in `left` over places `place`.. (0-based)."""
        out = [Fraction(0)] * n
        if place >= len(paid) or not left:
            return tuple(out)
        total = sum(chips[i] for i in left)
        for i in left:
            p = Fraction(chips[i], total)
            out[i] += p * paid[place]
            rest = equity(left - {i}, place + 1)
            for j in left - {i}:
                out[j] += p * rest[j]
        return tuple(out)

    return list(equity(frozenset(range(n)), 0))


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
