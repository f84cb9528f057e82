"""Known-answer tests: each rule the rule documents state (../shared/rules), one named test.

Players are numbered by position as the engine numbers them: p1 is the first player
clockwise of the button, the last player is the button.
"""

from __future__ import annotations

from typing import TypedDict

import pytest

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
    OddChip,
    Phase,
    Street,
    parse_cards,
)
from app.poker.events import BoardDealt, CardsShown, HoleCardsDealt, Mucked, PotAwarded
from tests.poker.deal import stacked_deck

K = ActionKind
WORDS = {
    "f": K.FOLD,
    "x": K.CHECK,
    "c": K.CALL,
    "b": K.BET,
    "r": K.RAISE,
    "show": K.SHOW,
    "muck": K.MUCK,
}


def act(state: HandState, script: str) -> None:
    """``"p3 r 7, p1 c, p2 f"``: apply each action, in order."""
    for step in filter(None, (s.strip() for s in script.split(","))):
        who, word, *amount = step.split()
        player = int(who[1:]) - 1
        if word in ("yes", "no"):
            state.apply(Action(player, K.RUN_TWICE, agree=word == "yes"))
            continue
        state.apply(Action(player, WORDS[word], int(amount[0]) if amount else None))


def config(
    game: str = "omaha", betting: Betting = Betting.POT_LIMIT, small_bet: int = 2, **kw: object
) -> HandConfig:
    big = kw.pop("big_bet", small_bet * 2)
    return HandConfig(GAMES[game], betting, small_bet, big_bet=big, **kw)  # type: ignore[arg-type]


def hand(
    stacks: tuple[int, ...],
    blinds: tuple[int, ...],
    holes: list[str] | None = None,
    board: str = "",
    cfg: HandConfig | None = None,
    **kw: object,
) -> HandState:
    cfg = cfg or config()
    if holes is None:
        deck = list(range(52))
    else:
        boards = kw.pop("boards", [board] if board else [])
        deck = stacked_deck(holes, boards, courchevel=cfg.game.courchevel, **kw)  # type: ignore[arg-type]
    return HandState(HandSetup(cfg, stacks, blinds=blinds), deck)


def awards(state: HandState) -> list[PotAwarded]:
    return [e for e in state.log if isinstance(e, PotAwarded)]


def won(state: HandState) -> dict[int, int]:
    out: dict[int, int] = {}
    for a in awards(state):
        out[a.player + 1] = out.get(a.player + 1, 0) + a.amount
    return out


def check_down(state: HandState) -> None:
    while state.phase is Phase.BETTING:
        la = state.legal_actions()
        assert la is not None
        state.apply(Action(la.player, K.CHECK if la.check else K.CALL))


def show_all(state: HandState) -> None:
    while state.phase is Phase.SHOWDOWN:
        assert state.actor is not None
        state.apply(Action(state.actor, K.SHOW))


# --------------------------------------------------------------------- blinds, order
def test_small_then_big_blind_clockwise_of_the_button() -> None:
    s = hand((100, 100, 100, 100), (1, 2, 0, 0))
    assert s.bets == [1, 2, 0, 0]
    assert s.actor == 2  # left of the big blind


def test_preflop_action_starts_left_of_big_blind_and_big_blind_has_its_option() -> None:
    s = hand((100, 100, 100), (1, 2, 0))
    act(s, "p3 c, p1 c")
    la = s.legal_actions()
    assert la is not None and la.player == 1
    assert la.check and la.raise_kind is K.RAISE  # may raise though nobody else did
    act(s, "p2 x")
    assert s.street is Street.FLOP


def test_after_the_flop_first_player_still_in_left_of_button_speaks_first() -> None:
    s = hand((100, 100, 100, 100), (1, 2, 0, 0))
    act(s, "p3 c, p4 c, p1 f, p2 x")
    assert s.street is Street.FLOP
    assert s.actor == 1  # p1 folded: p2 is the first still in clockwise of the button


def test_heads_up_button_posts_small_blind_acts_first_preflop_and_last_after() -> None:
    # Heads-up the button (p2) posts the small blind: blinds read (big, small).
    s = hand((100, 100), (2, 1))
    assert s.actor == 1  # the button acts first before the flop
    act(s, "p2 c, p1 x")
    assert s.street is Street.FLOP and s.actor == 0  # and last after it
    act(s, "p1 x")
    assert s.actor == 1


def test_straddle_acts_last_preflop_and_sets_the_minimum_raise() -> None:
    s = hand((100, 100, 100, 100), (1, 2, 4, 0))
    assert s.actor == 3  # left of the straddle
    la = s.legal_actions()
    assert la is not None and la.call == 4 and la.min_to == 8
    act(s, "p4 c, p1 c, p2 c")
    la = s.legal_actions()
    assert la is not None and la.player == 2 and la.check  # the straddle's option


# ------------------------------------------------------------------ bet sizes
def test_minimum_bet_is_the_big_blind() -> None:
    s = hand((100, 100), (2, 1))
    act(s, "p2 c, p1 x")
    la = s.legal_actions()
    assert la is not None and la.raise_kind is K.BET and la.min_to == 2
    with pytest.raises(IllegalAction, match="below the minimum of 2"):
        s.apply(Action(0, K.BET, 1))


