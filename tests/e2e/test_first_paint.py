"""The table the server draws into its page (app/api/first_paint.py) is the client's first view.

Each page is loaded twice with the same hand frozen on the table (the bots stop acting on the
flop, with a bet out): once with the page's modules refused, so what shows is the server's
drawing alone, and once normally, so the client's live view has replaced it. The two must show
the same table: names, stacks, marks, the button, cards (faces, backs, highlights), bets, the
boards, the pot, the hand reader, the menu, and every seat in the same place.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest
from playwright.sync_api import Page

from tests.e2e.conftest import BotFactory, PlayerFactory
from tests.e2e.harness import Bot
from tests.e2e.test_games import new_table

# What both views are compared on (the decision clock's seconds left are not: they run).
FINGERPRINT = """() => {
  const squash = (t) => t.replace(/\\s+/g, ' ').trim();
  const text = (el, sel) => {
    const x = el.querySelector(sel);
    return x ? squash(x.textContent) : null;
  };
  const cls = (el) => (el.className.baseVal != null ? el.className.baseVal
    : el.className.split(/\\s+/).filter(Boolean).join(' '));
  const cards = (el) => [...el.querySelectorAll('.card')].map((c) =>
    `${cls(c)}:${c.dataset.card || ''}:${c.getAttribute('aria-label') || ''}`);
  const box = (el) => {
    const r = el.getBoundingClientRect();
    return [Math.round(r.x), Math.round(r.y)];
  };
  // the topbar's line less the deal check's mark, which only the page's code can give
  const sub = () => {
    const x = document.querySelector('.topbar .sub').cloneNode(true);
    x.querySelectorAll('.deal-check').forEach((m) => m.remove());
    return squash(x.textContent);
  };
  const all = (sel) => [...document.querySelectorAll(sel)];
  const mine = document.querySelector('.my-hand');
  return {
    page: cls(document.querySelector('.table-page')),
    title: text(document, '.table-name'),
    sub: sub(),
    menu: all('.menu-items .btn').map((b) => squash(b.textContent)),
    seats: all('.felt .seat').map((s) => ({
      cls: cls(s), seat: s.dataset.seat, k: s.dataset.k, at: box(s),
      name: text(s, '.name'), stack: text(s, '.stack'), marks: text(s, '.marks'),
      dealer: !!s.querySelector('.dealer'), sit: text(s, '.sit-btn, .open'), cards: cards(s),
    })),
    bets: all('.felt .bet').map((b) => [b.dataset.betSeat, squash(b.textContent), box(b)]),
    boards: all('.felt .board').map((b) =>
      [b.getAttribute('aria-label'), text(b, '.board-label'), cards(b)]),
    center: text(document, '.felt .center .badge'),
    pot: text(document, '.felt .pot'),
    mine: mine ? cards(mine) : [],
    hand: mine && cls(mine),
    reader: all('.reader .reading').map((r) => squash(r.textContent)),
    note: text(document, '.my-hand p'),
  };
}"""


def frozen_policy(bet_made: threading.Event, hold: threading.Event) -> Any:
    """Call or check until someone can bet after the flop; bet the minimum; then wait (the hand
    freezes with the bet out)."""

    def policy(legal: dict[str, Any]) -> dict[str, Any]:
        if bet_made.is_set():
            hold.wait()
            raise RuntimeError("the test is over")
        actions = legal["actions"]
        if "bet" in actions:
            bet_made.set()
            return {"action": "bet", "amount": legal["min_to"]}
        return {"action": "check" if "check" in actions else "call"}

    return policy


def both_views(page: Page, url: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The page's fingerprint as the server drew it (its modules refused), then as the client
    draws it."""
    page.route("**/js/**", lambda route: route.abort())
    page.route("**/vendor/**", lambda route: route.abort())
    page.goto(url)
    page.wait_for_selector("[data-first-paint]")
    server_drawn = page.evaluate(FINGERPRINT)
    page.unroute("**/js/**")
    page.unroute("**/vendor/**")
    page.goto(url)
    page.wait_for_function("() => window.__omaha && window.__omaha.drawn")
    assert page.locator("[data-first-paint]").count() == 0  # replaced by the live view
    return server_drawn, page.evaluate(FINGERPRINT)


