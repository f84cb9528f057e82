"""The table's pace, on the machine with a fake clock (app/tables/pace.py): a showdown never
waits on the decision clock, its choices and the run-it-twice vote have their own short clock
that never touches the time bank, the bank refills as the table says, and a player the clock
keeps acting for sits out after the hand."""

from __future__ import annotations

import random
from typing import Any

import pytest

from app.poker import Action, ActionKind, Betting, Phase
from app.tables.clock import TURN
from app.tables.commands import (
    Act,
    MoreTime,
    SetPreference,
    SitIn,
    SitOutNext,
    TDeal,
    TSeat,
)
from app.tables.config import BankRefill, TableConfig
from app.tables.effects import Post
from app.tables.machine import Outcome
from app.tables.ops import RecordAction, SavePreferences
from app.tables.seat import Seat
from tests.tables.test_machine import Table, records, writes

SHOWDOWN_TIME = 3.0


def table(seed: int = 0, **settings: Any) -> Table:
    settings = {"seats": 3, "decision_time": 30, "time_bank": 20,
                "showdown_time": SHOWDOWN_TIME, **settings}  # fmt: skip
    t = Table(TableConfig(**settings))
    rng = random.Random(seed)

    def deck() -> list[int]:
        cards = list(range(52))
        rng.shuffle(cards)
        return cards

    t.core.deck_source = deck
    return t


def deal(t: Table, *players: str) -> None:
    for seat, player in enumerate(players):
        t.sit(player, seat)
    t.fire_due()
    assert t.core.hand is not None


def posts(t: Table, outcome: Outcome) -> list[Outcome]:
    """Run what the table posted itself (its actions at once), and what those posted."""
    done = []
    for effect in outcome.did:
        if isinstance(effect, Post):
            out = t.ok(effect.command)
            done += [out, *posts(t, out)]
    return done


def seat(t: Table, player: str) -> Seat:
    s = t.core.seat_of(player)
    assert s is not None
    return s


def bet_out(t: Table) -> Outcome:
    """Check (or call) to the river's end: the last action's outcome (what the table posted
    with it not run yet)."""
    hand = t.core.hand
    assert hand is not None
    while True:
        legal = hand.state.legal_actions()
        assert legal is not None and legal.phase is Phase.BETTING
        last = t.act(ActionKind.CHECK if legal.check else ActionKind.CALL)
        if hand.state.phase is not Phase.BETTING:
            return last


def check_down(t: Table) -> list[Outcome]:
    """Check (or call) to the river's end: what the last action and the table did."""
    last = bet_out(t)
    return [last, *posts(t, last)]


def muck_choice(**settings: Any) -> tuple[Table, list[Outcome]]:
    """Heads-up, both with auto-muck off, checked down to a beaten hand: the table, and what
    the last action and the table did (the beaten hand's player now has the choice)."""
    t = table(showdown_seed(beaten=True), **settings)
    deal(t, "host", "a")
    for p in ("host", "a"):
        t.ok(SetPreference(sender=p, auto_muck=False))
    return t, check_down(t)


def showdown_seed(beaten: bool) -> int:
    """A deck where, checked down heads-up, the second hand to show is beaten (may be
    mucked) or not."""
    for seed in range(200):
        t = table(seed)
        deal(t, "host", "a")
        hand = t.core.hand
        assert hand is not None
        while hand.state.phase is Phase.BETTING:
            legal = hand.state.legal_actions()
            assert legal is not None
            t.act(ActionKind.CHECK if legal.check else ActionKind.CALL)
        first = hand.state.legal_actions()
        assert first is not None and not first.muck  # the first to show must show
        hand.state.apply(Action(first.player, ActionKind.SHOW))
        second = hand.state.legal_actions()
        if second is not None and second.muck is beaten:
            return seed
    raise AssertionError("no such deck in 200")


def shown_and_mucked(outcomes: list[Outcome]) -> list[str]:
    return [r["type"] for o in outcomes for r in records(o) if r["type"] in ("shown", "mucked")]