def test_raise_is_at_least_the_last_full_bet_or_raise() -> None:
    s = hand((1000, 1000, 1000), (1, 2, 0), cfg=config(betting=Betting.NO_LIMIT))
    act(s, "p3 r 10")  # a raise of 8
    la = s.legal_actions()
    assert la is not None and la.min_to == 18
    with pytest.raises(IllegalAction, match="below the minimum of 18"):
        s.apply(Action(0, K.RAISE, 17))


def test_short_all_in_does_not_reopen_betting_for_players_who_acted() -> None:
    # p3 raises to 20 (full raise of 18), p1 calls, p2 goes all in for 30: only 10 more,
    # short of a full raise. p3 and p1 already acted: they may call or fold, not raise.
    s = hand((1000, 30, 1000), (1, 2, 0), cfg=config(betting=Betting.NO_LIMIT))
    act(s, "p3 r 20, p1 c")
    la = s.legal_actions()
    assert la is not None and la.player == 1
    act(s, "p2 r 30")
    la = s.legal_actions()
    assert la is not None and la.player == 2 and la.call == 10 and la.raise_kind is None
    with pytest.raises(IllegalAction):
        s.apply(Action(2, K.RAISE, 60))


def test_short_all_in_does_not_restrict_a_player_yet_to_act() -> None:
    s = hand((1000, 1000, 33, 1000), (1, 2, 0, 0), cfg=config(betting=Betting.NO_LIMIT))
    act(s, "p3 r 10, p4 c, p1 c, p2 c")  # flop
    act(s, "p1 b 20, p2 c, p3 r 23")  # p3 all in: 3 more, not a full raise
    la = s.legal_actions()
    assert la is not None and la.player == 3
    assert la.raise_kind is K.RAISE and la.min_to == 43  # p4 has not acted: may raise


def test_short_all_ins_that_add_up_to_a_full_raise_reopen_the_betting() -> None:
    s = hand((1000, 35, 50, 1000), (1, 2, 0, 0), cfg=config(betting=Betting.NO_LIMIT))
    act(s, "p3 c, p4 c, p1 c, p2 x")  # flop, 8 in the pot
    act(s, "p1 b 20, p2 r 33, p3 r 48, p4 c")  # two short all-ins: +13, then +15
    la = s.legal_actions()
    assert la is not None and la.player == 0
    assert la.raise_kind is K.RAISE  # p1 faces 28 more than its bet: a full raise of 20


@pytest.mark.parametrize(
    ("blinds", "expected"),
    [((100, 200, 0), 700), ((1, 2, 0), 7)],
)
def test_pot_limit_first_raise_preflop(blinds: tuple[int, ...], expected: int) -> None:
    # 100-200: "the first player to act can raise to 700: the 200 to call, plus the 500".
    s = hand((100_000,) * 3, blinds)
    la = s.legal_actions()
    assert la is not None and la.max_to == expected and la.pot_to == expected


def test_pot_limit_raise_after_a_bet_of_fifty_into_fifty() -> None:
    # 50 in the middle and a bet of 50: call 50 in your head (150), raise by 150 -> 200.
    s = hand((10_000, 10_000), (25, 25), cfg=config(small_bet=1))
    act(s, "p2 x, p1 x")  # 50 in the middle, flop
    act(s, "p1 b 50")
    la = s.legal_actions()
    assert la is not None and la.max_to == 200
    with pytest.raises(IllegalAction, match="raise to 201 is above the pot limit of 200"):
        s.apply(Action(1, K.RAISE, 201))


def test_pot_limit_raise_after_a_pot_sized_bet_of_one_hundred() -> None:
    s = hand((10_000, 10_000), (50, 50), cfg=config(small_bet=1))
    act(s, "p2 x, p1 x")  # pot 100, flop
    act(s, "p1 b 100")
    la = s.legal_actions()
    assert la is not None and la.max_to == 400


def test_pot_limit_three_handed_raise_sequence_7_23_76() -> None:
    # Blinds 1-2, three players (rules/001). The document: the first player may raise to 7;
    # the small blind has 6 to call and 16 more (to 23: "22" on top of its blind); then "the
    # player at the Big Blind can then raise to 72". 72 does not follow the document's own
    # rule. At the big blind's turn the middle holds 1+2+7 replaced by 23+2+7 = 32; calling
    # 21 makes 53; the raise may be 53 more: to 23 + 53 = 76. We follow the rule.
    s = hand((1000, 1000, 1000), (1, 2, 0))
    la = s.legal_actions()
    assert la is not None and la.player == 2 and la.max_to == 7
    act(s, "p3 r 7")
    la = s.legal_actions()
    assert la is not None and la.player == 0 and la.max_to == 23  # 6 to call, 16 more
    act(s, "p1 r 23")
    la = s.legal_actions()
    # Middle: 23 + 2 + 7 = 32; call 21 -> 53 in the pot; raise by 53 -> 23 + 53 = 76.
    assert la is not None and la.player == 1 and la.max_to == 76
    with pytest.raises(IllegalAction, match="above the pot limit of 76"):
        s.apply(Action(1, K.RAISE, 900))
    assert s.legal_actions() == la  # refused: nothing changed


