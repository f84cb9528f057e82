"""PHH hand histories: the real hands replay to their finishing stacks, every hand the engine
can play survives write -> read -> write, and broken files are refused with the action."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from app.poker import (
    GAMES,
    Action,
    ActionKind,
    Betting,
    HandConfig,
    HandSetup,
    HandState,
    OddChip,
    Phase,
    Street,
    card_str,
    max_players,
)
from app.poker.events import BoardDealt
from app.poker.phh import HandHistory, PHHError, dumps, loads, parse_variant, variant_code

ROOT = Path(__file__).resolve().parents[2]
# The real hands sit beside the checkout; OMAHA_PHH_DIR names them from anywhere else.
PHH_DIR = Path(os.environ.get("OMAHA_PHH_DIR", ROOT / ".." / "shared" / "phh"))
REAL_HANDS = sorted(PHH_DIR.glob("*.phh")) if PHH_DIR.is_dir() else []


def test_the_real_hands_are_there() -> None:
    if not PHH_DIR.is_dir():
        pytest.skip(f"{PHH_DIR} does not exist")
    assert len(REAL_HANDS) >= 22


# --------------------------------------------------------------------- real hands
@pytest.mark.parametrize("path", REAL_HANDS, ids=[p.stem for p in REAL_HANDS])
def test_real_hand_replays_to_its_finishing_stacks(path: Path) -> None:
    text = path.read_text()
    data = tomllib.loads(text)
    hand = loads(text)
    state = hand.replay()
    assert state.complete
    if "finishing_stacks" in data:
        assert hand.stacks_out(state.stacks) == data["finishing_stacks"]
    else:  # the 2009 hand: pokerkit's replay, checked by hand (Blom all in and loses)
        assert path.stem == "antonius-blom-2009"
        assert hand.stacks_out(state.stacks) == [1937923.75, 0]
    if data["variant"] == "FO/8":
        assert hand.setup.config.betting is Betting.FIXED_LIMIT
        assert hand.setup.config.big_bet == 2 * hand.setup.config.small_bet


@pytest.mark.parametrize("path", REAL_HANDS, ids=[p.stem for p in REAL_HANDS])
def test_real_hand_round_trips(path: Path) -> None:
    first = loads(path.read_text())
    written = first.dumps()
    second = loads(written)
    assert second.setup == first.setup
    assert second.deck == first.deck
    assert second.actions == first.actions
    assert second.scale == first.scale
    assert second.unknown == first.unknown
    assert second.replay().fingerprint() == first.replay().fingerprint()
    assert second.dumps() == written
    # Metadata survives, the unknown hole cards stay unknown.
    data, again = tomllib.loads(path.read_text()), tomllib.loads(written)
    for key in ("players", "event", "year", "ante_trimming_status", "author"):
        if key in data:
            assert again[key] == data[key]
    for line in tomllib.loads(path.read_text())["actions"]:
        if "????????" in line:
            assert line in again["actions"]


def test_decimal_amounts_are_scaled_to_whole_chips() -> None:
    hand = loads((PHH_DIR / "antonius-blom-2009.phh").read_text()) if REAL_HANDS else None
    if hand is None:
        pytest.skip("no real hands")
    assert hand.scale == 100
    assert hand.setup.stacks == (125945025, 67847350)
    # Heads-up, PHH lists the blinds button-last: p1 posts the big blind.
    assert hand.setup.blinds == (100000, 50000)
    written = tomllib.loads(hand.dumps())
    assert written["starting_stacks"] == [1259450.25, 678473.5]
    assert written["finishing_stacks"] == [1937923.75, 0]
    assert written["blinds_or_straddles"] == [500, 1000]


def test_big_blind_ante_is_dead_money() -> None:
    """01-26-14: the big blind (who also antes) loses at the showdown to a player who put in
    less than the ante plus his bets; the ante is not his to take back."""
    path = PHH_DIR / "wsop_2023_43_5_01-26-14.phh"
    if not path.exists():
        pytest.skip("no real hands")
    hand = loads(path.read_text())
    assert hand.setup.antes == ()
    assert hand.setup.dead == (0, 100000, 0, 0, 0)
    assert tomllib.loads(hand.dumps())["antes"] == [0, 100000, 0, 0, 0]


def call_down(state: HandState) -> None:
    """Everyone checks or calls to the river and shows."""
    while not state.complete:
        legal = state.legal_actions()
        assert legal is not None
        kinds = legal.kinds()
        kind = next(k for k in (ActionKind.SHOW, ActionKind.CHECK, ActionKind.CALL) if k in kinds)
        state.apply(Action(legal.player, kind))


def test_a_short_big_blind_writes_the_ante_it_posted() -> None:
    """A big blind of 3 chips at 1-2 with a big-blind ante of 2 posts the blind first and 1
    of the ante (TDA RP-11, big-blind-first): the file says 1, so that a reader which posts
    antes before blinds (pokerkit) posts the same blind of 2."""
    config = HandConfig(GAMES["omaha"], Betting.POT_LIMIT, 2)
    setup = HandSetup(config, (50, 3, 50), blinds=(1, 2, 0), dead=(0, 2, 0))
    state = HandState(setup, list(range(52)))
    assert state.committed[1] == 3 and state.bets[1] == 2
    call_down(state)
    text = dumps(state)
    assert tomllib.loads(text)["antes"] == [0, 1, 0]
    assert loads(text).replay().log == state.log


def test_a_dead_blind_beside_antes_is_written_as_uneven_antes() -> None:
    """A player back from missing the small blind posts it dead at a table with antes: the
    file's antes are uneven (the standard's dead money, which pokerkit plays), and are read
    back as the ante everyone posted and the rest dead."""
    config = HandConfig(GAMES["omaha"], Betting.POT_LIMIT, 2)
    setup = HandSetup(config, (50, 50, 50, 50), blinds=(1, 2, 0, 0), antes=(1,) * 4,
                      dead=(0, 0, 0, 1))  # fmt: skip
    state = HandState(setup, list(range(52)))
    call_down(state)
    data = tomllib.loads(dumps(state))
    assert data["antes"] == [1, 1, 1, 2] and "_dead" not in data
    hand = loads(dumps(state))
    assert hand.setup.antes == (1,) * 4 and hand.setup.dead == (0, 0, 0, 1)
    assert hand.replay().log == state.log


# --------------------------------------------------------------- variant codes
@pytest.mark.parametrize(
    ("code", "courchevel", "game", "betting"),
    [
        ("PO", False, "omaha", Betting.POT_LIMIT),
        ("FO/8", False, "omaha-hi-lo", Betting.FIXED_LIMIT),
        ("NO", False, "omaha", Betting.NO_LIMIT),
        ("PO/8", False, "omaha-hi-lo", Betting.POT_LIMIT),
        ("PO5", False, "five-card-omaha", Betting.POT_LIMIT),
        ("PO5/8", False, "big-o", Betting.POT_LIMIT),
        ("PO6", False, "six-card-omaha", Betting.POT_LIMIT),
        ("FO6/8", False, "six-card-omaha-hi-lo", Betting.FIXED_LIMIT),
        ("PO5", True, "courchevel", Betting.POT_LIMIT),
        ("NO5/8", True, "courchevel-hi-lo", Betting.NO_LIMIT),
    ],
)
def test_variant_codes(code: str, courchevel: bool, game: str, betting: Betting) -> None:
    spec, b = parse_variant(code, courchevel=courchevel)
    assert (spec.key, b) == (game, betting)
    assert variant_code(HandConfig(spec, b, 2, 4)) == code


@pytest.mark.parametrize("code", ["NT", "PO4", "PO7", "O", "po", "FO/9", "PO3"])
def test_unknown_variant_codes(code: str) -> None:
    with pytest.raises(PHHError, match="unknown variant"):
        parse_variant(code)
    with pytest.raises(PHHError, match="unknown variant"):
        parse_variant("PO", courchevel=True)


# ------------------------------------------------------------ engine-generated hands
def random_hand(rng: random.Random, config: HandConfig, players: int) -> HandState:
    big = config.small_bet
    stacks = tuple(
        rng.choice([big * rng.randint(1, 8), big * rng.randint(10, 120)]) + rng.randint(0, 9)
        for _ in range(players)
    )
    if config.bomb_pot:
        setup = HandSetup(config, stacks, antes=(big,) * players)
    else:
        blinds = [0] * players
        if players == 2:
            blinds = [big, big // 2]
        else:
            blinds[0], blinds[1] = big // 2, big
        antes: tuple[int, ...] = ()
        dead: tuple[int, ...] = ()
        roll = rng.random()
        if roll < 0.25:
            antes = (max(1, big // 10),) * players
        elif roll < 0.5:  # a big-blind ante
            dead = tuple(big if i == (0 if players == 2 else 1) else 0 for i in range(players))
        setup = HandSetup(config, stacks, blinds=tuple(blinds), antes=antes, dead=dead)
    deck = list(range(52))
    rng.shuffle(deck)
    state = HandState(setup, deck)
    while not state.complete:
        la = state.legal_actions()
        assert la is not None
        p = la.player
        if la.phase is Phase.RUN_IT_TWICE:
            state.apply(Action(p, ActionKind.RUN_TWICE, agree=rng.random() < 0.7))
        elif la.phase is Phase.SHOWDOWN:
            muck = la.muck and rng.random() < 0.5
            state.apply(Action(p, ActionKind.MUCK if muck else ActionKind.SHOW))
        else:
            choices: list[Action] = []
            if la.check:
                choices += [Action(p, ActionKind.CHECK)] * 3
            if la.call:
                choices += [Action(p, ActionKind.CALL)] * 3
                choices.append(Action(p, ActionKind.FOLD))
            if la.raise_kind is not None:
                to = rng.choice([la.min_to, la.max_to, rng.randint(la.min_to, la.max_to)])
                choices += [Action(p, la.raise_kind, to)] * 2
            state.apply(rng.choice(choices))
    return state


#: Hands per game/structure/boards/bomb/run-it-twice combination (192 combinations).
HANDS_PER_CASE = 6

CASES = [
    (game, betting, boards, bomb, twice)
    for game in GAMES
    for betting in Betting
    for boards in (1, 2)
    for bomb, twice in ((False, False), (True, False), (False, True), (True, True))
]


@pytest.mark.parametrize(
    ("game", "betting", "boards", "bomb", "twice"),
    CASES,
    ids=[f"{g}-{b}-{n}b{'-bomb' if x else ''}{'-rit' if t else ''}" for g, b, n, x, t in CASES],
)
def test_engine_hands_round_trip(
    game: str, betting: Betting, boards: int, bomb: bool, twice: bool
) -> None:
    rng = random.Random(f"{game}/{betting}/{boards}/{bomb}/{twice}")
    spec = GAMES[game]
    for _ in range(HANDS_PER_CASE):
        small = rng.choice([2, 10, 20, 100])
        config = HandConfig(
            spec,
            betting,
            small_bet=small,
            big_bet=2 * small if betting is Betting.FIXED_LIMIT else 0,
            boards=boards,
            bomb_pot=bomb,
            run_it_twice=twice,
            odd_chip=rng.choice(list(OddChip)),
            cap_heads_up=rng.random() < 0.5,
        )
        players = rng.randint(2, max_players(spec, boards))
        state = random_hand(rng, config, players)
        scale = rng.choice([1, 1, 100])
        text = dumps(state, scale=scale, metadata={"hand": 7, "players": ["a", "b"]})
        first = loads(text)
        replayed = first.replay()
        assert replayed.log == state.log
        assert replayed.history == state.history
        assert replayed.stacks == state.stacks
        written = first.dumps()
        second = loads(written)
        assert (second.setup, second.deck, second.actions) == (
            first.setup,
            first.deck,
            first.actions,
        )
        assert second.replay().fingerprint() == replayed.fingerprint()
        assert written == first.dumps()
        assert tomllib.loads(written)["players"] == ["a", "b"]
        # Redacted: the hand still replays, and no unshown hole card is in the text.
        redacted = dumps(state, scale=scale, redact=True)
        try:
            assert loads(redacted).replay().stacks == state.stacks
        except PHHError as error:
            # Unknown mucked cards are replaced by unused ones; rarely (many cards, two
            # boards, hi-lo) none of those lose, and the engine will not muck a winner.
            assert "mucks at the showdown" in error.message
            assert any(state.mucked)
        for p in range(players):
            if not state.shown[p]:
                for c in state.hole[p]:
                    assert card_str(c) not in redacted
            else:
                assert "".join(card_str(c) for c in state.hole[p]) in redacted


def test_redaction_keeps_the_viewers_own_cards() -> None:
    rng = random.Random(5)
    config = HandConfig(GAMES["omaha"], Betting.POT_LIMIT, 10)
    for _ in range(20):
        state = random_hand(rng, config, 4)
        hidden = [p for p in range(4) if not state.shown[p]]
        if hidden:
            break
    viewer = hidden[0]
    text = dumps(state, redact=True, viewer=viewer)
    assert f"d dh p{viewer + 1} {''.join(card_str(c) for c in state.hole[viewer])}" in text
    for p in hidden[1:]:
        assert f"d dh p{p + 1} {'??' * 4}" in text


def test_extra_keys_and_actions_are_written() -> None:
    """Our extensions in the standard's terms: user-defined keys, no action it does not
    have (the votes are a key; a second board's and a second run's cards plain ``d db``
    lines with a commentary), and a bomb pot's pre-flop as a round everyone checks."""
    rng = random.Random(11)
    config = HandConfig(
        GAMES["courchevel"], Betting.POT_LIMIT, 10, boards=2, bomb_pot=True, run_it_twice=True
    )
    for _ in range(200):
        state = random_hand(rng, config, 3)
        if state.runs == 2:
            break
    assert state.runs == 2
    data = tomllib.loads(dumps(state))
    assert data["variant"] == "PO5"
    assert data["_courchevel"] is True and data["_board_count"] == 2
    assert data["_bomb_pot"] is True and data["_run_it_twice"] is True
    assert data["_run_it_twice_votes"] == ["p1 y", "p2 y"]
    assert not {"courchevel", "board_count", "bomb_pot", "run_it_twice"} & set(data)
    actions = [a.split("#")[0].split() for a in data["actions"]]
    assert all(a[:2] in (["d", "dh"], ["d", "db"]) or a[1] in ("f", "cc", "cbr", "sm")
               for a in actions if a)  # fmt: skip
    assert all(len(a) == 3 for a in actions if a[:2] == ["d", "db"])
    assert any(a.endswith("# run 2, board 2") for a in data["actions"])
    # Courchevel: one exposed card per board, then the bomb pot's checks, then the flops.
    assert data["actions"][3] == f"d db {data['actions'][3].split()[2]} # board 1"
    assert len(data["actions"][3].split()[2]) == 2
    assert data["actions"][4].endswith("# board 2")
    assert data["actions"][5] == "p1 cc # bomb pot: no pre-flop betting"
    assert data["actions"][6:8] == ["p2 cc", "p3 cc"]
    assert len(data["actions"][8].split()[2]) == 4  # the flop's other two cards
    assert loads(dumps(state)).replay().log == state.log


