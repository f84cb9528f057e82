"""Playing from the page: waiting on the client's state and acting as a person would."""

from __future__ import annotations

import time
from collections.abc import Callable

from playwright.sync_api import TimeoutError as PageTimeout

from tests.e2e.harness import Player

Check = Callable[[list[Player]], None]


def hand_number(p: Player) -> int:
    return int(p.state("c.state && c.state.hand ? c.state.hand.number : 0"))


def wait_for_hand(p: Player, after: int = 0, timeout: float = 20) -> int:
    p.page.wait_for_function(
        f"() => {{ const c = window.__omaha.ctrl; return c && c.state && c.state.hand"
        f" && c.state.hand.number > {after} && !c.state.hand.ended; }}",
        timeout=timeout * 1000,
    )
    return hand_number(p)


#: where the hand stood before an action: its number and its counter
Mark = tuple[int, int]

#: the hand moved on from a mark: its counter rose, it ended, another hand began (a server that
#: deals at once may end one and start the next between two looks), or the page left the table
MOVED_ON = """([number, counter]) => {
  const o = window.__omaha; const c = o && o.ctrl; const h = c && c.state && c.state.hand;
  return !h || h.number !== number || h.counter > counter || !!h.ended; }"""


def mark(p: Player) -> Mark:
    """Where the page's hand stands now, to wait for it to move on after an action: its
    number and counter read together (apart, they could come from two hands)."""
    number, counter = p.state("c.state.hand ? [c.state.hand.number, c.state.hand.counter] : [0, 0]")
    return int(number), int(counter)


def wait_moved_on(p: Player, since: Mark, timeout: float = 15) -> None:
    """Wait until the hand moved on from `since`; if it did not, say what the page held."""
    try:
        p.page.wait_for_function(MOVED_ON, arg=list(since), timeout=timeout * 1000)
    except PageTimeout as e:
        now = p.page.evaluate(PAGE_NOW)
        raise AssertionError(f"{p.name}'s action at {since} was not applied: {now}") from e


def act_once(p: Player, keyboard: bool) -> None:
    """Check or call (show at showdown, agree to run it twice); waits until it is applied."""
    phase = p.state("c.state.hand.phase")
    since = mark(p)
    page = p.page
    if phase == "betting":
        if keyboard:
            page.keyboard.press("c")
        else:
            page.locator("[data-act=check], [data-act=call]").first.click()
    elif phase == "showdown":
        page.click("[data-act=show]")
    else:
        page.click("[data-act=run-twice-yes]")
    wait_moved_on(p, since)


#: the page's own account of a turn not taken: the request in flight, the hand's counter and
#: actor, the seat, the toast, and the socket's state
PAGE_NOW = """() => { const c = window.__omaha.ctrl; const h = c.state.hand; return JSON.stringify({
  pending: c.pending && { counter: c.pending.counter, action: c.pending.action },
  counter: h && h.counter, actor: h && h.actor, phase: h && h.phase, legal: h && h.legal,
  seat: c.state.you.seat, toast: c.ui.message, conn: c.conn,
  buttons: [...document.querySelectorAll('[data-act]')].map((b) => [b.dataset.act, b.disabled]),
}); }"""


def play_hand(
    ps: list[Player],
    number: int,
    keyboard: bool = False,
    check: Check | None = None,
    timeout: float = 60,
) -> None:
    """Everyone checks or calls until hand `number` is over."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if all(
            p.state(f"!!(c.state.hand && (c.state.hand.number > {number} || c.state.hand.ended))")
            for p in ps
        ):
            return
        for p in ps:
            if p.my_turn() and hand_number(p) == number:
                if check is not None:
                    check(ps)
                act_once(p, keyboard)
        time.sleep(0.05)
    raise AssertionError(f"hand {number} did not end in {timeout} s")


#: the replayer's steps (static/js/replay.js): the deal is one, then one per event of these
STEP_BREAKS = {"acted", "board", "shown", "mucked", "award", "runs", "bet_returned"}
_DEAL = {"forced_bet", "hole_cards", "round", "turn"}


def step_ends(events: list[dict[str, object]]) -> list[int]:
    """Where each replayer step ends (exclusive) in a record's events."""
    k = 0
    while k < len(events) and (
        events[k]["type"] in _DEAL
        or (events[k]["type"] == "board" and events[k]["street"] == "preflop")
    ):
        k += 1
    ends = [k] if k else []
    ends += [i + 1 for i in range(k, len(events)) if events[i]["type"] in STEP_BREAKS]
    if ends:
        ends[-1] = len(events)  # what follows the last action belongs to it
    elif events:
        ends.append(len(events))
    return ends