def test_no_limit_allows_up_to_the_stack() -> None:
    s = hand((500, 800, 300), (1, 2, 0), cfg=config(betting=Betting.NO_LIMIT))
    la = s.legal_actions()
    assert la is not None and la.max_to == 300
    act(s, "p3 r 300")
    la = s.legal_actions()
    assert la is not None and la.max_to == 500


def test_fixed_limit_sizes_small_bet_then_big_bet() -> None:
    cfg = config("omaha-hi-lo", Betting.FIXED_LIMIT, small_bet=2, big_bet=4)
    s = hand((1000, 1000, 1000), (1, 2, 0), cfg=cfg)
    la = s.legal_actions()
    assert la is not None and (la.min_to, la.max_to) == (4, 4)
    act(s, "p3 r 4, p1 c, p2 c")
    la = s.legal_actions()
    assert la is not None and (la.min_to, la.max_to) == (2, 2)  # flop: small bet
    act(s, "p1 x, p2 x, p3 x")
    la = s.legal_actions()
    assert la is not None and (la.min_to, la.max_to) == (4, 4)  # turn: big bet
    with pytest.raises(IllegalAction, match="above the fixed bet of 4"):
        s.apply(Action(0, K.BET, 8))


def test_fixed_limit_caps_at_a_bet_and_three_raises_with_the_blind_as_the_bet() -> None:
    cfg = config("omaha-hi-lo", Betting.FIXED_LIMIT, small_bet=2, big_bet=4)
    s = hand((1000, 1000, 1000), (1, 2, 0), cfg=cfg)
    act(s, "p3 r 4, p1 r 6, p2 r 8")  # blind + 3 raises = 4 bets: capped
    la = s.legal_actions()
    assert la is not None and la.raise_kind is None and la.call == 4
    with pytest.raises(IllegalAction, match="capped at 4 bets"):
        s.apply(Action(2, K.RAISE, 10))
    act(s, "p3 c, p1 c")
    act(s, "p1 b 2, p2 r 4, p3 r 6, p1 r 8")  # flop: bet + 3 raises
    la = s.legal_actions()
    assert la is not None and la.raise_kind is None


# ------------------------------------------------------------- all in, side pots
def test_uncalled_bet_goes_back() -> None:
    s = hand((100, 100, 100), (1, 2, 0), cfg=config(betting=Betting.NO_LIMIT))
    act(s, "p3 r 60, p1 f, p2 f")
    assert s.complete
    assert s.stacks == [99, 98, 103]  # won the blinds; 58 of its 60 came back


def test_nobody_wins_from_an_opponent_more_than_they_staked() -> None:
    # p1 (short, 20) has the best hand; p2 and p3 build a side pot p1 cannot win.
    holes = ["AsAhKsKh", "QsQhJcJd", "7c7d2h3s"]
    s = hand((20, 200, 200), (1, 2, 0), holes, "AdKd8c5h2c", cfg=config(betting=Betting.NO_LIMIT))
    act(s, "p3 r 20, p1 c, p2 c")
    act(s, "p2 b 100, p3 c")
    check_down(s)
    show_all(s)
    assert won(s) == {1: 60, 2: 200}  # main pot 3 x 20 to p1; side pot 2 x 100 to p2
    assert s.stacks == [60, 280, 80]


def test_each_side_pot_split_hi_lo_on_its_own() -> None:
    # p1 short: wins the high of the main pot only; p2 has the low in both pots;
    # p3 the high of the side pot.
    holes = ["AsAhKsKc", "2d3d9h9c", "QcQdJsTs"]
    cfg = config("omaha-hi-lo", Betting.NO_LIMIT)
    s = hand((20, 200, 200), (1, 2, 0), holes, "AdQh7c6h4s", cfg=cfg)
    act(s, "p3 r 20, p1 c, p2 c")
    act(s, "p2 b 50, p3 c")
    check_down(s)
    show_all(s)
    # Main pot 60: high to p1 (trip aces) 30, low to p2 30. Side pot 100: high to p3
    # (trip queens) 50, low to p2 50.
    assert won(s) == {1: 30, 2: 80, 3: 50}
    assert sum(s.stacks) == 420


def test_no_qualifying_low_the_high_scoops() -> None:
    holes = ["AsAhKsKc", "2d3d9h9c"]
    cfg = config("omaha-hi-lo")
    s = hand((100, 100), (2, 1), holes, "AdQhJcTh9s", cfg=cfg)
    act(s, "p2 c, p1 x")
    check_down(s)
    show_all(s)
    assert [(a.half, a.amount) for a in awards(s)] == [("whole", 4)]


def test_quartered_low_splits_only_its_half() -> None:
    # p1 and p2 tie for the low (A-2 each); p3 has the best high. Pot 120: high 60 to p3,
    # low 60 split 30/30: each low earns a quarter of the pot.
    holes = ["Ac2cKhKd", "Ad2dQhQs", "9s9hTdTc"]
    s = hand((100, 100, 100), (20, 40, 0), holes, "3h4s8c9dTh", cfg=config("omaha-hi-lo"))
    act(s, "p3 c, p1 c, p2 x")
    check_down(s)
    show_all(s)
    assert won(s) == {1: 30, 2: 30, 3: 60}


