"""Layout defects once seen, kept fixed, in Chromium: on a 375x667 phone the "+N" win badge
covers no part of the winner's name (nor their stack or shown cards), and the pause banner
keeps to two lines at most; on a 1280x720 laptop the message shown as the turn starts ("Your
turn: the dialog was closed.", or any other) covers none of the action dock's buttons."""

from __future__ import annotations

from typing import Any, cast

from playwright.sync_api import Page, expect

from tests.e2e.conftest import BotFactory, PlayerFactory
from tests.e2e.harness import ARTIFACTS, calling_station
from tests.e2e.play import play_hand, wait_for_hand
from tests.e2e.test_cues import turn_over_the_settings
from tests.e2e.test_games import new_table
from tests.e2e.test_phone import PHONE

LAPTOP = {"viewport": {"width": 1280, "height": 720}}

# Each winner's badge beside what it must leave readable: its seat's name (a long name cut by
# its ellipsis included), its stack, its shown cards, the dealer button beside the plate, and
# the board and the pot.
BADGES = """() => {
  const box = (e) => { const r = e.getBoundingClientRect();
    return { left: r.left, right: r.right, top: r.top, bottom: r.bottom }; };
  return [...document.querySelectorAll('.felt .seat .won')].map((won) => {
    const seat = won.closest('.seat');
    return { seat: seat.dataset.seat, text: won.textContent, won: box(won),
      name: box(seat.querySelector('.name')), stack: box(seat.querySelector('.stack')),
      cards: [...seat.querySelectorAll('.hole .card')].map(box),
      dealer: seat.querySelector('.dealer') ? box(seat.querySelector('.dealer')) : null,
      board: [...document.querySelectorAll('.felt .board .card, .felt .pot-total')].map(box),
      view: { width: innerWidth, height: innerHeight } };
  });
}"""

# What is drawn at the centre of each button of the dock, and whether a message covers it.
DOCK = """(sel) => {
  const toast = document.querySelector('.toast');
  const t = toast && toast.getBoundingClientRect();
  return [...document.querySelectorAll(sel)].filter((b) => b.offsetParent)
    .map((b) => { const r = b.getBoundingClientRect();
      const x = r.left + r.width / 2, y = r.top + r.height / 2;
      const at = document.elementFromPoint(x, y);
      return { what: b.textContent.trim(), onScreen: y >= 0 && y <= innerHeight,
        hit: !!at && (at === b || b.contains(at)),
        covered: !!t && r.left < t.right && t.left < r.right
          && r.top < t.bottom && t.top < r.bottom };
    });
}"""


def apart(a: dict[str, float], b: dict[str, float]) -> bool:
    """Two boxes that do not overlap (touching edges, within half a pixel, is apart)."""
    return (
        a["right"] <= b["left"] + 0.5
        or b["right"] <= a["left"] + 0.5
        or a["bottom"] <= b["top"] + 0.5
        or b["bottom"] <= a["top"] + 0.5
    )


def check_badges(page: Page) -> list[dict[str, Any]]:
    badges = cast(list[dict[str, Any]], page.evaluate(BADGES))
    for b in badges:
        assert b["text"].startswith("+"), b
        for key in ("name", "stack"):
            assert apart(b["won"], b[key]), (f"the badge covers the {key}", b)
        for card in b["cards"]:
            assert apart(b["won"], card), ("the badge covers a shown card", b)
        assert b["dealer"] is None or apart(b["won"], b["dealer"]), ("under the button", b)
        for card in b["board"]:
            assert apart(b["won"], card), ("the badge covers the board or the pot", b)
        view = b["view"]
        assert b["won"]["left"] >= 0 and b["won"]["right"] <= view["width"], b
    return badges


