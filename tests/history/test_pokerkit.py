"""Our PHH exports of pot-limit Omaha and fixed-limit Omaha hi-lo, read by pokerkit (the
standard's reference reader, a test-only dependency): every file loads without a warning
(our keys are user-defined ones), and every hand replays to our recorded stacks, but for
the few classes below, each named with the rule it comes from and counted.

The hands are random hands as the server deals them (tests/history/gen.py: short stacks,
odd chips, straddles, live and dead posts, big-blind antes, bomb pots, two boards, run it
twice, shows after a pot nobody called), exported from a random seat.

How a hand is replayed (tests/history/pokerkit_reader.py):
- one board and one run: by pokerkit's own reading loop, which must play every line of
  the file and make no repair, to our stacks; and by the strict replay, which must agree;
- two boards or two runs: by the strict replay only, which tells pokerkit what our
  ``_board_count`` and ``_run_it_twice_votes`` say (the standard has no field for either;
  counted as "told the boards or runs").

What may differ, and only where it applies (anything else fails the test):
- DIVISION: the pot is divided by pokerkit's rules, not ours. Every action was accepted and
  pokerkit's stacks are exactly our pots and hands paid by pokerkit's division
  (``pokerkit_payout``), so these hands are replayed; they are counted by rule:
  - ODD_CHIPS (tests/poker/test_differential.py, differences 4 and 6): ours gives one odd
    chip each, to the first run, the first board, the high half, the first tied player
    clockwise of the button (docs/rules.md, Pots and odd chips; Robert's, Ties: "No player
    may receive more than one odd chip"); pokerkit divides a pot by its boards and runs at
    once and gives every odd chip of a division to the first share, and merges adjacent
    pots whose remaining players are the same;
  - NO_LOW (difference 5): a hi-lo pot in which no hand makes a low while a hand at the
    table does: ours gives it all to the high hand (docs/rules.md, Hi-lo: "no low: the high
    scoops"); pokerkit halves it and splits the "low" half between the pot's hands.
- Excluded: pokerkit refuses a line of the file, because our rules allowed what pokerkit's
  do not, or the standard cannot say what was played; counted by rule, and only when the
  refused line is one the rule applies to:
  - LIVE_POST: a player coming in out of position posts a live big blind (``_posts``). The
    standard has no such forced bet: its ``blinds_or_straddles`` are blinds and straddles,
    and the action starts after the last largest one, where ours starts after the big
    blind and the live post has the option (docs/rules.md, New player; Robert's). Any
    line, or the stacks.
  - SHORT_BLIND (difference 8): a blind or straddle all in for less is called in full here
    (docs/rules.md, A short blind: 000, Robert's, TDA); pokerkit's call is what it posted.
    Any line, or the stacks.
  - COVERED (difference 3): a raise when no opponent can call more than the bet already
    made: ours allows it while an opponent has chips behind; pokerkit refuses it. The
    refused line must be such a raise.
  - SHORT_ALL_IN (difference 2): a raise in a round that has seen an all-in wager short of
    a full bet or raise: ours reopens the betting per TDA and Robert's (docs/rules.md,
    Minimum raise; Fixed limit: half a bet), pokerkit from a running sum of short all-ins
    and sizes the next raise from the all-in. The refused line must be such a raise.

Met but harmless: the minimum raise after a pot-limit straddle (difference 9: ours, a
straddle above it, is the larger, so pokerkit takes our raises); the check pokerkit asks
for when nobody else can act (7), made by the replays and counted. Not met by these hands,
so not handled: a fold when checking is free (difference 1; ours allows it, pokerkit
refuses it), heads-up with equal blinds (10), an ante all in for less (pokerkit plays every
ante as dead money).
pokerkit 0.7.7's ``FO/8`` plays pot limit (its class mixes in ``PotLimitPokerMixin``), so
it checks no fixed-limit bet size or cap: the fixed-limit rules are our engine's, tested in
tests/poker/test_differential.py against a fixed-limit pokerkit ``State``.
"""

