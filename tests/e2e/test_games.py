"""Done-when 2: every game draws right: four, five and six hole cards; two boards; Courchevel's
early card; run it twice; a hi-lo split with a quartered low. Each table is played from the
page against a protocol bot on the real server."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect

from tests.e2e.conftest import BotFactory, PlayerFactory
from tests.e2e.harness import Player, calling_station
from tests.e2e.play import mark, play_hand, wait_for_hand, wait_moved_on


def new_table(p: Player, **config: Any) -> str:
    r = p.page.request.post(p.base + "/api/tables", data=config)
    assert r.status == 201, r.text()
    return str(r.json()["code"])


def seated_heads_up(p: Player, bots: BotFactory, policy: Any, **config: Any) -> str:
    p.join()
    code = new_table(p, decision_time=0, **config)
    p.open(f"/t/{code}")
    bot = bots("Bot", policy)
    bot.start(code, 1, config.get("buy_in_max", 200))
    p.sit(0)
    return code


GAMES = [
    ("omaha", 1, 4),
    ("five-card-omaha", 1, 5),
    ("six-card-omaha", 1, 6),
    ("big-o", 2, 5),
    ("courchevel-hi-lo", 1, 5),
]


@pytest.mark.parametrize(("game", "boards", "hole"), GAMES)
def test_every_game_draws_right(
    players: PlayerFactory, bots: BotFactory, game: str, boards: int, hole: int
) -> None:
    p = players("Pat")
    seated_heads_up(p, bots, calling_station, game=game, boards=boards)
    page = p.page
    number = wait_for_hand(p)
    expect(page.locator(".cards.mine .card")).to_have_count(hole)
    expect(page.locator(".seat[data-seat='1'] .cards.backs .card")).to_have_count(hole)
    expect(page.locator(".board")).to_have_count(boards)
    if game.startswith("courchevel"):
        # The first flop card lies face up before the pre-flop betting.
        expect(page.locator(".board .card[data-card]")).to_have_count(1)
    play_hand([p], number)
    for b in range(boards):
        expect(page.locator(f".board[data-board='{b}'] .card[data-card]")).to_have_count(5)
    awards = page.locator(".results .award")
    expect(awards.first).to_be_visible()
    halves = set(awards.evaluate_all("els => els.map(e => e.dataset.half)"))
    assert halves <= ({"high", "low", "whole"} if "hi-lo" in game or game == "big-o" else {"whole"})
    if boards == 2:
        expect(page.locator(".results .where").first).to_contain_text("Board")
    assert not p.errors, p.errors


def shove(legal: dict[str, Any]) -> dict[str, Any]:
    """All in at the first chance; agrees to run it twice."""
    if "raise" in legal["actions"] or "bet" in legal["actions"]:
        kind = "raise" if "raise" in legal["actions"] else "bet"
        return {"action": kind, "amount": legal["max_to"]}
    return calling_station(legal)


def run_twice_against_a_shove(p: Player, bots: BotFactory) -> None:
    """Heads-up no limit against a bot that shoves: the player calls and votes to run it
    twice from the page, then plays the hand out."""
    seated_heads_up(
        p, bots, shove, game="omaha", betting="no-limit", run_it_twice=True,
        buy_in_min=40, buy_in_max=40,
    )  # fmt: skip
    page = p.page
    number = wait_for_hand(p)
    ready = ":is([data-act=run-twice-yes], [data-act=call], [data-act=check]):not([disabled])"
    clicks = 0
    while clicks < 6:
        button = page.wait_for_selector(ready, timeout=15000)
        assert button is not None
        voting = button.get_attribute("data-act") == "run-twice-yes"
        since = mark(p)
        try:
            button.click()
        except PlaywrightError as e:  # redrawn between finding it and clicking: look again
            if "not attached" not in str(e):
                raise
            continue
        clicks += 1
        if voting:
            break
        wait_moved_on(p, since)
    play_hand([p], number)


def test_run_it_twice_draws_both_runs(players: PlayerFactory, bots: BotFactory) -> None:
    p = players("Rita")
    run_twice_against_a_shove(p, bots)
    page = p.page
    expect(page.locator(".board[data-run='1']")).to_have_count(1)
    for run in (0, 1):
        expect(page.locator(f".board[data-run='{run}'] .card[data-card]")).to_have_count(5)
    labels = page.locator(".results .where").all_inner_texts()
    assert any("Run 1" in t for t in labels) and any("Run 2" in t for t in labels), labels
    assert not p.errors, p.errors


def test_hi_lo_split_with_quartered_low_reads_at_a_glance(players: PlayerFactory) -> None:
    """The drawing of a hand the shuffle rarely deals: the server's own messages for a high
    half to one player and a low half quartered between two, applied to a watching page."""
    p = players("Quinn")
    p.join()
    code = new_table(p, game="omaha-hi-lo", seats=3)
    p.open(f"/t/{code}")
    seats = [
        {"type": "seat", "seat": s, "player_id": f"p{s}", "name": n, "stack": 100,
         "status": "playing", "away": False, "straddle": False}
        for s, n in enumerate(["Ann", "Ben", "Cy"])
    ]  # fmt: skip
    h = "fake-hand"
    events: list[dict[str, Any]] = [
        *seats,
        {"type": "hand_started", "hand": h, "number": 1, "button": 0, "seats": [0, 1, 2],
         "stacks": [100, 100, 100], "bomb_pot": False, "straddle": None},
        {"type": "board", "hand": h, "street": "flop", "board": 0, "run": 0,
         "cards": ["2c", "5d", "Kh"]},
        {"type": "board", "hand": h, "street": "turn", "board": 0, "run": 0, "cards": ["7s"]},
        {"type": "board", "hand": h, "street": "river", "board": 0, "run": 0, "cards": ["Kd"]},
        {"type": "shown", "hand": h, "seat": 0, "cards": ["Ks", "Qs", "Jc", "Tc"]},
        {"type": "shown", "hand": h, "seat": 1, "cards": ["Ac", "3h", "9d", "9h"]},
        {"type": "shown", "hand": h, "seat": 2, "cards": ["Ad", "3s", "Qc", "Jh"]},
        {"type": "award", "hand": h, "pot": 0, "run": 0, "board": 0, "half": "high", "seat": 0,
         "amount": 30, "hand_name": "Three of a kind, kings",
         "cards": ["Ks", "Kh", "Kd", "Qs", "7s"]},
        {"type": "award", "hand": h, "pot": 0, "run": 0, "board": 0, "half": "low", "seat": 1,
         "amount": 15, "hand_name": "Seven-five low", "cards": ["7s", "5d", "3h", "2c", "Ac"]},
        {"type": "award", "hand": h, "pot": 0, "run": 0, "board": 0, "half": "low", "seat": 2,
         "amount": 15, "hand_name": "Seven-five low", "cards": ["7s", "5d", "3s", "2c", "Ad"]},
        {"type": "hand_ended", "hand": h, "stacks": {"0": 120, "1": 95, "2": 95}},
    ]  # fmt: skip
    p.page.evaluate(
        "(events) => { const c = window.__omaha.ctrl;"
        " events.forEach((e) => c.receive(e)); window.__omaha.redrawNow(); }",
        events,
    )
    results = p.page.locator(".results.current")
    expect(results.locator(".award")).to_have_count(3)
    high = results.locator(".award[data-half=high]")
    expect(high).to_contain_text("Ann")
    expect(high).to_contain_text("+30")
    expect(high.locator(".half")).to_have_text("High")
    lows = results.locator(".award[data-half=low]")
    expect(lows).to_have_count(2)
    expect(lows.nth(0)).to_contain_text("Ben")
    expect(lows.nth(1)).to_contain_text("Cy")
    expect(lows.nth(0)).to_contain_text("+15")
    expect(lows.nth(0)).to_contain_text("Seven-five low")
    expect(results.locator(".scoop")).to_have_count(0)
    # The winners' seats carry what they won, chips moved to them.
    expect(p.page.locator(".seat[data-seat='0'] .won")).to_have_text("+30")
    expect(p.page.locator(".seat[data-seat='0'] .stack")).to_have_text("120")
    expect(p.page.locator(".seat[data-seat='2'] .won")).to_have_text("+15")
    assert not p.errors, p.errors
