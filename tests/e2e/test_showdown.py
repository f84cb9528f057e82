"""Issue 26, item 1: a showdown never waits on the decision clock. With auto-muck turned
off (the switch on the page), a beaten hand is the player's to show or muck on the table's
short `showdown_time`; an idle loser's showdown ends within it, and their time bank is
untouched (no time bank stage, the same bank at their next turn). The run-it-twice vote
likewise: an idle voter's vote ends on `showdown_time` (the clock votes once), bank-free."""

from __future__ import annotations

import time
from contextlib import suppress

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from tests.e2e.conftest import PlayerFactory
from tests.e2e.harness import Player, create_table, screenshot_all
from tests.e2e.play import act_once, wait_for_hand
from tests.e2e.test_hand_log import go_all_in


@pytest.fixture(scope="module")
def base(quick_base: str) -> str:
    """The worker's quick server (tests/e2e/conftest.py): the hands checked down to a beaten
    one follow each other at once (a hand's end is waited on as the hand or the next one)."""
    return quick_base


SHOWDOWN_TIME = 2
DECISION_TIME = 20
TIME_BANK = 30
#: the vote's short clock: long enough for the first voter's click on a loaded machine
VOTE_TIME = 5


def chooser(ps: list[Player]) -> Player | None:
    """The player whose turn it is to show or muck (a choice the rules leave them)."""
    for p in ps:
        if p.state("c.isMyTurn() && c.state.hand.phase === 'showdown'"):
            return p
    return None


def wait_on_each(ps: list[Player], number: int) -> None:
    """Wait a moment on each page for its turn or the end of hand `number`."""
    for p in ps:
        with suppress(PlaywrightTimeout):
            p.page.wait_for_function(
                "() => { const c = window.__omaha.ctrl; const h = c.state.hand;"
                f" return c.isMyTurn() || h.ended || h.number > {number}; }}",
                timeout=250,
            )


def beaten_hand(ps: list[Player]) -> tuple[Player, int]:
    """Hands checked down until one where the second hand shown is beaten (about every
    other one): the player who may muck it, and the hand's number."""
    number = 0
    for _ in range(12):
        number = wait_for_hand(ps[0], number, timeout=30)
        loser = check_down(ps, number)
        if loser is not None:
            return loser, number
    raise AssertionError("twelve hands without a beaten hand at the showdown")


