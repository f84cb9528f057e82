"""A table page loads the code and style of what it draws at first, and the rest when it is used
(static/js/lazy.js, app/api/assets.py): its first load has none of the modules of the dialogs,
the ledger, the host's open panel, the hand log, the replayer, the tournament views, the other
pages, nor more.css; each comes when its part is opened, which then works at once."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.api.test_table_page import ON_DEMAND
from tests.e2e.conftest import PlayerFactory
from tests.e2e.test_games import new_table

#: what the page has loaded so far (cached or not): its resources' paths under the version
LOADED = """() => performance.getEntriesByType('resource')
  .map((e) => new URL(e.name).pathname)
  .filter((p) => p.startsWith('/static/'))
  .map((p) => p.split('/').slice(3).join('/'))"""


def loaded(page: Page) -> set[str]:
    return set(page.evaluate(LOADED))


def test_a_table_loads_its_parts_when_they_are_used(players: PlayerFactory) -> None:
    host = players("Host")
    host.join()
    code = new_table(host, decision_time=0, seats=6)
    host.open(f"/t/{code}")
    page = host.page
    expect(page.get_by_role("button", name="Sit in seat 1")).to_be_visible()
    # The live view drawn (not only the server's drawing), then no request for 500 ms:
    # anything the page fetches after its first view has been asked for by then.
    page.wait_for_function("() => window.__omaha && window.__omaha.drawn")
    page.wait_for_load_state("networkidle")
    first = loaded(page)
    assert "js/views/table.js" in first and "js/table-ctrl.js" in first
    assert not first & (ON_DEMAND | {"more.css", "tournament.css"}), sorted(first & ON_DEMAND)

    # Opened right after: the settings dialog draws (styled) once its code and more.css came.
    page.get_by_role("button", name="Settings").click()
    dialog = page.get_by_role("dialog", name="Settings")
    expect(dialog).to_be_visible()
    assert dialog.evaluate("(d) => getComputedStyle(d).display") == "grid"  # more.css's .modal
    assert {"js/views/dialogs.js", "more.css"} <= loaded(page)
    assert "js/views/ledger.js" not in loaded(page)
    page.keyboard.press("Escape")
    expect(dialog).to_have_count(0)

    # The ledger: its view and tabs.
    page.locator("[data-cmd=ledger]").click()
    expect(page.locator("[data-dialog=ledger]")).to_be_visible()
    assert {"js/views/ledger.js", "js/ledger-tabs.js"} <= loaded(page)
    page.keyboard.press("Escape")

    # The host's panel, then the hand log.
    page.get_by_role("button", name="Host controls").click()
    expect(page.get_by_role("button", name="Close table")).to_be_visible()
    page.locator("[data-cmd=log]").click()
    expect(page.get_by_role("complementary", name="Hand log")).to_be_visible()
    assert {"js/views/host.js", "js/views/hand-log.js"} <= loaded(page)
    # Still none of the other pages' code, nor the replayer's, nor a tournament's.
    assert not loaded(page) & {
        "js/views/home.js",
        "js/views/my-hands.js",
        "js/replay.js",
        "js/views/tournament.js",
        "js/tournament-ctrl.js",
    }
    assert not host.errors, host.errors
