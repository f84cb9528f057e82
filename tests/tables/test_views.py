"""The redaction: each record rendered per viewer; snapshots per viewer."""

from __future__ import annotations

from app.poker import GAMES, Action, ActionKind, Betting, HandConfig, HandSetup, HandState
from app.poker.evaluation import describe_high, describe_low
from app.poker.events import PotAwarded
from app.tables.hand import Hand
from app.tables.views import Record, cards, event_records, hand_view, render
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


def to_the_flop(game: str = "omaha") -> tuple[Hand, list[Record]]:
    """Three players call and check to the flop; the records of the action that dealt it."""
    setup = HandSetup(HandConfig(GAMES[game], Betting.POT_LIMIT, 2), (100, 100, 100), (1, 2, 0))
    hand = Hand("h", 1, 2, (0, 3, 5), ("a", "b", "c"), HandState(setup, list(range(52))))
    while True:
        legal = hand.state.legal_actions()
        assert legal is not None
        kind = ActionKind.CHECK if legal.check else ActionKind.CALL
        events = hand.state.apply(Action(legal.player, kind))
        if hand.state.boards[0][0]:
            return hand, event_records(hand, events)


def test_hand_reader_goes_to_each_player_only() -> None:
    hand, records = to_the_flop("omaha-hi-lo")
    (reader,) = [r for r in records if r.public["type"] == "hand_reader"]
    assert records[-1] is reader, "after the board and the round it reads"
    board = hand.state.boards[0][0]
    assert set(reader.public) == {"type", "hand"}
    for p, pid in enumerate(hand.players):
        mine = render(reader, pid)["boards"]
        high = describe_high(hand.state.hole[p], board)
        low = describe_low(hand.state.hole[p], board)
        assert mine == [{
            "run": 0, "board": 0,
            "high": {"name": high.name, "cards": cards(high.cards),
                     "hole_used": cards(high.hole_used)},
            "low": None if low is None else {"name": low.name, "cards": cards(low.cards),
                                             "hole_used": cards(low.hole_used)},
        }]  # fmt: skip
        # Nobody else's reading, and no spectator's, holds this player's hole cards.
        for other in {"a", "b", "c", None} - {pid}:
            assert not set(cards(hand.state.hole[p])) & cards_in(render(reader, other))
        assert hand_view(hand, pid)["reader"] == mine
    assert "reader" not in hand_view(hand, None)


def test_hand_reader_high_only_outside_hi_lo_and_none_once_folded() -> None:
    hand, records = to_the_flop("omaha")
    (reader,) = [r for r in records if r.public["type"] == "hand_reader"]
    assert "low" not in render(reader, "a")["boards"][0]
    p = hand.state.actor
    assert p is not None
    events = hand.state.apply(Action(p, ActionKind.CHECK))
    assert not [r for r in event_records(hand, events) if r.public["type"] == "hand_reader"]
    legal = hand.state.legal_actions()
    assert legal is not None
    hand.state.apply(Action(legal.player, ActionKind.BET, legal.min_to))
    legal = hand.state.legal_actions()
    assert legal is not None
    hand.state.apply(Action(legal.player, ActionKind.FOLD))
    assert "reader" not in hand_view(hand, hand.players[legal.player])


def test_no_hand_reader_before_the_flop() -> None:
    hand = make_hand()
    records = event_records(hand, hand.state.log)
    assert not [r for r in records if r.public["type"] == "hand_reader"]
    assert "reader" not in hand_view(hand, "a")