# ------------------------------------------------------------------ odd chips
def test_odd_chip_to_first_winner_clockwise_of_button() -> None:
    # Same straight for p2 and p3 (board plays their two cards the same way); 5 chips in.
    holes = ["2c3d7h8s", "KhQdJc9c", "KsQsJd9d"]
    cfg = config(small_bet=2)
    s = HandState(
        HandSetup(cfg, (100, 100, 100), blinds=(1, 2, 0), antes=(0, 0, 0)),
        stacked_deck(holes, ["Th9h8d4s2h"]),
    )
    act(s, "p3 c, p1 f, p2 x")
    check_down(s)
    show_all(s)
    assert won(s) == {2: 3, 3: 2}  # 5 chips: the odd one to p2, first clockwise


def test_odd_chip_high_card_rule_by_suit() -> None:
    holes = ["2c3d7h8s", "KhQdJc9c", "KsQsJd9d"]
    cfg = config(small_bet=2, odd_chip=OddChip.HIGH_CARD)
    s = HandState(
        HandSetup(cfg, (100, 100, 100), blinds=(1, 2, 0)), stacked_deck(holes, ["Th9h8d4s2h"])
    )
    act(s, "p3 c, p1 f, p2 x")
    check_down(s)
    show_all(s)
    assert won(s) == {2: 2, 3: 3}  # p3's king of spades outranks p2's king of hearts


def test_hi_lo_odd_chip_between_halves_goes_to_the_high() -> None:
    holes = ["AsKsQc2d", "3h4h9c9d"]
    cfg = config("omaha-hi-lo", small_bet=2)
    s = HandState(
        HandSetup(cfg, (100, 100), blinds=(2, 1), dead=(0, 1)),
        stacked_deck(holes, ["5c6c7d8hKd"]),
    )
    act(s, "p2 c, p1 x")  # 2 + 2 + 1 dead = 5
    check_down(s)
    show_all(s)
    halves = {a.half: (a.player + 1, a.amount) for a in awards(s)}
    # p2 makes the straight 5-6-7-8-9 high... and 8-7-6-4-3 low; check each half's size.
    assert halves["high"][1] == 3 and halves["low"][1] == 2


def test_double_board_odd_chip_goes_to_the_first_board() -> None:
    holes = ["AsAhKcKd", "QsQhJcJd"]
    cfg = config(boards=2, small_bet=2)
    s = HandState(
        HandSetup(cfg, (100, 100), blinds=(2, 1), dead=(0, 1)),
        stacked_deck(holes, ["Ad7c8h2s3d", "Qd7d8s2h3c"]),
    )
    act(s, "p2 c, p1 x")
    check_down(s)
    show_all(s)
    by_board = {a.board: (a.player + 1, a.amount) for a in awards(s)}
    assert by_board == {0: (1, 3), 1: (2, 2)}  # each board wins half; the odd chip: board 1


# ------------------------------------------------------------------- showdown
def test_last_bettor_shows_first_then_clockwise_and_losers_may_muck() -> None:
    holes = ["2c3d7h8s", "AsAhKcKd", "QsQhJcJd"]
    s = hand((100, 100, 100), (1, 2, 0), holes, "Ad7c8h2s3h")
    act(s, "p3 c, p1 c, p2 x")
    act(s, "p1 x, p2 x, p3 x")  # flop
    act(s, "p1 x, p2 x, p3 x")  # turn
    act(s, "p1 x, p2 b 6, p3 c, p1 c")  # river: p2 bets
    assert s.phase is Phase.SHOWDOWN and s.actor == 1  # the last bettor shows first
    act(s, "p2 show")
    assert s.actor == 2  # then clockwise
    act(s, "p3 muck")
    assert s.actor == 0
    act(s, "p1 muck")
    assert s.complete
    assert [e.player for e in s.log if isinstance(e, Mucked)] == [2, 0]


def test_without_a_river_bet_first_player_clockwise_of_button_shows_first() -> None:
    s = hand((100, 100, 100), (1, 2, 0), ["2c3d7h8s", "AsAhKcKd", "QsQhJcJd"], "Ad7c8h2s3h")
    act(s, "p3 c, p1 c, p2 x")
    check_down(s)
    assert s.actor == 0


def test_a_winning_hand_must_be_shown_in_full() -> None:
    s = hand((100, 100), (2, 1), ["AsAhKcKd", "QsQhJcJd"], "Ad7c8h2s3h")
    act(s, "p2 c, p1 x")
    check_down(s)
    assert s.actor == 0
    with pytest.raises(IllegalAction, match="must be shown"):
        s.apply(Action(0, K.MUCK))
    act(s, "p1 show")
    shown = [e for e in s.log if isinstance(e, CardsShown)]
    assert shown[0].cards == parse_cards("AsAhKcKd")  # all four hole cards, as dealt


def test_a_player_left_alone_wins_without_showing() -> None:
    s = hand((100, 100, 100), (1, 2, 0))
    act(s, "p3 r 7, p1 f, p2 f")
    assert s.complete
    assert not any(isinstance(e, CardsShown) for e in s.log)
    assert [(a.player, a.hand) for a in awards(s)] == [(2, None)]


