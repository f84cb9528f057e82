"""Regression tests for engine bugs found by the differential and property tests.

One test per bug, minimal reproduction first. Others add named rule tests here too:
append, don't reorder.
"""

from __future__ import annotations

from app.poker import (
    GAMES,
    Action,
    ActionKind,
    Betting,
    HandConfig,
    HandSetup,
    HandState,
)


def test_pot_sized_bet_is_never_below_the_minimum_bet() -> None:
    """A bomb pot of two 1-chip antes with a 3-chip minimum bet: the pot (2) is smaller than
    the minimum bet, so the pot-sized bet offered (``pot_to``) must be the minimum, 3 (pot
    limit: equal to ``max_to``), and accepted. It used to be 2, which ``apply`` refuses."""
    config = HandConfig(GAMES["omaha"], Betting.POT_LIMIT, small_bet=3, bomb_pot=True)
    state = HandState(HandSetup(config, (40, 40), antes=(1, 1)), tuple(range(52)))
    la = state.legal_actions()
    assert la is not None and la.raise_kind is ActionKind.BET
    assert (la.min_to, la.max_to, la.pot_to) == (3, 3, 3)
    state.apply(Action(la.player, ActionKind.BET, la.pot_to))


def test_no_limit_pot_sized_bet_is_at_least_the_minimum_bet() -> None:
    config = HandConfig(GAMES["omaha"], Betting.NO_LIMIT, small_bet=5, bomb_pot=True)
    state = HandState(HandSetup(config, (40, 40), antes=(1, 1)), tuple(range(52)))
    la = state.legal_actions()
    assert la is not None
    assert (la.min_to, la.max_to, la.pot_to) == (5, 39, 5)  # 39: the stack after the ante
    state.apply(Action(la.player, ActionKind.BET, la.pot_to))
