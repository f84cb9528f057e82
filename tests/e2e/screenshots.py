"""`make screenshots`: the pictures in the README, taken from real play on a real server.

    python -m tests.e2e.screenshots [OUTPUT_DIR] [SCENE...]  (default: docs/screenshots, all)

1. `plo`: a six-handed pot-limit Omaha showdown (desktop);
2. `hilo`: a double-board hi-lo hand split high and low (desktop);
3. `phone`: the phone layout (375x667), at the player's turn after the flop;
4. `reader`: the screen-reader mode (desktop), at the player's turn: the command box and
   what it said;
5. `review`: after an evening, on desktop and phone: "My hands", the replayer over the live
   table (at the flop, the equities below), and the ledger's graph and statistics.
6. `tournament`: a tournament, each on a laptop (1280x720) and a phone: the home page's form
   with its preview, the tournament's page as the host fills it (invite link, players,
   bots), a table at the player's turn (the tournament bar above the felt), the big-screen
   clock, and a table page at the end (who won, the player's place and prize).
7. `log`, `reactions`, `sidepots`: the running hand log, reactions on the seats and results
   with a side pot, each on desktop and phone (tests/e2e/scenes.py).
8. `rabbit`: the rabbit hunt on desktop and phone (375x667): the viewer bets the flop, the
   others fold, the viewer hunts the rabbit (turn and river faded, said not played) and
   may still show a card of their choice.
The viewer plays from the page; the other seats are protocol bots that check and call. The
viewer, as host, pauses the table during each hand so the showdown stays on screen.
"""

from __future__ import annotations

import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, sync_playwright

from tests.e2e.harness import Bot, Player, calling_station, launch, server, settable
from tests.e2e.play import act_once, play_hand, wait_for_hand
from tests.e2e.scenes import hand_log, reactions, side_pots
from tests.e2e.test_games import new_table
from tests.e2e.tourney import (
    PLAY_LIMIT,
    act,
    create_tournament,
    finished,
    play_until,
    register_by_link,
)
from tests.waits import within_sync

NAMES = ["Maya", "Theo", "Ines", "Kofi", "Lena", "Ravi", "Sam"]
DESKTOP: dict[str, Any] = {"viewport": {"width": 1280, "height": 1000}, "device_scale_factor": 1}
LAPTOP: dict[str, Any] = {"viewport": {"width": 1280, "height": 720}, "device_scale_factor": 1}
PHONE: dict[str, Any] = {
    "viewport": {"width": 375, "height": 667},
    "device_scale_factor": 2,
    "is_mobile": True,
    "has_touch": True,
}


def table(
    p: Player, others: int, policy: Callable[[dict[str, Any]], dict[str, Any]] = calling_station,
    **config: object,
) -> tuple[str, list[Bot]]:  # fmt: skip
    code = new_table(p, decision_time=0, **config)
    p.open(f"/t/{code}")
    p.sit(0, 200)
    bots = []
    for i in range(others):
        bot = Bot(p.base, NAMES[i + 1], policy)
        bot.start(code, i + 1, 200)
        bots.append(bot)
    return code, bots


def play_paused_hand(p: Player, after: int, until: str | None = None) -> int:
    """Play one hand from the page with the table paused (no next deal) when it ends; return
    its number. `until` is a JavaScript condition on `h` (the hand) to stop early at."""
    number = wait_for_hand(p, after=after)
    p.page.evaluate("() => window.__omaha.ctrl.command('pause')")
    while True:
        if p.state(f"(h => h.ended || h.number > {number})(c.state.hand)"):
            return number
        if until and p.state(f"(h => {until})(c.state.hand)"):
            return number
        if p.my_turn():
            act_once(p, keyboard=False)
        time.sleep(0.05)


def shoot(p: Player, path: Path) -> None:
    p.page.mouse.move(0, 0)
    p.page.evaluate("() => window.scrollTo(0, 0)")  # clicking may have scrolled to a button
    p.page.wait_for_timeout(500)  # let the highlights finish moving
    # the host's "Paused" message (the pause that holds the scene) goes after 5 s
    p.page.locator(".toast").wait_for(state="detached", timeout=8000)
    p.page.screenshot(path=str(path))


def resume(p: Player) -> None:
    p.page.evaluate("() => window.__omaha.ctrl.command('resume')")