def frozen_table(bots: BotFactory, host_code: str, hold: threading.Event) -> list[Bot]:
    bet_made = threading.Event()
    seated = []
    for i, seat in enumerate((0, 2, 4)):
        bot = bots(f"Bot{i} <b>&amp;", frozen_policy(bet_made, hold))
        bot.start(host_code, seat, 200)
        seated.append(bot)
    return seated


def wait_frozen(page: Page, url: str) -> None:
    """Until the flop is out with a bet in front of a seat."""
    page.goto(url)
    page.wait_for_function(
        "() => { const o = window.__omaha, s = o && o.ctrl && o.ctrl.state;"
        " return s && s.hand && s.hand.boards[0][0].length >= 3"
        " && Object.values(s.hand.players).some((p) => p.bet > 0); }",
        timeout=20_000,
    )


@pytest.mark.parametrize(
    ("game", "boards", "viewer"),
    [("omaha", 1, "spectator"), ("big-o", 2, "seated"), ("courchevel", 1, "seated")],
)
def test_server_drawing_is_the_client_view(
    players: PlayerFactory, bots: BotFactory, game: str, boards: int, viewer: str
) -> None:
    host = players("Host")
    host.join()
    code = new_table(host, game=game, boards=boards, seats=6, decision_time=120, ante=1)
    hold = threading.Event()
    try:
        seated = frozen_table(bots, code, hold)
        url = f"{host.base}/t/{code}"
        page = host.page
        if viewer == "seated":  # the first bot's own page: its cookie in a browser
            watcher = players("Bot0 page")
            name, value = seated[0].cookie.split("=", 1)
            watcher.context.add_cookies([{"name": name, "value": value, "url": host.base}])
            page = watcher.page
        wait_frozen(page, url)
        server_drawn, live = both_views(page, url)
        assert live["seats"] and live["boards"] and live["bets"]
        if viewer == "seated":
            assert len(live["mine"]) == 5 and live["reader"], live
        assert server_drawn == live
    finally:
        hold.set()


def test_server_drawing_of_a_table_without_a_hand(players: PlayerFactory) -> None:
    host = players("Host")
    host.join()
    code = new_table(host, seats=9, name="Friday <script>alert(1)</script>")
    server_drawn, live = both_views(host.page, f"{host.base}/t/{code}")
    assert live["pot"] == "Waiting for players" and len(live["seats"]) == 9
    assert live["title"] == "Friday <script>alert(1)</script>"  # as text
    assert server_drawn == live


@pytest.mark.parametrize("hidden", [False, True])
def test_the_modules_come_without_a_frame(players: PlayerFactory, hidden: bool) -> None:
    """A drawn page loads its modules after the drawing's first frame (static/js/boot.js): in
    a tab that gets no frames (hidden, or frames held back) they still come, at once when
    hidden, else after at most 250 ms. Here no animation frame ever runs."""
    host = players("Host")
    host.join()
    code = new_table(host, seats=6)
    no_frames = "window.requestAnimationFrame = () => 0;"
    if hidden:
        no_frames += "Object.defineProperty(document, 'visibilityState', {get: () => 'hidden'});"
    host.context.add_init_script(no_frames)
    host.page.goto(f"{host.base}/t/{code}")  # not open(): no frame ever comes here
    assert host.page.locator("[data-first-paint]").count() == 1
    # main.js has run: its page object is there (it draws on animation frames: none here;
    # nor can the wait poll on them)
    host.page.wait_for_function(
        "() => window.__omaha && 'renders' in window.__omaha", polling=50, timeout=5000
    )
