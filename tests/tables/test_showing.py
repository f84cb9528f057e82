"""Some cards shown at a showdown instead of mucking (app/tables/showing.py), on the machine
with a fake clock: only by the player to show or muck who may muck, only their own cards, on
the same short clock (never restarted, never the bank); the rest stays hidden from everyone
live and on reload; the hand's result is the muck's; the last card shown is the whole show."""

from __future__ import annotations

from typing import Any

from app.poker import ActionKind, Phase, card_str
from app.tables.clock import TURN
from app.tables.commands import ShowCards
from app.tables.effects import Emit
from app.tables.machine import Outcome
from app.tables.ops import NoteHand, RecordAction
from app.tables.views import render, table_view
from tests.tables.test_after import Looked, cards_in
from tests.tables.test_machine import Table, records, writes
from tests.tables.test_pace import (
    SHOWDOWN_TIME,
    bet_out,
    deal,
    muck_choice,
    posts,
    seat,
    showdown_seed,
    shown_and_mucked,
    table,
)


def error(outcome: Outcome) -> str | None:
    return outcome.error.code if outcome.error is not None else None


def at_choice() -> tuple[Table, str, list[str]]:
    """Heads-up, checked down: the winner is shown by the table, and the beaten hand's
    player (auto-muck off) has the choice; them and their cards."""
    t, _ = muck_choice()
    hand = t.core.hand
    assert hand is not None and hand.state.phase is Phase.SHOWDOWN
    legal = hand.state.legal_actions()
    assert legal is not None and legal.muck
    loser = hand.players[legal.player]
    return t, loser, [card_str(c) for c in hand.state.hole[legal.player]]


def final_stacks(t: Table) -> list[int]:
    hand = t.core.hand
    assert hand is not None and hand.state.complete
    return list(hand.state.stacks)


def test_a_beaten_player_shows_some_cards_on_the_same_short_clock_and_the_rest_is_mucked() -> None:
    mucked, _, _ = at_choice()
    mucked.now += SHOWDOWN_TIME
    mucked.fire_due()  # the same deck, the loser shows nothing: the clock mucks
    t, loser, mine = at_choice()
    hand = t.core.hand
    assert hand is not None
    deadline, bank = t.core.clock.deadline(TURN), seat(t, loser).time_bank
    one = t.ok(ShowCards(sender=loser, hand=hand.id, cards=(mine[2],)))
    assert one.result == {"shown": [mine[2]]}
    kinds = [type(e).__name__ for e in one.did]
    assert kinds.index("Write") < kinds.index("Emit")  # stored before it is told
    (stored,) = [op for op in writes(one) if isinstance(op, NoteHand)]
    number = hand.seats[hand.players.index(loser)]
    assert stored.after == ({"kind": "show", "seat": number, "cards": [mine[2]], "showdown": True},)
    assert [r["type"] for r in records(one)] == ["cards_shown"]  # no new turn, no action
    assert records(one)[0]["cards"] == [mine[2]] and records(one)[0]["showdown"] is True
    # the turn is still theirs, on the same clock; no engine action was taken
    assert hand.players[hand.state.actor or 0] == loser and not hand.state.complete
    assert t.core.clock.deadline(TURN) == deadline and not writes(one)[1:]
    two = t.ok(ShowCards(sender=loser, hand=hand.id, cards=(mine[0], mine[2])))
    assert two.result == {"shown": [mine[0], mine[2]]}  # in the order they are held
    assert error(t.do(ShowCards(sender=loser, hand=hand.id, cards=(mine[0],)))) == ("already_shown")
    t.now = deadline or 0.0
    (fired,) = t.fire_due()
    assert shown_and_mucked([fired]) == ["mucked"] and hand.state.complete
    assert final_stacks(t) == final_stacks(mucked)  # the muck's result: nothing changed
    assert seat(t, loser).time_bank == bank and t.core.clock.bank_started is None
    assert seat(t, loser).timeouts == 0  # they were there: not a missed decision
    assert seat(mucked, loser).timeouts == 1
    # once mucked, the rest stays hidden: nothing more to show after the hand
    refused = t.do(ShowCards(sender=loser, hand=hand.id, cards=(mine[1],)))
    assert error(refused) == "no_choice"


