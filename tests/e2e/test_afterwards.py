"""Issue 28, by clicking: "My hands" pages back by its "Older hands" button to the first
hand (each row once, in order, the button gone at the end); its filters (game, dates, the
hand-number search) from the table's own link, and a spectator's watched hands; a sign-in
link revoked, and a phone signed in that sees the shared table's ledger, then signed out;
and a finished tournament is listed on its players' and its host's home pages with its
standings, its ledger and its exports, which download the hands.

The server deals 0.1 s after a hand and its bots act at once; the tournament's levels are
short and Alice goes all in whenever it is her turn: it plays out in a minute or so."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Locator, Page, Route, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.e2e.conftest import BotFactory, PlayerFactory
from tests.e2e.harness import Player, settable
from tests.e2e.test_review import FETCH, LISTED, PHONE, an_evening, api
from tests.e2e.test_tournament_host import FAST
from tests.e2e.tourney import (
    check_standings,
    check_the_end,
    create_tournament,
    finished,
    play_until,
    register_by_link,
)


@pytest.fixture(scope="module")
def base(quick_base: str) -> str:
    """The worker's quick server (tests/e2e/conftest.py), shared with other modules."""
    return quick_base


def page_size(page: Page, size: int) -> None:
    """The page asks for 25 hands at a time; these tests' evenings are shorter, so its
    requests ask for `size` (the API's own paging, cursor and all, answers them)."""

    def smaller(route: Route) -> None:
        route.continue_(url=re.sub(r"([?&])limit=\d+", rf"\g<1>limit={size}", route.request.url))

    page.unroute("**/api/hands?*")
    page.route("**/api/hands?*", smaller)


def page_back(p: Player, size: int, numbers: list[int]) -> None:
    """From the first page of `size` rows, "Older hands" until the button goes: then every
    hand of `numbers` (newest first) is listed once, in that order."""
    rows = p.page.locator("[data-my-hand]")
    older = p.page.locator("[data-cmd=older]")
    shown = min(size, len(numbers))
    expect(rows).to_have_count(shown)
    while shown < len(numbers):
        # each page is the next older hands after those shown, nothing repeated
        listed = rows.evaluate_all("els => els.map(e => Number(e.dataset.myHand))")
        assert listed == numbers[:shown], (size, listed)
        older.click()
        shown = min(shown + size, len(numbers))
        expect(rows).to_have_count(shown)
        expect(p.page.locator(".hand-list[aria-busy=false]")).to_have_count(1)
    expect(older).to_have_count(0)
    listed = rows.evaluate_all("els => els.map(e => Number(e.dataset.myHand))")
    assert listed == numbers, (size, listed)


