"""Statistics: known answers on hands played move by move, and the sums over them.

Each hand is built from a stacked deck and a fixed list of actions, stored as review reads
it, and its facts read from the spectator's record; the expected values are worked out by
hand from the definitions in docs/hand-history.md."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from app.history.record import build
from app.history.stats import HandFacts, facts, position_name, totals
from app.poker import GAMES, Action, ActionKind, Betting, HandConfig, HandSetup, HandState
from tests.history.gen import stored_hand
from tests.poker.deal import stacked_deck

PLO = HandConfig(GAMES["omaha"], Betting.POT_LIMIT, small_bet=2)
NAMES = ("Sam", "Bea", "Uma", "Max", "Cal", "Ben")


def play(
    holes: Sequence[str],
    board: str,
    moves: Sequence[tuple[int, str, int | None]],
    stacks: int = 200,
    **setup: object,
) -> list[HandFacts]:
    """A hand of `len(holes)` players (position 0 first after the button) and its facts."""
    n = len(holes)
    blinds = (1, 2) + (0,) * (n - 2) if n > 2 else (2, 1)
    deck = stacked_deck(holes, [board])
    config = setup.pop("config", PLO)
    assert isinstance(config, HandConfig)
    state = HandState(HandSetup(config, (stacks,) * n, blinds=blinds, **setup), deck)  # type: ignore[arg-type]
    for player, kind, amount in moves:
        state.apply(Action(player, ActionKind(kind), amount))
    while not state.complete:  # the showdown: everyone shows
        assert state.actor is not None
        state.apply(Action(state.actor, ActionKind.SHOW))
    stored, _ = stored_hand(
        state, list(deck), 1, tuple(range(n)), tuple(f"p{k}" for k in range(n)), NAMES[:n]
    )
    return facts(build(stored, None, equity=False))


def test_positions_count_from_the_button() -> None:
    assert [position_name(p, 6) for p in range(6)] == ["SB", "BB", "UTG", "HJ", "CO", "BTN"]
    assert [position_name(p, 9) for p in range(9)] == [
        "SB", "BB", "UTG", "MP", "MP", "MP", "HJ", "CO", "BTN",
    ]  # fmt: skip
    assert [position_name(p, 2) for p in range(2)] == ["BB", "BTN"]
    assert [position_name(p, 3) for p in range(3)] == ["SB", "BB", "BTN"]


SIX = ["AsAhKsKh", "2c3d4h5s", "QcJcTd9d", "7h7d6s6c", "8s8h2d2h", "KdQdJsTs"]


def raised_three_bet_and_continued() -> list[HandFacts]:
    """UTG (2) opens to 7, HJ (3) calls, CO (4) three-bets to 25; the button, the blinds
    and HJ fold, UTG calls. On the flop UTG checks, CO (the last raiser) bets 40, UTG
    calls; on the turn UTG checks, CO bets 60, UTG raises to 140 all in (200 - 25 - 40),
    CO calls. The river comes; UTG's aces win."""
    return play(
        SIX,
        "Ac 9h 3s 4d 5h",
        [
            (2, "raise", 7), (3, "call", None), (4, "raise", 25), (5, "fold", None),
            (0, "fold", None), (1, "fold", None), (2, "call", None), (3, "fold", None),
            (2, "check", None), (4, "bet", 40), (2, "call", None),
            (2, "check", None), (4, "bet", 60), (2, "raise", 135), (4, "call", None),
        ],
    )  # fmt: skip


def test_a_three_bet_pot_move_by_move() -> None:
    sb, bb, utg, hj, co, btn = raised_three_bet_and_continued()
    # UTG won CO's 200, HJ's call of 7 and the blinds.
    assert utg == HandFacts(
        seat=2, position="UTG", net=200 + 7 + 1 + 2, all_in=True, saw_flop=True,
        showdown=True, won_showdown=True, vpip_chance=True, vpip=True, pfr=True,
        three_bet_chance=False, three_bet=False, cbet_chance=False, cbet=False,
        bets_raises=1, calls=1,
    )  # fmt: skip
    # HJ called the open: a 3-bet chance not taken; folded to the 3-bet, saw no flop.
    assert (hj.vpip, hj.pfr, hj.three_bet_chance, hj.three_bet) == (True, False, True, False)
    assert (hj.saw_flop, hj.showdown, hj.net) == (False, False, -7)
    # CO three-bet, then bet the flop first: a continuation bet; lost at the showdown.
    assert (co.vpip, co.pfr, co.three_bet_chance, co.three_bet) == (True, True, True, True)
    assert (co.cbet_chance, co.cbet, co.bets_raises, co.calls) == (True, True, 2, 1)
    assert (co.showdown, co.won_showdown, co.net, co.position) == (True, False, -200, "CO")
    # The button faced two raises: no 3-bet chance; the blinds folded their blinds.
    assert (btn.vpip_chance, btn.vpip, btn.three_bet_chance) == (True, False, False)
    assert (sb.net, bb.net, sb.vpip, bb.vpip, bb.position) == (-1, -2, False, False, "BB")
    assert sum(f.net for f in (sb, bb, utg, hj, co, btn)) == 0