def lively(legal: dict[str, Any]) -> dict[str, Any]:
    """A bot that raises now and then (so the statistics have raises to count)."""
    if "raise" in legal["actions"] and random.random() < 0.3:
        return {"action": "raise", "amount": legal["min_to"]}
    if "bet" in legal["actions"] and random.random() < 0.3:
        return {"action": "bet", "amount": legal["min_to"]}
    return calling_station(legal)


def review(browser: Browser, base: str, out: Path) -> None:
    """An evening of eight hands, then what Maya reviews, on her desktop and her phone."""
    p = Player(browser, base, NAMES[0], **DESKTOP)
    p.join()
    code, bots = table(p, 3, name="Friday PLO", game="omaha", seats=6, policy=lively)
    number = 0
    for _ in range(8):
        number = wait_for_hand(p, after=number)
        play_hand([p], number)
    p.page.evaluate("() => window.__omaha.ctrl.command('pause')")
    p.page.wait_for_function(
        "() => { const h = window.__omaha.ctrl.state.hand; return !h || h.ended; }", timeout=20000
    )
    mobile = Player(browser, base, "phone", **PHONE)
    mobile.context.add_cookies(settable(p.context.cookies()))  # Maya, on her phone
    for viewer, tag in ((p, "desktop"), (mobile, "phone")):
        page = viewer.page
        viewer.open("/hands")
        page.wait_for_selector("[data-my-hand]")
        shoot_page(viewer, out / f"my-hands-{tag}.png", full=tag == "phone")
        # The replayer over the live table, at the flop, the equities computed below it.
        viewer.open(f"/t/{code}")
        last = viewer.state("c.state.hand ? c.state.hand.number : 0")
        page.get_by_role("link", name=f"Hand #{last}", exact=True).click()
        page.wait_for_selector("[data-dialog=replay] [data-equity] table", timeout=120000)
        page.keyboard.press("Home")
        flop = page.evaluate(
            "() => { const r = window.__omaha.ctrl.replay; const s = r.record.steps;"
            " const i = s.findIndex((e) => e.type === 'board' && e.street === 'flop');"
            " return r.ends.findIndex((end) => end > i) + 1; }"
        )
        for _ in range(flop):
            page.keyboard.press("ArrowRight")
        if tag == "phone":  # the panel scrolls on its own: the table, then the equities
            page.locator("[data-dialog=replay] [data-equity]").scroll_into_view_if_needed()
        shoot_page(viewer, out / f"replay-beside-the-table-{tag}.png")
        page.click("[data-replay=back-to-table]")
        page.click("[data-cmd=ledger]" if tag == "desktop" else ".menu-toggle")
        if tag == "phone":
            page.click("[data-cmd=ledger]")
        page.click("[data-ledger-tab=session]")
        page.wait_for_selector("[data-graph] svg")
        page.wait_for_selector("[data-stats=session] table")
        dialog = page.locator("[data-dialog=ledger]")
        dialog.locator("[data-graph]").scroll_into_view_if_needed()
        shoot_page(viewer, out / f"graph-{tag}.png")
        dialog.locator("[data-stats=session]").scroll_into_view_if_needed()
        shoot_page(viewer, out / f"statistics-{tag}.png")
    for b in bots:
        b.close()


def shoot_page(p: Player, path: Path, full: bool = False) -> None:
    """The page as it is (no pause message to wait for)."""
    p.page.mouse.move(0, 0)
    p.page.wait_for_timeout(400)
    p.page.screenshot(path=str(path), full_page=full)


SCENES = ("plo", "hilo", "phone", "reader", "review", "tournament", "log", "reactions", "sidepots",
          "rabbit")  # fmt: skip


TABLE_SCENES = {"log": hand_log, "reactions": reactions, "sidepots": side_pots}


def main(out: Path, scenes: tuple[str, ...] = SCENES) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with (
        tempfile.TemporaryDirectory() as tmp,
        # (bots that think a fifth of a second: a sit-and-go of four of them plays to its end
        # in a few minutes; the pictures are stills either way)
        server(Path(tmp), BETWEEN_HANDS="0.5", BOT_THINK="0.2") as base,
        sync_playwright() as pw,
    ):
        browser = launch(pw)
        if "review" in scenes:
            review(browser, base, out)
        if "plo" in scenes:
            plo(browser, base, out)
        if "hilo" in scenes:
            hilo(browser, base, out)
        if "phone" in scenes:
            phone(browser, base, out)
        if "reader" in scenes:
            reader(browser, base, out)
        if "tournament" in scenes:
            tournament(browser, base, out)
        for name, scene in TABLE_SCENES.items():
            if name in scenes:
                scene(browser, base, out)
        if "rabbit" in scenes:
            rabbit(browser, base, out)
        browser.close()