def test_older_hands_pages_back_to_the_first_hand(players: PlayerFactory, bots: BotFactory) -> None:
    p = players("Pat")
    code = an_evening(p, bots, hands=5)
    # The exports name each hand as the table's header did: "Hand #N" there is "hand N" in
    # the comment line of the PokerStars text (after its summary) and of the PHH file.
    header = p.page.locator(".topbar .hand-no").inner_text()
    assert header.startswith("Hand #"), header
    last = int(header.removeprefix("Hand #"))
    for export in ("hands.txt", "hands.phhs"):
        status, text = p.page.evaluate(FETCH, f"/api/tables/{code}/{export}")
        assert status == 200, (export, status)
        named = re.findall(r"^# (.+), hand (\d+)$", text, re.MULTILINE)
        assert named == [("Friday PLO", str(n)) for n in range(1, last + 1)], (export, named)
    everything = api(p, "/api/hands?limit=50")
    assert everything["next"] is None
    numbers = [h["number"] for h in everything["hands"]]
    assert len(numbers) >= 5 and numbers == sorted(numbers, reverse=True), numbers
    # By the table's number too: the rows are the table's hands from its last back to 1.
    at_table = [h["hand_at_table"] for h in everything["hands"]]
    assert at_table == list(range(len(numbers), 0, -1)), at_table
    # A size that divides the hands (the last page is full: no empty page after it), one
    # that does not, and all of them on one page (no button at all).
    count = len(numbers)
    divides = next((d for d in range(2, count) if count % d == 0), 1)
    for size in (divides, next(d for d in range(2, count) if count % d), count):
        page_size(p.page, size)
        p.open("/hands")
        page_back(p, size, numbers)
    # By a filter: the cursor pages within the table's hands of one result (or position).
    # The table's page (asked for when the table was picked) answers after the filter's
    # (asked for next), and its hands are others: the page shows the last asked for, never
    # the earlier answer.
    filters = [("result", r) for r in ("lost", "won", "showdown", "all-in")]
    filters += [("position", at) for at in ("BTN", "SB", "BB", "UTG")]
    key, value, matching = next(
        (k, v, found)
        for k, v in filters
        if (found := [h["number"] for h in
                      api(p, f"/api/hands?limit=50&table={code}&{k}={v}")["hands"]])
        and found[0] != numbers[0]
    )  # fmt: skip
    page_size(p.page, 1)
    p.open("/hands")
    expect(p.page.locator("[data-my-hand]")).to_have_count(1)
    held: list[Route] = []

    def hold(route: Route) -> None:
        held.append(route)

    p.page.route(by_table, hold)
    p.page.locator("select[name=table]").select_option(code)
    for _ in range(1500):  # the handler runs while Playwright waits (not in time.sleep)
        if held:
            break
        p.page.wait_for_timeout(20)
    # (page_size's route stays: with a route left, Chromium keeps intercepting and the held
    # request waits for its fallback; with none, it would go on its own, see below)
    p.page.unroute(by_table)
    p.page.locator(f"select[name={key}]").select_option(value)
    expect(p.page.locator("[data-my-hand]")).to_have_attribute("data-my-hand", str(matching[0]))
    with p.page.expect_response(lambda r: f"{key}=" not in r.url) as late:
        held[0].fallback()
    late.value.finished()
    p.page.evaluate(FRAMES)  # the late answer has been read (and drawn, if it were shown)
    page_back(p, 1, matching)
    assert not p.errors, p.errors


def utc_day(moment: str) -> date:
    """The day (UTC, as the API's `since`/`until` count them) a hand ended."""
    at = datetime.fromisoformat(moment)
    return (at.astimezone(UTC) if at.tzinfo else at).date()