def test_two_boards_run_twice_are_listed_as_pokerkit_reads_them() -> None:
    """The standard has no run it twice; pokerkit, its reference reader, numbers a run-out's
    boards board by board (board 1 run 1, board 1 run 2, board 2 run 1, board 2 run 2) and
    fills them in the order of the file. So after the cards both runs share, board 1's two
    runs come street by street, then board 2's; each line names its board and run."""
    rng = random.Random(3)
    config = HandConfig(GAMES["omaha"], Betting.POT_LIMIT, 10, boards=2, run_it_twice=True)
    for _ in range(500):
        state = random_hand(rng, config, 3)
        runs = [e for e in state.log if isinstance(e, BoardDealt) and e.run]
        if runs and runs[0].street is Street.TURN:  # all in on the flop: a shared flop
            break
    else:
        pytest.fail("no hand all in on the flop and run twice")
    lines = tomllib.loads(dumps(state))["actions"]
    boards = [a.split("# ")[1] for a in lines if a.startswith("d db")]
    shared = ["board 1", "board 2"]  # the flop
    runs_of_board_1, runs_of_board_2 = ["board 1", "run 2, board 1"], ["board 2", "run 2, board 2"]
    assert boards == shared + runs_of_board_1 * 2 + runs_of_board_2 * 2  # turn, river each
    turns = [e.cards for e in state.log if isinstance(e, BoardDealt) and e.street is Street.TURN]
    dealt = [a.split()[2] for a in lines if a.startswith("d db")]
    # the engine deals run 1's turns (board 1, board 2), then run 2's
    assert dealt[2] == card_str(turns[0][0]) and dealt[3] == card_str(turns[2][0])
    assert dealt[6] == card_str(turns[1][0]) and dealt[7] == card_str(turns[3][0])
    assert loads(dumps(state)).replay().log == state.log


