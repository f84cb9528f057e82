"""On a phone (375x667) at six, nine and ten seats (one board; two boards at nine), a live hand on
the flop with bets out on several seats and a seat waiting for the big blind: no bet, no seat's
mark ('Waits for BB', 'All in', ...) and no last action covers a card (or card slot) of the
board(s) or the pot; and at the viewer's turn its cards and the action buttons are on screen
without scrolling either way."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.e2e.conftest import BotFactory, PlayerFactory
from tests.e2e.harness import box
from tests.e2e.test_games import new_table
from tests.e2e.test_phone import PHONE


def raiser(legal: dict[str, Any]) -> dict[str, Any]:
    """Bets or raises the minimum while that stays small, else checks or calls: bets out in
    front of many seats at once."""
    actions = legal["actions"]
    for kind in ("bet", "raise"):
        if kind in actions and legal["min_to"] <= 24:
            return {"action": kind, "amount": legal["min_to"]}
    return {"action": "check" if "check" in actions else "call"}


# Boxes that touch (more than half a pixel each way): what covers what.
OVERLAPS = """() => {
  const on = (sel) => [...document.querySelectorAll(sel)].filter((e) => e.offsetParent !== null)
    .map((e) => ({ r: e.getBoundingClientRect(),
      what: `${sel} of place ${e.closest('[data-k]') ? e.closest('[data-k]').dataset.k : '-'}`
        + ` "${e.textContent.trim()}"` }));
  const hit = (a, b) => a.r.left < b.r.right - .5 && b.r.left < a.r.right - .5
    && a.r.top < b.r.bottom - .5 && b.r.top < a.r.bottom - .5;
  const readable = [...on('.felt .board .card'), ...on('.felt .pot-total'),
    ...on('.felt .side-pots > span')];
  const movers = [...on('.felt .bet'), ...on('.felt .seat .marks'), ...on('.felt .seat .last')];
  const found = [];
  for (const m of movers) for (const k of readable)
    if (hit(m, k)) found.push(`${m.what} covers ${k.what}`);
  for (const a of on('.felt .bet')) for (const b of on('.felt .bet'))
    if (a.what < b.what && hit(a, b)) found.push(`${a.what} covers ${b.what}`);
  return found;
}"""


@pytest.mark.parametrize(("seats", "boards", "late"), [(6, 1, 2), (9, 1, 3), (9, 2, 3), (10, 1, 3)])
def test_phone_bets_and_marks_leave_the_board_readable(
    players: PlayerFactory, bots: BotFactory, seats: int, boards: int, late: int
) -> None:
    p = players("Vic", **PHONE)
    p.join()
    code = new_table(p, game="omaha", seats=seats, boards=boards, decision_time=0)
    p.open(f"/t/{code}")
    p.sit(0, 200)
    # Everyone seated before the first deal: paused meanwhile.
    p.page.evaluate("() => window.__omaha.ctrl.command('pause')")
    p.page.wait_for_function("() => window.__omaha.ctrl.state.table.paused")
    playing = [s for s in range(1, seats) if s != late]
    for s in playing:
        bots(f"Bot{s}", raiser).start(code, s, 200)
    p.page.wait_for_function(
        f"() => window.__omaha.ctrl.state.seats.filter(Boolean).length === {len(playing) + 1}"
    )
    p.page.evaluate("() => window.__omaha.ctrl.command('resume')")
    # An upper side seat (place `late`, beside the board) sits down once the hand is dealt: it
    # waits for the big blind, and says so under its plate.
    dealt = f"(h => h && !h.ended && h.order.length === {len(playing) + 1})(c.state.hand)"
    p.page.wait_for_function(f"() => {{ const c = window.__omaha.ctrl; return {dealt}; }}")
    bots("Late", raiser).start(code, late, 200)
    p.page.wait_for_selector(f".seat[data-seat='{late}'] .marks")
    # Play: call before the flop; on the flop, once bets are out in front of three seats or
    # more at the viewer's turn, look (a hand not everyone is dealt into: fold it).
    bets = "Object.values(c.state.hand.players).filter((q) => q.bet > 0).length"
    deadline = time.monotonic() + 60
    while True:
        assert time.monotonic() < deadline, "no flop with bets out at the viewer's turn"
        if not p.my_turn():
            time.sleep(0.05)
            continue
        street = p.state("c.state.hand.street")
        if p.state(f"c.state.hand.order.length < {len(playing) + 1}"):
            p.page.click("[data-act=fold]")
        elif street == "flop" and p.state(bets) >= 3:
            break
        elif street in ("preflop", "flop"):
            p.page.locator("[data-act=check], [data-act=call]").first.click()
        else:
            p.page.click("[data-act=fold]")
        p.page.wait_for_function("() => !window.__omaha.ctrl.pending")
        time.sleep(0.2)
    page = p.page
    page.evaluate("() => window.scrollTo(0, 0)")
    assert page.locator(".felt .board .card[data-card]").count() == 3 * boards  # the flop
    assert page.locator(".felt .bet").count() >= 3
    assert page.locator(f".seat[data-seat='{late}'] .marks").inner_text() == "Waits for BB"
    assert page.evaluate(OVERLAPS) == []
    # The viewer's cards and the action buttons: on screen, no scrolling either way, under two
    # boards' hand reader too, whose lines stay one each for the longest high hand's name.
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 375
    assert page.evaluate("() => window.scrollY") == 0
    if boards > 1:
        line = page.locator(".reading").first
        height = box(line)["height"]
        line.locator(".high").evaluate(
            "e => { e.textContent = 'Full house, queens full of deuces'; }"
        )
        assert box(line)["height"] == height
    on_screen = page.locator(".cards.mine .card, .main-actions .btn").evaluate_all(
        "els => els.map((e) => { const r = e.getBoundingClientRect();"
        " return [e.textContent.trim(), r.left, r.top, r.right, r.bottom]; })"
    )
    assert len(on_screen) >= 4 + 3, on_screen  # four cards, fold / call / raise
    for what, left, top, right, bottom in on_screen:
        assert left >= 0 and top >= 0 and right <= 375 and bottom <= 667, (what, bottom)
