"""Reviewing afterwards, by clicking: the replayer over the live table (a step per action,
each street's pot, the equities below, the way back), a hand by its table and number,
"My hands" and its filters, the session's graph and statistics in the ledger, a player's
page, and a sign-in link that carries the player to a phone."""

from __future__ import annotations

import json
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import BotFactory, PlayerFactory
from tests.e2e.harness import Player, calling_station, settable
from tests.e2e.play import hand_number, play_hand, step_ends, wait_for_hand
from tests.e2e.test_games import new_table


@pytest.fixture(scope="module")
def base(quick_base: str) -> str:
    """The worker's quick server (tests/e2e/conftest.py): the evenings' hands follow each other at
    once (nothing here watches the pause between them)."""
    return quick_base


#: the most a table page's "last hands" list takes to ask again after a hand ends: 0.4 s,
#: then what is left of its once-a-second limit (static/js/views/last-hands.js)
LAST_HANDS_MS = 400 + 1000

#: the My hands page shows exactly these hands, its list no longer busy
LISTED = """expected => {
  const list = document.querySelector('.hand-list');
  if (!list || list.getAttribute('aria-busy') !== 'false') return false;
  const got = [...document.querySelectorAll('[data-my-hand]')].map((e) => Number(e.dataset.myHand));
  return JSON.stringify(got) === JSON.stringify(expected); }"""

FETCH = "async (url) => { const r = await fetch(url); return [r.status, await r.text()]; }"
PHONE = {"viewport": {"width": 375, "height": 667}, "is_mobile": True, "has_touch": True}


def api(p: Player, url: str) -> Any:
    status, text = p.page.evaluate(FETCH, url)
    assert status == 200, (url, status, text)
    return json.loads(text)


def an_evening(
    p: Player,
    bots: BotFactory,
    hands: int = 3,
    *,
    name: str = "Friday PLO",
    join: bool = True,
    watchers: tuple[Player, ...] = (),
    **config: Any,
) -> str:
    """Pat and three bots that check and call: `hands` hands, then the table paused. Pat
    picks a name first (`join`: not for a second evening). `watchers` open the invite link
    before anything is dealt (picking their names there) and stay, spectators. Pat's pages
    keep time by Playwright's clock, installed here (`join`; a second evening's pages have it
    from the first): it flows as time does, and the end moves it past the page's own delays."""
    if join:
        p.page.clock.install()
        p.join()
    code = new_table(p, decision_time=0, name=name, **config)
    for watcher in watchers:
        watcher.join(f"/t/{code}")
    p.open(f"/t/{code}")
    # Pat first: seated after the bots, Pat waited for the big blind, and the hands counted
    # below could be dealt without Pat (the last one too, at a quick table).
    p.sit(0, 200)
    for seat, bot in enumerate(("Ann", "Bob", "Cy"), start=1):
        bots(bot, calling_station).start(code, seat, 200)
    number = 0
    for _ in range(hands):
        number = wait_for_hand(p, after=number)
        play_hand([p], number)
    p.page.evaluate("() => window.__omaha.ctrl.command('pause')")
    p.page.wait_for_function("() => window.__omaha.ctrl.state.table.paused")
    # A quick dealer (tests/e2e/test_afterwards.py) may have dealt the next hand before the
    # pause came: Pat plays it out (no hand starts once the table is paused).
    if not p.state("!c.state.hand || c.state.hand.ended"):
        play_hand([p], hand_number(p))
    p.page.wait_for_function(
        "() => { const h = window.__omaha.ctrl.state.hand; return !h || h.ended; }", timeout=20000
    )
    last = p.state("c.state.hand.number")
    # the last hands list has the paused table's last hand: the page asks for it 0.4 s after
    # a hand ends, at most once a second (static/js/table-ctrl.js, views/last-hands.js), timers
    # of its own that Pat's clock is moved past rather than waited out
    p.page.clock.run_for(LAST_HANDS_MS)
    expect(p.page.locator("[data-hand-link]").first).to_have_text(f"Hand #{last}", timeout=15000)
    return code