FIXTURES = Path(__file__).parent / "fixtures"


@pytest.mark.parametrize(
    ("name", "finishing"),
    [("old-double-board-run-twice", [69, 605, 4]), ("old-posts-and-votes", [0, 0, 500, 0, 0])],
)
def test_files_written_before_are_still_read(name: str, finishing: list[int]) -> None:
    """Exports of the previous version (bare extension keys, ``pN rt y`` votes, ``d db ..
    b2 r2``) replay, and are written back in today's form, which replays the same."""
    text = (FIXTURES / f"{name}.phh").read_text()
    hand = loads(text)
    state = hand.replay()
    assert hand.stacks_out(state.stacks) == finishing
    again = loads(hand.dumps())
    assert again.replay().log == state.log
    assert " rt " not in hand.dumps() and " b2" not in hand.dumps()


def test_no_op_lines_are_skipped() -> None:
    data = tomllib.loads(BASE)
    actions = ["", "# a standalone commentary", *data["actions"][:5], "  ", *data["actions"][5:]]
    text = BASE.replace(BASE[BASE.index("actions") : BASE.index("finishing")], "")
    text += "actions = [" + ", ".join(repr(a) for a in actions) + "]\n"
    assert loads(text).stacks_out(loads(text).replay().stacks) == data["finishing_stacks"]


