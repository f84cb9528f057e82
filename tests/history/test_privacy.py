"""No record or export gives a viewer a card they may not see: 100 random hands of every game
(500 under OMAHA_FULL=1), every player, a spectator and a host not dealt in. The oracle is the
engine's truth (shown flags, boards, hole cards), written here independently of
app.tables.views."""

from __future__ import annotations

import random
import re
from collections import Counter

import pytest

from app.history.phh import phh_hand
from app.history.pokerstars import export_hand
from app.history.record import build
from app.poker import GAMES, HandState, card_str
from app.poker.equity import all_in_spot
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