def test_all_in_hands_are_tabled_and_the_board_run_out() -> None:
    cfg = config(betting=Betting.NO_LIMIT)
    s = hand((50, 50), (2, 1), ["AsAhKcKd", "QsQhJcJd"], "Ad7c8h2s3h", cfg=cfg)
    act(s, "p2 r 50, p1 c")
    assert s.complete
    assert {e.player for e in s.log if isinstance(e, CardsShown)} == {0, 1}
    assert s.stacks == [100, 0]


# ---------------------------------------------------------------- game variants
def test_courchevel_deals_first_board_card_before_preflop_and_flop_adds_two() -> None:
    cfg = config("courchevel")
    s = hand((100, 100), (2, 1), ["AsAhKcKd9s", "QsQhJcJd9h"], "Ad7c8h2s3h", cfg=cfg)
    assert s.board() == parse_cards("Ad")
    assert s.street is Street.PREFLOP
    act(s, "p2 c, p1 x")
    assert s.board() == parse_cards("Ad7c8h")
    flop = [e for e in s.log if isinstance(e, BoardDealt) and e.street is Street.FLOP]
    assert [len(e.cards) for e in flop] == [2]


def test_bomb_pot_everyone_antes_and_betting_starts_on_the_flop() -> None:
    cfg = config(bomb_pot=True)
    s = HandState(HandSetup(cfg, (100,) * 8, antes=(10,) * 8), list(range(52)))
    assert s.street is Street.FLOP and len(s.board()) == 3
    la = s.legal_actions()
    # Card Player's example: eight players ante 10, the first bet can be up to 80.
    assert la is not None and la.player == 0 and la.raise_kind is K.BET and la.max_to == 80


def test_bomb_pot_refuses_blinds() -> None:
    with pytest.raises(ConfigError):
        HandState(HandSetup(config(bomb_pot=True), (100, 100), blinds=(2, 1)), list(range(52)))


def test_double_board_splits_each_pot_between_the_boards() -> None:
    holes = ["AsAhKcKd", "QsQhJcJd"]
    s = hand((100, 100), (2, 1), holes, cfg=config(boards=2), boards=["Ad7c8h2s3h", "Qd7d8s2h3c"])
    act(s, "p2 c, p1 x")
    check_down(s)
    show_all(s)
    assert won(s) == {1: 2, 2: 2}


def test_run_it_twice_two_runouts_each_for_half_of_every_pot() -> None:
    holes = ["AsAhKcKd", "QsQhJcJd"]
    cfg = config(betting=Betting.NO_LIMIT, run_it_twice=True)
    s = hand((50, 50), (2, 1), holes, "2d7c8h2s3h", cfg=cfg, runs=[["Qd9c4h5h6c"]])
    act(s, "p2 r 50, p1 c")
    assert s.phase is Phase.RUN_IT_TWICE
    act(s, "p1 yes, p2 yes")
    assert s.complete and s.runs == 2
    assert s.board(1) == parse_cards("Qd9c4h5h6c")
    assert s.stacks == [50, 50]  # aces win run one, a set of queens run two


def test_run_it_twice_needs_everyone_to_agree() -> None:
    cfg = config(betting=Betting.NO_LIMIT, run_it_twice=True)
    s = hand((50, 50), (2, 1), ["AsAhKcKd", "QsQhJcJd"], "2d7c8h2s3h", cfg=cfg)
    act(s, "p2 r 50, p1 c, p1 no")
    assert s.complete and s.runs == 1 and s.stacks == [100, 0]


# ------------------------------------------------------------------- the deck
@pytest.mark.parametrize(
    ("game", "boards", "most"),
    [
        ("omaha", 1, 10),
        ("five-card-omaha", 1, 8),
        ("big-o", 1, 8),
        ("courchevel", 1, 8),
        ("six-card-omaha", 1, 7),
        ("six-card-omaha-hi-lo", 1, 7),
        ("omaha", 2, 9),
        ("five-card-omaha", 2, 7),
        ("six-card-omaha", 2, 6),
    ],
)
def test_deck_limits_refuse_a_deal_that_cannot_be_completed(
    game: str, boards: int, most: int
) -> None:
    """The documents' arithmetic: ten four-card hands fit (48 cards with board and burns);
    nine five-card hands leave too few cards for three burns; seven is about the most six
    cards each can deal; a second board takes five more."""
    cfg = config(game, boards=boards)
    HandState(HandSetup(cfg, (100,) * most, blinds=(1, 2) + (0,) * (most - 2)), list(range(52)))
    with pytest.raises(ConfigError, match=f"at most {most} players"):
        HandState(
            HandSetup(cfg, (100,) * (most + 1), blinds=(1, 2) + (0,) * (most - 1)),
            list(range(52)),
        )


def test_hole_cards_dealt_one_at_a_time_from_left_of_button() -> None:
    s = HandState(HandSetup(config(), (100, 100, 100), blinds=(1, 2, 0)), list(range(52)))
    dealt = {e.player: e.cards for e in s.log if isinstance(e, HoleCardsDealt)}
    assert dealt[0] == (0, 3, 6, 9) and dealt[2] == (2, 5, 8, 11)