# --------------------------------------------------------------- broken files
BASE = """\
variant = 'PO'
antes = [0, 100000, 0, 0, 0]
blinds_or_straddles = [50000, 100000, 0, 0, 0]
min_bet = 100000
starting_stacks = [4100000, 5550000, 3075000, 10125000, 6850000]
actions = ['d dh p1 QhQdTc2h', 'd dh p2 AsJc6d5s', 'd dh p3 QcJh8s2c', 'd dh p4 KhTd8d3s',
  'd dh p5 AhAc7h2d', 'p3 f', 'p4 f', 'p5 cbr 350000', 'p1 f', 'p2 cbr 1100000',
  'p5 cbr 3350000', 'p2 f']
finishing_stacks = [4050000, 4350000, 3075000, 10125000, 8100000]
"""


def test_base_hand_is_fine() -> None:
    assert loads(BASE).stacks_out(loads(BASE).replay().stacks) == [
        4050000, 4350000, 3075000, 10125000, 8100000,
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("min_bet = 100000\n", "min_bet = \n", "not valid TOML"),
        ("'PO'", "'PX'", "unknown variant 'PX'"),
        ("'PO'", "'FO/8'", "fixed limit: it takes small_bet and big_bet"),
        ("QhQdTc2h", "QhQdTc2x", r"action 1 \(d dh p1 QhQdTc2x\): 'Tc2x'|'2x' is not a card"),
        (
            "AhAc7h2d",
            "AhAc7hQh",
            r"action 5 \(d dh p5 AhAc7hQh\): Qh is already dealt \(action 1\)",
        ),
        ("QcJh8s2c", "QcJh8s", r"action 3 \(d dh p3 QcJh8s\): 3 hole cards: Omaha deals 4"),
        (
            "'p5 cbr 3350000'",
            "'p5 cbr 5000000'",
            r"action 11 \(p5 cbr 5000000\): raise to 5000000 is above the pot limit of 3450000",
        ),
        (
            "'p5 cbr 350000'",
            "'p5 cbr 150000'",
            r"action 8 \(p5 cbr 150000\): raise to 150000 is below the minimum of 200000",
        ),
        ("'p3 f', 'p4 f'", "'p4 f', 'p3 f'", r"action 6 \(p4 f\): it is p3's turn, not p4's"),
        ("'p2 f']", "'p2 f', 'p1 cc']", r"action 13 \(p1 cc\): the hand is over"),
        ("'p2 f']", "'p2 f', 'd db Ks7s4c']", r"action 13 \(d db Ks7s4c\): no board cards"),
        ("'p2 f']", "'p2 cc']", "the actions end before the flop is dealt"),
        (
            "'p2 f']",
            "'p2 cc', 'd db Ks7s4c', 'p2 cc']",
            r"before the hand is over \(p5 is to act\)",
        ),
        ("'p3 f', 'p4 f'", "'p3 f', 'p6 f'", r"action 7 \(p6 f\): there is no p6 in a hand of 5"),
        ("antes = [0, 100000, 0, 0, 0]", "antes = [0, 100000, 0, 0]", "antes lists 4 players"),
        ("'p3 f', 'p4 f'", "'p3 f', 'p4 xx'", r"action 7 \(p4 xx\): unknown action"),
        ("'d dh p5 AhAc7h2d', ", "", "p5 is never dealt hole cards"),
        ("4050000, 4350000", "4050001, 4350000", "finishing_stacks .* do not match"),
        ("min_bet = 100000\n", "min_bet = 100000\nbring_in = 5\n", "bring-in"),
        ("'p3 f', 'p4 f'", "'p3 f', 'p4 f', 'p5 sm AhAc7h2d'", r"action 8 .* before the showdown"),
    ],
)
def test_broken_files_are_refused(old: str, new: str, message: str) -> None:
    assert old in BASE
    with pytest.raises(PHHError, match=message):
        loads(BASE.replace(old, new, 1)).replay()


