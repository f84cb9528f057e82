"""After a hand, on the machine with a fake clock (app/tables/after.py): the rabbit hunt
(the board cards the deck would have dealt, burns respected, once a hand, until the next
deal) and showing some of one's hole cards (only one's own, only once over); each stored
before it is told, none changing a result, and no card beyond them told to anyone."""

from __future__ import annotations

from typing import Any

import pytest

from app.poker import ActionKind, Phase, card_str
from app.tables.commands import RabbitHunt, ShowCards
from app.tables.config import TableConfig
from app.tables.effects import Emit, Write
from app.tables.machine import Outcome
from app.tables.ops import NoteHand
from app.tables.views import render, table_view
from tests.tables.test_machine import Table, dealt, records, writes
from tests.tables.test_pace import bet_out, posts


def config(**settings: Any) -> TableConfig:
    return TableConfig(seats=3, decision_time=0, rabbit_hunt=True, **settings)


def fold_out(t: Table) -> None:
    """Everyone folds to the last player: the hand is over preflop."""
    hand = t.core.hand
    assert hand is not None
    while not hand.state.complete:
        t.act(ActionKind.FOLD)


def checked_down_boards(settings: dict[str, Any]) -> list[list[str]]:
    """The boards the same deck deals when everyone checks or calls to the river."""
    t = dealt(config(**settings), "host", "a", "b")
    hand = t.core.hand
    assert hand is not None
    while hand.state.phase is Phase.BETTING:
        legal = hand.state.legal_actions()
        assert legal is not None
        t.act(ActionKind.CHECK if legal.check else ActionKind.CALL)
    return [[card_str(c) for c in board] for board in hand.state.boards[0]]


def error(outcome: Outcome) -> str | None:
    return outcome.error.code if outcome.error is not None else None


@pytest.mark.parametrize("settings", [{}, {"boards": 2}, {"game": "courchevel"}])
def test_the_rabbit_is_the_deck_s_next_board_cards_stored_then_told_once(
    settings: dict[str, Any],
) -> None:
    t = dealt(config(**settings), "host", "a", "b")
    fold_out(t)
    hand = t.core.hand
    assert hand is not None and hand.state.complete
    played = [[card_str(c) for c in b] for b in hand.state.boards[0]]
    stacks = list(hand.state.stacks)
    out = t.ok(RabbitHunt(sender="a", hand=hand.id))
    whole = checked_down_boards(settings)
    expected = [board[len(played[b]) :] for b, board in enumerate(whole)]
    assert out.result == {"boards": expected}
    # stored before it is told: the note's write comes before its record
    kinds = [type(e).__name__ for e in out.did]
    assert kinds.index("Write") < kinds.index("Emit")
    (note,) = [op for op in writes(out) if isinstance(op, NoteHand)]
    assert note.after == ({"kind": "rabbit", "seat": 1, "name": "a", "boards": expected},)
    (told,) = records(out)
    assert told["type"] == "rabbit" and told["boards"] == expected
    # public, only board cards: no hole card of anyone, nothing changed in the hand
    holes = {card_str(c) for h in hand.state.hole for c in h}
    assert not holes & {c for b in expected for c in b}
    assert hand.state.stacks == stacks and hand.state.boards[0] == [
        [c for c in b] for b in hand.state.boards[0]
    ]
    assert error(t.do(RabbitHunt(sender="b", hand=hand.id))) == "rabbit_hunted"


def test_the_rabbit_is_bounded_to_seated_players_a_table_that_hunts_and_the_last_hand() -> None:
    t = dealt(config(), "host", "a", "b")
    hand = t.core.hand
    assert hand is not None
    assert error(t.do(RabbitHunt(sender="a", hand=hand.id))) == "not_over"
    fold_out(t)
    assert error(t.do(RabbitHunt(sender="watcher", hand=hand.id))) == "not_seated"
    assert error(t.do(RabbitHunt(sender="a", hand="another"))) == "stale_hand"
    t.failing = NoteHand  # not stored: nothing hunted, nothing told, asked again it works
    failed = t.do(RabbitHunt(sender="a", hand=hand.id))
    assert error(failed) == "unavailable" and not records(failed) and hand.after == ()
    t.failing = None
    t.now += 5  # the next hand is dealt: the last one's rabbit is gone with it
    t.fire_due()
    assert t.core.hand is not None and t.core.hand.id != hand.id
    assert error(t.do(RabbitHunt(sender="a", hand=hand.id))) == "stale_hand"

    off = dealt(TableConfig(seats=3, decision_time=0), "host", "a", "b")
    fold_out(off)
    last = off.core.hand
    assert last is not None
    assert error(off.do(RabbitHunt(sender="a", hand=last.id))) == "no_rabbit_hunt"


def test_a_hand_that_reached_the_river_has_no_rabbit() -> None:
    t = dealt(config(), "host", "a", "b")
    hand = t.core.hand
    assert hand is not None
    posts(t, bet_out(t))  # the table shows and mucks at once
    assert hand.state.complete
    assert error(t.do(RabbitHunt(sender="a", hand=hand.id))) == "no_rabbit"