def to_fixed(value: float) -> str:
    """JavaScript's `value.toFixed(1)`, which the page writes: the double's exact value, a tie
    rounded up (Python's `:.1f` rounds a tie to even: 24.25 is "24.2" here, "24.3" there)."""
    return str(Decimal(value).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def test_the_replayer_opens_over_the_live_table(players: PlayerFactory, bots: BotFactory) -> None:
    p = players("Pat")
    code = an_evening(p, bots)
    page = p.page
    at = p.state("c.state.hand.number")
    page.get_by_role("link", name=f"Hand #{at}", exact=True).click()
    panel = page.locator("[data-dialog=replay]")
    expect(panel.locator(".replay-page[data-steps]")).to_have_count(1, timeout=15000)
    # Beside the table, not instead of it: the page, its address and its socket stay.
    assert page.url.endswith(f"/t/{code}")
    assert page.evaluate("() => window.__omaha.ctrl.conn") == "open"
    expect(page.locator(".table-page:not(.replay-page)")).to_have_count(1)
    # Named as players say it: the table and its number there.
    expect(panel.locator("[data-hand-at-table]")).to_have_text(f"Hand {at}")
    expect(panel.locator(".table-name")).to_contain_text("Friday PLO")
    record = api(p, f"/api/tables/{code}/hands/{at}")
    last = len(step_ends(record["steps"]))
    expect(panel.locator(".replay-page")).to_have_attribute("data-steps", str(last))
    # The deal is one step: the cards, and no board yet.
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")
    expect(panel.locator(".replay-page")).to_have_attribute("data-step", "1")
    expect(panel.locator(".step-type")).to_have_text("Cards dealt")
    mine = next(s for s in record["seats"] if s["name"] == "Pat")
    expect(panel.locator(".seat.mine [data-card]")).to_have_count(len(mine["cards"]))
    expect(panel.locator(".board [data-card]")).to_have_count(0)
    # The next step is one action.
    page.click("[data-replay=forward]")
    expect(panel.locator(".step-type")).to_contain_text(":")
    # Each street's pot as it began, from the record.
    pots = 0
    for ev in record["steps"]:
        if ev["type"] == "pots":
            pots = sum(x["amount"] for x in ev["pots"])
        if ev["type"] == "board" and ev["street"] == "flop":
            break
    expect(panel.locator("[data-street-pot=flop] b")).to_have_text(str(pots))
    expect(panel.locator("[data-street-pot=total] b")).to_have_text(str(record["total_pot"]))
    # The equities below, as the server computed them for this viewer.
    equity = panel.locator("[data-equity] table")
    expect(equity).to_be_visible(timeout=60000)
    computed = api(p, f"/api/hands/{record['number']}/equity")
    for street in computed["streets"]:
        for x in street["players"]:
            cell = panel.locator(
                f"[data-equity-row='{x['seat']}'] [data-equity-street={street['street']}]"
            )
            expect(cell).to_have_text(f"{to_fixed(x['share'] * 100)}%")
    # The way back closes the panel: the live table is there, as it was.
    page.click("[data-replay=back-to-table]")
    expect(panel).to_have_count(0)
    expect(page.locator(".seat.mine")).to_be_visible()
    # The same hand by its table and number, on its own page.
    other = players("Pat2")
    other.context.add_cookies(settable(p.context.cookies()))
    other.open(f"/t/{code}/h/{at}")
    expect(other.page.locator("[data-hand-at-table]")).to_have_text(f"Hand {at}")
    expect(other.page.locator("[data-replay=back-to-table]")).to_have_attribute(
        "href", f"/t/{code}"
    )
    assert not p.errors and not other.errors, p.errors + other.errors


def test_my_hands_statistics_and_another_device(players: PlayerFactory, bots: BotFactory) -> None:
    p = players("Pat")
    code = an_evening(p, bots, hands=4)
    page = p.page
    # The ledger's session view: the graph and the statistics.
    page.click("[data-cmd=ledger]")
    # What the ledger opens on is there before the other tab is asked for, as a person sees
    # it (a click while its figures arrived once landed on the money view instead).
    expect(page.locator("[data-dialog=ledger] [data-ledger-player]").first).to_be_visible()
    page.click("[data-ledger-tab=session]")
    graph = api(p, f"/api/tables/{code}/graph")
    expect(page.locator("[data-graph] g[data-graph-player]")).to_have_count(len(graph["players"]))
    stats = api(p, f"/api/tables/{code}/stats")
    table = page.get_by_role("table", name="Statistics")
    for line in stats["players"]:
        row = table.locator(f"[data-stats-player='{line['player_id']}']")
        expect(row.locator("[data-stat=hands]")).to_have_text(str(line["all"]["hands"]))
        net = line["all"]["net"]
        expect(row.locator("[data-stat=net]")).to_have_text(f"+{net}" if net > 0 else str(net))
    # A player's page, in a new tab.
    with p.context.expect_page() as opened:
        table.get_by_role("link", name="Ann").click()
    ann = opened.value
    expect(ann.locator("[data-stats=player] tbody tr").first).to_contain_text("All games")
    ann.close()
    page.keyboard.press("Escape")

    # My hands, from the home page: every hand, then the filters.
    p.open("/")
    page.click("[data-link=my-hands]")
    page.wait_for_url("**/hands")
    listed = api(p, "/api/hands?limit=50")["hands"]
    expect(page.locator("[data-my-hand]")).to_have_count(len(listed))
    won = [h for h in listed if h["net"] and h["net"] > 0]
    page.locator("select[name=result]").select_option("won")
    # exactly the hands won, the list no longer busy (a count could match the list before)
    page.wait_for_function(LISTED, arg=[h["number"] for h in won], timeout=30_000)
    for h in won:
        expect(page.locator(f"[data-my-hand='{h['number']}'] [data-net]")).to_have_text(
            f"+{h['net']}"
        )
    page.click("[data-cmd=clear-filters]")
    expect(page.locator("[data-my-hand]")).to_have_count(len(listed))
    first = listed[0]
    page.locator(f"[data-my-hand='{first['number']}'] a").click()
    page.wait_for_url(f"**/t/{code}/h/{first['hand_at_table']}")
    expect(page.locator("[data-hand-at-table]")).to_have_text(f"Hand {first['hand_at_table']}")

    # Another device: a sign-in link, its QR code; the phone is then Pat.
    p.open("/")
    page.click("[data-cmd=new-sign-in-link]")
    expect(page.locator("img.qr")).to_be_visible()
    url = page.locator("[data-sign-in-url]").input_value()
    assert "/signin#" in url
    phone = players("Phone", **PHONE)
    phone.page.goto(url)
    expect(phone.page.locator("[data-sign-in=done]")).to_contain_text("Signed in as Pat")
    assert "#" not in phone.page.url  # the token is gone from the address bar
    phone.open("/")
    expect(phone.page.locator(".table-link")).to_contain_text("Friday PLO")
    phone.open("/hands")
    expect(phone.page.locator("[data-my-hand]")).to_have_count(len(listed))
    # Used once: the same link on a third browser signs nobody in.
    third = players("Third")
    third.page.goto(url)
    expect(third.page.locator("[data-sign-in=failed]")).to_contain_text("not valid")
    p.reload()
    expect(page.locator("[data-link-state=used]")).to_have_count(1)
    assert not p.errors and not phone.errors, p.errors + phone.errors


def test_a_closed_table_keeps_its_ledger_and_exports_on_the_home_page(
    players: PlayerFactory, bots: BotFactory
) -> None:
    p = players("Pat")
    code = an_evening(p, bots, hands=2)
    page = p.page
    page.evaluate("() => window.__omaha.ctrl.command('close')")
    expect(page.locator("[data-conn=closed]")).to_have_count(1, timeout=30000)
    # Its link opened again says so, as one that names no table does (not "Reconnecting").
    for link, said in ((f"/t/{code}", "This table has closed."),
                       ("/t/NoSuchTable", "This table does not exist.")):  # fmt: skip
        p.open(link)
        expect(page.get_by_role("alert")).to_contain_text(said)
        expect(page.locator(".loading")).to_have_count(0)
    p.open("/")
    row = page.locator(f"[data-past-table='{code}']")
    expect(row).to_contain_text("Friday PLO")
    # The exports are linked and answer.
    for name in ("CSV", "PokerStars text", "PHH"):
        href = row.get_by_role("link", name=name).get_attribute("href")
        assert href is not None
        status, text = page.evaluate(FETCH, href)
        assert status == 200 and text, (name, status)
    # The ledger opens from the home page and shows the evening's players.
    ledger = api(p, f"/api/tables/{code}/ledger")
    row.get_by_role("button", name="Ledger").click()
    dialog = page.locator("[data-dialog=ledger]")
    expect(dialog).to_be_visible(timeout=15000)
    for line in ledger["players"]:
        net = line["net"]
        cell = dialog.locator(f"[data-ledger-player='{line['player_id']}'] [data-net]")
        expect(cell).to_have_text(f"+{net}" if net > 0 else str(net))
    assert sum(line["net"] for line in ledger["players"]) == 0
    assert not any(line["seated"] for line in ledger["players"])
    # Its session view: the graph of the closed table's hands.
    graph = api(p, f"/api/tables/{code}/graph")
    assert graph["hands"] >= 2
    dialog.locator("[data-ledger-tab=session]").click()
    expect(dialog.locator("[data-graph] g[data-graph-player]")).to_have_count(
        len(graph["players"]), timeout=15000
    )
    page.keyboard.press("Escape")
    expect(dialog).to_have_count(0)
    assert not p.errors, p.errors