@pytest.mark.parametrize("beaten", [True, False])
def test_a_showdown_is_shown_and_mucked_by_the_table_at_once(beaten: bool) -> None:
    t = table(showdown_seed(beaten))
    deal(t, "host", "a")
    before = {p: seat(t, p).time_bank for p in ("host", "a")}
    done = check_down(t)
    hand = t.core.hand
    assert hand is not None and hand.state.complete  # at the same moment: nobody waited
    assert shown_and_mucked(done) == ["shown", "mucked" if beaten else "shown"]
    # no turn was offered at the showdown, and every show or muck is a stored action
    assert not [r for o in done for r in records(o) if r["type"] == "turn"]
    stored = [op.action.kind for o in done for op in writes(o) if isinstance(op, RecordAction)]
    assert stored[-2:] == [ActionKind.SHOW, ActionKind.MUCK if beaten else ActionKind.SHOW]
    assert {p: seat(t, p).time_bank for p in ("host", "a")} == before


def test_always_show_shows_a_hand_it_could_muck() -> None:
    t = table(showdown_seed(beaten=True))
    deal(t, "host", "a")
    for p in ("host", "a"):
        assert t.ok(SetPreference(sender=p, always_show=True)).result == {
            "auto_muck": True, "always_show": True}  # fmt: skip
    assert shown_and_mucked(check_down(t)) == ["shown", "shown"]


def test_a_choice_at_the_showdown_has_a_short_clock_that_never_touches_the_bank() -> None:
    t = table(showdown_seed(beaten=True))
    deal(t, "host", "a")
    for p in ("host", "a"):
        changed = t.ok(SetPreference(sender=p, auto_muck=False))
        assert [type(op) for op in writes(changed)] == [
            SavePreferences
        ]  # the player's, and the seat's copy
        assert not seat(t, p).auto_muck
    done = check_down(t)
    assert shown_and_mucked(done) == ["shown"]  # the first must show: the table shows it
    (turn,) = [r for o in done for r in records(o) if r["type"] == "turn"]
    assert turn["phase"] == "showdown" and turn["short"] and not turn["in_time_bank"]
    assert turn["timeout"] == SHOWDOWN_TIME
    assert t.core.clock.deadline(TURN) == t.now + SHOWDOWN_TIME
    hand = t.core.hand
    assert hand is not None and hand.state.actor is not None
    loser = hand.players[hand.state.actor]
    bank = seat(t, loser).time_bank
    refused = t.do(MoreTime(sender=loser))
    assert refused.error is not None and refused.error.code == "no_time_bank"
    t.now += SHOWDOWN_TIME - 0.01
    assert t.fire_due() == [] and not hand.state.complete
    t.now += 0.01
    (fired,) = t.fire_due()
    assert shown_and_mucked([fired]) == ["mucked"] and hand.state.complete
    assert seat(t, loser).time_bank == bank == 20  # untouched: no bank stage ever ran
    assert t.core.clock.bank_started is None


def test_a_table_with_no_decision_clock_still_times_a_showdown_choice() -> None:
    """`decision_time` 0 means no clock on betting; a show-or-muck choice keeps its short one
    (before, it waited for ever: one friend gone quiet held the table)."""
    t, done = muck_choice(decision_time=0)
    turns = [r for o in done for r in records(o) if r["type"] == "turn"]
    assert [(r["phase"], r["short"], r["timeout"]) for r in turns] == [
        ("showdown", True, SHOWDOWN_TIME)
    ]
    hand = t.core.hand
    assert hand is not None and not hand.state.complete
    t.now += SHOWDOWN_TIME
    (fired,) = t.fire_due()
    assert shown_and_mucked([fired]) == ["mucked"] and hand.state.complete


def test_choosing_a_preference_on_your_turn_at_the_showdown_acts_at_once() -> None:
    t, _ = muck_choice()
    hand = t.core.hand
    assert hand is not None and hand.state.actor is not None
    loser = hand.players[hand.state.actor]
    chosen = t.ok(SetPreference(sender=loser, auto_muck=True))
    assert shown_and_mucked(posts(t, chosen)) == ["mucked"] and hand.state.complete


def test_a_preference_needs_a_seat_and_changes_nothing_without_one() -> None:
    t = table()
    deal(t, "host", "a")
    refused = t.do(SetPreference(sender="nobody", auto_muck=False))
    assert refused.error is not None and refused.error.code == "not_seated"
    assert refused.did == []
    same = t.ok(SetPreference(sender="a"))  # nothing asked: nothing stored
    assert writes(same) == [] and same.result == {"auto_muck": True, "always_show": False}


