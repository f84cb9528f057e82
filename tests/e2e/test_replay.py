"""The replayer `/h/{number}`: a finished hand's steps through the live table's reducer.
Hands are played from the page against protocol bots on the real server (two boards hi-lo;
run it twice with an all-in), then replayed: stepping forward and back shows the board and
the pot the record says, and no card the viewer may not see is anywhere in the DOM."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, cast

from playwright.sync_api import expect

from tests.e2e.conftest import BotFactory, PlayerFactory
from tests.e2e.harness import Player, calling_station
from tests.e2e.play import hand_number, play_hand, step_ends, wait_for_hand
from tests.e2e.test_games import new_table, run_twice_against_a_shove, seated_heads_up
from tests.e2e.test_review import LAST_HANDS_MS

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"


def finished_hand(p: Player) -> int:
    """The number of the newest hand in the table page's "last hands" list."""
    link = p.page.locator("[data-hand-link]").first
    expect(link).to_be_visible(timeout=15000)
    return int(link.get_attribute("data-hand-link") or 0)


def hand_finished_at_table(p: Player, code: str, at_table: int) -> int:
    """The number (the server's, as links and `/h/` have it) of the table's hand `at_table`
    (its number at the table) once it is over and listed; waits for it."""
    deadline = time.monotonic() + 15
    while True:
        r = p.page.request.get(f"{p.base}/api/tables/{code}/hands?limit=5")
        assert r.ok, r.text()
        found = [h["number"] for h in r.json()["hands"] if h["hand_at_table"] == at_table]
        if found:
            # labelled as the table numbers its hands (the header's "Hand #3"), linked by
            # the server's number
            link = p.page.locator(f"[data-hand-link='{found[0]}']")
            expect(link).to_have_text(f"Hand #{at_table}", timeout=15000)
            return int(found[0])
        assert time.monotonic() < deadline, f"hand {at_table} never finished"
        p.page.wait_for_timeout(100)


def record(p: Player, number: int, code: str | None = None) -> dict[str, Any]:
    query = f"?code={code}" if code else ""
    r = p.page.request.get(f"{p.base}/api/hands/{number}{query}")
    assert r.ok, r.text()
    return dict(r.json())


def at_step(p: Player, k: int) -> None:
    expect(p.page.locator(f".replay-page[data-step='{k}']")).to_have_count(1)


def board_cards(p: Player, run: int, board: int) -> list[str]:
    return cast(
        list[str],
        p.page.locator(f".board[data-run='{run}'][data-board='{board}'] [data-card]").evaluate_all(
            "els => els.map(e => e.dataset.card)"
        ),
    )


def allowed_cards(rec: dict[str, Any]) -> set[str]:
    """What this viewer may see: the boards and the hole cards the record gives them."""
    cards = {c for run in rec["boards"] for board in run for c in board}
    for s in rec["seats"]:
        cards.update(s["cards"] or [])
    return cards


def check_replay(p: Player, number: int, rec: dict[str, Any], hidden: set[str]) -> None:
    page = p.page
    steps = rec["steps"]
    ends = step_ends(steps)  # a step per action: the deal is one
    assert len(ends) < len(steps)
    page.goto(f"{p.base}/h/{number}")
    at_step(p, len(ends))  # opens on the result
    expect(page.locator(".results .award").first).to_be_visible()
    assert p.dom_cards() <= allowed_cards(rec)
    assert not (p.dom_cards() & hidden)
    # Back to the start: the empty table.
    page.keyboard.press("Home")
    at_step(p, 0)
    assert board_cards(p, 0, 0) == []
    # Forward with the arrow key to just after the first board card: the flop the record has.
    first_board = next(i for i, s in enumerate(steps) if s["type"] == "board")
    k = ends.index(first_board + 1) + 1
    for _ in range(k):
        page.keyboard.press("ArrowRight")
    at_step(p, k)
    flop = steps[first_board]
    assert board_cards(p, flop["run"], flop["board"]) == flop["cards"]
    # One step back (the button): the flop is gone again.
    page.click("[data-replay=back]")
    at_step(p, k - 1)
    assert board_cards(p, flop["run"], flop["board"]) == []
    # The pot right after the step that gathers the bets first is that gathering's total.
    gathered = next(i for i, s in enumerate(steps) if s["type"] == "pots")
    k = next(j for j, end in enumerate(ends) if end > gathered) + 1
    last_pots = [s for s in steps[: ends[k - 1]] if s["type"] == "pots"][-1]
    page.keyboard.press("Home")
    for _ in range(k):
        page.click("[data-replay=forward]")
    at_step(p, k)
    total = sum(pot["amount"] for pot in last_pots["pots"])
    expect(page.locator(".pot-total")).to_have_attribute("data-pot", str(total))
    page.keyboard.press("End")
    at_step(p, len(ends))
    for s in ("pokerstars", "phh"):
        href = page.locator(f"[data-export={s}]").get_attribute("href") or ""
        assert page.request.get(p.base + href).ok
    assert not p.errors, p.errors


