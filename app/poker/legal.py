"""What may be done now: the legal actions of the player to act, and ``verify``, which
raises ``IllegalAction`` naming the rule an action breaks. Reads the hand, changes nothing."""

from __future__ import annotations

from .actions import (
    BET,
    BETTING,
    CALL,
    CHECK,
    COMPLETE,
    FOLD,
    RAISE,
    RUN_IT_TWICE,
    SHOW,
    SHOWDOWN,
    Action,
    ActionKind,
    LegalActions,
)
from .betting import cap_reached, raise_range
from .errors import IllegalAction
from .games import FIXED_LIMIT, Betting
from .hand import Hand
from .showdown import may_muck


def label(p: int) -> str:
    """A player as PHH names them: p1 is the first clockwise of the button."""
    return f"p{p + 1}"


def legal_actions(hand: Hand) -> LegalActions | None:
    p = hand.actor
    if p is None:
        return None
    if hand.phase is RUN_IT_TWICE:
        return LegalActions(p, hand.phase, vote=True)
    if hand.phase is SHOWDOWN:
        return LegalActions(p, hand.phase, show=True, muck=may_muck(hand, p))
    to_call = hand.max_bet - hand.bets[p]
    rr = raise_range(hand, p)
    return LegalActions(
        p,
        hand.phase,
        fold=True,
        check=to_call == 0,
        call=min(to_call, hand.stacks[p]),
        raise_kind=rr[0] if rr else None,
        min_to=rr[1] if rr else 0,
        max_to=rr[2] if rr else 0,
        pot_to=rr[3] if rr else 0,
    )


def verify(hand: Hand, action: Action) -> None:
    """Raise ``IllegalAction`` naming the rule if ``action`` is not allowed now."""
    p = action.player
    phase = hand.phase
    if phase is BETTING and p == hand.actor and isinstance(p, int):
        # The usual case first, in line (every action passes here): the player to act in
        # a betting round.
        kind, amount = action.kind, action.amount
        if kind is BET or kind is RAISE:
            _verify_wager(hand, p, kind, amount)
            return
        if amount is not None:
            raise IllegalAction(f"{kind} takes no amount", "unexpected_amount")
        if kind is FOLD:
            return
        to_call = hand.max_bet - hand.bets[p]
        if kind is CHECK:
            if to_call:
                raise IllegalAction(f"cannot check facing a bet: {to_call} to call", "cannot_check")
            return
        if kind is CALL:
            if not to_call:
                raise IllegalAction("nothing to call: check instead", "cannot_call")
            return
        raise IllegalAction(f"{kind} is not a betting action", "not_betting")
    if phase is COMPLETE:
        if action.kind is ActionKind.SHOW and hand.may_show(p):
            return
        raise IllegalAction("the hand is over", "hand_over")
    if p != hand.actor or not isinstance(p, int):  # the actor is a player or None
        if not isinstance(p, int) or not 0 <= p < hand.n:
            raise IllegalAction(f"there is no player {p!r} in this hand", "no_such_player")
        who = "nobody" if hand.actor is None else label(hand.actor)
        raise IllegalAction(f"it is {who}'s turn, not {label(p)}'s", "not_your_turn")
    kind = action.kind
    if phase is RUN_IT_TWICE:
        if kind is not ActionKind.RUN_TWICE or not isinstance(action.agree, bool):
            raise IllegalAction("the players all in are voting on running it twice", "vote")
        return
    if phase is SHOWDOWN:
        if kind is SHOW:
            return
        if kind is ActionKind.MUCK:
            if not may_muck(hand, p):
                raise IllegalAction(
                    "this hand is not beaten by the hands shown: it must be shown in full",
                    "must_show",
                )
            return
        raise IllegalAction("at the showdown a hand is shown or mucked", "showdown")
    raise AssertionError(f"no actor in phase {phase}")  # pragma: no cover


def _verify_wager(hand: Hand, p: int, kind: ActionKind, amount: int | None) -> None:
    if not isinstance(amount, int) or isinstance(amount, bool):
        raise IllegalAction(f"{kind} needs a whole number of chips to bet to", "bad_amount")
    rr = raise_range(hand, p)
    if rr is None:
        cap = hand.config.raise_cap
        if hand.config.betting is FIXED_LIMIT and cap_reached(hand):
            raise IllegalAction(f"the betting is capped at {cap} bets this round", "capped")
        raise IllegalAction(f"{label(p)} may not bet or raise now", "cannot_raise")
    want, lo, hi, _ = rr
    if kind is not want:
        raise IllegalAction(
            "nobody has bet: bet instead of raise"
            if want is BET
            else "there is a bet: raise instead of bet",
            "wrong_wager",
        )
    if amount > hand.bets[p] + hand.stacks[p]:
        raise IllegalAction(
            f"{kind} to {amount} is more than {label(p)} has ({hand.bets[p] + hand.stacks[p]})",
            "over_stack",
        )
    if amount < lo:
        what = "fixed bet" if hand.config.betting is FIXED_LIMIT else "minimum"
        raise IllegalAction(f"{kind} to {amount} is below the {what} of {lo}", "below_minimum")
    if amount > hi:
        what = {
            Betting.POT_LIMIT: "pot limit",
            FIXED_LIMIT: "fixed bet",
            Betting.NO_LIMIT: "stack",
        }[hand.config.betting]
        raise IllegalAction(f"{kind} to {amount} is above the {what} of {hi}", "above_maximum")
