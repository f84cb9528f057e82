"""Issue 26, items 2 and 3, clicked: the time bank is spent only on betting decisions and
refills as the table's setting says (`time_bank_refill: hand`: `time_bank_per_hand` seconds
more at each hand dealt, up to the full bank), and a player the clock acts for on two
decisions in a row is sat out after the hand, told so on their screen and the others', and
comes back with one click."""

from __future__ import annotations

import time
from contextlib import suppress

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from tests.e2e.conftest import PlayerFactory
from tests.e2e.harness import Player, create_table, screenshot_all
from tests.e2e.play import hand_number, mark, wait_moved_on
from tests.waits import within_sync


@pytest.fixture(scope="module")
def base(quick_base: str) -> str:
    """The worker's quick server (tests/e2e/conftest.py): the hands follow each other at once; the
    clocks are the table's own settings."""
    return quick_base


# Bob's turns are seen by polling his page between Alice's actions: his decision time is the
# window a poll must fall in (1 s was missed once beside two more suites).
DECISION_TIME = 3
TIME_BANK = 2
PER_HAND = 1


def press(p: Player) -> None:
    """Bet or raise (the smallest the dock offers) where the player may, else check or
    call; waits until it is applied."""
    since = mark(p)
    page = p.page
    bet = page.locator("[data-act=bet], [data-act=raise]")  # else the clock checks for Bob
    (bet if bet.count() else page.locator("[data-act=check], [data-act=call]")).first.click()
    wait_moved_on(p, since)


def banks_until_sat_out(alice: Player, bob: Player) -> list[tuple[int, float]]:
    """Alice bets whenever she may; Bob never acts, so the clock folds him at each of his
    turns (one a hand, heads-up). Bob's time bank as his page shows it at the start of each
    of his turns (hand number, seconds), until his seat is set to sit out after the hand."""
    seen: list[tuple[int, int, float]] = []  # hand number, counter, bank
    deadline = time.monotonic() + 90
    # Marked to sit out, or already sitting out: on the quick server the next deal comes
    # 0.1 s after the hand, and sits him out then, clearing the mark (a poll missed it once).
    while not bob.state(
        "(s => s.sit_out_next || s.status === 'sitting_out')(c.state.seats[c.state.you.seat])"
    ):
        assert time.monotonic() < deadline, "Bob was never sat out by the clock"
        if alice.my_turn() and alice.state("c.state.hand.phase") == "betting":
            press(alice)
            continue
        turn = bob.state(
            "c.isMyTurn() && c.state.hand.phase === 'betting' && !c.state.hand.inBank"
            " ? [c.state.hand.number, c.state.hand.counter, c.state.hand.timeBank] : null"
        )
        if turn is not None and (not seen or seen[-1][:2] != (turn[0], turn[1])):
            seen.append((int(turn[0]), int(turn[1]), float(turn[2])))
            # what his dock says: the bank in whole seconds, beside the decision clock
            expect(bob.page.locator(".bank-row .bank")).to_have_text(
                f"Time bank {round(turn[2])} s"
            )
        with suppress(PlaywrightTimeout):  # a moment on the pages for the next change
            bob.page.wait_for_function(
                f"() => {{ const c = window.__omaha.ctrl; const h = c.state.hand;"
                f" return !h || h.counter !== {turn[1] if turn else -1} || h.inBank; }}",
                timeout=250,
            )
    return [(n, b) for n, _, b in seen]


def test_the_bank_refills_each_hand_and_two_timeouts_sit_a_player_out_until_one_click(
    players: PlayerFactory,
) -> None:
    alice, bob = players("Alice"), players("Bob")
    alice.join()
    code = create_table(alice, name="Clock", decision_time=DECISION_TIME, time_bank=TIME_BANK,
                        time_bank_refill="hand", time_bank_per_hand=PER_HAND,
                        sit_out_after_timeouts=2)  # fmt: skip
    config = alice.state("c.state.table.config")
    assert config["time_bank_refill"] == "hand" and config["sit_out_after_timeouts"] == 2
    alice.sit(0)
    bob.join(f"/t/{code}")
    bob.sit(1)

    turns = banks_until_sat_out(alice, bob)
    # Two turns, each in its own hand: the first with the full bank, which the clock then
    # spent whole (decision time, then the time bank stage, then a fold); the second, a hand
    # later, with the bank refilled by `time_bank_per_hand` (not full, not empty).
    assert len(turns) == 2 and turns[1][0] > turns[0][0], turns
    assert turns[0][1] == TIME_BANK, turns
    assert turns[1][1] == pytest.approx(PER_HAND * (turns[1][0] - turns[0][0]), abs=0.05), turns

    # Sat out by the clock: told on his screen and on Alice's, his seat marked.
    expect(bob.page.get_by_role("status").filter(has_text="You timed out on 2 decisions")
           ).to_be_visible()  # fmt: skip
    expect(alice.page.get_by_role("status").filter(has_text="Bob timed out")).to_be_visible()
    expect(alice.page.locator(".seat .marks").filter(has_text="Timed out")).to_be_visible()
    bob.page.wait_for_function(  # after the hand: his seat sits out, no hand is dealt him
        "() => { const c = window.__omaha.ctrl; return c.state.seats[c.state.you.seat].status"
        " === 'sitting_out'; }",
        timeout=30000,
    )
    come_back = bob.page.locator("[data-notice=sat_out] [data-cmd=sit-in]")
    expect(come_back).to_be_visible()
    screenshot_all([bob], "timed-out-sitting-out")
    # One click and he is back: dealt the next hand.
    come_back.click()
    bob.page.wait_for_function(
        "() => { const c = window.__omaha.ctrl; const s = c.state.seats[c.state.you.seat];"
        " return s.status !== 'sitting_out' && !s.timed_out; }",
        timeout=15000,
    )
    number = hand_number(bob)
    bob.page.wait_for_function(
        f"() => {{ const c = window.__omaha.ctrl; const h = c.state.hand;"
        f" return h && h.number > {number} && c.inHand(); }}",
        timeout=60000,
    )
    assert not alice.errors and not bob.errors


def test_a_page_reloaded_on_its_turn_shows_the_time_bank_and_can_start_it(
    players: PlayerFactory,
) -> None:
    """The dock's time bank (and "Need more time") after a reload, before and while it runs:
    the snapshot says it as the `turn` event did (before, a reloaded page had neither)."""
    alice, bob = players("Alice"), players("Bob")
    alice.join()
    code = create_table(alice, name="Reload clock", decision_time=600, time_bank=300)
    alice.sit(0)
    bob.join(f"/t/{code}")
    bob.sit(1)
    within_sync(lambda: alice.my_turn() or bob.my_turn(), 30, what="a turn")
    p = alice if alice.my_turn() else bob
    bank = p.page.locator(".bank-row .bank")
    p.reload()
    expect(bank).to_have_text("Time bank 300 s")
    p.page.locator("[data-cmd=more-time]").click()
    expect(bank).to_have_text("Time bank running")
    p.reload()
    expect(bank).to_have_text("Time bank running")
    expect(p.page.locator("[data-cmd=more-time]")).to_have_count(0)
    assert not alice.errors and not bob.errors