def test_illegal_action_names_the_rule_and_changes_nothing() -> None:
    s = hand((1000, 1000, 1000), (100, 200, 0), cfg=config(small_bet=200))
    before = s.fingerprint()
    for bad, match in [
        (Action(0, K.CALL), "turn"),
        (Action(2, K.CHECK), "cannot check"),
        (Action(2, K.RAISE, 900), "raise to 900 is above the pot limit of 700"),
        (Action(2, K.RAISE, 300), "below the minimum of 400"),
        (Action(2, K.BET, 500), "raise instead of bet"),
        (Action(7, K.FOLD), "no player"),
    ]:
        with pytest.raises(IllegalAction, match=match):
            s.apply(bad)
        assert s.fingerprint() == before


# ------------------------------------------------- floor rulings (issue 9, docs/rules.md)
def test_blind_all_in_for_less_must_still_be_called_in_full() -> None:
    # 000: the round "opens on the player clockwise of the big blind, who must at least
    # match it"; Robert's Rules (Blinds): a blind all in for less is still called in full.
    # 1-2 with the big blind all in for 1: call 2, raise to at least 4, pot limit to 6.
    s = hand((100, 1, 100), (1, 2, 0))
    la = s.legal_actions()
    assert la is not None and la.player == 2
    assert (la.call, la.min_to, la.max_to) == (2, 4, 6)
    act(s, "p3 c, p1 c")
    assert s.street is Street.FLOP
    # The all-in blind's shortfall makes a side pot as usual.
    assert [(pot.amount, pot.eligible) for pot in s.pots()] == [(3, (0, 1, 2)), (2, (0, 2))]


def test_straddle_all_in_for_less_must_still_be_called_in_full() -> None:
    s = hand((100, 100, 3, 100), (1, 2, 4, 0), cfg=config(betting=Betting.NO_LIMIT))
    la = s.legal_actions()
    assert la is not None and la.player == 3 and (la.call, la.min_to) == (4, 8)


def test_fixed_limit_full_raise_reopens_the_betting_after_a_straddle() -> None:
    # Robert's (Betting and Raising 3): a bet and three raises; only a short all-in fails
    # to reopen. Blinds 1-2, straddle 4 (the raise), 2/4: p5's raise to 6 is the third bet.
    cfg = config(betting=Betting.FIXED_LIMIT, small_bet=2, big_bet=4)
    s = hand((100,) * 5, (1, 2, 4, 0, 0), cfg=cfg)
    act(s, "p4 c, p5 r 6, p1 f, p2 f, p3 c")
    la = s.legal_actions()
    assert la is not None and la.player == 3
    assert la.raise_kind is K.RAISE and (la.min_to, la.max_to) == (8, 8)
    act(s, "p4 r 8")
    la = s.legal_actions()
    assert la is not None and la.raise_kind is None  # four bets: capped


def _fixed_20_40(stacks: tuple[int, ...]) -> HandState:
    """Fixed limit 20/40, blinds 10-20, everyone calls pre-flop: the flop bet is 20."""
    s = hand(stacks, (10, 20, 0), cfg=config(betting=Betting.FIXED_LIMIT, small_bet=20))
    act(s, "p3 c, p1 c, p2 x")
    assert s.street is Street.FLOP
    return s


def test_fixed_limit_all_in_of_less_than_half_a_bet_is_completed_from_the_full_bet() -> None:
    # Robert's (Betting and Raising 6), TDA 47-B: an all-in wager of less than half a bet
    # does not reopen the betting for a player who has acted; a player yet to act may fold,
    # call, or complete the wager. Bet 20, all in to 25: the raise goes to 40, not 45.
    s = _fixed_20_40((1000, 45, 1000))
    act(s, "p1 b 20, p2 r 25")
    la = s.legal_actions()
    assert la is not None and la.player == 2
    assert la.call == 25 and (la.min_to, la.max_to) == (40, 40)
    act(s, "p3 c")
    la = s.legal_actions()
    assert la is not None and la.player == 0 and la.call == 5 and la.raise_kind is None


def test_fixed_limit_short_all_in_bet_may_be_completed_to_a_full_bet() -> None:
    s = _fixed_20_40((25, 1000, 1000))
    act(s, "p1 b 5")  # all in for 5: less than half a bet
    la = s.legal_actions()
    assert la is not None and la.player == 1
    assert la.call == 5 and la.raise_kind is K.RAISE and (la.min_to, la.max_to) == (20, 20)


def test_fixed_limit_all_in_of_half_a_bet_is_a_full_bet_and_reopens() -> None:
    # Robert's: "An all-in wager of a half a bet or more is treated as a full bet" (a $15
    # all-in on a $20 round is raised to $35); it reopens the betting and counts to the cap.
    s = _fixed_20_40((1000, 50, 1000))
    act(s, "p1 b 20, p2 r 30")  # all in: 10 more, half a bet
    la = s.legal_actions()
    assert la is not None and la.player == 2 and (la.min_to, la.max_to) == (50, 50)
    act(s, "p3 c")
    la = s.legal_actions()
    assert la is not None and la.player == 0 and la.raise_kind is K.RAISE and la.min_to == 50
    act(s, "p1 r 50")
    assert s.bet_count == 3  # the bet, the half-bet all-in, the raise
    s3 = _fixed_20_40((35, 1000, 1000))
    act(s3, "p1 b 15")  # an all-in bet of 15 on a 20 round: treated as a full bet
    la = s3.legal_actions()
    assert la is not None and la.player == 1 and la.min_to == 35


