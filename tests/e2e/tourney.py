"""What the tournament browser tests (and `make screenshots`) do on the pages: create a
tournament from the home page's form, join it by its link, register, add bots, start, and
read the end on every page."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Locator, expect

from tests.e2e.harness import Player
from tests.e2e.play import mark, wait_moved_on

#: the longest a tournament may take to play out here (a bound, never waited for)
PLAY_LIMIT = 300.0


def tournament_form(host: Player) -> Locator:
    """The home page's tournament form, opened."""
    form = host.page.locator("details.create-tournament")
    form.locator("> summary").click()
    expect(form.locator("form")).to_be_visible()
    return form


def fill(form: Locator, **settings: Any) -> None:
    """Set the form's fields by name (selects, checkboxes and text alike)."""
    more = form.locator("details.more")
    for key, value in settings.items():
        field = form.locator(f"[name={key}]")
        if not field.is_visible() and more.count():
            more.locator("summary").click()
        kind = field.evaluate("e => e.tagName + ':' + (e.type || '')")
        if kind.startswith("SELECT"):
            field.select_option(str(value))
        elif kind.endswith("checkbox"):
            field.set_checked(bool(value))
        else:
            field.fill(str(value))


def create_tournament(host: Player, preset: str, **settings: Any) -> tuple[str, str]:
    """From the home page (named): the form with `preset` and `settings`, its preview shown,
    then created. Returns the tournament's code and the invite link its page gives."""
    form = tournament_form(host)
    fill(form, preset=preset)
    fill(form, **settings)
    expect(form.locator("[data-preview-level]").first).to_be_visible()
    form.locator("[data-cmd=create-tournament]").click()
    host.page.wait_for_url("**/tournaments/*")
    code = host.page.url.rsplit("/", 1)[1]
    link = host.page.locator("[data-invite]").input_value()
    assert link.endswith(f"/tournaments/{code}")
    return code, link


def register_by_link(p: Player, link: str, *, first_visit: bool) -> None:
    """Open the invite link and register: a first-time visitor picks a name on the page."""
    p.page.goto(link)
    if first_visit:
        p.page.fill("input[name=name]", p.name)
    p.page.click("[data-cmd=register]")
    expect(p.page.locator("[data-registered]")).to_be_visible()


def state(p: Player, code: str) -> dict[str, Any]:
    """The tournament as this player's browser reads it (their cookie)."""
    r = p.page.request.get(f"{p.base}/api/tournaments/{code}")
    assert r.status == 200, r.text()
    data: dict[str, Any] = r.json()
    return data


def check_the_end(players: list[Player], code: str) -> list[dict[str, Any]]:
    """Every player's page (a table's, wherever they last played) says who won and their
    place and prize, as the standings have them; it stopped asking; no error on it."""
    standings: list[dict[str, Any]] = state(players[0], code)["standings"]
    winner = next(r["name"] for r in standings if r["place"] == 1)
    for p in players:
        end = p.page.locator("[data-finished]")
        expect(end).to_contain_text(f"{winner} won", timeout=10_000)
        me = p.page.request.get(f"{p.base}/api/session").json()["player_id"]
        mine = [r for r in standings if r["player_id"] == me]
        assert len(mine) == 1, (p.name, standings)
        result = end.locator(".your-result")
        expect(result).to_have_attribute("data-your-place", str(mine[0]["place"]))
        expect(result).to_have_attribute("data-your-prize", str(mine[0]["prize"]))
        assert p.page.evaluate("() => window.__omaha.ctrl.tournament.stopped") is True
        # The end is the tournament's, not a host's closing; the last hand's winner by name
        # (a busted player's seat is empty by then: never "Seat 6").
        expect(p.page.locator("body")).not_to_contain_text("The host closed")
        results = " ".join(p.page.locator("section.results").all_inner_texts())
        assert not re.search(r"Seat \d", results), (p.name, results)
        assert not p.errors, (p.name, p.errors)
    return standings


def check_standings(dialog: Locator, standings: list[dict[str, Any]]) -> None:
    """A tournament table's ledger dialog shows the tournament's standings, each player by
    place and prize, and nothing of a cash game's settle-up (chips are nobody's money)."""
    expect(dialog.locator("[data-standings]")).to_be_visible()
    expect(dialog.locator("[data-standings] tbody tr")).to_have_count(len(standings))
    for r in standings:
        row = dialog.locator(f"tr[data-standing='{r['player_id']}'][data-place='{r['place']}']")
        expect(row).to_contain_text(r["name"])
        if r["prize"]:
            expect(row.locator("td").nth(1)).to_have_text(str(r["prize"]))
    text = dialog.inner_text()
    for word in ("Settle up", "settled", "pays", "Net", "Buy-ins", "Money"):
        assert word not in text, (word, text)


def act(p: Player, shove: bool, fold: bool = False) -> None:
    """If it is this player's turn, act from the page: all in if `shove` and it may, else
    check or call (check or fold if `fold`); show at a showdown; agree to run it twice. A page
    that moves on meanwhile (a move to another table, the end) is left alone."""
    try:
        if not p.my_turn():
            return
        page = p.page
        phase = p.state("c.state.hand.phase")
        since = mark(p)
        if phase == "betting":
            all_in = page.locator("[data-preset=all-in]")
            if shove and all_in.count():
                all_in.click()
                page.locator(".actions [data-act=raise], .actions [data-act=bet]").first.click()
            elif fold and not page.locator("[data-act=check]").count():
                page.locator("[data-act=fold]").click()
            else:
                page.locator("[data-act=check], [data-act=call]").first.click()
        elif phase == "showdown":
            page.locator("[data-act=show], [data-act=muck]").first.click()
        else:
            page.click("[data-act=run-twice-yes]")
        wait_moved_on(p, since)
    except PlaywrightError:  # the page navigated (moved, or its table closed) under us
        return


Policy = Callable[[Player], str | None]  # "shove", "call", "fold" or None (the clock acts)


def play_until(players: list[Player], policy: Policy, done: Callable[[], bool]) -> None:
    """Act for each player by `policy` whenever it is their turn, until `done()`."""
    deadline = time.monotonic() + PLAY_LIMIT
    while not done():
        assert time.monotonic() < deadline, f"not done in {PLAY_LIMIT} s"
        for p in players:
            how = policy(p)
            if how is not None:
                act(p, how == "shove", fold=how == "fold")
        time.sleep(0.05)


def finished(players: list[Player]) -> Callable[[], bool]:
    """Every one of these pages shows the tournament's end."""
    return lambda: all(p.page.locator("[data-finished]").count() > 0 for p in players)


def notice(p: Player) -> str:
    """What the table page was told as it opened (the start, a move), shown as a toast;
    waited for: the page's script reads it after its first await, and the page counts as live
    before that once the server's drawing is up."""
    p.page.wait_for_function("() => !!(window.__omaha && window.__omaha.notice)")
    return str(p.page.evaluate("() => window.__omaha.notice"))