def test_a_limped_pot_checked_down_and_a_missed_continuation_bet() -> None:
    """Three-handed: the button raises to 6, the small blind folds, the big blind calls. On
    the flop the big blind checks and the button (the raiser) checks: a c-bet chance
    missed. Checked down: the big blind's kings win."""
    sb, bb, btn = play(
        ["2c3d4h5s", "KsKhQsQh", "7h7d6s6c"],
        "Kd 9c 2s Jh 8d",
        [(2, "raise", 6), (0, "fold", None), (1, "call", None),
         (1, "check", None), (2, "check", None), (1, "check", None), (2, "check", None),
         (1, "check", None), (2, "check", None)],
    )  # fmt: skip
    assert (btn.pfr, btn.cbet_chance, btn.cbet) == (True, True, False)
    assert (btn.showdown, btn.net) == (True, -6)
    assert (bb.vpip, bb.pfr, bb.three_bet_chance, bb.three_bet) == (True, False, True, False)
    assert (bb.won_showdown, bb.net, bb.cbet_chance) == (True, 7, False)
    assert (sb.saw_flop, sb.vpip_chance, sb.net) == (False, True, -1)


def test_a_walk_and_a_bomb_pot_are_no_pre_flop_decisions() -> None:
    _, bb, btn = play(
        ["2c3d4h5s", "KsKhQsQh", "7h7d6s6c"], "", [(2, "fold", None), (0, "fold", None)]
    )
    assert not bb.vpip_chance and bb.net == 1 and not bb.showdown and not bb.saw_flop
    assert btn.vpip_chance and not btn.vpip
    bomb = HandConfig(GAMES["omaha"], Betting.POT_LIMIT, small_bet=2, bomb_pot=True)
    three = ["2c3d4h5s", "KsKhQsQh", "7h7d6s6c"]
    moves: list[tuple[int, str, int | None]] = [
        (0, "check", None), (1, "bet", 6), (2, "fold", None), (0, "fold", None),
    ]  # fmt: skip
    deck = stacked_deck(three, ["Kd 9c 2s"])
    state = HandState(HandSetup(bomb, (100,) * 3, antes=(4,) * 3), deck)
    for player, kind, amount in moves:
        state.apply(Action(player, ActionKind(kind), amount))
    stored, _ = stored_hand(state, deck, 1, (0, 1, 2), ("a", "b", "c"), ("A", "B", "C"))
    got = facts(build(stored, None, equity=False))
    assert all(not f.vpip_chance for f in got)  # no pre-flop betting at all
    assert [f.saw_flop for f in got] == [True, True, True]
    assert got[1].bets_raises == 1 and got[1].net == 8 and not got[1].showdown


def test_totals_are_the_rates_of_the_counts() -> None:
    rows = []
    hands = [raised_three_bet_and_continued(), raised_three_bet_and_continued()]
    for k, hand in enumerate(hands):
        for f in hand:
            row = {**f.__dict__, "player_id": f"p{f.seat}", "game": "omaha", "luck": None}
            rows.append(row)
        rows[-2]["luck"] = 50.0 if k == 0 else -20.0  # CO's all-in luck in each
    figures = totals(rows)
    co = figures["p4"]["all"]
    assert co == {
        "hands": 2, "vpip": 100.0, "pfr": 100.0, "three_bet": 100.0, "cbet": 100.0,
        "wtsd": 100.0, "wsd": 0.0, "aggression": 2.0, "net": -400,
        "all_in_adjusted_net": -370.0,
    }  # fmt: skip
    hj = figures["p3"]["all"]
    assert (hj["vpip"], hj["pfr"], hj["three_bet"], hj["wtsd"], hj["wsd"]) == (
        100.0, 0.0, 0.0, None, None,
    )  # fmt: skip
    assert figures["p3"]["omaha"] == hj
    assert figures["p5"]["all"]["aggression"] is None  # no call after the flop: no ratio


def test_statistics_read_no_card() -> None:
    """A record with an unshown card is refused: statistics read the spectator's."""
    holes = ["2c3d4h5s", "KsKhQsQh", "7h7d6s6c"]
    deck = stacked_deck(holes, ["Kd 9c 2s Jh 8d"])
    state = HandState(HandSetup(PLO, (100,) * 3, blinds=(1, 2, 0)), deck)
    for player, kind in ((2, "fold"), (0, "fold")):
        state.apply(Action(player, ActionKind(kind)))
    stored, _ = stored_hand(state, deck, 1, (0, 1, 2), ("a", "b", "c"), ("A", "B", "C"))
    with pytest.raises(ValueError, match="spectator"):
        facts(build(stored, "a", equity=False))