def test_the_run_it_twice_vote_is_short_and_bank_free() -> None:
    t = table(betting=Betting.NO_LIMIT, run_it_twice=True)
    deal(t, "host", "a")
    hand = t.core.hand
    assert hand is not None
    legal = hand.state.legal_actions()
    assert legal is not None
    t.act(ActionKind.RAISE, legal.max_to)
    called = t.act(ActionKind.CALL)
    (turn,) = [r for r in records(called) if r["type"] == "turn"]
    assert turn["phase"] == "run-it-twice" and turn["short"] and turn["timeout"] == SHOWDOWN_TIME
    banks = {p: seat(t, p).time_bank for p in ("host", "a")}
    t.now += SHOWDOWN_TIME
    (fired,) = t.fire_due()
    voted = [r for r in records(fired) if r["type"] == "run_it_twice_voted"]
    assert voted and voted[0]["agree"] is False
    done = [fired, *posts(t, fired)]
    assert hand.state.complete, [r["type"] for o in done for r in records(o)]
    assert {p: seat(t, p).time_bank for p in ("host", "a")} == banks == {"host": 20, "a": 20}


def spend_bank(t: Table, seconds: float) -> str:
    """The player to act lets the decision time and `seconds` of the bank go, then folds."""
    hand = t.core.hand
    assert hand is not None and hand.state.actor is not None
    player = hand.players[hand.state.actor]
    t.now += 30
    t.fire_due()  # the decision time is up: the bank runs
    t.now += seconds
    t.ok(Act(sender=player, hand=hand.id, counter=hand.counter, action=ActionKind.FOLD))
    return player


def next_deal(t: Table) -> None:
    t.now += 10
    t.fire_due()


@pytest.mark.parametrize(("refill", "expected"), [(BankRefill.HAND, 16.0), (BankRefill.NONE, 12.0)])
def test_the_bank_refills_by_the_tables_setting(refill: BankRefill, expected: float) -> None:
    t = table(time_bank_refill=refill, time_bank_per_hand=4.0, seats=2)
    deal(t, "host", "a")
    player = spend_bank(t, 8)
    assert seat(t, player).time_bank == 12
    next_deal(t)
    assert t.core.hand is not None and t.core.hand.number == 2
    assert seat(t, player).time_bank == expected  # stored with the deal's seats
    t.now += 30
    t.fire_due()  # one more hand dealt with a full bank never goes past it
    for _ in range(10):
        next_deal(t)
    assert seat(t, player).time_bank <= 20


def test_a_tournament_level_fills_the_bank_again() -> None:
    t = table(tournament=True, seats=2, time_bank_refill=BankRefill.LEVEL)
    for n, player in enumerate(("p1", "p2")):
        t.ok(TSeat(player_id=player, name=player, seat=n, stack=500))
    t.ok(TDeal(stakes={}))
    t.fire_due()
    player = spend_bank(t, 8)
    assert seat(t, player).time_bank == 12
    t.ok(TDeal(stakes={}))  # the same level: the bank stays spent
    t.fire_due()
    assert seat(t, player).time_bank == 12
    t.now += 30
    t.fire_due()
    t.now += 20
    t.fire_due()  # that hand's clock runs out (folded): the director calls the next level
    assert t.core.hand is not None and t.core.hand.state.complete
    t.ok(TDeal(stakes={"small_blind": 2, "big_blind": 4}))
    t.fire_due()
    assert seat(t, player).time_bank == 20


def time_out(t: Table) -> list[Outcome]:
    """The player to act lets their whole clock run out."""
    out = []
    hand = t.core.hand
    assert hand is not None
    counter = hand.counter
    while hand.counter == counter and not hand.state.complete:
        deadline = t.core.clock.deadline(TURN)
        assert deadline is not None
        t.now = deadline
        out += t.fire_due()
    return out


def play_until(t: Table, player: str | None = None) -> None:
    """The others check or call (the table shows down) until it is `player`'s turn or the
    hand is over."""
    hand = t.core.hand
    assert hand is not None
    while not hand.state.complete:
        legal = hand.state.legal_actions()
        assert legal is not None
        if hand.players[legal.player] == player:
            return
        posts(t, t.act(ActionKind.CHECK if legal.check else ActionKind.CALL))


