"""The betting rounds: what a bet or raise may be, a betting action's chips, whose turn is
next, and a round's opening, close and what follows it (the next street, the run-out, the
showdown or an uncontested award)."""

from __future__ import annotations

from .actions import (
    BET,
    BETTING,
    CALL,
    CHECK,
    FOLD,
    PREFLOP,
    RAISE,
    RIVER,
    STREETS,
    Action,
    ActionKind,
    Street,
)
from .events import Event, acted, bet_returned, betting_round_started, pots_gathered
from .games import FIXED_LIMIT, MAX_SEATS, NO_LIMIT
from .hand import Hand
from .runout import all_in, deal_street, table_hands
from .showdown import award, start_showdown

# (bet or raise, lowest "to", highest "to", the pot-sized "to")
RaiseRange = tuple[ActionKind, int, int, int]

# _ROTATIONS[n][start]: the n positions clockwise from ``start``, for the turn scan.
_ROTATIONS: list[list[tuple[int, ...]]] = [
    [(*range(start, n), *range(start)) for start in range(n)] for n in range(MAX_SEATS + 1)
]


def raise_range(hand: Hand, p: int) -> RaiseRange | None:
    cfg = hand.config
    all_in_to = hand.bets[p] + hand.stacks[p]
    if all_in_to <= hand.max_bet:
        return None  # can only call (perhaps all in) or fold
    folded, stacks = hand.folded, hand.stacks
    for q in range(hand.n):  # ``can_bet`` inlined: this runs for every bet and raise
        if q != p and not folded[q] and stacks[q] > 0:
            break
    else:
        return None  # everyone else is all in: nobody to bet against
    seen = hand.level_seen[p]
    kind = RAISE if hand.max_bet > 0 else BET
    if cfg.betting is FIXED_LIMIT:
        # Robert's (Betting and Raising 6), TDA 47-B: only a full bet, or an all-in of
        # at least half a bet, reopens the betting for a player who has acted; facing a
        # smaller all-in a player may complete it: the raise goes a bet above the last
        # full level, not above the all-in.
        if seen is not None and hand.full_level <= seen:
            return None
        if cap_reached(hand):
            return None
        fixed = min(hand.full_level + cfg.bet_size(hand.street), all_in_to)
        return kind, fixed, fixed, fixed
    if seen is not None and hand.max_bet - seen < hand.min_increment:
        return None  # a short all-in does not reopen the betting for who has acted
    max_bet = hand.max_bet
    to_call = max_bet - hand.bets[p]
    pot_limit_to = max_bet + sum(hand.committed) + to_call  # ``pot_total``
    min_to = max_bet + hand.min_increment
    # The pot-sized bet is never below the minimum (a pot smaller than the big blind), nor
    # above the stack. (Comparisons, not ``min`` and ``max``: every bet and raise passes.)
    pot_to = pot_limit_to if pot_limit_to > min_to else min_to
    if pot_to > all_in_to:
        pot_to = all_in_to
    max_to = all_in_to if cfg.betting is NO_LIMIT else pot_to  # pot limit: the pot
    return kind, min_to if min_to < all_in_to else all_in_to, max_to, pot_to


def cap_reached(hand: Hand) -> bool:
    """Fixed limit: no more raises this round. Robert's (Betting and Raising 3, 4): the
    cap applies to a pot of three or more players who are not all in, and once reached
    a later fold does not lift it; ``cap_heads_up`` keeps it heads-up (TDA)."""
    if hand.bet_count < hand.config.raise_cap:
        return False
    return hand.capped or hand.config.cap_heads_up or hand.players_with_chips() >= 3


def wager(hand: Hand, action: Action, events: list[Event]) -> None:
    """A legal betting action: fold, check, call, bet or raise."""
    # The hot path of every action: the player's stack and bet read once, and no ``min``
    # (a C call parsing its arguments, dearer than the comparison).
    p, kind = action.player, action.kind
    stacks, bets = hand.stacks, hand.bets
    stack, bet = stacks[p], bets[p]
    put = 0
    if kind is FOLD:
        hand.folded[p] = True
    elif kind is CHECK:
        pass
    elif kind is CALL:
        put = hand.max_bet - bet
        if put > stack:
            put = stack  # all in for less
    else:  # a bet or a raise: ``verify`` let nothing else through
        assert action.amount is not None
        to = action.amount
        put = to - bet
        if hand.config.betting is FIXED_LIMIT:
            # A full bet, or an all-in of at least half a bet, which counts as one.
            if 2 * (to - hand.full_level) >= hand.config.bet_size(hand.street):
                hand.full_level = to
                hand.bet_count += 1
                if hand.bet_count >= hand.config.raise_cap and hand.players_with_chips() >= 3:
                    hand.capped = True
        else:
            increment = to - hand.max_bet
            if increment >= hand.min_increment:
                hand.min_increment = increment
                hand.bet_count += 1
        hand.max_bet = to
        hand.last_aggressor = p
    if put:
        stack -= put
        bet += put
        stacks[p] = stack
        bets[p] = bet
        hand.committed[p] += put
    hand.level_seen[p] = hand.max_bet
    events.append(acted(p, kind, put, bet, stack, stack == 0 and kind is not FOLD))
    if kind is FOLD and hand.folded.count(False) == 1:
        close_round(hand, events)
        award(hand, events)
        return
    nxt = next_to_act(hand, p + 1)
    if nxt is not None:
        hand.actor = nxt
        return
    finish_round_and_continue(hand, events)