def test_my_hands_filters_and_the_hands_a_spectator_watched(
    players: PlayerFactory, bots: BotFactory
) -> None:
    p, sam = players("Pat"), players("Sam")
    # Sam opens the first table's invite link and watches it all evening, never seated.
    first = an_evening(p, bots, hands=3, watchers=(sam,))
    second = an_evening(p, bots, hands=2, name="Saturday 5", join=False, game="five-card-omaha")
    listed = api(p, "/api/hands?limit=100")["hands"]
    numbers = [h["number"] for h in listed]

    def rows(page: Page) -> Locator:
        return page.locator("[data-my-hand]")

    def shown(page: Page, expected: list[int]) -> None:
        """The page lists exactly the hands `expected` (newest first), or says none match.
        Waited for as a whole: a filter's change is drawn a frame later, so the list before
        it, not busy and sometimes of the same length, is still there when the filter is set
        (an omaha filter once read the five-card list it replaced)."""
        try:
            page.wait_for_function(LISTED, arg=expected, timeout=30_000)
        except PlaywrightTimeout:
            on_page = rows(page).evaluate_all("els => els.map(e => Number(e.dataset.myHand))")
            raise AssertionError((on_page, expected)) from None
        if not expected:
            expect(page.locator("[data-empty]")).to_have_count(1)

    # The table's own "My hands" opens the list in a new tab; the live table stays.
    with p.context.expect_page() as opened:
        p.page.click("[data-cmd=my-hands]")
    mine = opened.value
    mine.wait_for_url("**/hands")
    assert p.page.url.endswith(f"/t/{second}")
    assert p.page.evaluate("() => window.__omaha.ctrl.conn") == "open"
    shown(mine, numbers)

    # The game: each table's hands alone.
    games = {h["game"] for h in listed}
    assert games == {"omaha", "five-card-omaha"}, games
    for game in sorted(games):
        mine.locator("select[name=game]").select_option(game)
        shown(mine, [h["number"] for h in listed if h["game"] == game])
    mine.locator("select[name=game]").select_option("")
    shown(mine, numbers)

    # The dates (From, To: days in UTC, both included).
    day = utc_day(listed[0]["ended_at"])
    since, until = mine.locator("input[name=since]"), mine.locator("input[name=until]")
    since.fill(str(day + timedelta(days=1)))
    shown(mine, [])
    since.fill(str(day))
    shown(mine, [h["number"] for h in listed if utc_day(h["ended_at"]) >= day])
    until.fill(str(day - timedelta(days=1)))
    shown(mine, [])
    until.fill(str(day))
    shown(mine, [h["number"] for h in listed if utc_day(h["ended_at"]) == day])
    # The hand-number search: the number at a table (both tables' hand 2), or the server's.
    # A list that arrives while a number is typed leaves the number as typed: the answer to
    # "Clear filters" is held until "2" is in the box (it once came just then, and the box
    # was emptied under the typing before Enter sent the search).
    held: list[Route] = []

    def hold(route: Route) -> None:
        held.append(route)

    mine.route("**/api/hands?*", hold)
    mine.click("[data-cmd=clear-filters]")
    for _ in range(1500):  # the handler runs while Playwright waits (not in time.sleep)
        if held:
            break
        mine.wait_for_timeout(20)
    search = mine.locator("input[name=number]")
    search.fill("2")
    with mine.expect_response(lambda r: "/api/hands?" in r.url) as late:
        held[0].fallback()
    late.value.finished()
    # Unrouted only now: the page's last route gone, Chromium stops intercepting and lets a
    # held request go on its own (it once answered while "2" was typed, before the wait).
    mine.unroute("**/api/hands?*")
    mine.evaluate(FRAMES)  # the held answer has been read and drawn
    shown(mine, numbers)
    expect(search).to_have_value("2")
    search.press("Enter")
    twos = [h["number"] for h in listed if 2 in (h["hand_at_table"], h["number"])]
    assert 0 < len(twos) < len(numbers), twos
    shown(mine, twos)
    mine.click("[data-cmd=clear-filters]")
    shown(mine, numbers)

    # Sam's hands: every hand of the table they watched, as watched, without cards.
    table_hands = [h["number"] for h in api(sam, f"/api/tables/{first}/hands?limit=50")["hands"]]
    assert len(table_hands) >= 3
    sam.open("/hands")
    shown(sam.page, table_hands)
    for row in rows(sam.page).all():
        expect(row.locator(".h-meta")).to_contain_text("watched")
        expect(row.locator(".h-cards")).to_have_text("not dealt in")
    # ... each opening the replayer, as a spectator sees the hand.
    newest = api(sam, "/api/hands?limit=1")["hands"][0]
    rows(sam.page).first.locator("a").click()
    sam.page.wait_for_url(f"**/t/{first}/h/{newest['hand_at_table']}")
    expect(sam.page.locator("[data-hand-at-table]")).to_have_text(f"Hand {newest['hand_at_table']}")
    expect(sam.page.locator(".seat.mine")).to_have_count(0)
    assert not p.errors and not sam.errors, p.errors + sam.errors


def whoami(p: Player) -> Any:
    """Who the server takes this browser for (`{"session": null}`: nobody)."""
    return p.page.request.get(f"{p.base}/api/session").json()


