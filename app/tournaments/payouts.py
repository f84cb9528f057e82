"""Payouts: percentages of a prize pool split into whole units (chips or money) that add up
exactly, presets by field size, and places that share a prize.

Percentages are in basis points (1/100 of a percent) so that they add up to exactly 10,000.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

#: (largest field, basis points per place) for fields up to that size; the last row beyond
PRESETS: tuple[tuple[int, tuple[int, ...]], ...] = (
    (4, (10_000,)),
    (7, (6_500, 3_500)),
    (10, (5_000, 3_000, 2_000)),
    (20, (4_000, 2_500, 1_700, 1_100, 700)),
    (30, (3_500, 2_200, 1_500, 1_100, 900, 800)),
    (50, (3_000, 2_000, 1_400, 1_100, 900, 700, 500, 400)),
    (10**9, (2_600, 1_700, 1_200, 950, 800, 700, 600, 550, 450, 450)),
)
WHOLE = 10_000


class BadPayout(ValueError):
    """Percentages that cannot be paid (the message says why)."""


def preset(field: int) -> tuple[int, ...]:
    """The basis points paid to places 1, 2, ... for a field of `field` players."""
    if field < 2:
        raise BadPayout("a tournament has at least two players")
    return next(points for largest, points in PRESETS if field <= largest)


def check(points: Sequence[int], field: int) -> None:
    """Whole basis points, none negative, never more for a worse place, adding up to 100%
    (or none: places only), and no more places paid than players."""
    if not points:
        return
    if any(not isinstance(p, int) or isinstance(p, bool) or p < 0 for p in points):
        raise BadPayout("payouts are whole basis points, none negative")
    if sum(points) != WHOLE:
        raise BadPayout("payouts add up to 100% (10,000 basis points)")
    if any(b > a for a, b in itertools.pairwise(points)):
        raise BadPayout("a better place is never paid less than a worse one")
    if len(points) > field:
        raise BadPayout("more places paid than players")


def split(pool: int, points: Sequence[int]) -> list[int]:
    """`pool` units by `points`: each place its share rounded down, then the units left one
    each to the largest remainders (the better place first on a tie). Adds up to `pool`."""
    if pool < 0:
        raise BadPayout("a prize pool is not negative")
    if not points:
        return []
    total = sum(points)
    shares = [pool * p // total for p in points]
    left = pool - sum(shares)
    by_remainder = sorted(range(len(points)), key=lambda i: (-(pool * points[i] % total), i))
    for i in by_remainder[:left]:
        shares[i] += 1
    return shares


def prizes(places: Mapping[str, int], amounts: Sequence[int]) -> dict[str, int]:
    """Each player's prize, from their place (1 is first) and the prize of each place.
    Players sharing a place share the prizes of the places they cover equally, the odd
    units going one each to the first of them in `places`' order."""
    out: dict[str, int] = {}
    groups: dict[int, list[str]] = {}
    for player, place in places.items():
        groups.setdefault(place, []).append(player)
    for place, players in groups.items():
        covered = range(place - 1, place - 1 + len(players))
        pot = sum(amounts[i] for i in covered if i < len(amounts))
        each, odd = divmod(pot, len(players))
        for k, player in enumerate(players):
            out[player] = each + (1 if k < odd else 0)
    return out