def test_fixed_limit_sizes_are_enforced() -> None:
    text = """\
variant = 'FO/8'
antes = [0, 0, 0]
blinds_or_straddles = [100, 200, 0]
small_bet = 200
big_bet = 400
starting_stacks = [5000, 5000, 5000]
actions = ['d dh p1 8d7d5d4d', 'd dh p2 Jc9s9d6s', 'd dh p3 As8c7s5h', 'p3 cbr 500']
"""
    with pytest.raises(PHHError, match=r"action 4 \(p3 cbr 500\): raise to 500 is above the fixed"):
        loads(text)
    capped = text.replace("'p3 cbr 500'", "'p3 cbr 400', 'p1 cbr 600', 'p2 cbr 800', 'p3 cbr 1000'")
    with pytest.raises(PHHError, match=r"action 7 \(p3 cbr 1000\): the betting is capped at 4"):
        loads(capped)


def test_rule_messages_use_the_files_unit() -> None:
    text = BASE.replace("4100000, 5550000", "4100000.5, 5550000").replace(
        "'p5 cbr 3350000'", "'p5 cbr 5000000'"
    )
    with pytest.raises(PHHError, match=r"action 11 \(p5 cbr 5000000\): .* pot limit of 3450000$"):
        loads(text)
    capped = """\
variant = 'FO/8'
antes = [0, 0, 0]
blinds_or_straddles = [100, 200, 0]
small_bet = 200
big_bet = 400
starting_stacks = [5000.5, 5000, 5000]
actions = ['d dh p1 8d7d5d4d', 'd dh p2 Jc9s9d6s', 'd dh p3 As8c7s5h',
  'p3 cbr 400', 'p1 cbr 600', 'p2 cbr 800', 'p3 cbr 1000']
"""
    with pytest.raises(PHHError, match=r"p3 cbr 1000\): the betting is capped at 4 bets"):
        loads(capped)


