"""Properties of the hand state machine over every game, betting structure and table option.

Hypothesis draws a game from ``GAMES``, a betting structure, one or two boards, bomb pots,
run it twice, straddles, antes, the odd-chip rule, 2 players up to the most the deck can
deal, stacks and a deck order, then plays a hand with random offered actions. Checked:
- chips are conserved at every step (stacks + committed = the starting total) and at the end;
- every action offered by ``legal_actions()`` is accepted: fold, check, call, and bets or
  raises to ``min_to``, ``max_to``, ``pot_to`` and a value in between (each is applied to a
  copy of the hand rebuilt from its history), and so are show, muck where offered, votes;
- amounts outside the offered range (``min_to - 1``, ``max_to + 1``, negative, a bool,
  None), the wrong wager kind, checks facing a bet, calls with nothing to call, mucking a
  winning hand and out-of-turn actions are refused with ``IllegalAction`` and leave
  ``fingerprint()`` unchanged;
- ``HandState.replay(setup, deck, history)`` rebuilds the same fingerprint;
- deals the deck cannot complete are refused with ``ConfigError`` before any card is dealt.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from app.poker import (
    GAMES,
    Action,
    ActionKind,
    Betting,
    ConfigError,
    HandConfig,
    HandSetup,
    HandState,
    IllegalAction,
    LegalActions,
    OddChip,
    Phase,
    cards_needed,
    max_players,
)
from app.poker.events import HandEnded

PROPERTY_SETTINGS = settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@st.composite
def hands(draw: st.DrawFn) -> tuple[HandSetup, tuple[int, ...]]:
    game = draw(st.sampled_from(sorted(GAMES.values(), key=lambda g: g.key)))
    betting = draw(st.sampled_from(list(Betting)))
    boards = draw(st.sampled_from((1, 2)))
    bomb_pot = draw(st.booleans())
    small_bet = draw(st.integers(1, 20))
    config = HandConfig(
        game,
        betting,
        small_bet,
        big_bet=2 * small_bet if betting is Betting.FIXED_LIMIT else 0,
        boards=boards,
        bomb_pot=bomb_pot,
        run_it_twice=draw(st.booleans()),
        raise_cap=draw(st.integers(2, 5)),
        odd_chip=draw(st.sampled_from(list(OddChip))),
        cap_heads_up=draw(st.booleans()),
    )
    n = draw(st.integers(2, max_players(game, boards)))
    # Mostly short stacks so that all-ins, side pots and run-it-twice votes are common.
    stacks = tuple(draw(st.lists(st.integers(1, 80 * small_bet), min_size=n, max_size=n)))
    antes: tuple[int, ...] = ()
    blinds: tuple[int, ...] = ()
    if bomb_pot:
        antes = (draw(st.integers(1, 3 * small_bet)),) * n
    else:
        small_blind = draw(st.integers(1, small_bet))
        listed = [small_blind, small_bet] + [0] * (n - 2)
        if n >= 3 and draw(st.booleans()):
            listed[2] = 2 * small_bet  # a straddle
        blinds = (small_bet, small_blind) if n == 2 else tuple(listed)
        ante = draw(st.sampled_from((0, 0, 1, small_bet)))
        antes = (ante,) * n if ante else ()
    deck = tuple(draw(st.permutations(range(52))))
    return HandSetup(config, stacks, blinds=blinds, antes=antes), deck


def offered(state: HandState, la: LegalActions) -> list[Action]:
    """Every action the engine offers now, with the raise amounts worth trying."""
    p = la.player
    if la.phase is Phase.RUN_IT_TWICE:
        return [
            Action(p, ActionKind.RUN_TWICE, agree=True),
            Action(p, ActionKind.RUN_TWICE, agree=False),
        ]
    if la.phase is Phase.SHOWDOWN:
        out = [Action(p, ActionKind.SHOW)]
        if la.muck:
            out.append(Action(p, ActionKind.MUCK))
        return out
    out = [Action(p, ActionKind.FOLD)]
    if la.check:
        out.append(Action(p, ActionKind.CHECK))
    if la.call:
        out.append(Action(p, ActionKind.CALL))
    if la.raise_kind is not None:
        amounts = {la.min_to, la.max_to, la.pot_to, (la.min_to + la.max_to) // 2}
        out.extend(Action(p, la.raise_kind, amount) for amount in sorted(amounts))
    return out


def refused(state: HandState, la: LegalActions) -> Iterator[Action]:
    """Actions that must be refused now."""
    p = la.player
    for q in range(state.n):
        if q != p:  # out of turn, whatever the action
            yield Action(q, ActionKind.FOLD)
            yield Action(q, ActionKind.CHECK)
            yield Action(q, ActionKind.CALL)
            yield Action(q, ActionKind.SHOW)
            yield Action(q, ActionKind.RUN_TWICE, agree=True)
    yield Action(state.n, ActionKind.FOLD)  # no such player
    if la.phase is Phase.RUN_IT_TWICE:
        yield Action(p, ActionKind.RUN_TWICE)  # a vote needs a yes or no
        yield Action(p, ActionKind.FOLD)
        return
    if la.phase is Phase.SHOWDOWN:
        if not la.muck:
            yield Action(p, ActionKind.MUCK)  # a winning hand must be shown
        yield Action(p, ActionKind.FOLD)
        return
    yield Action(p, ActionKind.SHOW)
    yield Action(p, ActionKind.FOLD, amount=1)
    if la.check:
        yield Action(p, ActionKind.CALL)
    else:
        yield Action(p, ActionKind.CHECK)
    kinds = (ActionKind.BET, ActionKind.RAISE)
    if la.raise_kind is None:
        for kind in kinds:
            yield Action(p, kind, state.max_bet + state.config.small_bet)
        return
    wrong = ActionKind.BET if la.raise_kind is ActionKind.RAISE else ActionKind.RAISE
    yield Action(p, wrong, la.min_to)
    for amount in (la.min_to - 1, la.max_to + 1, -1, -la.min_to, True, False, None):
        yield Action(p, la.raise_kind, amount)


def total(state: HandState) -> int:
    return sum(state.stacks) + sum(state.committed)


def play(setup: HandSetup, deck: tuple[int, ...], seed: int, *, probe: bool) -> HandState:
    """Play a hand with random offered actions, checking the properties at every step.
    ``probe``: also try every offered action on a rebuilt copy, and the refused ones."""
    rng = random.Random(seed)
    state = HandState(setup, deck)
    start = sum(setup.stacks)
    assert total(state) == start
    steps = 0
    while not state.complete:
        la = state.legal_actions()
        assert la is not None and la.player == state.actor
        options = offered(state, la)
        if probe:
            before = state.fingerprint()
            for action in refused(state, la):
                with pytest.raises(IllegalAction):
                    state.apply(action)
                assert not state.can(action)
                assert state.fingerprint() == before, action
            for action in options:
                assert state.can(action), (action, la)
                copy = HandState.replay(setup, deck, state.history)
                copy.apply(action)
                assert total(copy) == start
                assert copy.history[-1] == action
            assert state.fingerprint() == before
        # fold rarely, so that more hands reach the showdown and the all-in run-outs
        # and agree to run it twice more often than not
        keep = [a for a in options if a.kind is not ActionKind.FOLD and a.agree is not False]
        action = rng.choice(keep if keep and rng.random() > 0.15 else options)
        events = state.apply(action)
        assert events
        assert total(state) == start, (action, state.stacks, state.committed)
        steps += 1
        assert steps < 500, "the hand does not end"
    assert sum(state.stacks) == start and not any(state.committed)
    kinds = {a.kind for a in state.history}
    contested = sum(1 for p in range(state.n) if not state.folded[p]) > 1
    event("contested to the end" if contested else "won uncontested")
    event("showdown decision" if ActionKind.SHOW in kinds else "no showdown decision")
    event(f"runs: {state.runs}")
    if ActionKind.MUCK in kinds:
        event("a muck")
    if any(a.kind in (ActionKind.BET, ActionKind.RAISE) for a in state.history):
        event("a bet or raise")
    assert state.legal_actions() is None
    ended = state.log[-1]
    assert isinstance(ended, HandEnded) and ended.stacks == tuple(state.stacks)
    with pytest.raises(IllegalAction):
        state.apply(Action(0, ActionKind.FOLD))
    assert HandState.replay(setup, deck, state.history).fingerprint() == state.fingerprint()
    return state


@PROPERTY_SETTINGS
@given(hands(), st.integers(0, 2**32))
def test_chips_are_conserved_and_replay_rebuilds_the_hand(
    hand: tuple[HandSetup, tuple[int, ...]], seed: int
) -> None:
    setup, deck = hand
    play(setup, deck, seed, probe=False)


@PROPERTY_SETTINGS
@given(hands(), st.integers(0, 2**32))
def test_offered_actions_are_accepted_and_others_refused_without_change(
    hand: tuple[HandSetup, tuple[int, ...]], seed: int
) -> None:
    setup, deck = hand
    play(setup, deck, seed, probe=True)


@PROPERTY_SETTINGS
@given(hands(), st.integers(0, 2**32), st.integers(0, 60))
def test_replay_of_a_partial_history_rebuilds_the_same_state(
    hand: tuple[HandSetup, tuple[int, ...]], seed: int, cut: int
) -> None:
    setup, deck = hand
    full = play(setup, deck, seed, probe=False)
    history = full.history[: min(cut, len(full.history))]
    a = HandState.replay(setup, deck, history)
    b = HandState.replay(setup, deck, history)
    assert a.fingerprint() == b.fingerprint()
    assert total(a) == sum(setup.stacks)


# ------------------------------------------------------------------------ deck limits


@pytest.mark.parametrize("boards", [1, 2])
@pytest.mark.parametrize("key", sorted(GAMES))
def test_deals_the_deck_cannot_complete_are_refused_before_dealing(key: str, boards: int) -> None:
    game = GAMES[key]
    config = HandConfig(game, Betting.POT_LIMIT, 2, boards=boards)
    most = max_players(game, boards)
    assert cards_needed(game, most, boards) <= 52
    assert most == 10 or cards_needed(game, most + 1, boards) > 52
    deck = tuple(range(52))
    # the largest table deals, with run it twice offered or not
    HandState(HandSetup(config, (100,) * most, blinds=(1, 2) + (0,) * (most - 2)), deck)
    for players in (most + 1, 11):
        setup = HandSetup(config, (100,) * players, blinds=(1, 2) + (0,) * (players - 2))
        with pytest.raises(ConfigError):
            HandState(setup, deck)
    # a deck shorter than the deal needs
    needed = cards_needed(game, 2, boards)
    setup = HandSetup(config, (100, 100), blinds=(2, 1))
    with pytest.raises(ConfigError):
        HandState(setup, deck[: needed - 1])
    HandState(setup, deck[:needed])
