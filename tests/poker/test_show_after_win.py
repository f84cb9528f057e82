"""Showing after an uncontested win: the winner of a pot nobody called may show once; the show
is the hand's last action and replays like any other."""

from __future__ import annotations

import pytest

from app.poker import GAMES, Action, ActionKind, Betting, HandConfig, HandSetup, HandState
from app.poker.errors import IllegalAction
from app.poker.events import CardsShown
from tests.poker.deal import stacked_deck

CONFIG = HandConfig(game=GAMES["omaha"], betting=Betting.POT_LIMIT, small_bet=2, big_bet=2)


def three_handed() -> HandState:
    deck = stacked_deck(["AsAhKsKh", "2c3d4h5s", "7c8d9hTs"])
    return HandState(HandSetup(CONFIG, (100, 100, 100), blinds=(1, 2, 0)), deck)


def fold_to_the_big_blind(state: HandState) -> None:
    while not state.complete:
        assert state.actor is not None
        state.apply(Action(state.actor, ActionKind.FOLD))


def test_the_uncontested_winner_shows_once() -> None:
    state = three_handed()
    fold_to_the_big_blind(state)  # p3 (the button) and p1 (small blind) fold: p2 wins
    assert [state.may_show(p) for p in range(3)] == [False, True, False]
    events = state.apply(Action(1, ActionKind.SHOW))
    assert events == [CardsShown(1, state.hole[1])]
    assert state.shown == [False, True, False] and state.complete
    with pytest.raises(IllegalAction) as again:
        state.apply(Action(1, ActionKind.SHOW))
    assert again.value.code == "hand_over"
    replayed = HandState.replay(state.setup, state.deck, state.history)
    assert replayed.shown == state.shown and replayed.stacks == state.stacks


def test_losers_and_other_actions_are_refused_after_the_hand() -> None:
    state = three_handed()
    fold_to_the_big_blind(state)
    for action in (Action(0, ActionKind.SHOW), Action(1, ActionKind.MUCK),
                   Action(1, ActionKind.CHECK)):  # fmt: skip
        with pytest.raises(IllegalAction) as refused:
            state.apply(action)
        assert refused.value.code == "hand_over"
    assert state.history[-1].kind is ActionKind.FOLD


def test_a_contested_hand_has_no_show_after_it() -> None:
    state = three_handed()
    while not state.complete:
        legal = state.legal_actions()
        assert legal is not None and state.actor is not None
        if legal.phase == "showdown":
            state.apply(Action(state.actor, ActionKind.SHOW))
        elif legal.check:
            state.apply(Action(state.actor, ActionKind.CHECK))
        else:
            state.apply(Action(state.actor, ActionKind.CALL))
    assert not any(state.may_show(p) for p in range(3))
