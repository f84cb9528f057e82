"""The redaction: each record rendered per viewer; snapshots per viewer."""

from __future__ import annotations

from app.poker import GAMES, Action, ActionKind, Betting, HandConfig, HandSetup, HandState
from app.poker.events import PotAwarded
from app.tables.hand import Hand
from app.tables.views import event_records, hand_view, render
from tests.tables.harness import cards_in


def make_hand() -> Hand:
    setup = HandSetup(HandConfig(GAMES["omaha"], Betting.POT_LIMIT, 2), (100, 100, 100), (1, 2, 0))
    state = HandState(setup, list(range(52)))
    return Hand("h", 1, 2, (0, 3, 5), ("a", "b", "c"), state)


def test_hole_cards_go_to_their_owner_only() -> None:
    hand = make_hand()
    records = event_records(hand, hand.state.log)
    dealt = [r for r in records if r.public["type"] == "hole_cards"]
    assert len(dealt) == 3
    for record, owner in zip(dealt, ("a", "b", "c"), strict=True):
        assert len(render(record, owner)["cards"]) == 4
        for viewer in {"a", "b", "c", None, "spectator"} - {owner}:
            assert "cards" not in render(record, viewer)
    # The public part never holds a card.
    assert all(not cards_in(r.public) for r in records)


def test_snapshot_shows_own_live_hand_and_shown_hands_only() -> None:
    hand = make_hand()
    assert hand_view(hand, None)["players"][0].get("cards") is None
    assert len(hand_view(hand, "a")["players"][0]["cards"]) == 4
    assert "cards" not in hand_view(hand, "a")["players"][1]
    # The first to act folds: their own cards are no longer sent, even to them.
    p = hand.state.actor
    assert p is not None
    hand.state.apply(Action(p, ActionKind.FOLD))
    assert "cards" not in hand_view(hand, hand.players[p])["players"][p]
    assert cards_in(hand_view(hand, None)) == set()


def test_legal_actions_only_for_the_player_to_act() -> None:
    hand = make_hand()
    p = hand.state.actor
    assert p is not None
    assert "legal" in hand_view(hand, hand.players[p])
    others = [pid for i, pid in enumerate(hand.players) if i != p]
    assert all("legal" not in hand_view(hand, pid) for pid in [*others, None])


def test_a_share_of_nothing_is_not_an_award() -> None:
    """A 1-chip pot split over two runs and two boards gives shares of 0 chips: the engine
    reports them, but no `award` of 0 is sent (a client would show a winner of nothing)."""
    hand = make_hand()
    zero = PotAwarded(pot=1, run=1, board=1, half="whole", player=0, amount=0, hand=None,
                      cards=())  # fmt: skip
    one = PotAwarded(pot=1, run=0, board=0, half="whole", player=1, amount=1, hand=None,
                     cards=())  # fmt: skip
    records = event_records(hand, [zero, one])
    assert [(r.public["type"], r.public["seat"], r.public["amount"]) for r in records] == [
        ("award", 3, 1)
    ]
