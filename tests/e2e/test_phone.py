"""Done-when 6: at 375x667 every control is reachable without scrolling sideways, and touch
targets are at least 44 px."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.e2e.conftest import BotFactory, PlayerFactory
from tests.e2e.harness import calling_station, rects
from tests.e2e.test_games import new_table

PHONE = {"viewport": {"width": 375, "height": 667}, "is_mobile": True, "has_touch": True}

# Every control a thumb may press, drawn on the page now.
CONTROLS = """() => [...document.querySelectorAll(
  'button, a[href], input:not([type=checkbox]):not([type=radio]), select, summary, label.btn,'
  + ' .sit-btn'
)].filter((e) => e.offsetParent !== null || getComputedStyle(e).position === 'fixed')
  .filter((e) => !e.matches('.sr-toggle:not(:focus)'))  // a skip link: drawn only when focused
  .map((e) => {
  const r = e.getBoundingClientRect();
  return { what: e.outerHTML.slice(0, 80), left: r.left, right: r.right, height: r.height };
})"""


def check_layout(page: Page, where: str) -> None:
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 375, f"{where}: the page scrolls sideways ({width} px)"
    controls = page.evaluate(CONTROLS)
    assert controls, where
    for c in controls:
        assert c["left"] >= -0.5 and c["right"] <= 375.5, f"{where}: off screen: {c}"
        assert c["height"] >= 44 - 0.5, f"{where}: too small to touch: {c}"


def test_phone_portrait(players: PlayerFactory, bots: BotFactory) -> None:
    p = players("Phil", **PHONE)
    p.page.goto(p.base + "/")
    p.page.wait_for_selector("input[name=name]")
    check_layout(p.page, "home, no name")
    p.join()
    p.page.click("details.more summary")
    check_layout(p.page, "home")
    code = new_table(p, game="six-card-omaha", seats=7, decision_time=0)
    p.open(f"/t/{code}")
    expect(p.page.locator(".seat")).to_have_count(7)
    check_layout(p.page, "table, watching")
    p.page.click("[data-sit='0']")
    check_layout(p.page, "sit dialog")
    p.page.click("[data-cmd=confirm-sit]")
    for seat in (3, 6):
        bot = bots(f"Bot{seat}", calling_station)
        bot.start(code, seat, 200)
    p.page.wait_for_selector(":is([data-act=check], [data-act=call]):not([disabled])")
    expect(p.page.locator(".cards.mine .card")).to_have_count(6)
    check_layout(p.page, "table, to act")
    # The six hole cards fit side by side.
    boxes = p.page.locator(".cards.mine .card").evaluate_all(
        "els => els.map(e => e.getBoundingClientRect().right)"
    )
    assert max(boxes) <= 375
    # A message (here the one a late action gets) never covers the action buttons.
    p.page.evaluate(
        "() => { const c = window.__omaha.ctrl;"
        " c.flash('The turn had passed: your call was not applied.'); c.redraw(); }"
    )
    expect(p.page.locator(".toast")).to_be_visible()  # drawn at the next frame
    got = rects(p.page, toast=".toast", buttons=".main-actions .btn")
    (toast,) = got["toast"]
    assert got["buttons"], got
    for b in got["buttons"]:
        apart = (
            toast["y"] + toast["height"] <= b["y"]
            or b["y"] + b["height"] <= toast["y"]
            or toast["x"] + toast["width"] <= b["x"]
            or b["x"] + b["width"] <= toast["x"]
        )
        assert apart, f"the message covers an action button: {toast} {b}"
    p.page.click(".menu-toggle")  # on a phone the table's menu folds into one button
    check_layout(p.page, "menu")
    p.page.click("[data-cmd=settings]")
    check_layout(p.page, "settings")