def test_fixed_limit_heads_up_is_uncapped_by_default() -> None:
    # Robert's (Betting and Raising 3, 4): the cap applies "for a pot involving three or
    # more players who are not all-in"; unlimited raising heads-up.
    cfg = config(betting=Betting.FIXED_LIMIT, small_bet=2, big_bet=4)
    s = hand((1000, 1000), (2, 1), cfg=cfg)
    act(s, "p2 r 4, p1 r 6, p2 r 8")  # the blind and three raises
    la = s.legal_actions()
    assert la is not None and la.raise_kind is K.RAISE and la.min_to == 10
    capped = hand((1000, 1000), (2, 1), cfg=config(**_fl(), cap_heads_up=True))
    act(capped, "p2 r 4, p1 r 6, p2 r 8")
    la = capped.legal_actions()
    assert la is not None and la.raise_kind is None


class _FixedLimit(TypedDict):
    betting: Betting
    small_bet: int
    big_bet: int


def _fl() -> _FixedLimit:
    return {"betting": Betting.FIXED_LIMIT, "small_bet": 2, "big_bet": 4}


def test_fixed_limit_cap_lifts_when_the_round_becomes_heads_up_before_the_cap() -> None:
    s = hand((1000, 1000, 1000), (1, 2, 0), cfg=config(**_fl()))
    act(s, "p3 r 4, p1 f, p2 r 6, p3 r 8")  # heads-up from the fold on: four bets
    la = s.legal_actions()
    assert la is not None and la.player == 1 and la.raise_kind is K.RAISE
    # "Once the raising is capped on a betting round, it cannot be uncapped by a
    # subsequent fold that leaves two players heads-up."
    s = hand((1000, 1000, 1000), (1, 2, 0), cfg=config(**_fl()))
    act(s, "p3 r 4, p1 r 6, p2 r 8, p3 f")
    la = s.legal_actions()
    assert la is not None and la.player == 0 and la.raise_kind is None


def test_showdown_muck_offer_depends_only_on_hands_already_shown() -> None:
    # 001: the others reveal "only if they can top the hands that have already been
    # revealed"; the first to show must show, whatever the unseen hands hold.
    holes = ["AsAhKcKd", "QsQhJcJd", "TcTd9h9s"]
    s = hand((100, 100, 100), (1, 2, 0), holes, "Ad7c8h2s3h")
    act(s, "p3 c, p1 c, p2 x")
    act(s, "p1 x, p2 x, p3 x")
    act(s, "p1 x, p2 x, p3 x")
    act(s, "p1 x, p2 b 6, p3 c, p1 c")
    la = s.legal_actions()
    assert la is not None and la.player == 1 and not la.muck  # p1 beats p2 unseen
    with pytest.raises(IllegalAction, match="must be shown"):
        s.apply(Action(1, K.MUCK))
    act(s, "p2 show")
    la = s.legal_actions()
    assert la is not None and la.player == 2 and la.muck  # tens lose to the queens shown
    act(s, "p3 muck")
    la = s.legal_actions()
    assert la is not None and la.player == 0 and not la.muck  # aces beat the queens
    act(s, "p1 show")
    assert s.complete and won(s) == {1: 24}


def test_all_in_hands_are_tabled_before_the_showdown_on_the_river_too() -> None:
    # TDA "face up for all-ins": once a player is all in and all betting is over, every
    # hand in the pot is turned face up; on the river there is no show-or-muck choice left.
    cfg = config(betting=Betting.NO_LIMIT)
    s = hand((50, 100), (2, 1), ["QsQhJcJd", "AsAhKcKd"], "Ad7c8h2s3h", cfg=cfg)
    act(s, "p2 c, p1 x")
    act(s, "p1 x, p2 x")
    act(s, "p1 x, p2 x")
    act(s, "p1 b 48, p2 c")
    assert s.complete
    assert {e.player for e in s.log if isinstance(e, CardsShown)} == {0, 1}


def _heads_up_ten_chip_pot(cfg: HandConfig, boards: list[str]) -> HandState:
    holes = ["Ac5dThJh", "Ad5cTsJs"]  # the same high (five-high straight) and low (wheel)
    s = hand((100, 100), (2, 1), holes, cfg=cfg, boards=boards)
    act(s, "p2 c, p1 x, p1 b 3, p2 c")  # 10 chips
    check_down(s)
    show_all(s)
    return s


def test_hi_lo_tie_both_ways_no_player_gets_a_second_odd_chip() -> None:
    # Robert's (Ties 4): "No player may receive more than one odd chip." 10 chips, tied for
    # the high (5 -> 3/2) and the low (5): the low's odd chip goes to the other player.
    s = _heads_up_ten_chip_pot(config("omaha-hi-lo"), ["2c3d4h9sKd"])
    assert won(s) == {1: 5, 2: 5}