def test_show_order_follows_the_engine() -> None:
    """A file may list the showdown in another order; the engine's order is used (the result
    does not depend on it) and a hand already tabled all in is not shown twice."""
    path = PHH_DIR / "wsop_2023_43_5_03-32-24.phh"
    if not path.exists():
        pytest.skip("no real hands")
    text = path.read_text()
    swapped = text.replace(
        "'p1 sm Ad5d4s2c', 'p2 sm QcTc7c3h', 'p4 sm 4d3s3c2d'",
        "'p4 sm 4d3s3c2d', 'p2 sm QcTc7c3h', 'p1 sm Ad5d4s2c'",
    )
    assert swapped != text
    assert loads(swapped).replay().stacks == loads(text).replay().stacks


def test_a_mucked_winner_is_refused() -> None:
    text = BASE.replace(
        "'p2 f']",
        "'p2 cc', 'd db Ks7s4c', 'p2 cc', 'p5 cc', 'd db 3c', 'p2 cc', 'p5 cc', "
        "'d db 4d', 'p2 cc', 'p5 cc', 'p2 sm', 'p5 sm']",
    ).replace("finishing_stacks", "# finishing_stacks")
    with pytest.raises(PHHError, match=r"action 22 \(p2 sm\): .*must be shown"):
        loads(text)