def test_another_device_sees_the_ledger_and_a_revoked_link_signs_nobody_in(
    players: PlayerFactory, bots: BotFactory
) -> None:
    p = players("Pat")
    code = an_evening(p, bots, hands=2)
    pat = whoami(p)["player_id"]
    page = p.page
    p.open("/")
    # A link revoked before it is used signs nobody in.
    page.click("[data-cmd=new-sign-in-link]")
    revoked = page.locator("[data-sign-in-url]").input_value()
    page.click("[data-cmd=revoke-link]")
    expect(page.locator("[data-sign-in-url]")).to_have_count(0)
    expect(page.locator("[data-link-state=revoked]")).to_have_count(1)
    thief = players("Thief")
    thief.page.goto(revoked)
    expect(thief.page.locator("[data-sign-in=failed]")).to_contain_text("not valid")
    assert whoami(thief) == {"session": None}

    # A link the phone uses: Pat there too, at the shared table, with its ledger.
    page.click("[data-cmd=new-sign-in-link]")
    url = page.locator("[data-sign-in-url]").input_value()
    phone = players("Phone", **PHONE)
    phone.page.goto(url)
    expect(phone.page.locator("[data-sign-in=done]")).to_contain_text("Signed in as Pat")
    assert whoami(phone)["player_id"] == pat
    ledger = api(p, f"/api/tables/{code}/ledger")
    phone.open(f"/t/{code}")
    expect(phone.page.locator(".seat.mine")).to_have_count(1)  # Pat's seat, on the phone
    phone.page.click(".menu-toggle")  # on a phone the table's menu folds into one button
    phone.page.click("[data-cmd=ledger]")
    dialog = phone.page.locator("[data-dialog=ledger]")
    assert any(line["player_id"] == pat for line in ledger["players"])
    for line in ledger["players"]:
        net = line["net"]
        cell = dialog.locator(f"[data-ledger-player='{line['player_id']}'] [data-net]")
        expect(cell).to_have_text(f"+{net}" if net > 0 else str(net))
    phone.page.keyboard.press("Escape")
    assert not phone.errors, phone.errors

    # Signing that device out (revoking the used link) ends the phone's session.
    p.reload()
    used = page.locator("[data-link-state=used]")
    used.get_by_role("button", name="Sign that device out").click()
    expect(page.locator("[data-link-state=revoked]")).to_have_count(2)
    assert whoami(phone) == {"session": None}
    assert whoami(p)["player_id"] == pat  # the first device keeps its own session
    assert not p.errors, p.errors


def by_table(url: str) -> bool:
    return "/api/hands?" in url and "table=" in url


#: two animation frames: what an answer read before them would draw is drawn by then
FRAMES = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"


def download(p: Player, link: str, where: Path) -> str:
    """Click a link that downloads a file; its text."""
    with p.page.expect_download() as started:
        p.page.locator(link).click()
    path = where / started.value.suggested_filename
    started.value.save_as(path)
    return path.read_text()