from __future__ import annotations

import random
import time
from collections import Counter, defaultdict

import pytest

from app.history.phh import phh_hand
from app.history.record import StoredHand
from app.poker import ActionKind, Betting, HandState
from app.poker.evaluation import high_value, low_value
from app.poker.events import ForcedBet, PotAwarded, PotsGathered
from app.tables.hand import Hand
from tests.history.gen import random_hand
from tests.history.pokerkit_reader import Refused, is_betting, load, replay, standard_replay
from tests.poker.test_differential import memoised_pokerkit_hands

HANDS = 200  # per variant
TWICE = 15  # and hands of two boards run twice (rare among those), per variant

LIVE_POST = "live post (_posts): no such forced bet in the standard"
SHORT_BLIND = "short blind (difference 8: called in full here)"
COVERED = "raise nobody can call more of (difference 3)"
SHORT_ALL_IN = "raise after a short all-in wager (difference 2)"
ODD_CHIPS = "odd chips (differences 4, 6)"
NO_LOW = "hi-lo pot without a low (difference 5)"
BETTING = (ActionKind.FOLD, ActionKind.CHECK, ActionKind.CALL, ActionKind.BET, ActionKind.RAISE)


def hand_differences(state: HandState) -> set[str]:
    """The rule differences of the deal itself, which may show anywhere in the hand."""
    out = set()
    setup = state.setup
    if any(setup.posts):
        out.add(LIVE_POST)
    short = [
        e
        for e in state.log
        if isinstance(e, ForcedBet)
        and e.kind == "blind"
        and e.amount < setup.per_player(setup.blinds, "blinds")[e.player]
    ]
    if short:
        out.add(SHORT_BLIND)
    return out


def action_differences(state: HandState) -> list[set[str]]:
    """For each betting action of the hand, in order, the rule differences that apply to
    it: a raise nobody can call more of, a raise after a short all-in wager in the round."""
    cfg = state.config
    fixed = cfg.betting is Betting.FIXED_LIMIT
    again = HandState(state.setup, state.deck)
    out: list[set[str]] = []
    short_street = None  # the street of the round's last short all-in wager
    for action in state.history:
        if action.kind in BETTING:
            applies = set()
            if action.kind in (ActionKind.BET, ActionKind.RAISE):
                p, top = action.player, again.max_bet
                if not any(
                    again.bets[q] + again.stacks[q] > top
                    for q in range(again.n)
                    if q != p and not again.folded[q]
                ):
                    applies.add(COVERED)
                if short_street == again.street:
                    applies.add(SHORT_ALL_IN)
                full = cfg.bet_size(again.street) if fixed else again.min_increment
                assert action.amount is not None
                if action.amount - top < full:
                    short_street = again.street
            out.append(applies)
        again.apply(action)
    return out


