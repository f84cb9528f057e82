"""Issue 15, done-when 4: the big-screen clock counts down and changes level, and the final
standings page shows the places; players register and the host starts from the page."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import PlayerFactory
from tests.e2e.harness import server

LEVELS = [{"small_blind": sb, "big_blind": 2 * sb, "minutes": 0.05}
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


def test_the_clock_counts_down_and_the_standings_show_the_places(players: PlayerFactory) -> None:
    host, alice, bob = players("Host"), players("Alice"), players("Bob")
    host.join()
    body = {"name": "Friday night", "starting_stack": 1000, "structure": "custom",
            "levels": LEVELS, "payouts": [6500, 3500], "prize_pool": 100,
            "decision_time": 0.05, "time_bank": 0}  # fmt: skip
    status, text = host.page.evaluate(CREATE, body)
    assert status == 201, text
    code = json.loads(text)["code"]
    for p in (alice, bob):
        p.join()
        p.page.goto(f"{p.base}/tournaments/{code}")
        p.page.click("[data-cmd=register]")
        expect(p.page.locator("[data-cmd=unregister]")).to_be_visible()
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
    clock.goto(f"{host.base}/tournaments/{code}/clock")
    countdown = clock.get_by_role("timer")
    expect(countdown).to_be_visible()
    expect(clock.locator("[data-status=running]")).to_be_visible()
    first = countdown.inner_text()
    assert first.startswith("0:0")  # three seconds a level
    # It counts down, then the level changes (and the blinds with it).
    clock.wait_for_function(
        "(t) => document.querySelector('.countdown').textContent !== t", arg=first, timeout=5000
    )
    expect(clock.locator("[data-level='2']")).to_be_visible(timeout=10_000)
    expect(clock.locator(".blinds")).to_have_text("200 / 400")
    # The blinds outgrow the stacks: it ends; the standings page shows the places.
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
