"""Engine benchmarks: ``.venv/bin/python bench/engine.py [--seed N] [--deals N] ...``.

Evaluation: Omaha high for 4, 5 and 6 hole cards and the eight-or-better low, this engine
against pokerkit (the test-only reference) on the SAME deals, generated from a fixed seed;
pokerkit, being slow, gets a prefix of our deals. Rates are evaluations per second of one
player's hand on a five-card board; card conversion is done before timing for both.

Whole hands: complete random six-handed hands of pot-limit Omaha (blinds 1/2) and of
fixed-limit Omaha hi-lo eight or better (2/4), every player 100 big blinds deep. Each hand
(a deck order and a sequence of random legal actions: folds, checks, calls, minimum, pot
and random raises) is scripted once with our engine, then replayed and timed through both
engines: ours from ``HandState(setup, deck)`` to the last chip awarded (every contender
shows), pokerkit from ``create_state`` through dealing our cards, the same actions, showing
every hand, killing, pushing and pulling the chips. Both must end with the same stacks
(checked before timing). Pokerkit gets a prefix of our hands. Equal stacks keep the
scripts inside the rules both engines share (see tests/poker/test_differential.py).

Each benchmark is a function returning ``Row``s; ``main`` prints them as one table.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make ``app`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.poker import (
    GAMES,
    Action,
    ActionKind,
    Betting,
    HandConfig,
    HandSetup,
    HandState,
    Phase,
)
from app.poker.cards import Card, card_str
from app.poker.evaluation import high_value, low_value

DEFAULT_SEED = 20250611

Deal = tuple[tuple[Card, ...], tuple[Card, ...]]


@dataclass(frozen=True, slots=True)
class Row:
    what: str
    ours_per_s: float
    ours_n: int
    reference_per_s: float | None  # None when pokerkit is not installed
    reference_n: int

    @property
    def ratio(self) -> float | None:
        return None if self.reference_per_s is None else self.ours_per_s / self.reference_per_s


def make_deals(n_hole: int, count: int, seed: int) -> list[Deal]:
    """``count`` independent deals of ``n_hole`` hole cards and a five-card board."""
    rng = random.Random(seed * 10 + n_hole)
    deck = list(range(52))
    out: list[Deal] = []
    for _ in range(count):
        cards = rng.sample(deck, n_hole + 5)
        out.append((tuple(cards[:n_hole]), tuple(cards[n_hole:])))
    return out


def _rate(evaluate: Callable[[Any, Any], object], deals: Sequence[tuple[Any, Any]]) -> float:
    """Evaluations per second of this thread's CPU time, best of three passes (one pass if a
    pass is long). CPU time, not wall time: on a shared machine the time the process waits
    for a core is not the engine's (the ratio of two wall times moved by half between runs)."""
    best = float("inf")
    for _ in range(3):
        start = time.thread_time()
        for hole, board in deals:
            evaluate(hole, board)
        elapsed = time.thread_time() - start
        best = min(best, elapsed)
        if elapsed > 2:
            break
    return len(deals) / best


def bench_evaluation(
    *, seed: int = DEFAULT_SEED, deals: int = 200_000, pokerkit_deals: int = 2_000
) -> list[Row]:
    """Omaha high (4, 5, 6 hole cards) and low (4, 5, 6) evaluations per second."""
    try:
        import pokerkit
    except ImportError:  # pragma: no cover - the benchmark still reports our figures
        pokerkit = None  # type: ignore[assignment]

    rows: list[Row] = []
    for low in (False, True):
        for n_hole in (4, 5, 6):
            ours_deals = make_deals(n_hole, deals, seed)
            ours = _rate(low_value if low else high_value, ours_deals)
            reference: float | None = None
            if pokerkit is not None:
                pk_cards = [next(iter(pokerkit.Card.parse(card_str(c)))) for c in range(52)]
                prefix = [
                    ([pk_cards[c] for c in hole], [pk_cards[c] for c in board])
                    for hole, board in ours_deals[:pokerkit_deals]
                ]
                if low:
                    reference = _rate(pokerkit.OmahaEightOrBetterLowHand.from_game_or_none, prefix)
                else:
                    reference = _rate(pokerkit.OmahaHoldemHand.from_game, prefix)
            what = f"Omaha {'low (8 or better)' if low else 'high'}, {n_hole} hole cards"
            rows.append(Row(what, ours, deals, reference, min(pokerkit_deals, deals)))
    return rows


# ------------------------------------------------------------------------- whole hands

