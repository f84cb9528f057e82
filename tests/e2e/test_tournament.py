"""Issue 15, done-when 4: the big-screen clock counts down and changes level, and the final
standings page shows the places; players register and the host starts from the page; a
tournament table's page offers no control the table refuses."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Route, ViewportSize, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.e2e.conftest import PlayerFactory
from tests.e2e.harness import Player, server
from tests.waits import within_sync

#: three seconds a level, but the second: it lasts an hour, seen on the clock whatever the
#: load, and ends when the host says
LEVELS = [{"small_blind": sb, "big_blind": 2 * sb, "minutes": 60 if sb == 200 else 0.05}
          for sb in (50, 200, 800, 3200, 12_800, 51_200)]  # fmt: skip
CREATE = """async (body) => {
  const r = await fetch('/api/tournaments', {method: 'POST', credentials: 'same-origin',
    headers: {'Content-Type': 'application/json'}, body: JSON.stringify(body)});
  return [r.status, await r.text()];
}"""


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    # Quick deals between hands: the players are away and the clock folds for them.
    with server(tmp_path_factory.mktemp("e2e-tournament"), BETWEEN_HANDS="0.1") as url:
        yield url


def create_and_register(host: Player, body: dict[str, Any], entrants: list[Player]) -> str:
    """A tournament made by `host` through the REST API; each entrant registers on its page."""
    status, text = host.page.evaluate(CREATE, body)
    assert status == 201, text
    code = str(json.loads(text)["code"])
    for p in entrants:
        p.join()
        p.page.goto(f"{p.base}/tournaments/{code}")
        p.page.click("[data-cmd=register]")
        expect(p.page.locator("[data-cmd=unregister]")).to_be_visible()
    return code


def test_the_clock_counts_down_and_the_standings_show_the_places(players: PlayerFactory) -> None:
    host, alice, bob = players("Host"), players("Alice"), players("Bob")
    host.join()
    body = {"name": "Friday night", "starting_stack": 1000, "structure": "custom",
            "levels": LEVELS, "payouts": [6500, 3500], "prize_pool": 100,
            "decision_time": 0.05, "time_bank": 0}  # fmt: skip
    code = create_and_register(host, body, [alice, bob])
    clock = host.page
    clock.goto(f"{host.base}/tournaments/{code}")
    expect(clock.locator(".registered li")).to_have_count(2)
    clock.click("[data-cmd=start]")
    # While it runs, the standings page shows the deal figures for the players left.
    deal = clock.locator(".deal tbody tr")
    expect(deal).to_have_count(2)
    chop = [int(t) for t in clock.locator(".deal tbody tr td:nth-child(3)").all_inner_texts()]
    icm = [int(t) for t in clock.locator(".deal tbody tr td:nth-child(4)").all_inner_texts()]
    assert sum(chop) == sum(icm) == 100
    # The words between the figures and the links are spaced as written (htm drops the
    # whitespace of a line break: once "of 2.A deal" and "Clock· Results").
    expect(clock.locator(".deal-votes")).to_contain_text("chip chop 0 of 2. A deal is made")
    expect(clock.locator("p.links")).to_have_text("Clock · Results (CSV) · Home")
    clock.goto(f"{host.base}/tournaments/{code}/clock")
    countdown = clock.get_by_role("timer")
    expect(countdown).to_be_visible()
    expect(clock.locator("[data-status=running]")).to_be_visible()
    # The first level lasts three seconds: the clock moves on to the second by itself (the
    # page may open on either, as a loaded machine takes its time), and the blinds with it.
    expect(clock.locator("[data-level='2']")).to_be_visible(timeout=30_000)
    expect(clock.locator(".blinds")).to_have_text("200 / 400")
    # The second lasts an hour, and the page counts it down.
    first = countdown.inner_text()
    assert first.startswith(("60:00", "59:")), first
    clock.wait_for_function(
        "(t) => document.querySelector('.countdown').textContent !== t", arg=first
    )
    assert countdown.inner_text().startswith("59:")
    # The host ends the level: the blinds outgrow the stacks and it ends; the standings page
    # shows the places.
    r = host.page.request.post(f"{host.base}/api/tournaments/{code}/next_level")
    assert r.status == 200 and r.json()["level"] == 3, r.text()
    expect(clock.locator("[data-status=finished]")).to_be_visible(timeout=60_000)
    clock.goto(f"{host.base}/tournaments/{code}")
    rows = clock.locator(".standings tbody tr")
    expect(rows).to_have_count(2)
    expect(rows.nth(0).locator("td").nth(0)).to_have_text("1")
    expect(rows.nth(1).locator("td").nth(0)).to_have_text("2")
    names = set(clock.locator(".standings tbody th").all_inner_texts())
    assert names == {"Alice", "Bob"}
    prizes = clock.locator(".standings tbody tr td:last-child").all_inner_texts()
    assert prizes == ["65", "35"]


# Slow enough growth that nobody busts while the test watches two levels go by.
TABLE_LEVELS = [{"small_blind": sb, "big_blind": 2 * sb, "minutes": 0.05}
                for sb in (5, 10, 15, 20, 25, 30, 40, 50)]  # fmt: skip


#: waits for the client's drawing (its tournament bar: the server's first paint has none), the
#: selector `arg` and nobody's turn on this page, then counts the controls a tournament table
#: refuses: sit-out switches, straddle, top up, sit out, leave, sit
REFUSED_CONTROLS = """(ready) => {
  if (!document.querySelector('.tournament-bar') || !document.querySelector(ready)) return null;
  if (document.querySelector('.dock .actions.betting')) return null;
  return {found: document.querySelectorAll('[data-switch], [data-cmd=straddle], [data-cmd=top-up],'
    + ' [data-cmd=sit-out], [data-cmd=sit-in], [data-cmd=leave], [data-sit], .sit-btn').length};
}"""


def test_a_tournament_table_page_shows_the_level_and_the_countdown(players: PlayerFactory) -> None:
    host, alice, bob = players("Host"), players("Alice"), players("Bob")
    phone: dict[str, ViewportSize] = {"viewport": {"width": 375, "height": 667}}
    host.join()
    body = {"name": "Table clock", "starting_stack": 100_000, "structure": "custom",
            "levels": TABLE_LEVELS, "payouts": [6500, 3500], "prize_pool": 100,
            "decision_time": 0.05, "time_bank": 0}  # fmt: skip
    code = create_and_register(host, body, [alice, bob])
    host.page.goto(f"{host.base}/tournaments/{code}")
    host.page.click("[data-cmd=start]")
    # A player's standings page, open at the start, takes them to their table; its page
    # shows the tournament's clock.
    page = alice.page
    page.wait_for_url("**/t/*")
    bar = page.locator(".tournament-bar")
    expect(bar).to_be_visible()
    expect(bar.locator("[data-status=running]")).to_be_visible()
    expect(bar.locator(".players-left")).to_have_text("2 of 2 left")
    expect(bar.locator(".average")).to_have_text("100000")
    expect(bar.locator(".payouts li")).to_have_count(2)
    countdown = bar.get_by_role("timer")
    first = countdown.inner_text()
    assert first.startswith("0:0")
    page.wait_for_function(
        "(t) => document.querySelector('.tournament-bar .countdown').textContent !== t",
        arg=first, timeout=5000,
    )  # fmt: skip
    level = int(bar.locator("[data-level]").get_attribute("data-level") or 0)
    expect(bar.locator(f"[data-level='{level + 1}']")).to_be_visible(timeout=10_000)
    sb = TABLE_LEVELS[level]["small_blind"]
    expect(bar.locator(".blinds")).to_have_text(f"{sb} / {2 * sb}")
    # No control the tournament table refuses: the player's dock and menu, read at a moment
    # when a cash table's dock shows the sit-out switches (seated, not the player's turn)...
    shown = page.wait_for_function(REFUSED_CONTROLS, arg=".seat.mine").json_value()
    assert shown == {"found": 0}, shown
    # ...and the host's page: no seat to take (nor in the server's first paint), and of the
    # host panel what the table accepts.
    drawn = host.page.request.get(page.url).text()
    assert 'class="seat empty"' in drawn and 'class="sit-btn"' not in drawn
    assert "seated by the tournament" in drawn  # not "pick an open seat"
    host.page.goto(page.url)
    host.wait_live()
    expect(host.page.locator(".my-hand.spectator")).to_contain_text("seated by the tournament")
    shown = host.page.wait_for_function(REFUSED_CONTROLS, arg=".seat.empty").json_value()
    assert shown == {"found": 0}, shown
    assert host.page.locator(".seat.empty .open").count() > 0
    open_host_panel(host)
    expect(host.page.get_by_role("button", name="Copy invite link")).to_be_visible()
    panel = host.page.locator(".host-panel")
    expect(panel.locator("button", has_text="Pause")).to_have_count(0)
    expect(panel.locator("button", has_text="Close table")).to_have_count(0)
    expect(panel.locator("form, [data-host-seat]")).to_have_count(0)
    # Bob on a phone: the same bar, laid out for 375 px, within the screen's width.
    bob.page.set_viewport_size(phone["viewport"])
    bob.page.wait_for_url("**/t/*")
    small = bob.page.locator(".tournament-bar")
    expect(small.get_by_role("timer")).to_be_visible()
    box = small.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 375


def open_host_panel(host: Player) -> None:
    """Click "Host controls" until the panel is open: here hands follow each other every
    tenth of a second and the results above the button change height with them, so a click
    can land where the button was a frame before (a loaded clean clone's run missed it)."""
    opener = host.page.get_by_role("button", name="Host controls")
    panel = host.page.locator(".host-panel:not(.folded)")

    def opened() -> bool:
        if panel.count():
            return True
        with contextlib.suppress(PlaywrightTimeout):  # gone meanwhile: the panel opened
            opener.click(timeout=2000)
        return False

    within_sync(opened, 30, what="the host panel open")


def hand_for_hand(p: Player) -> None:
    """From now on this page reads the tournament's state with hand-for-hand play on (the
    director sets it at the bubble: `hand_for_hand` in its state)."""

    def fulfil(route: Route) -> None:
        response = route.fetch()
        route.fulfill(response=response, json={**response.json(), "hand_for_hand": True})

    p.page.route("**/api/tournaments/**", fulfil)


def test_the_pages_before_the_start_and_hand_for_hand(players: PlayerFactory) -> None:
    host, alice = players("Host"), players("Alice")
    host.join()
    body = {"name": "Bubble", "starting_stack": 100_000, "structure": "custom",
            "levels": TABLE_LEVELS, "decision_time": 0.05, "time_bank": 0}  # fmt: skip
    code = create_and_register(host, body, [alice])
    # Before the start: the site's top bar, a way home, and the field as registered.
    for path in (f"/tournaments/{code}", f"/tournaments/{code}/clock"):
        host.open(path)
        expect(host.page.locator(".topbar .home-link")).to_have_attribute("href", "/")
        expect(host.page.locator(".topbar")).to_contain_text("Bubble")
        expect(host.page.locator("body")).to_contain_text("1 registered")
        expect(host.page.locator("body")).not_to_contain_text("0 players left")
    expect(host.page.locator("[data-hand-for-hand]")).to_have_count(0)
    host.open(f"/tournaments/{code}")
    host.page.click("[data-cmd=add-bot]")
    host.page.click("[data-cmd=start]")
    alice.page.wait_for_url("**/t/*")
    alice.wait_live()
    bar = alice.page.locator(".tournament-bar")
    expect(bar.locator("[data-status=running]")).to_be_visible()
    expect(bar.locator("[data-hand-for-hand]")).to_have_count(0)
    # At the bubble the director plays hand for hand: every table and the clock say so.
    hand_for_hand(alice)
    expect(bar.locator("[data-hand-for-hand]")).to_have_text("Hand for hand")
    hand_for_hand(host)
    host.open(f"/tournaments/{code}/clock")
    expect(host.page.locator(".tournament-clock [data-hand-for-hand]")).to_be_visible()


def test_a_full_field_offers_no_register_button(players: PlayerFactory) -> None:
    host, alice, carol = players("Host"), players("Alice"), players("Carol")
    host.join()
    code = create_and_register(host, {"name": "Two seats", "max_players": 2}, [alice])
    host.open(f"/tournaments/{code}")
    host.page.click("[data-cmd=add-bot]")
    expect(host.page.locator(".registered li")).to_have_count(2)
    # The host (not in the field) and a first-time visitor: nothing to click that the
    # director would refuse.
    register = host.page.locator("[data-cmd=register]")
    expect(register).to_have_text("Field full")
    expect(register).to_be_disabled()
    expect(host.page.locator("[data-cmd=add-bot]")).to_be_disabled()
    carol.page.goto(f"{carol.base}/tournaments/{code}")
    expect(carol.page.locator(".join-box")).to_contain_text("The field is full")
    expect(carol.page.locator(".join-box [data-cmd=register]")).to_have_count(0)
    expect(carol.page.locator(".join-box [data-cmd=save-name]")).to_be_enabled()
    assert not host.errors and not carol.errors, (host.errors, carol.errors)


ABOVE_THE_FOLD = """() => {
  const bar = document.querySelector('.tournament-bar');
  const acts = [...document.querySelectorAll('.actions [data-act]')];
  if (!bar || !acts.length) return null;
  const h = window.innerHeight, w = window.innerWidth;
  const inside = (r) => r.top >= 0 && r.bottom <= h + 0.5 && r.left >= 0 && r.right <= w + 0.5;
  return {bar: inside(bar.getBoundingClientRect()), scrolled: window.scrollY,
          actions: acts.map((b) => inside(b.getBoundingClientRect()))};
}"""


def test_the_tournament_bar_keeps_the_action_buttons_above_the_fold(
    players: PlayerFactory,
) -> None:
    """Issue 27, item 3: at their turn a player sees the bar and every action button without
    scrolling, on a 1280x720 laptop and on a 375x667 phone."""
    host = players("Host")
    laptop = players("Alice", viewport={"width": 1280, "height": 720})
    phone = players("Bob", viewport={"width": 375, "height": 667}, is_mobile=True, has_touch=True)
    host.join()
    body = {"name": "The fold", "starting_stack": 100_000, "structure": "custom",
            "levels": [{"small_blind": 50, "big_blind": 100, "minutes": 30}],
            "decision_time": 60, "time_bank": 0}  # fmt: skip
    code = create_and_register(host, body, [laptop, phone])
    host.open(f"/tournaments/{code}")
    host.page.click("[data-cmd=start]")
    for p in (laptop, phone):
        p.page.wait_for_url("**/t/*")
        p.wait_live()
    seen: set[str] = set()
    while seen != {"Alice", "Bob"}:  # heads up: each has a turn within a hand or two
        p = within_sync(lambda: next((q for q in (laptop, phone) if q.my_turn()), None), 60,
                        what="a turn")  # fmt: skip
        layout = p.page.wait_for_function(ABOVE_THE_FOLD).json_value()
        fits = layout["bar"] and all(layout["actions"]) and layout["scrolled"] == 0
        assert fits, (p.name, layout)
        seen.add(p.name)
        tournament_act(p)
    assert not laptop.errors and not phone.errors, (laptop.errors, phone.errors)


def tournament_act(p: Player) -> None:
    """Check or call (or fold), and wait until the turn has passed."""
    p.page.locator("[data-act=check], [data-act=call], [data-act=fold]").first.click()
    p.page.wait_for_function("() => !window.__omaha.ctrl.isMyTurn() || window.__omaha.ctrl.pending")


def test_an_older_poll_answered_after_a_newer_one_is_not_applied(players: PlayerFactory) -> None:
    """The page's polls of a tournament overlap (its interval, the countdown at zero): an
    older "running" answered after a newer "finished" must not bring the tournament back
    (the page stops polling once finished, and would stay on the older state)."""
    p = players("Poll")
    p.page.goto(p.base + "/")
    status = p.page.evaluate(
        r"""async () => {
          const main = document.querySelector('script[src$="/js/main.js"]').src;
          const { TournamentCtrl } = await import(main.replace(/main\.js$/, 'tournament-ctrl.js'));
          const answers = [];
          window.fetch = () => new Promise((resolve) => { answers.push(resolve); });
          const reply = (state) => ({ status: 200, ok: true, json: async () => state });
          const t = new TournamentCtrl('x', null, () => {});
          const older = t.load();
          const newer = t.load();
          answers[1](reply({ status: 'finished' }));
          await newer;
          answers[0](reply({ status: 'running', remaining: 60 }));
          await older;
          return [t.state.status, t.stopped];
        }"""
    )
    assert status == ["finished", True], status
    assert not p.errors, p.errors