def test_only_the_player_who_may_muck_on_their_turn_shows_cards_and_only_their_own() -> None:
    t, loser, mine = at_choice()
    hand = t.core.hand
    assert hand is not None
    winner = next(p for p in hand.players if p != loser)
    theirs = card_str(hand.state.hole[hand.players.index(winner)][0])
    assert error(t.do(ShowCards(sender=winner, hand=hand.id, cards=(theirs,)))) == "not_your_turn"
    assert error(t.do(ShowCards(sender=loser, hand=hand.id, cards=(theirs,)))) == "not_your_cards"
    assert error(t.do(ShowCards(sender=loser, hand=hand.id, cards=("Zz",)))) == "bad_cards"
    assert error(t.do(ShowCards(sender=loser, hand=hand.id, cards=()))) == "bad_cards"
    assert error(t.do(ShowCards(sender="watcher", hand=hand.id, cards=(mine[0],)))) == (
        "not_in_hand"
    )
    t.failing = NoteHand  # not stored: nothing shown, nothing told; the turn goes on
    failed = t.do(ShowCards(sender=loser, hand=hand.id, cards=(mine[0],)))
    assert error(failed) == "unavailable" and not records(failed) and hand.after == ()
    assert not hand.state.complete

    # a hand that must be shown (the first to show) has no choice to make card by card
    must = table(showdown_seed(beaten=True))
    deal(must, "host", "a")
    h = must.core.hand
    assert h is not None
    last = bet_out(must)
    first = h.state.legal_actions()  # the table's show is posted, not yet run
    assert first is not None and not first.muck
    held = card_str(h.state.hole[first.player][0])
    refused = must.do(ShowCards(sender=h.players[first.player], hand=h.id, cards=(held,)))
    assert error(refused) == "no_choice"
    posts(must, last)
    # in the betting, nobody shows cards
    betting = table(0)
    deal(betting, "host", "a")
    b = betting.core.hand
    assert b is not None and b.state.actor is not None
    own = card_str(b.state.hole[b.state.actor][0])
    out = betting.do(ShowCards(sender=b.players[b.state.actor], hand=b.id, cards=(own,)))
    assert error(out) == "not_over"


def test_showing_the_last_hidden_card_is_the_whole_show() -> None:
    t, loser, mine = at_choice()
    hand = t.core.hand
    assert hand is not None
    t.ok(ShowCards(sender=loser, hand=hand.id, cards=tuple(mine[:-1])))
    last = t.ok(ShowCards(sender=loser, hand=hand.id, cards=(mine[-1],)))
    assert last.result == {"shown": mine}
    stored = [op.action.kind for op in writes(last) if isinstance(op, RecordAction)]
    assert stored == [ActionKind.SHOW] and hand.state.complete
    assert shown_and_mucked([last]) == ["shown"]
    assert hand.state.shown[hand.players.index(loser)]


def test_at_the_showdown_others_see_exactly_the_cards_shown_live_and_on_reload() -> None:
    """The privacy rule: every record told and every snapshot (a reload, during the choice
    and after the hand) names, of the loser's cards, the shown ones only, to everyone; the
    loser sees their own; nobody sees another card of a hole or the deck."""
    t, loser, mine = at_choice()
    hand = t.core.hand
    assert hand is not None
    deck = [card_str(c) for c in hand.state.deck]
    told: list[Any] = []
    snapshots: dict[str | None, list[Any]] = {v: [] for v in (None, "host", "a")}

    def look() -> None:
        t.core.now = t.now
        for v in snapshots:
            snapshots[v].append(table_view(Looked(t), v))

    for out in (t.ok(ShowCards(sender=loser, hand=hand.id, cards=(mine[1],))),):
        told += [r for e in out.did if isinstance(e, Emit) for r in e.records]
    look()  # a reload during the choice
    t.now = t.core.clock.deadline(TURN) or 0.0
    told += [r for o in t.fire_due() for e in o.did if isinstance(e, Emit) for r in e.records]
    assert hand.state.complete
    look()  # a reload after the hand
    winner = next(p for p in range(hand.state.n) if hand.state.shown[p])
    public = {card_str(c) for b in hand.state.boards[0] for c in b}
    public |= {card_str(c) for c in hand.state.hole[winner]} | {mine[1]}
    for viewer in snapshots:
        own = set()
        if viewer is not None:
            own = {card_str(c) for c in hand.state.hole[hand.players.index(viewer)]}
        seen = {c for m in [render(r, viewer) for r in told] + snapshots[viewer]
                for c in cards_in(m, deck)}  # fmt: skip
        assert seen <= public | own, (viewer, seen - public - own)
        assert mine[1] in seen
        if viewer != loser:
            assert not seen & (set(mine) - {mine[1]})
        during, ended = snapshots[viewer]
        assert during["hand"]["after"] == ended["hand"]["after"] == [dict(n) for n in hand.after]
        assert "show_cards" not in ended["hand"]  # a mucked hand: nothing more to show
