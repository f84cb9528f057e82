"""Our PHH exports of pot-limit Omaha and fixed-limit Omaha hi-lo, read by pokerkit (the
standard's reference reader, a test-only dependency): every file loads without a warning
(our keys are user-defined ones), pokerkit accepts every action where it stands, and the
hand ends on our recorded stacks.

The hands come from `reference_hand`, which keeps out the documented rule differences
between the two engines (tests/poker/test_differential.py) so that a failure here is the
export's. Two kinds of hands are loaded but not compared, and counted:
- two boards run twice: pokerkit 0.7.7 puts the second run of the first board with the
  first run of the second (``State.get_board_cards`` indexes shared cards by board and run
  but the run-out's cards by dealing order);
- hi-lo hands with a pot in which no hand makes a low while another hand at the table does
  (difference 5: pokerkit halves that pot too).
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from app.history.phh import phh_hand
from app.poker import Betting, HandState
from app.poker.evaluation import low_value
from app.poker.events import PotsGathered
from tests.history.gen import reference_hand
from tests.history.pokerkit_reader import load, replay
from tests.poker.test_differential import memoised_pokerkit_hands

HANDS = 100


def lowless_pot(state: HandState) -> bool:
    """Difference 5: a pot whose players make no low while a hand at the table does."""
    if not state.config.hi_lo:
        return False
    gathered = [e for e in state.log if isinstance(e, PotsGathered)]
    if not gathered or len(gathered[-1].pots) < 2:
        return False
    contenders = state.contenders()
    for run in state.boards:
        for board in run:
            if len(board) < 5:
                continue
            lows = {p for p in contenders if low_value(state.hole[p], board) is not None}
            if lows and any(not lows & set(eligible) for _, eligible in gathered[-1].pots):
                return True
    return False


@pytest.mark.parametrize(
    ("game", "betting"), [("omaha", Betting.POT_LIMIT), ("omaha-hi-lo", Betting.FIXED_LIMIT)]
)
def test_pokerkit_replays_our_exports_to_our_stacks(game: str, betting: Betting) -> None:
    rng = random.Random(f"pokerkit-{game}")
    seen: Counter[str] = Counter()
    with memoised_pokerkit_hands():  # pokerkit's hand evaluation, cached (a pure function)
        for number in range(1, HANDS + 1):
            check_one(rng, game, betting, number, seen)
    print(dict(seen))
    assert seen["compared"] >= HANDS * 0.85
    features = ["two boards", "run twice", "bomb pot", "antes", "big-blind ante", "showdown"]
    if betting is Betting.FIXED_LIMIT:
        features.append("straddle")
    assert all(seen[f] >= 3 for f in features), seen


def check_one(
    rng: random.Random, game: str, betting: Betting, number: int, seen: Counter[str]
) -> None:
    stored, hand = reference_hand(rng, game, betting, number)
    state = hand.state
    viewer = rng.choice([None, *hand.players])
    text = phh_hand(stored, viewer)
    both = state.config.boards == 2 and state.runs == 2
    if both or lowless_pot(state):
        load(text)  # no warning: every key of ours is a user-defined one
        seen["loaded only"] += 1
        return
    result = replay(text)  # every action accepted in place, or Refused
    assert list(result.state.stacks) == list(state.stacks), (number, text)
    seen["compared"] += 1
    seen["extra checks"] += result.extra_checks
    seen["show after a win"] += result.late_shows
    for feature, present in (
        ("two boards", state.config.boards == 2),
        ("run twice", state.runs == 2),
        ("bomb pot", state.config.bomb_pot),
        ("antes", any(state.setup.antes)),
        ("big-blind ante", any(state.setup.dead)),
        ("straddle", hand.straddle is not None),
        ("showdown", any(state.shown)),
    ):
        seen[feature] += present