def test_unknown_cards_needed_at_the_showdown() -> None:
    text = (
        BASE.replace("QhQdTc2h", "????????")
        .replace("'p1 f'", "'p1 cc'")
        .replace("'p2 f']", "'p1 f', 'p2 f']")
        .replace("finishing_stacks", "# finishing_stacks")
    )
    assert loads(text).replay()  # folded: its cards are never needed
    allin = (
        BASE.replace("AsJc6d5s", "????????")
        .replace("'p2 f']", "'p2 cc', 'd db Ks7s4c', 'd db 3c', 'd db 4d']")
        .replace("starting_stacks = [4100000, 5550000", "starting_stacks = [4100000, 3450000")
    )
    with pytest.raises(PHHError, match="p2's hole cards are unknown"):
        loads(allin)


# --------------------------------------------------------------------------- CLI
def run_replay(*files: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "app", "replay", *files],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_cli_replay(tmp_path: Path) -> None:
    good = tmp_path / "good.phh"
    good.write_text(BASE)
    broken = tmp_path / "broken.phh"
    broken.write_text(BASE.replace("'p5 cbr 3350000'", "'p5 cbr 5000000'"))
    scaled = tmp_path / "scaled.phh"
    scaled.write_text(
        BASE.replace("4100000, 5550000", "4100000.5, 5550000").replace(
            "4050000, 4350000", "4050000.5, 4350000"
        )
    )
    result = run_replay("good.phh", "broken.phh", "scaled.phh", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == json.dumps(
        {"file": "good.phh", "finishing_stacks": [4050000, 4350000, 3075000, 10125000, 8100000]}
    )
    assert json.loads(lines[1]) == {
        "file": "broken.phh",
        "error": "action 11 (p5 cbr 5000000): raise to 5000000 is above the pot limit of 3450000",
    }
    assert json.loads(lines[2])["finishing_stacks"] == [
        4050000.5, 4350000, 3075000, 10125000, 8100000,
    ]  # fmt: skip
    assert len(lines) == 3
    ok = run_replay(str(good), cwd=tmp_path)
    assert ok.returncode == 0
    assert json.loads(ok.stdout) == {
        "file": str(good),
        "finishing_stacks": [4050000, 4350000, 3075000, 10125000, 8100000],
    }
    missing = run_replay("nope.phh", "good.phh", cwd=tmp_path)
    assert missing.returncode == 1
    assert json.loads(missing.stdout.splitlines()[0])["file"] == "nope.phh"
    assert "error" in json.loads(missing.stdout.splitlines()[0])


@pytest.mark.skipif(not REAL_HANDS, reason="no real hands")
def test_cli_replays_the_real_hands() -> None:
    result = run_replay(*(str(p) for p in REAL_HANDS[:4]), cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    for path, line in zip(REAL_HANDS[:4], result.stdout.splitlines(), strict=True):
        out = json.loads(line)
        assert out["file"] == str(path)
        data = tomllib.loads(path.read_text())
        if "finishing_stacks" in data:
            assert out["finishing_stacks"] == data["finishing_stacks"]


def test_history_type_is_exported() -> None:
    assert HandHistory.__name__ == "HandHistory"