def plo(browser: Browser, base: str, out: Path) -> None:
    # 1. Six-handed pot-limit Omaha, to a showdown.
    p = Player(browser, base, NAMES[0], **DESKTOP)
    p.join()
    _, bots = table(p, 5, name="Friday PLO", game="omaha", seats=6)
    number = 0
    for _ in range(10):
        number = play_paused_hand(p, number)
        shown = p.state("Object.values(c.state.hand.players).filter(x => x.shown).length")
        if len(p.state("c.state.hand.order")) == 6 and shown >= 3:
            break
        resume(p)
    shoot(p, out / "plo-showdown.png")
    for b in bots:
        b.close()


def hilo(browser: Browser, base: str, out: Path) -> None:
    # 2. Double-board hi-lo, split high and low.
    q = Player(browser, base, NAMES[0], **DESKTOP)
    q.join()
    _, bots = table(q, 3, name="Double board", game="omaha-hi-lo", boards=2, seats=4)
    number = 0
    for _ in range(40):
        number = play_paused_hand(q, number)
        # A split: on some board, the low goes to someone other than the high.
        split = q.state(
            "c.state.hand.awards.some(a => a.half === 'low' && c.state.hand.awards.some("
            "b => b.half === 'high' && b.board === a.board && b.run === a.run"
            " && b.seat !== a.seat))"
        )
        dealt = len(q.state("c.state.hand.order"))
        if split and dealt >= 3:
            break
        resume(q)
    shoot(q, out / "double-board-hi-lo.png")
    for b in bots:
        b.close()


def phone(browser: Browser, base: str, out: Path) -> None:
    # 3. The phone, at the viewer's turn after the flop (the hand reader showing).
    r = Player(browser, base, NAMES[0], **PHONE)
    r.join()
    _, bots = table(r, 4, name="Phone game", game="five-card-omaha", seats=6)
    number = 0
    for _ in range(10):
        number = play_paused_hand(
            r, number, until="h.street !== 'preflop' && h.legal && h.actor === 0"
        )
        if r.state("!!(c.state.hand.legal && !c.state.hand.ended)"):
            break
        resume(r)
    r.page.wait_for_selector("[data-act]:not([disabled])")
    shoot(r, out / "phone.png")
    for b in bots:
        b.close()


def reader(browser: Browser, base: str, out: Path) -> None:
    # 4. The screen-reader mode at the viewer's turn after the flop, having asked for
    # its cards.
    s = Player(browser, base, NAMES[0], **DESKTOP)
    s.join()
    _, bots = table(s, 3, name="Quiet game", game="omaha", seats=6)
    s.page.evaluate("() => window.__omaha.ctrl.setScreenReader(true)")
    number = 0
    for _ in range(10):
        number = play_paused_hand(
            s, number, until="h.street !== 'preflop' && h.legal && h.actor === 0"
        )
        if s.state("!!(c.state.hand.legal && !c.state.hand.ended)"):
            break
        resume(s)
    s.page.get_by_role("textbox", name="Command").fill("cards")
    s.page.keyboard.press("Enter")
    shoot(s, out / "screen-reader.png")
    for b in bots:
        b.close()


def limper(legal: dict[str, Any]) -> dict[str, Any]:
    """A bot that checks, calls a blind, and folds to a bet."""
    actions = legal["actions"]
    if "check" in actions:
        return {"action": "check"}
    if "call" in actions and legal["call"] <= 2:
        return {"action": "call"}
    return calling_station(legal) if "fold" not in actions else {"action": "fold"}


