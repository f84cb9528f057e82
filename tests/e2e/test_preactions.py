"""Done-when 4: pre-actions fire when the turn comes and clear when the amount to call or the
street changes; folding when a check is free asks first; the hand reader names the hand the
engine names. Three-handed: the browser player on the button (last to act after the flop)
and two protocol bots whose every decision the test makes."""

from __future__ import annotations

import queue
import time
from typing import Any

import pytest
from playwright.sync_api import expect

from app.poker import parse_cards
from app.poker.evaluation import describe_high, describe_low
from tests.e2e.conftest import BotFactory, PlayerFactory
from tests.e2e.harness import Bot, Player, calling_station
from tests.e2e.play import act_once, mark, wait_for_hand, wait_moved_on
from tests.e2e.test_games import new_table
from tests.waits import within_sync


@pytest.fixture(scope="module")
def base(quick_base: str) -> str:
    """The worker's quick server (tests/e2e/conftest.py): the hands before Pia's button follow each
    other at once."""
    return quick_base


class Puppet:
    """A bot policy: the calling station while `auto`, else whatever the test feeds it."""

    def __init__(self) -> None:
        self.auto = True
        self.feed: queue.Queue[dict[str, Any]] = queue.Queue()
        self.legal: dict[str, Any] | None = None

    def __call__(self, legal: dict[str, Any]) -> dict[str, Any]:
        # A turn held for the test is let go when `auto` comes back on: a test that switches
        # it on while the bot's turn already waits (the next hand dealt before the test was
        # done with the page) must not leave the bot holding the hand.
        self.legal = legal
        try:
            deadline = time.monotonic() + 60
            while not self.auto:
                try:
                    return self.feed.get(timeout=0.05)
                except queue.Empty:
                    if time.monotonic() > deadline:
                        raise
            return calling_station(legal)
        finally:
            self.legal = None


def actor(p: Player) -> int | None:
    return p.state("c.state.hand && !c.state.hand.ended ? c.state.hand.actor : null")  # type: ignore[no-any-return]


def wait_actor(p: Player, seat: int) -> None:
    p.page.wait_for_function(
        f"() => {{ const h = window.__omaha.ctrl.state.hand;"
        f" return h && !h.ended && h.actor === {seat}; }}"
    )


def feed(puppets: dict[int, Puppet], p: Player, action: dict[str, Any]) -> None:
    """The bot to act (on the page's word) takes `action`."""
    seats = ", ".join(str(s) for s in puppets)
    p.page.wait_for_function(
        f"() => {{ const h = window.__omaha.ctrl.state.hand;"
        f" return h && !h.ended && [{seats}].includes(h.actor); }}"
    )
    seat = actor(p)
    assert seat is not None
    within_sync(lambda: puppets[seat].legal is not None, 30, 0.02, "the bot's turn")
    since = mark(p)
    puppets[seat].feed.put(action)
    wait_moved_on(p, since, timeout=30)


def check_reader(p: Player) -> None:
    """The page's hand reader says what the engine says, for the high and the low."""
    hole = parse_cards("".join(p.my_cards()))
    board = parse_cards("".join(p.state("c.state.hand.boards[0][0]")))
    reading = p.page.locator(".reading").first
    expect(reading.locator(".high")).to_have_text(describe_high(hole, board).name)
    low = describe_low(hole, board)
    expect(reading.locator(".low")).to_have_text(low.name if low else "No low")
    used = p.page.locator(".cards.mine .card.used").evaluate_all(
        "els => els.map(e => e.dataset.card)"
    )
    assert sorted(parse_cards("".join(used))) == sorted(describe_high(hole, board).hole_used)


