"""Payouts: percentages of a prize pool split into whole units (chips or money) that add up
exactly, presets that scale with the field, and places that share a prize.

Percentages are in basis points (1/100 of a percent) so that they add up to exactly 10,000.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Mapping, Sequence

WHOLE = 10_000
#: the sit-and-go presets: 1, 2 or 3 places paid
SMALL: dict[int, tuple[int, ...]] = {1: (10_000,), 2: (6_500, 3_500), 3: (5_000, 3_000, 2_000)}


class BadPayout(ValueError):
    """Percentages that cannot be paid (the message says why)."""


def places_paid(field: int) -> int:
    """How many places a preset pays: 1 up to 4 players, 2 up to 7, 3 up to 27, then an
    eighth of the field, rounded (12.5%: standard structures pay 10-15% of the field)."""
    if field <= 4:
        return 1
    if field <= 7:
        return 2
    return max(3, (field + 4) // 8)


@functools.lru_cache(maxsize=256)
def preset(field: int) -> tuple[int, ...]:
    """The basis points paid to places 1, 2, ... for a field of `field` players: the
    sit-and-go splits up to three places, beyond that place k weighs 1/(k + 1/4) (a first
    prize of about 45% with four places paid, 27% with fifteen, 16% with 125, and a last of
    over a buy-in), in whole basis points that add up to 10,000 (`split`)."""
    if field < 2:
        raise BadPayout("a tournament has at least two players")
    paid = places_paid(field)
    if paid in SMALL:
        return SMALL[paid]
    return tuple(split(WHOLE, [4 * 10**12 // (4 * k + 1) for k in range(1, paid + 1)]))


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
    Players sharing a place share the prizes of the places they cover equally, in whole
    units: each gets the sum divided by their number, rounded down, and the units left one
    each to the first of them in `places`' order (the director lists entries in the order
    they registered). Adds up to what the places cover."""
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
