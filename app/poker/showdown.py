"""The showdown and the award: the order of showing, who may muck, and how each pot is
divided between runs, boards, high and low, with the odd chips."""

from __future__ import annotations

from .actions import COMPLETE, SHOWDOWN
from .cards import Card, rank_of
from .events import Event, cards_shown, hand_ended, mucked, pot_awarded
from .games import POSITION
from .hand import Hand
from .pots import split_evenly, split_high_low

# (pot, run, board, half, player, amount, contested)
Share = tuple[int, int, int, str, int, int, bool]


def start_showdown(hand: Hand, events: list[Event]) -> None:
    contenders = hand.contenders()
    first = hand.last_aggressor
    if first is None or hand.folded[first]:
        first = contenders[0]
    k = contenders.index(first)
    hand.showdown_order = contenders[k:] + contenders[:k]
    hand.phase = SHOWDOWN
    shown = hand.shown
    for p in hand.showdown_order:  # the first who has not shown (a loop: no comprehension)
        if not shown[p]:
            hand.actor = p
            return
    award(hand, events)


def show_or_muck(hand: Hand, p: int, show: bool, events: list[Event]) -> None:
    if show:
        hand.shown[p] = True
        events.append(cards_shown(p, hand.hole[p]))
    else:
        hand.mucked[p] = True
        events.append(mucked(p))
    shown, gone = hand.shown, hand.mucked
    for q in hand.showdown_order:  # the next to show or muck, as ``start_showdown``
        if not shown[q] and not gone[q]:
            hand.actor = q
            return
    award(hand, events)


def may_muck(hand: Hand, p: int) -> bool:
    """Whether ``p`` may muck, from what is public and ``p``'s own cards only: in every
    pot ``p`` is in, on every board of every run, a hand already shown beats ``p``'s
    high, and ``p`` has no low or a shown low beats it (001: the others reveal "only if
    they can top the hands that have already been revealed"). The first to show must
    show; a hand that could win or tie any part must be shown in full."""
    shown = [q for q in hand.contenders() if q != p and hand.shown[q]]
    if not shown:
        return False
    for pot in hand.gathered():
        if p not in pot.eligible:
            continue
        rivals = [q for q in shown if q in pot.eligible]
        if not rivals:
            return False
        for run in range(hand.runs):
            for b in range(hand.config.boards):
                high, low = hand.values_of(run, b, p)
                theirs = [hand.values_of(run, b, q) for q in rivals]
                if high <= min(v[0] for v in theirs):
                    return False
                if low is not None:
                    lows = [v[1] for v in theirs if v[1] is not None]
                    if not lows or low <= min(lows):
                        return False
    return True


def _odd_chip_card(hand: Hand, run: int, b: int, p: int, low: bool) -> int:
    """The high-card rule's key for ``p`` (smaller wins the chip): the player's own two
    hole cards used in the hand (as the hand reader names them) decide, the highest by
    rank then suit for the high, the lowest (ace low, clubs lowest) for the low. Board
    cards are shared and decide nothing; two players never hold the same card."""
    if low:
        d = hand.describe_low(run, b, p)
        assert d is not None
        return min(((rank_of(c) + 1) % 13) * 4 + (c & 3) for c in d.hole_used)
    return -max(hand.describe_high(run, b, p).hole_used)


def _tie_order(hand: Hand, players: list[int], run: int, b: int, low: bool) -> list[int]:
    if hand.config.odd_chip is POSITION:
        return sorted(players)
    return sorted(players, key=lambda p: _odd_chip_card(hand, run, b, p, low))


def divide(hand: Hand) -> list[Share]:
    """Each share of each pot: (pot, run, board, half, player, amount, contested).

    A pot is split between the runs, then the boards (an odd chip to the first), then
    high and low (an odd chip to the high); each part goes to its best hands. The odd
    chips of a part split between tied hands go one at a time in the odd-chip order,
    passing over a player who already had one from this pot while a tied player in that
    part has none (Robert's, Ties: "No player may receive more than one odd chip"); the
    high-low split's odd chip counts for a high hand that takes it alone.
    A mucked hand gives up its claim: it is dropped from every pot that someone else
    still contests; a pot only it could win (others folded) stays its own.
    """
    shares: list[Share] = []
    cfg = hand.config
    pots = hand.gathered()
    for k, pot in enumerate(pots):
        eligible = [p for p in pot.eligible if not hand.mucked[p]] or list(pot.eligible)
        odd: dict[int, int] = {}  # odd chips each player has had from this pot
        for run, run_amount in enumerate(split_evenly(pot.amount, hand.runs)):
            for b, amount in enumerate(split_evenly(run_amount, cfg.boards)):
                if len(eligible) == 1:
                    shares.append((k, run, b, "whole", eligible[0], amount, False))
                    continue
                high_values: dict[int, int] = {}
                low_values: dict[int, int] = {}
                for p in eligible:
                    high, low = hand.values_of(run, b, p)
                    high_values[p] = high
                    if low is not None:
                        low_values[p] = low
                halves: list[tuple[str, int, dict[int, int]]] = []
                if low_values:
                    hi_amount, lo_amount = split_high_low(amount)
                    halves.append(("high", hi_amount, high_values))
                    halves.append(("low", lo_amount, low_values))
                else:
                    halves.append(("whole", amount, high_values))
                for half, half_amount, half_values in halves:
                    best = min(half_values.values())
                    tied = [p for p in eligible if half_values.get(p) == best]
                    if half == "high" and len(tied) == 1 and half_amount > amount - half_amount:
                        # The hi-lo split's odd chip is an odd chip too (Robert's, Ties 5c):
                        # the high hand that took it gets none from the low's tie.
                        odd[tied[0]] = odd.get(tied[0], 0) + 1
                    order = _tie_order(hand, tied, run, b, half == "low")
                    base, extra = divmod(half_amount, len(order))
                    lucky = sorted(order, key=lambda p: odd.get(p, 0))[:extra] if extra else []
                    for p in lucky:
                        odd[p] = odd.get(p, 0) + 1
                    for p in order:
                        share = base + (1 if p in lucky else 0)
                        if share:
                            shares.append((k, run, b, half, p, share, True))
    return shares


def award(hand: Hand, events: list[Event]) -> None:
    hand.actor = None
    contenders = hand.contenders()
    if len(contenders) == 1:
        # Uncontested: the last player in takes every pot without showing.
        (p,) = contenders
        for k, pot in enumerate(hand.gathered()):
            hand.stacks[p] += pot.amount
            events.append(pot_awarded(k, 0, 0, "whole", p, pot.amount, None, ()))
    else:
        for k, run, b, half, p, amount, contested in divide(hand):
            name: str | None = None
            used: tuple[Card, ...] = ()
            if not contested and not hand.shown[p]:
                pass  # won without a contest: the hand stays unseen
            elif half == "low":
                d = hand.describe_low(run, b, p)
                if d is not None:
                    name, used = d.name, d.cards
            else:
                dh = hand.describe_high(run, b, p)
                name, used = dh.name, dh.cards
            hand.stacks[p] += amount
            events.append(pot_awarded(k, run, b, half, p, amount, name, used))
    hand.committed = [0] * hand.n
    hand.dead = [0] * hand.n
    hand.phase = COMPLETE
    events.append(hand_ended(tuple(hand.stacks)))