def check_down(ps: list[Player], number: int) -> Player | None:
    """Check or call until the hand ends (None) or someone may muck (that player)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if ps[0].state(f"c.state.hand.number > {number} || c.state.hand.ended"):
            return None
        who = chooser(ps)
        if who is not None:
            return who
        for p in ps:
            if p.my_turn() and p.state("c.state.hand.phase") == "betting":
                act_once(p, keyboard=False)
                break
        else:  # nobody to act yet: the table is showing down, or a turn is on its way
            wait_on_each(ps, number)
    raise AssertionError("the hand did not end")


def next_own_turn(p: Player, ps: list[Player], number: int) -> None:
    """After hand `number`: the others check or call until `p`'s first turn of a later hand
    (heads-up, the other may act first)."""
    after = wait_for_hand(p, number, timeout=30)
    deadline = time.monotonic() + 30
    while not p.my_turn():
        assert time.monotonic() < deadline, f"{p.name}'s turn never came"
        other = next((q for q in ps if q is not p and q.my_turn()), None)
        if other is not None:
            act_once(other, keyboard=False)
        else:
            wait_on_each(ps, after)


def ended_after(p: Player, number: int, started: float, timeout: float) -> float:
    """Seconds from `started` (the page's clock) to the end of hand `number`, the page polling
    every 50 ms and noting whether the time bank ever ran meanwhile (`window.__bankRan`). The
    next hand follows 0.1 s after it at this server: seen first, it says the hand is over
    (0.1 s late at most, and no later than the poll that missed the end)."""
    ended_at = p.page.wait_for_function(
        """(n) => { const c = window.__omaha.ctrl; const h = c.state.hand;
          if (h.number === n && h.inBank) window.__bankRan = true;
          return h.ended || h.number > n ? performance.now() : false; }""",
        arg=number,
        polling=50,
        timeout=timeout * 1000,
    ).json_value()
    return float((ended_at - started) / 1000)


def test_an_idle_losers_showdown_ends_on_the_short_clock_and_spends_no_bank(
    players: PlayerFactory,
) -> None:
    alice, bob = players("Alice"), players("Bob")
    alice.join()
    code = create_table(alice, name="Showdown", decision_time=DECISION_TIME, time_bank=TIME_BANK,
                        showdown_time=SHOWDOWN_TIME)  # fmt: skip
    config = alice.state("c.state.table.config")
    assert (config["showdown_time"], config["decision_time"]) == (SHOWDOWN_TIME, DECISION_TIME)
    alice.sit(0)
    bob.join(f"/t/{code}")
    bob.sit(1)
    ps = [alice, bob]
    for p in ps:  # the switch: the server mucks a beaten hand unless the player turns it off
        switch = p.page.get_by_role("checkbox", name="Auto-muck losing hands")
        expect(switch).to_be_checked()
        switch.uncheck()
        p.page.wait_for_function(
            "() => window.__omaha.ctrl.state.you.preferences.auto_muck === false"
        )
        expect(p.page.get_by_role("checkbox", name="Always show my hand")).not_to_be_checked()

    loser, number = beaten_hand(ps)

    page = loser.page
    turn = loser.state(
        "({timeout: c.state.hand.timeout, short: c.state.hand.short, bank: c.state.hand.timeBank,"
        " inBank: c.state.hand.inBank, actions: c.state.hand.legal.actions,"
        " started: c.state.hand.deadline - c.state.hand.timeout * 1000})"
    )
    assert turn["timeout"] == SHOWDOWN_TIME and turn["short"] and not turn["inBank"]
    assert turn["bank"] == TIME_BANK and "muck" in turn["actions"]
    expect(page.locator(".short-clock")).to_contain_text("s to decide · no time bank")
    expect(page.locator(".bank-row")).to_have_count(0)  # no "Need more time" at a showdown
    screenshot_all([loser], "showdown-choice")  # the artifacts: Show / Muck on the short clock
    # Idle: nobody clicks. The page notes when the hand ends, and whether the bank ever ran.
    elapsed = ended_after(loser, number, turn["started"], DECISION_TIME + TIME_BANK)
    # The short clock, never the decision time and bank (20 s + 30 s): 5 s of slack for a
    # loaded machine's delivery of the hand's end, which says nothing of the clock.
    assert SHOWDOWN_TIME - 0.2 <= elapsed <= SHOWDOWN_TIME + 5, elapsed
    assert not page.evaluate("() => !!window.__bankRan")
    seat = loser.state("c.state.you.seat")
    ended = f"(c.state.hand.number === {number} ? c.state.hand : c.state.lastHand)"
    assert loser.state(f"{ended}.players[{seat}].mucked") is True  # the clock mucked it
    print(f"\nidle loser's showdown ended {elapsed:.2f} s after their turn (showdown_time "
          f"{SHOWDOWN_TIME} s, decision time {DECISION_TIME} s)")  # fmt: skip

    # The bank is as it was: their next turn shows it full, the decision time first.
    next_own_turn(loser, ps, number)
    assert loser.state("c.state.hand.phase") == "betting"
    assert loser.state("c.state.hand.timeBank") == TIME_BANK
    assert loser.state("c.state.hand.inBank") is False


def test_an_idle_voters_run_it_twice_vote_ends_on_the_short_clock_and_spends_no_bank(
    players: PlayerFactory,
) -> None:
    """Heads-up all in before the flop at a table that runs it twice: the first voter agrees
    from the dock, the second stays idle. The vote ends `showdown_time` after their turn
    began (the clock votes once for them), never on the decision time, the time bank never
    runs, and (no refill at this table) their bank is whole at their next turn."""
    alice, bob = players("Alice"), players("Bob")
    alice.join()
    code = create_table(alice, name="Vote", betting="no-limit", run_it_twice=True,
                        decision_time=DECISION_TIME, time_bank=TIME_BANK,
                        time_bank_refill="none", showdown_time=VOTE_TIME)  # fmt: skip
    config = alice.state("c.state.table.config")
    assert config["run_it_twice"] is True and config["time_bank_refill"] == "none"
    assert (config["showdown_time"], config["decision_time"]) == (VOTE_TIME, DECISION_TIME)
    alice.sit(0)
    bob.join(f"/t/{code}")
    bob.sit(1)
    ps = [alice, bob]
    number = wait_for_hand(alice)
    # Not paused: a host's pause stops the clock, the vote's short clock too. After an all-in
    # the next hand waits anyway until the busted player buys in again.

    def turn_of(phase: str) -> Player:
        deadline = time.monotonic() + 30
        while True:
            for p in ps:
                if p.my_turn() and p.state("c.state.hand.phase") == phase:
                    return p
            assert time.monotonic() < deadline, f"no {phase} turn came"
            wait_on_each(ps, number)

    # The first to act goes all in, the other calls (all in too): the vote is offered.
    go_all_in(turn_of("betting"))
    act_once(turn_of("betting"), keyboard=False)
    voter = turn_of("run-it-twice")
    idle = bob if voter is alice else alice
    act_once(voter, keyboard=False)  # "Run it twice": the other's vote is asked next

    page = idle.page
    page.wait_for_function(
        "() => { const c = window.__omaha.ctrl;"
        " return c.isMyTurn() && c.state.hand.phase === 'run-it-twice'; }"
    )
    turn = idle.state(
        "({timeout: c.state.hand.timeout, short: c.state.hand.short, bank: c.state.hand.timeBank,"
        " inBank: c.state.hand.inBank, actions: c.state.hand.legal.actions,"
        " started: c.state.hand.deadline - c.state.hand.timeout * 1000})"
    )
    assert turn["timeout"] == VOTE_TIME and turn["short"] and not turn["inBank"], turn
    assert turn["bank"] == TIME_BANK and turn["actions"] == ["run-twice"], turn
    expect(page.locator(".actions.vote .short-clock")).to_contain_text("s to decide · no time bank")
    expect(page.locator(".bank-row")).to_have_count(0)  # no "Need more time" on a vote
    # Idle: nobody clicks.
    elapsed = ended_after(idle, number, turn["started"], DECISION_TIME + TIME_BANK)
    assert VOTE_TIME - 0.2 <= elapsed <= VOTE_TIME + 5, elapsed  # never 20 s + 30 s
    assert not page.evaluate("() => !!window.__bankRan")
    seats = {p.name: p.state("c.state.you.seat") for p in ps}
    # (the next hand may be dealt already, when nobody busted: this one is then the last)
    ended = f"(c.state.hand.number === {number} ? c.state.hand : c.state.lastHand)"
    votes = idle.state(f"{ended}.votes")
    assert votes == {str(seats[voter.name]): True, str(seats[idle.name]): False}, votes
    assert idle.state(f"{ended}.runs") == 1  # the clock's vote is no: one run
    print(f"\nidle voter's vote ended {elapsed:.2f} s after their turn (showdown_time "
          f"{VOTE_TIME} s, decision time {DECISION_TIME} s)")  # fmt: skip

    # Whoever lost it all buys in again from the dock; then the next hand.
    for p in ps:
        if p.state("c.state.seats[c.state.you.seat].stack") == 0:
            p.page.get_by_role("form", name="Rebuy").locator("[data-cmd=rebuy]").click()
            p.page.wait_for_function(
                "() => { const c = window.__omaha.ctrl; return c.state.seats[c.state.you.seat]"
                ".stack > 0; }"
            )
    # The bank is as it was (this table never refills it): whole at their next turn.
    next_own_turn(idle, ps, number)
    assert idle.state("c.state.hand.phase") == "betting"
    assert idle.state("c.state.hand.timeBank") == TIME_BANK
    assert idle.state("c.state.hand.inBank") is False
    assert not alice.errors and not bob.errors, (alice.errors, bob.errors)


def play_to_a_muck(ps: list[Player], host: Player) -> tuple[Player, int]:
    """Hands checked down (the host pauses each one: it stays on the table when over) until
    one where the server mucks a beaten hand (auto-muck, as set by default). Returns the
    player who mucked and the hand's number."""
    number = 0
    for _ in range(12):  # a beaten second hand shown: about every other hand
        number = wait_for_hand(host, number, timeout=30)
        host.page.evaluate("() => window.__omaha.ctrl.command('pause')")
        host.page.wait_for_function("() => window.__omaha.ctrl.state.table.paused")
        deadline = time.monotonic() + 60
        while not all(p.state("c.state.hand.ended") for p in ps):
            assert time.monotonic() < deadline, "the hand did not end"
            actor = next((p for p in ps if p.my_turn()), None)
            if actor is not None:
                act_once(actor, keyboard=False)
            else:
                wait_on_each(ps, number)
        mucked = [p for p in ps if p.state("c.state.hand.players[c.state.you.seat].mucked")]
        if mucked:
            return mucked[0], number
        host.page.evaluate("() => window.__omaha.ctrl.command('resume')")
    raise AssertionError("twelve hands without a hand mucked at the showdown")


def test_your_own_mucked_cards_stay_yours_to_see_and_nobody_elses(
    players: PlayerFactory,
) -> None:
    """A hand mucked at the showdown stays on its owner's page, dimmed and marked mucked,
    live and after a reload; the other player and a spectator never get those cards."""
    alice, bob = players("Alice"), players("Bob", viewport={"width": 375, "height": 667},
                                               is_mobile=True, has_touch=True)  # fmt: skip
    watcher = players("Wes")
    alice.join()
    code = create_table(alice, name="Muck", decision_time=DECISION_TIME, time_bank=0)
    alice.sit(0)
    bob.join(f"/t/{code}")
    bob.sit(1)
    watcher.join(f"/t/{code}")
    ps = [alice, bob]
    loser, number = play_to_a_muck(ps, alice)
    other = bob if loser is alice else alice
    seat = loser.state("c.state.you.seat")
    mine = loser.state(f"c.state.hand.players[{seat}].cards") or []
    assert len(mine) == 4, mine  # the loser's page keeps the cards it was dealt

    def shown_to_owner() -> None:
        panel = loser.page.locator(".my-hand.mucked[data-mucked]")
        expect(panel).to_be_visible()
        expect(panel).to_contain_text("Mucked")
        faces = panel.locator(".card").evaluate_all("els => els.map(e => e.dataset.card)")
        assert sorted(faces) == sorted(mine), (faces, mine)
        opacity = panel.locator(".cards.mine").evaluate("e => getComputedStyle(e).opacity")
        assert float(opacity) < 1, opacity  # dimmed

    def hidden_from(p: Player) -> None:
        assert p.state(f"c.state.hand.players[{seat}].cards") is None
        assert not (set(mine) & p.dom_cards()), (p.name, mine)

    shown_to_owner()
    screenshot_all([loser, other], "own-muck")
    for p in (other, watcher):
        hidden_from(p)
    # After a reload: the snapshot keeps them for their owner only.
    for p in (loser, other, watcher):
        p.reload()
        p.page.wait_for_function(
            "n => { const h = window.__omaha.ctrl.state.hand; return h && h.number === n; }",
            arg=number,
        )
    shown_to_owner()
    for p in (other, watcher):
        hidden_from(p)
    screenshot_all([loser], "own-muck-reloaded")
    assert not loser.errors and not other.errors and not watcher.errors