def pokerkit_payout(state: HandState) -> dict[int, int]:
    """What pokerkit's division pays each player at the showdown, from our engine's pots
    and hands (tests/poker/test_differential.py, ``pokerkit_division``, for any number of
    boards and runs). pokerkit numbers the boards of a run-out board by board (its board
    ``j`` is our board ``j // runs`` of run ``j % runs``). It kills the hands that cannot win
    a share of any pot, rebuilds the pots without them (merging adjacent pots whose players
    are the same), divides each pot between its boards with the odd chips to board 0, each
    board's share between the hand types some hand at the table makes (high, and low when
    any makes one) with the odd chip to the high, and each part between its best hands among
    the pot's players (every one of them when none makes that type), the odd chips to the
    first (from p1)."""
    cfg = state.config
    pots = [e for e in state.log if isinstance(e, PotsGathered)][-1].pots
    boards = [state.board(j % state.runs, j // state.runs) for j in range(state.runs * cfg.boards)]
    live = [p for p in range(state.n) if not state.folded[p] and not state.mucked[p]]
    kinds = (0, 1) if cfg.hi_lo else (0,)
    value = {
        (p, j): (high_value(state.hole[p], board), low_value(state.hole[p], board))
        for p in live
        for j, board in enumerate(boards)
    }

    def rebuilt(alive: set[int]) -> list[tuple[int, tuple[int, ...]]]:
        out: list[tuple[int, tuple[int, ...]]] = []
        for amount, eligible in pots:
            left = tuple(p for p in eligible if p in alive)
            if out and out[-1][1] == left:
                out[-1] = (out[-1][0] + amount, left)
            else:
                out.append((amount, left))
        return out

    def best(among: tuple[int, ...], j: int, kind: int) -> list[int]:
        have = [v for p in among if (v := value[p, j][kind]) is not None]
        if not have:
            return list(among)
        top = min(have)  # (smaller is better)
        return [p for p in among if value[p, j][kind] == top]

    alive = {
        p
        for _, among in rebuilt(set(live))
        for j in range(len(boards))
        for kind in kinds
        for p in best(among, j, kind)
        if value[p, j][kind] is not None
    }
    paid: dict[int, int] = defaultdict(int)
    for amount, among in rebuilt(alive):
        q, r = divmod(amount, len(boards))
        for j in range(len(boards)):
            types = [k for k in kinds if any(value[p, j][k] is not None for p in alive)]
            q2, r2 = divmod(q + (r if j == 0 else 0), len(types))
            for i, kind in enumerate(types):
                winners = best(among, j, kind)
                q3, r3 = divmod(q2 + (r2 if i == 0 else 0), len(winners))
                for w, p in enumerate(winners):
                    paid[p] += q3 + (r3 if w == 0 else 0)
    return paid


def no_low_pot(state: HandState) -> bool:
    """A hi-lo pot of two or more hands none of which makes a low on a board where another
    hand at the table does (pokerkit halves it: difference 5)."""
    if not state.config.hi_lo:
        return False
    pots = [e for e in state.log if isinstance(e, PotsGathered)][-1].pots
    live = {p for p in range(state.n) if not state.folded[p] and not state.mucked[p]}
    for run in range(state.runs):
        for board in range(state.config.boards):
            cards = state.board(run, board)
            lows = {p for p in live if low_value(state.hole[p], cards) is not None}
            if lows and any(len(e) > 1 and not lows & set(e) for _, e in pots):
                return True
    return False


def divided_by_pokerkit(state: HandState) -> list[int]:
    """Our final stacks with each pot paid as pokerkit's division pays it."""
    stacks = list(state.stacks)
    if len([p for p in range(state.n) if not state.folded[p]]) < 2:
        return stacks  # nobody contested the pot: nothing is divided
    for e in state.log:
        if isinstance(e, PotAwarded):
            stacks[e.player] -= e.amount
    for p, amount in pokerkit_payout(state).items():
        stacks[p] += amount
    return stacks


def bomb_pot_checks(text: str) -> int:
    """The checks the file has for a bomb pot's pre-flop round, which ours has not."""
    hand = load(text)
    if not hand.user_defined_fields.get("_bomb_pot"):
        return 0
    actions = [a.split("#")[0].split() for a in hand.actions]
    first_deal = next(i for i, a in enumerate(actions) if a[:2] == ["d", "db"])
    return sum(a[1:] == ["cc"] for a in actions[:first_deal])


@pytest.mark.parametrize(
    ("game", "betting"), [("omaha", Betting.POT_LIMIT), ("omaha-hi-lo", Betting.FIXED_LIMIT)]
)
def test_pokerkit_replays_our_exports_to_our_stacks(game: str, betting: Betting) -> None:
    rng = random.Random(f"pokerkit-{game}")
    seen: Counter[str] = Counter()
    start = time.perf_counter()
    with memoised_pokerkit_hands():  # pokerkit's hand evaluation, cached (a pure function)
        for number in range(1, HANDS + 1):
            stored, hand = random_hand(rng, game, number, betting=betting)
            check_one(rng, stored, hand, seen)
        twice = 0
        for number in range(HANDS + 1, HANDS + 80 * TWICE):  # 1 in 10 (PLO) to 30 (FL)
            stored, hand = random_hand(rng, game, number, betting=betting,
                                       two_boards_run_twice=True)  # fmt: skip
            if hand.state.runs == 2:
                check_one(rng, stored, hand, seen)
                twice += 1
                if twice == TWICE:
                    break
    hands = HANDS + twice
    print(f"\n{game}: {dict(sorted(seen.items()))} ({time.perf_counter() - start:.1f} s)")
    assert seen["loaded"] == hands
    excluded = sum(v for k, v in seen.items() if k.startswith("excluded"))
    assert seen["replayed"] + excluded == hands
    assert excluded <= hands // 10, seen
    assert twice == TWICE and seen["two boards run twice"] >= TWICE * 2 // 3
    assert seen["replayed by pokerkit's own loop too"] >= HANDS // 2
    features = ["two boards", "run twice", "bomb pot", "antes", "big-blind ante",
                "dead blind", "straddle", "showdown", "show after a win"]  # fmt: skip
    assert all(seen[f] >= 3 for f in features), seen


def check_one(rng: random.Random, stored: StoredHand, hand: Hand, seen: Counter[str]) -> None:
    state = hand.state
    text = phh_hand(stored, rng.choice([None, *hand.players]))
    load(text)  # no warning: every key of ours is a user-defined one
    seen["loaded"] += 1
    where = f"hand {hand.number}:\n{text}"
    about_hand = hand_differences(state)
    try:
        result = replay(text)  # every action accepted in place, or Refused
    except Refused as refused:
        # The rule the refused line comes under: one of the action (a raise), else one of
        # the deal; none is a failure.
        at = refused.done - bomb_pot_checks(text)  # the refused line is our action `at`
        per_action = action_differences(state)
        betting = is_betting(refused.action) and 0 <= at < len(per_action)
        applies = per_action[at] if betting else set()
        assert applies or about_hand, f"{refused}; {where}"
        seen[f"excluded: {sorted(applies or about_hand)[0]}"] += 1
        return
    stacks = list(result.state.stacks)
    if stacks != list(state.stacks):
        if stacks != divided_by_pokerkit(state):
            assert about_hand, f"ours {state.stacks}, pokerkit {stacks}; {where}"
            seen[f"excluded: {sorted(about_hand)[0]}"] += 1
            return
        seen[f"replayed, divided by pokerkit: {NO_LOW if no_low_pot(state) else ODD_CHIPS}"] += 1
    seen["replayed"] += 1
    extended = state.config.boards == 2 or state.runs == 2
    if extended:
        seen["told the boards or runs"] += 1
    else:  # what anyone reading the file with pokerkit gets
        own = standard_replay(text, result.extra_checks)
        assert list(own.stacks) == stacks, f"own loop {own.stacks}, replay {stacks}; {where}"
        seen["replayed by pokerkit's own loop too"] += 1
    seen["extra checks (difference 7)"] += result.extra_checks
    setup = state.setup
    blinds = setup.per_player(setup.blinds, "blinds")
    dead = setup.per_player(setup.dead, "dead")
    for feature, present in (
        ("two boards", state.config.boards == 2),
        ("run twice", state.runs == 2),
        ("two boards run twice", state.config.boards == 2 and state.runs == 2),
        ("bomb pot", state.config.bomb_pot),
        ("antes", any(setup.antes)),
        ("big-blind ante", any(d and b for d, b in zip(dead, blinds, strict=True))),
        ("dead blind", any(d and not b for d, b in zip(dead, blinds, strict=True))),
        ("straddle", hand.straddle is not None),
        ("showdown", any(state.shown) and len(state.contenders()) > 1),
        ("show after a win", result.late_shows > 0),
    ):
        seen[feature] += present