def test_two_timeouts_in_a_row_sit_a_player_out_after_the_hand_and_one_click_brings_them_back() -> (
    None
):
    t = table(seats=3, time_bank=0)
    deal(t, "host", "a", "b")
    hand = t.core.hand
    assert hand is not None and hand.state.actor is not None
    idle = hand.players[hand.state.actor]
    first = time_out(t)  # the clock folds for them: one
    assert seat(t, idle).timeouts == 1 and not seat(t, idle).sit_out_next
    assert not [r for o in first for r in records(o) if r["type"] == "timed_out"]
    play_until(t)
    next_deal(t)
    play_until(t, idle)
    told = [r for o in time_out(t) for r in records(o)]  # two in a row
    (notice,) = [r for r in told if r["type"] == "timed_out"]
    assert notice["player_id"] == idle and notice["sit_out"] and notice["timeouts"] == 2
    (seat_record,) = [r for r in told if r["type"] == "seat" and r["player_id"] == idle]
    assert seat_record["timed_out"] and "Timed out" in seat_record["mark"]
    assert seat_record["note"] == "You timed out: you sit out from the next hand"
    assert seat(t, idle).sit_out_next  # stored: the sit-out switch (SaveSwitches)
    play_until(t)
    next_deal(t)
    assert seat(t, idle).sitting_out
    assert t.core.hand is not None and t.core.hand.position_of_player(idle) is None
    back = t.ok(SitIn(sender=idle))
    (again,) = [r for r in records(back) if r["type"] == "seat"]
    assert not again["timed_out"] and again["status"] != "sitting_out"
    assert not seat(t, idle).timed_out and seat(t, idle).timeouts == 0


def test_acting_yourself_starts_the_count_again_and_zero_turns_it_off() -> None:
    t = table(seats=2, time_bank=0)
    deal(t, "host", "a")
    hand = t.core.hand
    assert hand is not None and hand.state.actor is not None
    player = hand.players[hand.state.actor]
    time_out(t)  # folded: the hand ends
    assert seat(t, player).timeouts == 1
    next_deal(t)
    hand = t.core.hand
    assert hand is not None and hand.number == 2
    play_until(t, player)
    legal = hand.state.legal_actions()
    assert legal is not None and hand.players[legal.player] == player
    t.act(ActionKind.CHECK if legal.check else ActionKind.CALL)
    assert seat(t, player).timeouts == 0

    off = table(seats=2, time_bank=0, sit_out_after_timeouts=0)
    deal(off, "host", "a")
    for _ in range(3):
        h = off.core.hand
        assert h is not None
        time_out(off)
        next_deal(off)
    assert not any(s.sit_out_next or s.sitting_out for s in off.core.seats.taken())


def test_unticking_the_sit_out_switch_keeps_a_timed_out_player_in() -> None:
    t = table(seats=2, time_bank=0, sit_out_after_timeouts=1)
    deal(t, "host", "a")
    hand = t.core.hand
    assert hand is not None and hand.state.actor is not None
    player = hand.players[hand.state.actor]
    time_out(t)
    assert seat(t, player).timed_out and seat(t, player).sit_out_next
    t.ok(SitOutNext(sender=player, on=False))
    assert not seat(t, player).timed_out and not seat(t, player).sit_out_next
    next_deal(t)
    assert t.core.hand is not None and t.core.hand.position_of_player(player) is not None


def test_a_preference_message_is_strict() -> None:
    """Over the WebSocket, `set_preference` takes booleans only (validated before a table
    sees it); the table's own parse leaves anything else unchanged."""
    from pydantic import ValidationError

    from app.api.messages import inbound
    from app.tables.commands import parse

    ok = inbound.validate_python({"type": "set_preference", "auto_muck": False})
    assert ok.command() == {"auto_muck": False, "always_show": None}
    for bad in ({"auto_muck": "no"}, {"always_show": 1}, {"muck": True}):
        with pytest.raises(ValidationError):
            inbound.validate_python({"type": "set_preference", **bad})
    command = parse("set_preference", "a", {"auto_muck": "no", "always_show": True})
    assert isinstance(command, SetPreference)
    assert (command.auto_muck, command.always_show) == (None, True)