# The lines a banner's words take (its icon apart), and its height against two lines' worth.
BANNER = """(e) => {
  const words = [...e.childNodes].filter((n) => n.nodeType === 3 && n.data.trim());
  const r = document.createRange();
  r.setStart(words[0], 0); r.setEnd(words[words.length - 1], words[words.length - 1].length);
  const lines = new Set([...r.getClientRects()].map((x) => Math.round(x.top))).size;
  const css = getComputedStyle(e);
  const px = (k) => parseFloat(css[k]);
  const two = 2 * px('lineHeight') + px('paddingTop') + px('paddingBottom')
    + px('borderTopWidth') + px('borderBottomWidth');
  return { lines, height: e.getBoundingClientRect().height, two, text: e.textContent }; }"""


def banner_lines(page: Page, key: str) -> int:
    notice = page.locator(f"[data-notice={key}]")
    expect(notice).to_be_visible()
    fit = notice.evaluate(BANNER)
    assert fit["height"] <= fit["two"] + 1, fit
    return int(fit["lines"])


def test_on_a_phone_the_win_badge_and_the_pause_banner_fit(
    players: PlayerFactory, bots: BotFactory
) -> None:
    p = players("Maximiliana", **PHONE)  # long names: cut by their ellipsis on a phone
    p.join()
    code = new_table(p, decision_time=0, seats=6)
    p.open(f"/t/{code}")
    p.sit(0, 200)
    bots("Bartholomew", calling_station).start(code, 3, 200)
    bots("Christabella", calling_station).start(code, 5, 200)
    number, seen = 0, 0
    for _ in range(3):  # three hands: winners on different seats, some at a showdown
        number = wait_for_hand(p, number)
        if number == 2:  # the host pauses mid-hand: played out, then no new hand
            p.page.evaluate("() => window.__omaha.ctrl.command('pause')")
            assert banner_lines(p.page, "paused") <= 2
            p.page.screenshot(path=str(ARTIFACTS / "fit-pausing-phone.png"))
        play_hand([p], number)
        p.page.wait_for_selector(".felt .seat .won")
        seen += len(check_badges(p.page))
        p.page.screenshot(path=str(ARTIFACTS / f"fit-won-phone-{number}.png"))
        p.page.locator(".felt .seat.winner").first.screenshot(
            path=str(ARTIFACTS / f"fit-won-seat-{number}.png")
        )
        if number == 2:
            assert banner_lines(p.page, "paused") <= 2
            p.page.evaluate("() => window.__omaha.ctrl.command('resume')")
    assert seen >= 3
    assert not p.errors, p.errors


def test_on_a_laptop_the_turns_message_covers_no_button_of_the_dock(
    players: PlayerFactory, bots: BotFactory
) -> None:
    p = players("Dee", **LAPTOP)
    puppet = turn_over_the_settings(p, bots)  # the dialog closes on the turn, and says so
    page = p.page
    expect(page.locator(".toast")).to_contain_text("Your turn")
    page.wait_for_selector(".dock [data-act]:not([disabled])")
    page.screenshot(path=str(ARTIFACTS / "fit-turn-laptop.png"))
    buttons = page.evaluate(DOCK, ".dock button, .dock .btn")
    acts = [b for b in buttons if b["onScreen"]]
    assert len(acts) >= 3, buttons  # fold, call or check, raise at least
    assert [b for b in acts if b["covered"] or not b["hit"]] == [], buttons
    top = page.evaluate(DOCK, ".topbar .btn")  # beside the table: the top bar's clear too
    assert top and not [b for b in top if b["covered"]], top
    # any other message too (here a late action's)
    page.evaluate(
        "() => { const c = window.__omaha.ctrl;"
        " c.flash('The turn had passed: your call was not applied.'); c.redraw(); }"
    )
    expect(page.locator(".toast")).to_contain_text("turn had passed")
    buttons = page.evaluate(DOCK, ".dock button, .dock .btn")
    assert [b for b in buttons if b["onScreen"] and (b["covered"] or not b["hit"])] == [], buttons
    puppet.auto = True
    assert not p.errors, p.errors