HAND_PLAYERS = 6
BIG_BLIND = 2
DEPTH_BB = 100

HAND_GAMES = {
    "pot-limit Omaha": HandConfig(GAMES["omaha"], Betting.POT_LIMIT, small_bet=BIG_BLIND),
    # pokerkit keeps the fixed-limit cap heads-up: so does this table (``cap_heads_up``).
    "fixed-limit Omaha hi-lo": HandConfig(
        GAMES["omaha-hi-lo"],
        Betting.FIXED_LIMIT,
        small_bet=BIG_BLIND,
        big_bet=2 * BIG_BLIND,
        cap_heads_up=True,
    ),
}


@dataclass(frozen=True, slots=True)
class Script:
    """One complete hand: the deck and every action, showdown included."""

    deck: tuple[Card, ...]
    actions: tuple[Action, ...]
    stacks: tuple[int, ...]  # final stacks


def hand_setup(config: HandConfig) -> HandSetup:
    n = HAND_PLAYERS
    return HandSetup(
        config, (DEPTH_BB * BIG_BLIND,) * n, blinds=(BIG_BLIND // 2, BIG_BLIND) + (0,) * (n - 2)
    )


def make_scripts(config: HandConfig, count: int, seed: int) -> list[Script]:
    """Random hands played through our engine: fold a quarter of the time when facing a
    bet (never when checking is free), raise a quarter of the time (minimum, pot or in
    between), otherwise check or call; every contender shows at the showdown."""
    rng = random.Random(seed)
    setup = hand_setup(config)
    scripts: list[Script] = []
    deck = list(range(52))
    for _ in range(count):
        rng.shuffle(deck)
        state = HandState(setup, deck)
        while not state.complete:
            la = state.legal_actions()
            assert la is not None
            p = la.player
            if la.phase is Phase.SHOWDOWN:
                state.apply(Action(p, ActionKind.SHOW))
                continue
            r = rng.random()
            if la.call and r < 0.25:
                state.apply(Action(p, ActionKind.FOLD))
            elif la.raise_kind is not None and r > 0.75:
                amount = rng.choice((la.min_to, la.pot_to, rng.randint(la.min_to, la.max_to)))
                state.apply(Action(p, la.raise_kind, amount))
            else:
                state.apply(Action(p, ActionKind.CALL if la.call else ActionKind.CHECK))
        scripts.append(Script(tuple(deck), tuple(state.history), tuple(state.stacks)))
    return scripts


def play_ours(setup: HandSetup, script: Script, _: object = None) -> HandState:
    state = HandState(setup, script.deck)
    for action in script.actions:
        state.apply(action)
    return state


def _pokerkit_player(config: HandConfig) -> Callable[[Script, object], tuple[int, ...]] | None:
    """A function playing a script through pokerkit, or None if pokerkit is missing."""
    try:
        import pokerkit as pk
    except ImportError:  # pragma: no cover
        return None
    import warnings

    cards = [next(iter(pk.Card.parse(card_str(c)))) for c in range(52)]
    automations = (
        pk.Automation.ANTE_POSTING,
        pk.Automation.BET_COLLECTION,
        pk.Automation.BLIND_OR_STRADDLE_POSTING,
        pk.Automation.HAND_KILLING,
        pk.Automation.CHIPS_PUSHING,
        pk.Automation.CHIPS_PULLING,
    )
    n, stacks, blinds = HAND_PLAYERS, hand_setup(config).stacks, (BIG_BLIND // 2, BIG_BLIND)
    hole = config.game.hole_cards

    def create() -> Any:
        if config.betting is Betting.POT_LIMIT:
            return pk.PotLimitOmahaHoldem.create_state(
                automations, True, 0, blinds, BIG_BLIND, stacks, n
            )
        # pokerkit's ready-made fixed-limit Omaha hi-lo plays pot limit: build the game.
        # pokerkit's cap counts raises without the blind: 3 pre-flop, a bet + 3 after.
        position = pk.Opening.POSITION
        streets = (
            pk.Street(False, (False,) * hole, 0, False, position, BIG_BLIND, config.raise_cap - 1),
            pk.Street(True, (), 3, False, position, BIG_BLIND, config.raise_cap),
            pk.Street(True, (), 1, False, position, config.big_bet, config.raise_cap),
            pk.Street(True, (), 1, False, position, config.big_bet, config.raise_cap),
        )
        return pk.State(
            automations,
            pk.Deck.STANDARD,
            (pk.OmahaHoldemHand, pk.OmahaEightOrBetterLowHand),
            streets,
            pk.BettingStructure.FIXED_LIMIT,
            True,
            0,
            blinds,
            0,
            stacks,
            n,
        )

    def play(script: Script) -> tuple[int, ...]:
        deck = script.deck
        state = create()
        for p in range(n):
            state.deal_hole([cards[deck[p + k * n]] for k in range(hole)])
        pos = n * hole
        for action in script.actions:
            kind = action.kind
            if kind is ActionKind.FOLD:
                state.fold()
            elif kind is ActionKind.CHECK or kind is ActionKind.CALL:
                state.check_or_call()
            elif kind is ActionKind.BET or kind is ActionKind.RAISE:
                state.complete_bet_or_raise_to(action.amount)
            else:
                continue  # SHOW: pokerkit shows below, when it asks
            while state.status and state.actor_index is None:  # the dealer's work
                if state.can_burn_card():
                    state.burn_card(cards[deck[pos]])
                    pos += 1
                elif state.can_deal_board():
                    count = state.board_dealing_count
                    state.deal_board([cards[c] for c in deck[pos : pos + count]])
                    pos += count
                elif state.can_show_or_muck_hole_cards():
                    state.show_or_muck_hole_cards(True)
                else:  # pragma: no cover
                    raise AssertionError("pokerkit is waiting for something else")
        return tuple(state.stacks)

    def quiet(script: Script, _: object = None) -> tuple[int, ...]:
        with warnings.catch_warnings():  # our cards are not the top of pokerkit's deck
            warnings.simplefilter("ignore", UserWarning)
            return play(script)

    return quiet


def bench_hands(
    *, seed: int = DEFAULT_SEED, hands: int = 3_000, pokerkit_hands: int = 300
) -> list[Row]:
    """Complete six-handed hands per second, ours against pokerkit on the same scripts."""
    rows: list[Row] = []
    for k, (name, config) in enumerate(HAND_GAMES.items()):
        scripts = make_scripts(config, hands, seed + k)
        setup = hand_setup(config)
        for script in scripts[:50]:  # the replay really is the scripted hand
            assert tuple(play_ours(setup, script).stacks) == script.stacks
        ours = _rate(partial(play_ours, setup), [(s, None) for s in scripts])
        reference: float | None = None
        pk_play = _pokerkit_player(config)
        if pk_play is not None:
            prefix = scripts[:pokerkit_hands]
            for script in prefix[:50]:
                assert pk_play(script, None) == script.stacks, "pokerkit ends the hand differently"
            reference = _rate(pk_play, [(s, None) for s in prefix])
        what = f"Whole hand, {name}, {HAND_PLAYERS} players, {DEPTH_BB} BB"
        rows.append(Row(what, ours, hands, reference, min(pokerkit_hands, hands)))
    return rows


def format_table(rows: Sequence[Row]) -> str:
    header = ("benchmark", "engine /s", "deals", "pokerkit /s", "deals", "ratio")
    body = [
        (
            r.what,
            f"{r.ours_per_s:,.0f}",
            f"{r.ours_n:,}",
            "n/a" if r.reference_per_s is None else f"{r.reference_per_s:,.0f}",
            f"{r.reference_n:,}",
            "n/a" if r.ratio is None else f"{r.ratio:,.0f}x",
        )
        for r in rows
    ]
    widths = [max(len(line[i]) for line in (header, *body)) for i in range(len(header))]

    def fmt(line: Sequence[str]) -> str:
        first = line[0].ljust(widths[0])
        return "  ".join(
            [first, *(cell.rjust(w) for cell, w in zip(line[1:], widths[1:], strict=True))]
        )

    return "\n".join([fmt(header), fmt(["-" * w for w in widths]), *map(fmt, body)])


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--deals", type=int, default=200_000, help="deals per row, ours")
    parser.add_argument(
        "--pokerkit-deals", type=int, default=2_000, help="the prefix of them pokerkit gets"
    )
    parser.add_argument("--hands", type=int, default=3_000, help="whole hands per row, ours")
    parser.add_argument(
        "--pokerkit-hands", type=int, default=300, help="the prefix of them pokerkit plays"
    )
    args = parser.parse_args(argv)
    print(f"seed {args.seed}; Python {sys.version.split()[0]}")
    rows = bench_evaluation(seed=args.seed, deals=args.deals, pokerkit_deals=args.pokerkit_deals)
    rows += bench_hands(seed=args.seed, hands=args.hands, pokerkit_hands=args.pokerkit_hands)
    print(format_table(rows))


if __name__ == "__main__":
    main()