def test_the_high_hands_odd_chip_counts_against_one_from_the_low_tie() -> None:
    # Robert's (Ties 4, 5c): the high hand receives "the odd chip" of the hi-lo split, and no
    # player receives more than one. 11 chips: p1 alone has the high (full house), p1 and p2
    # share the wheel. High 6 to p1 (its odd chip), low 5 -> 3/2: the odd one to p2, though
    # p1 comes first clockwise of the button.
    holes = ["Ac5dKh4s", "Ad5cJsTs"]
    cfg = config("omaha-hi-lo", small_bet=2)
    s = HandState(
        HandSetup(cfg, (100, 100), blinds=(2, 1), dead=(0, 1)),
        stacked_deck(holes, ["2c3d4hKcKs"]),
    )
    act(s, "p2 c, p1 x, p1 b 3, p2 c")  # 2 + 2 + 1 dead + 3 + 3 = 11
    check_down(s)
    show_all(s)
    halves = [(a.half, a.player + 1, a.amount) for a in awards(s)]
    assert sorted(halves) == [("high", 1, 6), ("low", 1, 2), ("low", 2, 3)]
    assert won(s) == {1: 8, 2: 3}


def test_double_board_tie_on_both_boards_splits_odd_chips_one_each() -> None:
    s = _heads_up_ten_chip_pot(config(boards=2), ["2c3d4h9sKd", "2h3s4c9dKh"])
    assert won(s) == {1: 5, 2: 5}


def test_run_it_twice_tie_in_both_runs_splits_odd_chips_one_each() -> None:
    cfg = config(run_it_twice=True)
    holes = ["Ac5dThJh", "Ad5cTsJs"]
    s = hand((5, 5), (2, 1), holes, "2c3d4h9sKd", cfg=cfg, runs=[["2h3s4c9dKh"]])
    act(s, "p2 r 5, p1 c, p1 yes, p2 yes")
    assert s.complete and s.runs == 2
    assert won(s) == {1: 5, 2: 5}


def test_high_card_odd_chip_is_decided_by_the_hole_cards_used() -> None:
    # Both play A-K-Q from the board with J-T: the highest card of the five (the board's
    # ace) is shared and decides nothing; the players' own cards do: p2's jack of spades
    # beats p1's jack of hearts.
    cfg = config(odd_chip=OddChip.HIGH_CARD)
    s = HandState(
        HandSetup(cfg, (100, 100), blinds=(2, 1), dead=(0, 1)),
        stacked_deck(["JhTc4c5c", "JsTh6d7d"], ["AdKdQc3s2h"]),
    )
    act(s, "p2 c, p1 x")
    check_down(s)
    show_all(s)
    assert won(s) == {1: 2, 2: 3}


def test_heads_up_equal_blinds_button_acts_first_before_the_flop() -> None:
    # 000: "Heads-up ... the button posting the small blind and acting first before the
    # shared cards appear"; with blinds 2-2 the button still acts first.
    s = hand((100, 100), (2, 2))
    assert s.actor == 1
    act(s, "p2 x, p1 x")  # the big blind keeps its option; then the button acts last
    assert s.street is Street.FLOP and s.actor == 0


def test_high_card_odd_chip_for_the_low_is_the_lowest_hole_card_used() -> None:
    # 002: "the player with the lowest card (considering rank and suit) gets the chip".
    # Both make the wheel with the board's ace, two and three: the ace is shared; p2's four
    # of clubs is lower than p1's four of diamonds. 7 chips: high 4 (2/2), low 3 (p2 2, p1 1).
    cfg = config("omaha-hi-lo", odd_chip=OddChip.HIGH_CARD)
    s = HandState(
        HandSetup(cfg, (100, 100), blinds=(2, 1), dead=(0, 3)),
        stacked_deck(["4d5hJcTc", "4c5sJhTh"], ["Ac2d3h9sKd"]),
    )
    act(s, "p2 c, p1 x")
    check_down(s)
    show_all(s)
    lows = {a.player + 1: a.amount for a in awards(s) if a.half == "low"}
    assert lows == {1: 1, 2: 2}


def test_a_short_big_blind_posts_the_blind_before_the_big_blind_ante() -> None:
    """TDA 2024 RP-11: "If a single-payer ante is used, the big blind ante format (BBA) with
    big-blind-first calculation is recommended." Issue 25's case: at 50-100 with a 100 big-blind
    ante, the big blind holding 150 posts the blind in full (live) and 50 of the ante; called
    by both, they play for 350 (three big blinds and the 50), not 250 (ante first)."""
    cfg = config(small_bet=100)
    s = HandState(HandSetup(cfg, (1000, 150, 1000), blinds=(50, 100, 0), dead=(0, 100, 0)),
                  list(range(52)))  # fmt: skip
    assert (s.bets[1], s.dead[1], s.stacks[1]) == (100, 50, 0)
    act(s, "p3 c, p1 c")  # the button calls, the small blind completes: the flop
    assert s.street is Street.FLOP
    main, *side = s.pots()
    assert (main.amount, set(main.eligible)) == (350, {0, 1, 2}) and not side


def test_a_short_returning_player_posts_the_live_big_blind_before_the_dead_small() -> None:
    """Robert's (Buttons and Blinds): "If a player chooses to post the total amount of the
    blinds, an amount up to the size of the minimum opening bet is live. The remainder is taken
    by the dealer to the center of the pot and is not part of the player's bet." """
    cfg = config(small_bet=2)
    s = HandState(HandSetup(cfg, (100, 100, 2, 100), blinds=(1, 2, 0, 0), posts=(0, 0, 2, 0),
                            dead=(0, 0, 1, 0)), list(range(52)))  # fmt: skip
    assert (s.bets[2], s.dead[2], s.stacks[2]) == (2, 0, 0)