def test_a_finished_tournament_is_listed_with_its_standings_ledger_and_exports(
    players: PlayerFactory, tmp_path: Path
) -> None:
    host, alice = players("Host"), players("Alice")
    host.join()
    code, link = create_tournament(host, "sng-turbo", name="Sunday SNG", betting="no-limit", **FAST)
    alice.join()
    register_by_link(alice, link, first_visit=False)
    for count in (2, 3):
        host.page.click("[data-cmd=add-bot]")
        expect(host.page.locator(".registered li")).to_have_count(count)
    host.page.click("[data-cmd=start]")
    alice.page.wait_for_url("**/t/*")
    alice.wait_live()
    play_until([alice], lambda p: "shove", finished([alice]))
    standings = check_the_end([alice], code)
    me = alice.page.request.get(f"{alice.base}/api/session").json()["player_id"]
    place = next(r for r in standings if r["player_id"] == me)
    # The table's own Ledger button: the tournament's standings, not a cash game's ledger.
    alice.page.locator("[data-cmd=ledger]").first.click()
    check_standings(alice.page.locator("[data-dialog=ledger]"), standings)
    alice.page.screenshot(path="/tmp/polish-standings-table.png")

    # Alice's home page: the tournament under past tournaments, with her place.
    alice.open("/")
    item = alice.page.locator(f"[data-past-tournament='{code}']")
    expect(item).to_contain_text("Sunday SNG")
    expect(item).to_contain_text(f"place {place['place']}")
    tables = api(alice, "/api/me/past")["tournaments"][0]["tables"]
    assert [t["name"] for t in tables] == ["Sunday SNG 1"], tables
    table = tables[0]["code"]
    # (its table is listed with it, not a second time among the closed tables)
    expect(alice.page.locator("[data-past-table]")).to_have_count(0)
    # Its exports download the hands she played: the PokerStars text, the PHH, the CSV.
    exports = f"[data-past-tournament='{code}'] .exports"
    text = download(alice, f"{exports} a:text-is('PokerStars text')", tmp_path)
    assert text.startswith("PokerStars Hand #") and "Dealt to Alice [" in text, text[:300]
    hands = text.count("PokerStars Hand #")
    named = re.findall(r"^# (.+), hand (\d+)$", text, re.MULTILINE)
    assert [int(n) for _, n in named] == list(range(1, hands + 1)), named
    assert {name for name, _ in named} == {"Sunday SNG 1"}, named
    phh = download(alice, f"{exports} a:text-is('PHH')", tmp_path)
    assert phh.startswith("[1]\n") and f"\n[{hands}]\n" in phh, phh[:300]
    csv = download(alice, f"{exports} a:text-is('Results CSV')", tmp_path)
    assert csv.startswith("place,player,prize\n") and ",Alice," in csv, csv[:300]
    expect(item.locator("[data-past-tournament-table] .t-table")).to_have_text(["Sunday SNG 1:"])
    # Its standings open over the home page: places and prizes, no settle-up.
    ledger = api(alice, f"/api/tables/{table}/ledger")
    assert ledger["tournament"]["code"] == code and ledger["payments"] == [], ledger
    item.get_by_role("button", name="Standings").click()
    dialog = alice.page.locator("[data-dialog=ledger]")
    check_standings(dialog, standings)
    alice.page.screenshot(path="/tmp/polish-standings-home.png")
    alice.page.keyboard.press("Escape")
    expect(dialog).to_have_count(0)

    # Its name opens the standings.
    item.get_by_role("link", name="Sunday SNG").click()
    alice.page.wait_for_url(f"**/tournaments/{code}")
    rows = alice.page.locator(".standings tbody tr")
    expect(rows).to_have_count(len(standings))
    expect(
        alice.page.locator(f".standings tbody tr[data-place='{place['place']}']")
    ).to_contain_text("Alice")

    # The host's home page lists it too, as hosted, with the same table's exports.
    host.open("/")
    hosted = host.page.locator(f"[data-past-tournament='{code}']")
    expect(hosted).to_contain_text("hosted")
    text = download(host, f"[data-past-tournament='{code}'] .exports a:text-is('PokerStars text')",
                    tmp_path)  # fmt: skip
    assert text.count("PokerStars Hand #") == hands and "Dealt to" not in text
    # On a phone the list fits its width.
    phone = players("Phone", **PHONE)
    phone.context.add_cookies(settable(alice.context.cookies()))
    phone.open("/")
    item = phone.page.locator(f"[data-past-tournament='{code}']")
    expect(item).to_be_visible()
    item.get_by_role("button", name="Standings").click()
    check_standings(phone.page.locator("[data-dialog=ledger]"), standings)
    phone.page.screenshot(path="/tmp/polish-standings-phone.png")
    phone.page.keyboard.press("Escape")
    width = phone.page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 375, width
    assert not alice.errors and not host.errors and not phone.errors, (
        alice.errors + host.errors + phone.errors
    )