def test_replay_two_boards_hi_lo(players: PlayerFactory, bots: BotFactory) -> None:
    p = players("Pat")
    p.page.clock.install()  # (as Rita's, in test_replay_run_it_twice)
    code = seated_heads_up(p, bots, calling_station, game="big-o", boards=2)
    number = wait_for_hand(p)
    play_hand([p], number)
    p.page.clock.run_for(LAST_HANDS_MS)
    n = finished_hand(p)
    rec = record(p, n)
    assert rec["boards_per_run"] == 2 and rec["hi_lo"]
    check_replay(p, n, rec, set())
    p.page.screenshot(path=str(ARTIFACTS / "replay-desktop.png"), full_page=True)
    # A spectator with the link sees the same hand without the hole cards nobody showed.
    viewer = players("Vic", viewport={"width": 375, "height": 667}, is_mobile=True)
    spectator = record(viewer, n, code)
    mine = {c for s in rec["seats"] if not s["shown"] for c in s["cards"] or []}
    assert all(s["cards"] is None for s in spectator["seats"] if not s["shown"])
    viewer.page.goto(f"{viewer.base}/h/{n}?code={code}")
    at_step(viewer, len(step_ends(spectator["steps"])))
    assert viewer.dom_cards() <= allowed_cards(spectator)
    assert not (viewer.dom_cards() & mine)
    viewer.page.screenshot(path=str(ARTIFACTS / "replay-phone.png"), full_page=True)
    for _ in range(len(step_ends(spectator["steps"]))):
        viewer.page.keyboard.press("ArrowLeft")
        assert not (viewer.dom_cards() & mine)
    at_step(viewer, 0)


def test_replay_run_it_twice(players: PlayerFactory, bots: BotFactory) -> None:
    p = players("Rita")
    # Rita's pages keep time by Playwright's clock (it flows as time does): the page's own
    # delays below (the last hands list's, the auto-play's steps) are run through, not waited.
    p.page.clock.install()
    run_twice_against_a_shove(p, bots)
    page = p.page
    page.clock.run_for(LAST_HANDS_MS)
    n = finished_hand(p)
    rec = record(p, n)
    assert rec["runs"] == 2
    check_replay(p, n, rec, set())
    for run in (0, 1):
        expect(page.locator(f".board[data-run='{run}'] [data-card]")).to_have_count(5)
    if rec["equity"]:
        expect(page.locator("[data-equity]")).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "replay-run-twice.png"), full_page=True)
    # Auto-play at 4 steps a second from the start: it moves on by itself, and Pause stops it.
    page.keyboard.press("Home")
    page.select_option("[data-replay=speed]", "4")
    page.click("[data-replay=play]")
    page.clock.run_for(1000)  # four steps' time
    page.wait_for_function("() => window.__omaha.replay.step >= 4", timeout=5000)
    page.click("[data-replay=pause]")
    stopped = page.evaluate("() => window.__omaha.replay.step")
    page.clock.run_for(600)  # more than two steps' time: none is taken
    assert page.evaluate("() => window.__omaha.replay.step") == stopped


def raiser(legal: dict[str, Any]) -> dict[str, Any]:
    """Raises the minimum whenever it can: the other player faces a bet and may fold."""
    if "raise" in legal["actions"]:
        return {"action": "raise", "amount": legal["min_to"]}
    return calling_station(legal)


def test_replay_never_shows_folded_cards(players: PlayerFactory, bots: BotFactory) -> None:
    """Pat folds to a raise: Pat's replay never has the bot's cards, and a spectator's replay
    (the shared link) never has Pat's, at any step."""
    p = players("Pat")
    p.join()
    code = new_table(p, decision_time=0)
    p.open(f"/t/{code}")
    bot = bots("Bot", raiser)
    bot.start(code, 1, 200)
    p.sit(0)
    number = wait_for_hand(p)
    p.page.wait_for_selector("[data-act=fold]:not([disabled])", timeout=15000)
    assert hand_number(p) == number
    p.page.click("[data-act=fold]")
    # The hand Pat folded, by its number: the next one may already be dealt (or over).
    n = hand_finished_at_table(p, code, number)
    p.page.screenshot(path=str(ARTIFACTS / "table-last-hands.png"), full_page=True)
    rec = record(p, n)
    assert rec["hand_at_table"] == number
    pat = next(s for s in rec["seats"] if s["name"] == "Pat")
    assert pat["folded"] and pat["cards"]
    # The bot's cards in that hand (hand events carry the hand id, `hand_started` its number
    # at the table).
    seen = list(bot.messages)
    hand_id = next(m["hand"] for m in seen if m["type"] == "hand_started" and m["number"] == number)
    dealt = [m for m in seen if m["type"] == "hole_cards" and m["hand"] == hand_id and "cards" in m]
    assert len(dealt) == 1
    bot_cards = set(dealt[0]["cards"])
    assert len(bot_cards) == 4
    check_replay_steps(p, n, None, bot_cards)
    viewer = players("Vic", viewport={"width": 375, "height": 667}, is_mobile=True)
    check_replay_steps(viewer, n, code, set(pat["cards"]) | bot_cards)


def check_replay_steps(p: Player, number: int, code: str | None, hidden: set[str]) -> None:
    """Every step from the last to the first: none of `hidden` in the DOM."""
    query = f"?code={code}" if code else ""
    p.page.goto(f"{p.base}/h/{number}{query}")
    p.page.wait_for_selector(".replay-page[data-steps]")
    last = int(p.page.locator(".replay-page").get_attribute("data-steps") or 0)
    assert last > 0
    at_step(p, last)
    for k in range(last, -1, -1):
        at_step(p, k)
        assert not (p.dom_cards() & hidden), k
        p.page.keyboard.press("ArrowLeft")
    assert not p.errors, p.errors