def test_pre_actions_fold_guard_and_hand_reader(players: PlayerFactory, bots: BotFactory) -> None:
    p = players("Pia")
    p.join()
    code = new_table(p, game="omaha-hi-lo", decision_time=0, seats=3)
    page = p.page
    p.open(f"/t/{code}")
    puppets = {1: Puppet(), 2: Puppet()}
    b: list[Bot] = []
    for seat, puppet in puppets.items():
        bot = bots(f"Bot{seat}", puppet)
        bot.start(code, seat, 200)
        b.append(bot)
    p.sit(0)

    # Play (check/call) until a hand in which Pia holds the button, and it is her first turn.
    number = 0
    for _ in range(8):
        number = wait_for_hand(p, after=number)
        if p.state("c.state.hand.button") == 0 and len(p.state("c.state.hand.order")) == 3:
            break
        while p.state(f"c.state.hand.number === {number} && !c.state.hand.ended"):
            if p.my_turn():
                act_once(p, keyboard=False)
            time.sleep(0.05)
    else:
        raise AssertionError("Pia never got the button")
    wait_actor(p, 0)  # three-handed, the button acts first before the flop
    for puppet in puppets.values():
        puppet.auto = False
    act_once(p, keyboard=False)  # calls the big blind
    feed(puppets, p, {"action": "call"})  # small blind
    feed(puppets, p, {"action": "check"})  # big blind: to the flop
    page.wait_for_function("() => window.__omaha.ctrl.state.hand.street === 'flop'")
    check_reader(p)

    # Flop: "check" fires by itself when the turn comes.
    page.click("[data-pre=check]")
    expect(page.locator(".btn.pre.on[data-pre=check]")).to_have_count(1)
    feed(puppets, p, {"action": "check"})
    feed(puppets, p, {"action": "check"})
    page.wait_for_function("() => window.__omaha.ctrl.state.hand.street === 'turn'")
    assert p.state("c.state.hand.players[0].last") in (None, "Check")

    # (the bot reads its own socket: Pia's flop action may reach it after the page's turn.
    # This hand's only: her calls of the hands before it were counted once, and the wait
    # ended before her flop check had arrived.)
    hand = p.state("c.state.hand.id")

    def pias() -> list[dict[str, Any]]:
        acted = (m for m in b[0].messages if m.get("type") == "acted")
        return [m for m in acted if m.get("seat") == 0 and m.get("hand") == hand]

    within_sync(lambda: len(pias()) >= 2, 30, 0.02, "Pia's call, then her flop action")
    assert pias()[-1]["action"] == "check", "the pre-action checked for Pia"
    check_reader(p)

    # Turn: "check" clears when someone bets; then "call N" clears when someone raises.
    page.click("[data-pre=check]")
    first = actor(p)
    assert first is not None
    bet = puppets[first].legal
    feed(puppets, p, {"action": "bet", "amount": 2})
    expect(page.locator(".btn.pre.on")).to_have_count(0)
    assert p.state("c.pre") is None
    page.click("[data-pre=call]")
    expect(page.locator("[data-pre=call]")).to_contain_text("Call 2")
    feed(puppets, p, {"action": "raise", "amount": 4})
    expect(page.locator(".btn.pre.on")).to_have_count(0)
    # Pia's turn came and nothing was done for her.
    page.wait_for_selector("[data-act=call]:not([disabled])")
    assert p.state("c.state.hand.legal.call") == 4
    assert bet is not None
    page.click("[data-act=call]")
    feed(puppets, p, {"action": "call"})
    page.wait_for_function("() => window.__omaha.ctrl.state.hand.street === 'river'")

    # River: a street change cleared everything; check/fold is offered again.
    expect(page.locator(".btn.pre.on")).to_have_count(0)
    feed(puppets, p, {"action": "check"})
    feed(puppets, p, {"action": "check"})
    page.wait_for_selector("[data-act=check]:not([disabled])")
    since = mark(p)
    # Folding when checking is free asks once; Escape keeps the hand.
    page.click("[data-act=fold]")
    expect(page.locator("[data-act=confirm-fold]")).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.locator("[data-act=confirm-fold]")).to_have_count(0)
    assert mark(p) == since, "nothing was sent"
    page.keyboard.press("f")
    expect(page.locator("[data-act=confirm-fold]")).to_be_visible()
    page.click(".actions.confirm [data-act=check]")
    # Her check ends the river, and the next hand may be dealt before a look sees the counter
    # rise: moved on, whichever came.
    wait_moved_on(p, since)
    # What the table did for her reached the bot (call, check, call, check): a check, no fold.
    within_sync(lambda: len(pias()) >= 4, 30, 0.02, "Pia's river action")
    assert [m["action"] for m in pias()] == ["call", "check", "call", "check"]
    assert not p.errors, p.errors
