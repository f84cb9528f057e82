"""Pots and their division.

Pots are built from what each player committed to the hand: the main pot holds what every
player still in could match; each side pot what only the bigger stacks covered, so nobody
wins from an opponent more than they staked. Dividing is integer arithmetic with the odd
chips placed by rule, so chips are conserved exactly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .frozen import builder


@dataclass(frozen=True, slots=True)
class Pot:
    amount: int
    eligible: tuple[int, ...]  # players still in who may win it, in seat order from the button


_pot = builder(Pot)  # ``Pot(...)``, quicker: every round's close builds the pots


def build_pots(
    committed: Sequence[int], folded: Sequence[bool], dead: Sequence[int] = ()
) -> list[Pot]:
    """Main pot first. Folded players' chips stay in the pots they reached but make them
    eligible for nothing. Adjacent layers with the same eligible players are merged.

    ``dead`` is the part of each player's ``committed`` that is dead money (a missed blind
    posted dead): it goes to the main pot and stakes nothing, so it never makes a side pot.
    """
    if any(dead):
        money = sum(dead)
        staked = [c - d for c, d in zip(committed, dead, strict=True)]
        layered = build_pots(staked, folded)
        if layered:
            layered[0] = _pot(layered[0].amount + money, layered[0].eligible)
        elif money:
            layered = [_pot(money, tuple(i for i, f in enumerate(folded) if not f))]
        return layered
    if len(committed) != len(folded):
        raise ValueError("committed and folded list different players")
    # The players still in with chips in, and whether they all staked alike (the usual
    # case: one pot). A loop, not comprehensions: each builds a function and calls it.
    live: list[int] = []
    first = 0
    alike = True
    for i in range(len(committed)):
        c = committed[i]
        if c > 0 and not folded[i]:
            if not live:
                first = c
            elif c != first:
                alike = False
            live.append(i)
    if not live:
        return []
    if alike:
        return [_pot(sum(committed), tuple(live))]
    live_levels = sorted({committed[i] for i in live})
    pots: list[Pot] = []
    previous = 0
    last = live_levels[-1]
    for level in live_levels:
        # The top layer also takes any chips a folded player put in above every live
        # player's total (possible only when an uncalled bet was not returned).
        cap = max(committed) if level == last else level
        above = [c for c in committed if c > previous]
        amount = sum(c if c < cap else cap for c in above) - previous * len(above)
        eligible = tuple([i for i in live if committed[i] >= level])
        if pots and pots[-1].eligible == eligible:
            pots[-1] = _pot(pots[-1].amount + amount, eligible)
        elif amount:
            pots.append(_pot(amount, eligible))
        previous = level
    return pots


def split_evenly(amount: int, parts: int) -> list[int]:
    """``amount`` into ``parts`` shares, the odd chips to the first shares."""
    if parts == 1:  # the usual case: one run, one board
        return [amount]
    base, extra = divmod(amount, parts)
    return [base + (1 if i < extra else 0) for i in range(parts)]


def split_high_low(amount: int) -> tuple[int, int]:
    """Half to the high, half to the low; an odd chip goes to the high."""
    low = amount // 2
    return amount - low, low
