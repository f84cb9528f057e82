"""`make screenshots` scenes of the table's running hand log, reactions and results with side
pots (issue 26), each on a desktop and a 375x667 phone (tests/e2e/screenshots.py runs them):

- `log`: a few hands played, the log open beside the table (desktop) or as a sheet over the
  felt (phone), at the viewer's turn;
- `reactions`: the viewer's reaction picker open beside two others' reactions (sent by the
  bots over the protocol), then the viewer's own on its seat;
- `sidepots`: a three-way all-in with two short stacks (30 and 60 against 200), played out:
  the results name the main pot and side pot 1 with their amounts.
"""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser

from tests.e2e.harness import Bot, Player, calling_station
from tests.e2e.play import act_once, wait_for_hand
from tests.e2e.test_games import new_table
from tests.e2e.test_hand_log import shove_preflop
from tests.waits import within_sync

NAMES = ["Maya", "Theo", "Ines", "Kofi", "Lena"]
DESKTOP = {"viewport": {"width": 1280, "height": 860}, "device_scale_factor": 1}
PHONE = {
    "viewport": {"width": 375, "height": 667},
    "device_scale_factor": 2,
    "is_mobile": True,
    "has_touch": True,
}
SCREENS = (("desktop", DESKTOP), ("phone", PHONE))


def seated(browser: Browser, base: str, options: dict[str, Any], stacks: list[int],
           **config: object) -> tuple[Player, str, list[Bot]]:  # fmt: skip
    """Maya (200) and a calling station per stack in `stacks`, all seated before the first
    deal (held paused meanwhile, then resumed)."""
    p = Player(browser, base, NAMES[0], **options)
    p.join()
    code = new_table(p, decision_time=0, **config)
    p.open(f"/t/{code}")
    p.page.evaluate("() => window.__omaha.ctrl.command('pause')")
    p.page.wait_for_function("() => window.__omaha.ctrl.state.table.paused")
    p.sit(0, 200)
    bots = []
    for seat, stack in enumerate(stacks, start=1):
        bot = Bot(base, NAMES[seat], calling_station)
        bot.start(code, seat, stack)
        bots.append(bot)
    p.page.wait_for_function(
        f"() => window.__omaha.ctrl.state.seats.filter(Boolean).length === {len(stacks) + 1}"
    )
    p.page.evaluate("() => window.__omaha.ctrl.command('resume')")
    return p, code, bots


def my_turn_after_flop(p: Player, hands: int) -> None:
    """Check or call through `hands` hands, then on to the viewer's turn after the flop."""
    number = 0
    for _ in range(hands):
        number = wait_for_hand(p, after=number)
        within_sync(partial(played, p, number), 60)
    number = wait_for_hand(p, after=number)

    def at_turn() -> bool:
        if not p.my_turn():
            return False
        if p.state("c.state.hand.street") != "preflop":
            return True
        act_once(p, keyboard=False)
        return False

    within_sync(at_turn, 60)
    p.page.wait_for_selector("[data-act]:not([disabled])")


def played(p: Player, number: int) -> bool:
    """Hand `number` is over (the viewer acted whenever it was its turn)."""
    if p.state(f"!!(c.state.hand && (c.state.hand.number > {number} || c.state.hand.ended))"):
        return True
    if p.my_turn():
        act_once(p, keyboard=False)
    return False


def shoot(p: Player, path: Path, full: bool = False) -> None:
    p.page.mouse.move(0, 0)
    p.page.evaluate("() => window.scrollTo(0, 0)")
    p.page.locator(".toast").wait_for(state="detached", timeout=8000)
    p.page.wait_for_timeout(400)  # the last redraw, the highlights' moves
    p.page.screenshot(path=str(path), full_page=full)


def done(p: Player, bots: list[Bot]) -> None:
    for b in bots:
        b.close()
    p.close()


def hand_log(browser: Browser, base: str, out: Path) -> None:
    for tag, options in SCREENS:
        p, _, bots = seated(browser, base, options, [200, 200], name="Friday PLO", seats=6)
        my_turn_after_flop(p, hands=2)  # (the table waits on the viewer: no clock)
        if tag == "phone":
            p.page.get_by_role("button", name="Menu").click()
        p.page.click("[data-cmd=log]")
        p.page.get_by_role("complementary", name="Hand log").wait_for()
        shoot(p, out / f"hand-log-{tag}.png")
        done(p, bots)


def reactions(browser: Browser, base: str, out: Path) -> None:
    """At the viewer's turn (the table waits on it: no clock): the picker open with two
    others' reactions shown; then the viewer's own picked, the picker closed."""
    for tag, options in SCREENS:
        p, _, bots = seated(browser, base, options, [200, 200, 200], name="Friday PLO", seats=6)
        my_turn_after_flop(p, hands=0)
        p.page.locator(".toast").wait_for(state="detached", timeout=8000)
        p.page.click("[data-cmd=react]")
        others(bots, "laugh", "fire")
        p.page.locator(".reaction").nth(1).wait_for()
        shoot(p, out / f"reactions-picker-{tag}.png")
        p.page.click("[data-react=thumbs_up]")
        others(bots, "wow", "clap")  # (each shown for a few seconds: anew)
        p.page.locator(".reaction").nth(2).wait_for()
        shoot(p, out / f"reactions-{tag}.png")
        done(p, bots)


def others(bots: list[Bot], *names: str) -> None:
    """The first bots react, one name each, over their own sockets."""
    for bot, name in zip(bots, names, strict=False):
        assert bot.ws is not None
        bot.ws.send(json.dumps({"type": "react", "reaction": name}))


def side_pots(browser: Browser, base: str, out: Path) -> None:
    for tag, options in SCREENS:
        p, _, bots = seated(browser, base, options, [30, 60], name="Side pots",
                            betting="no-limit", buy_in_min=20, run_it_twice=False,
                            seats=3)  # fmt: skip
        shove_preflop(p)  # the result stays: the table is paused
        page = p.page
        page.locator(".results .pot-result[data-pot-index='1']").wait_for()
        # The whole page: the felt with the hands shown, the results below the dock (and
        # the pause banner where it stands, at the top, not stuck over the dock).
        shoot(p, out / f"side-pots-{tag}.png", full=True)
        done(p, bots)