def next_to_act(hand: Hand, start: int) -> int | None:
    """The first player from ``start`` on who can bet and has to act: who has not acted
    this round or has less in than the bet."""
    # The hot path of every action: ``can_bet`` inlined, and the players with chips
    # counted only as far as needed (the first one found to act, and one other).
    # (Read one by one: a multiple assignment of more than three names builds a tuple.)
    n = hand.n
    folded = hand.folded
    stacks = hand.stacks
    bets = hand.bets
    max_bet = hand.max_bet
    seen = hand.level_seen
    for q in _ROTATIONS[n][start % n]:
        if not folded[q] and stacks[q] > 0 and (seen[q] is None or bets[q] < max_bet):
            break
    else:
        return None
    # From the seat before ``start`` (``_ROTATIONS[n][-1]`` is the last seat's): the player
    # who has just acted, most often still in with chips.
    for r in _ROTATIONS[n][start - 1]:
        if r != q and not folded[r] and stacks[r] > 0:
            return q  # someone to bet against
    # Alone with chips behind, matching every chip bet (a blind all in for less is called
    # in full only by a player with someone to bet against): nothing to do.
    return None if bets[q] >= max(bets) else q


def open_round(hand: Hand, street: Street, events: list[Event]) -> None:
    """Start a betting round; close it at once if nobody can act."""
    hand.street = street
    hand.phase = BETTING
    hand.level_seen = [None] * hand.n
    hand.last_aggressor = None
    size = hand.config.bet_size(street)
    if street is PREFLOP:
        setup = hand.setup
        blinds = setup.per_player(setup.blinds, "blinds")
        # A blind, straddle or post all in for less must still be called in full (000:
        # the next player "must at least match" the big blind): the level to call is
        # what was due, not what was posted; the shortfall makes a side pot.
        # (``max`` read as few times as it can be: a C call parsing its arguments.)
        top_blind = max(blinds)
        if setup.posts:
            hand.max_bet = max(top_blind, max(setup.posts), max(hand.bets))
        else:  # the usual case: nobody's live bet is above their blind
            hand.max_bet = top_blind
        hand.min_increment = size if size > top_blind else top_blind
        hand.full_level = hand.max_bet
        # The blinds count as the opening bet (and a straddle as a raise) for the cap. (A
        # loop: a set comprehension builds a function and calls it.)
        bet_count = 0
        for level in set(blinds):
            if level >= size:
                bet_count += 1
        hand.bet_count = bet_count
        if hand.n == 2:
            # Heads-up the button (last) posts first, the other player last: the button
            # acts first, with equal blinds too.
            top = 0 if blinds[0] >= blinds[1] else 1
        else:
            # The largest blind, the last of equal ones (a straddle after the big blind).
            top = hand.n - 1 - blinds[::-1].index(top_blind)
        start = (top + 1) % hand.n if blinds[top] > 0 else 0
    else:
        hand.max_bet = 0
        hand.min_increment = size
        hand.full_level = 0
        hand.bet_count = 0
        start = 0
    hand.capped = (
        hand.config.betting is FIXED_LIMIT
        and hand.bet_count >= hand.config.raise_cap
        and hand.players_with_chips() >= 3
    )
    events.append(betting_round_started(street))
    hand.actor = next_to_act(hand, start)
    if hand.actor is None:
        finish_round_and_continue(hand, events)


def close_round(hand: Hand, events: list[Event]) -> None:
    """Return an uncalled bet, gather the bets into the pots."""
    bets = hand.bets
    ordered = sorted(bets)
    excess = ordered[-1] - ordered[-2]  # above the largest bet of the others
    if excess > 0:
        top = bets.index(ordered[-1])  # the one largest bet
        hand.bets[top] -= excess
        hand.committed[top] -= excess
        hand.stacks[top] += excess
        events.append(bet_returned(top, excess))
    hand.bets = [0] * hand.n
    hand.max_bet = 0
    hand.actor = None
    pots = hand.gathered()
    events.append(pots_gathered(tuple([(pot.amount, pot.eligible) for pot in pots])))


def finish_round_and_continue(hand: Hand, events: list[Event]) -> None:
    close_round(hand, events)
    if hand.folded.count(False) == 1:
        award(hand, events)
        return
    if hand.street is RIVER:
        if hand.anyone_all_in():
            table_hands(hand, events)  # TDA: face up for all-ins, the river too
        start_showdown(hand, events)
        return
    if hand.players_with_chips() <= 1:
        all_in(hand, events)
        return
    nxt = STREETS[hand.street + 1]
    deal_street(hand, nxt, 0, events)
    open_round(hand, nxt, events)