def test_a_player_shows_any_of_their_own_cards_once_the_hand_is_over() -> None:
    t = dealt(config(), "host", "a", "b")
    hand = t.core.hand
    assert hand is not None
    mine = [card_str(c) for c in hand.state.hole[hand.position_of_player("b") or 0]]
    theirs = card_str(hand.state.hole[hand.position_of_player("a") or 0][0])
    assert error(t.do(ShowCards(sender="b", hand=hand.id, cards=(mine[0],)))) == "not_over"
    fold_out(t)
    assert error(t.do(ShowCards(sender="b", hand=hand.id, cards=(theirs,)))) == "not_your_cards"
    assert error(t.do(ShowCards(sender="b", hand=hand.id, cards=("Zz",)))) == "bad_cards"
    assert error(t.do(ShowCards(sender="b", hand=hand.id, cards=None))) == "bad_cards"
    assert error(t.do(ShowCards(sender="watcher", hand=hand.id, cards=(mine[0],)))) == (
        "not_in_hand"
    )
    folded = [card_str(c) for c in hand.state.hole[hand.position_of_player("a") or 0]]
    assert error(t.do(ShowCards(sender="a", hand=hand.id, cards=(folded[0],)))) == "no_choice"
    stacks = list(hand.state.stacks)
    one = t.ok(ShowCards(sender="b", hand=hand.id, cards=(mine[1],)))
    assert one.result == {"shown": [mine[1]]}
    assert [r["cards"] for r in records(one) if r["type"] == "cards_shown"] == [[mine[1]]]
    again = t.do(ShowCards(sender="b", hand=hand.id, cards=(mine[1],)))
    assert error(again) == "already_shown"
    more = t.ok(ShowCards(sender="b", hand=hand.id, cards=(mine[0], mine[1])))
    assert more.result == {"shown": [mine[0], mine[1]]}  # in the order they are held
    assert hand.state.stacks == stacks and not hand.state.shown[hand.position_of_player("b") or 0]


def test_shown_cards_and_the_rabbit_are_in_every_view_and_nothing_else_is() -> None:
    """The privacy rule: after the hand, a seat or a spectator sees the rabbit's board cards
    and the cards shown by choice; never another card of a hole or the deck."""
    t = dealt(config(), "host", "a", "b")
    hand = t.core.hand
    assert hand is not None
    fold_out(t)
    told: list[Any] = []
    b_cards = [card_str(c) for c in hand.state.hole[hand.position_of_player("b") or 0]]
    for command in (
        RabbitHunt(sender="host", hand=hand.id),
        ShowCards(sender="b", hand=hand.id, cards=(b_cards[2],)),
    ):
        out = t.ok(command)
        told += [r for e in out.did if isinstance(e, Emit) for r in e.records]
    rabbit = {c for b in hand.after[0]["boards"] for c in b}
    board = {card_str(c) for b in hand.state.boards[0] for c in b}
    deck = [card_str(c) for c in hand.state.deck]
    for viewer in (None, "host", "a", "b"):
        own = set()
        if viewer is not None:
            own = {card_str(c) for c in hand.state.hole[hand.players.index(viewer)]}
        may = rabbit | board | {b_cards[2]} | own
        messages = [render(r, viewer) for r in told]
        t.core.now = t.now
        messages.append(table_view(Looked(t), viewer))  # a reload, or a restart's welcome
        seen = {c for m in messages for c in cards_in(m, deck)}
        assert seen <= may, (viewer, seen - may)
        assert {b_cards[2]} | rabbit <= seen
    view = table_view(Looked(t), "b")["hand"]
    assert view["after"] == [dict(n) for n in hand.after] and "rabbit" not in view
    assert view["show_cards"] == [c for c in b_cards if c != b_cards[2]]  # the rest, b's own
    for other in (None, "a", "host"):
        assert "show_cards" not in table_view(Looked(t), other)["hand"]


class Looked:
    """The machine's state as a snapshot reads it (the actor's `TableLike`)."""

    def __init__(self, t: Table) -> None:
        k, core = t.core.kept, t.core
        self.id, self.stream, self.seq = core.id, "stream", 0
        self.seats, self.host_id, self.config = k.seats, k.host_id, k.config
        self.next_config, self.paused = k.next_config, k.paused
        self.idle = self.closing = False
        self.bomb_pot_next, self.button, self.hand_number = k.bomb_pot_next, k.button, k.hand_number
        self.server_seed, self.hand, self.chat = k.server_seed, core.hand, k.chat
        self.turn_deadline, self.requests, self.seat_of = None, k.requests, core.seat_of
        self.turn_stopped_left, self.turn_bank = core.clock.stopped_left, core.clock.bank_news
        self.now = lambda: t.now


def cards_in(message: Any, deck: list[str]) -> set[str]:
    """Every card named anywhere in a message (a string that is a card of the deck)."""
    if isinstance(message, dict):
        return {c for v in message.values() for c in cards_in(v, deck)}
    if isinstance(message, (list, tuple)):
        return {c for v in message for c in cards_in(v, deck)}
    return {message} if isinstance(message, str) and message in deck else set()


def test_the_end_of_a_hand_tells_who_may_hunt_and_show_each_their_own() -> None:
    t = dealt(config(), "host", "a", "b")
    hand = t.core.hand
    assert hand is not None
    last: Outcome | None = None
    while not hand.state.complete:
        last = t.act(ActionKind.FOLD)
    assert last is not None
    (after,) = [r for e in last.did if isinstance(e, Emit) for r in e.records
                if r.public["type"] == "after_hand"]  # fmt: skip
    assert after.public == {"type": "after_hand", "hand": hand.id, "rabbit": True}
    b = hand.players.index("b")  # the winner of a pot nobody called, alone to choose
    assert after.private == {"b": {"show_cards": [card_str(c) for c in hand.state.hole[b]]}}
    assert not [w for w in last.did if isinstance(w, Write) and isinstance(w.op, NoteHand)]