def rabbit(browser: Browser, base: str, out: Path) -> None:
    # 7. The rabbit hunt: a hand won on the flop, then the turn and river that would have come.
    for name, options in (("rabbit-hunt.png", DESKTOP), ("rabbit-hunt-phone.png", PHONE)):
        p = Player(browser, base, NAMES[0], **options)
        p.join()
        _, bots = table(p, 3, limper, name="Rabbit hunt", game="omaha", seats=6, rabbit_hunt=True)
        number = 0
        for _ in range(10):
            number = play_paused_hand(
                p, number, until="h.street === 'flop' && h.legal && h.actor === 0"
            )
            if p.state("!c.state.hand.ended && c.state.hand.legal.actions.includes('bet')"):
                p.page.locator("[data-preset=pot], [data-act=pot]").first.click()
                p.page.locator("[data-act=bet]").click()
                p.page.wait_for_function(
                    "() => window.__omaha.ctrl.state.hand.ended", timeout=20000
                )
                if p.state("c.state.hand.rabbitOpen"):
                    break
            resume(p)
        p.page.get_by_role("button", name="Rabbit hunt").click()
        p.page.wait_for_selector(".card.rabbit")
        still(p, out / name)
        for b in bots:
            b.close()
        p.close()


def still(p: Player, path: Path) -> None:
    """A picture of the page as it is, once its notice (a toast: 5 s) has gone."""
    p.page.mouse.move(0, 0)
    p.page.evaluate("() => window.scrollTo(0, 0)")
    p.page.locator(".toast").wait_for(state="detached", timeout=8000)
    p.page.wait_for_timeout(300)  # let the last redraw land
    p.page.screenshot(path=str(path))


def at_turn(p: Player, others: list[Player]) -> None:
    """Wait until it is this player's turn (the others check or call meanwhile), with the
    action buttons drawn."""

    def mine() -> bool:
        for other in others:
            act(other, shove=False)
        return p.my_turn()

    within_sync(mine, PLAY_LIMIT)
    p.page.wait_for_selector("[data-act]:not([disabled])")


def tournament(browser: Browser, base: str, out: Path) -> None:
    host = Player(browser, base, NAMES[0], **LAPTOP)
    host.join()
    phone_host = Player(browser, base, "Phone host", **PHONE)
    phone_host.join()
    settings = {"name": "Friday sit-and-go", "prize_pool": 60, "decision_time": 600,
                "time_bank": 0, "level_minutes": 0.5}  # fmt: skip
    # The form, preset and previewed, on both screens (the phone's is the same form).
    for p, name in ((host, "tournament-form.png"), (phone_host, "tournament-form-phone.png")):
        form = p.page.locator("details.create-tournament")
        form.locator("> summary").click()
        form.locator("[data-preview-level]").first.wait_for()
        form.scroll_into_view_if_needed()
        p.page.wait_for_timeout(300)
        p.page.screenshot(path=str(out / name))
    phone_host.close()
    host.open("/")
    code, link = create_tournament(host, "sng-turbo", **settings)
    theo = Player(browser, base, NAMES[1], **LAPTOP)
    ines = Player(browser, base, NAMES[2], **PHONE)
    register_by_link(theo, link, first_visit=True)
    ines.page.goto(link)  # a first visit on a phone: the name box and Register
    ines.page.locator("input[name=name]").wait_for()
    still(ines, out / "tournament-invite-phone.png")
    register_by_link(ines, link, first_visit=True)
    for _ in range(4):
        host.page.click("[data-cmd=add-bot]")
    within_sync(lambda: host.page.locator(".registered li").count() == 6, PLAY_LIMIT)
    still(host, out / "tournament-registration.png")
    host.page.click("[data-cmd=start]")
    for p in (theo, ines):
        p.page.wait_for_url("**/t/*")
        p.wait_live()
    # At each player's turn: the bar above the felt, the action buttons on screen.
    at_turn(theo, [ines])
    still(theo, out / "tournament-table.png")
    at_turn(ines, [theo])
    still(ines, out / "tournament-table-phone.png")
    host.open(f"/tournaments/{code}/clock")
    host.page.get_by_role("timer").wait_for()
    still(host, out / "tournament-clock.png")
    clock = Player(browser, base, "Clock", **PHONE)
    clock.open(f"/tournaments/{code}/clock")
    clock.page.get_by_role("timer").wait_for()
    still(clock, out / "tournament-clock-phone.png")
    clock.close()
    # To the end: both go all in; each page says who won and the player's place and prize.
    play_until([theo, ines], lambda p: "shove", finished([theo, ines]))
    still(theo, out / "tournament-end.png")
    still(ines, out / "tournament-end-phone.png")
    for p in (host, theo, ines):
        p.close()


if __name__ == "__main__":
    args = sys.argv[1:]
    main(Path(args[0]) if args else Path("docs/screenshots"), tuple(args[1:]) or SCENES)
