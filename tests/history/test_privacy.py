"""No record or export gives a viewer a card they may not see: 100 random hands of every game
(500 under OMAHA_FULL=1), every player, a spectator and a host not dealt in. The oracle is the
engine's truth (shown flags, boards, hole cards), written here independently of
app.tables.views."""

from __future__ import annotations

import dataclasses
import functools
import random
import re
from collections import Counter

import pytest

from app.history.equity import compute
from app.history.phh import phh_hand
from app.history.pokerstars import export_hand
from app.history.record import StoredHand, build, luck, replay
from app.history.stats import facts
from app.poker import GAMES, HandState, card_str
from app.poker import equity as equity_module
from app.poker.equity import all_in_spot
from app.poker.errors import PokerError
from tests.history.gen import random_hand
from tests.sizes import sample
from tests.tables.harness import cards_in

HANDS = sample(100, 500)
PHH_CARDS = re.compile(r'"(?:d dh p\d+|d db|p\d+ sm) ([^" ]+)')


def allowed(state: HandState, position: int | None) -> set[str]:
    """Boards, shown hands, and the viewer's own hand (folded or not: they played it)."""
    seen = {card_str(c) for run in state.boards for board in run for c in board}
    for p in range(state.n):
        if state.shown[p] or p == position:
            seen.update(card_str(c) for c in state.hole[p])
    return seen


def phh_cards(text: str) -> set[str]:
    found: set[str] = set()
    for chunk in PHH_CARDS.findall(text):
        found.update(chunk[i : i + 2] for i in range(0, len(chunk), 2) if chunk[i] != "?")
    return found


def text_cards(text: str) -> set[str]:
    return {
        c
        for chunk in re.findall(r"\[(.*?)\]", text)
        for c in chunk.split()
        if re.fullmatch(r"[2-9TJQKA][cdhs]", c)
    }


@pytest.mark.parametrize("game", list(GAMES))
def test_no_viewer_gets_a_card_they_may_not_see(game: str) -> None:
    rng = random.Random(f"privacy-{game}")
    hidden_somewhere = 0
    met: Counter[str] = Counter()  # the rarer shapes of a hand, which the sample must reach
    for number in range(1, HANDS + 1):
        stored, hand = random_hand(rng, game, number)
        state = hand.state
        # Equity only where it is quick (flop or later): its cards are checked like the rest.
        spot = all_in_spot(state)
        with_equity = spot is not None and len(spot.boards[0]) >= 3
        met.update(
            ("equity",) * with_equity
            + ("run twice",) * (len(state.boards) > 1)
            + ("two boards",) * (len(state.boards[0]) > 1)
            + ("shown",) * any(state.shown)
        )
        host = "host-not-dealt-in"
        views: dict[str | None, set[str]] = {}
        for viewer in [None, host, *hand.players]:
            position = hand.players.index(viewer) if viewer in hand.players else None
            may = allowed(state, position)
            record = build(stored, viewer, equity=with_equity)
            got = cards_in(record)
            assert got <= may, (number, viewer, got - may)
            text = export_hand(record)
            assert text_cards(text) <= may, (number, viewer, text_cards(text) - may)
            views[viewer] = got
            if viewer in (None, host) or rng.random() < 0.3:  # the writer's own redaction
                phh = phh_hand(stored, viewer)
                assert phh_cards(phh) <= may, (number, viewer, phh_cards(phh) - may)
            if position is not None:  # a player sees their own hand, folded or not
                assert {card_str(c) for c in state.hole[position]} <= got
        assert views[host] == views[None]  # the host sees what a spectator sees
        assert all(views[host] <= views[p] for p in hand.players)  # no more than any player
        everything = {card_str(c) for p in range(state.n) for c in state.hole[p]}
        hidden_somewhere += bool(everything - views[None])
    assert hidden_somewhere > HANDS // 2  # the check had hidden cards to leak
    assert set(met) == {"equity", "run twice", "two boards", "shown"}, met


# ------------------------------------------- statistics, the graph and equities
def twin(
    stored: StoredHand, state: HandState, keep: set[int], rng: random.Random
) -> StoredHand | None:
    """The same hand with every hole card of the players not in `keep` (and never shown)
    dealt differently: what a viewer who sees only `keep`'s hands cannot tell apart. None
    when no other deal replays (a mucked hand that would then win is refused)."""
    n, hole = state.n, state.config.game.hole_cards
    hidden = [p + k * n for p in range(n) if p not in keep and not state.shown[p]
              for k in range(hole)]  # fmt: skip
    used = {c for run in state.boards for board in run for c in board}
    used |= {c for p in range(n) for c in state.hole[p]}
    spare = [i for i, c in enumerate(stored.deck) if c not in used]
    slots = hidden + spare[-8:]  # the stub's tail is never dealt
    for _ in range(5):
        cards = [stored.deck[i] for i in slots]
        rng.shuffle(cards)
        deck = list(stored.deck)
        for i, c in zip(slots, cards, strict=True):
            deck[i] = c
        if deck == stored.deck:
            continue
        other = dataclasses.replace(stored, deck=deck)
        try:
            replay(other)
        except PokerError:
            continue
        return other
    return None


@pytest.mark.parametrize("game", ["omaha", "big-o"])
def test_statistics_graph_and_equity_learn_no_unseen_card(
    game: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Deal the cards nobody saw differently: the statistics' facts, the all-in luck behind
    the graph's adjusted line, and each viewer's equities are the same figures."""
    # Fewer samples (the same figures either way from the same cards): the test's time.
    quick = functools.partial(equity_module.street_equity, samples=200, exact_limit=20_000)
    monkeypatch.setattr("app.history.equity.street_equity", quick)
    rng = random.Random(f"privacy-review-{game}")
    compared = 0
    for number in range(1, 70):
        stored, hand = random_hand(rng, game, number)
        state = hand.state
        # Statistics and the graph: as anyone at the table sees them.
        spectator = {p for p in range(state.n) if state.shown[p]}
        other = twin(stored, state, spectator, rng)
        if other is None:
            continue
        assert facts(build(stored, None, equity=False)) == facts(build(other, None, equity=False))
        # The all-in luck is a pure function of the all-in spot: the same spot, the same luck
        # (computed where it is quick: on the flop or later).
        spot = all_in_spot(state)
        assert spot == all_in_spot(replay(other).state)
        if spot is not None and len(spot.boards[0]) >= 3:
            assert luck(stored) == luck(other)
        # Equities: as one viewer sees them (a spectator, or a player and their own hand).
        if compared < 10 and rng.random() < 0.5:
            viewer = rng.choice([None, *hand.players])
            keep = spectator | ({hand.players.index(viewer)} if viewer else set())
            mine = twin(stored, state, keep, rng)
            if mine is not None:
                assert compute(stored, viewer, False) == compute(mine, viewer, False), number
                compared += 1
    assert compared >= 6
