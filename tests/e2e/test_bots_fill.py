"""Issue 13, done-when 4: one browser and five practice bots play twenty hands of every game
(and of a double board and a bomb-pot table, and of each betting structure) to the end; six
in `make test`, which still meet a bomb pot and a second board (twenty under OMAHA_FULL=1). The
host seats the bots from the host panel; the person plays from the page (keyboard: check or
call what is cheap, fold what is not; show; run it twice). After every hand the ledger
endpoint's identity holds (chips in = on the table + cashed out; nets sum to zero); no error
frame ever reaches the page, no bot ever runs into its time bank, and the console is clean.

The server here lets bots think 0 s and waits 0.1 s between hands."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, WebSocket, expect

from tests.e2e.conftest import FAILED
from tests.e2e.harness import Player, screenshot_all
from tests.e2e.play import wait_moved_on
from tests.sizes import sample

HANDS = sample(6, 20)

CONFIGS: list[dict[str, Any]] = [
    {"game": "omaha"},
    {"game": "omaha-hi-lo", "boards": 2},  # double board
    {"game": "five-card-omaha", "betting": "no-limit", "run_it_twice": True},
    {"game": "big-o"},
    {"game": "six-card-omaha", "bomb_pot_every": 2},  # every other hand a bomb pot
    {"game": "six-card-omaha-hi-lo", "betting": "fixed-limit"},
    {"game": "courchevel"},
    {"game": "courchevel-hi-lo", "straddle": True},
]


@pytest.fixture(scope="module")
def base(quick_base: str) -> str:
    # Bots decide at once and hands follow each other quickly (the worker's quick server,
    # tests/e2e/conftest.py): the test is about every hand being played to the end, not
    # about pacing.
    return quick_base


class Frames:
    """Every message the page's WebSocket receives, as the server sent it."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []

    def attach(self, ws: WebSocket) -> None:
        ws.on("framereceived", self._frame)

    def _frame(self, payload: str | bytes) -> None:
        data = json.loads(payload)  # the page asks for batched frames: an array of messages
        self.messages.extend(data if isinstance(data, list) else [data])

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [m for m in self.messages if m.get("type") == kind]


@pytest.fixture(scope="module")
def signed_in(browser: Browser, base: str) -> Iterator[Player]:
    """Solo, signed in once for the module's tables (the context keeps the cookie)."""
    p = Player(browser, base, "Solo", viewport={"width": 1280, "height": 860})
    p.join()
    yield p
    p.close()


@pytest.fixture
def solo(request: pytest.FixtureRequest, signed_in: Player) -> Iterator[Player]:
    """Solo on a page of their own for this test (its own errors), not a new context and the
    name form again; screenshotted when the test fails."""
    signed_in.fresh_page()
    yield signed_in
    if request.node.stash.get(FAILED, False):
        screenshot_all([signed_in], request.node.name)


def ledger(p: Player, code: str) -> dict[str, Any]:
    r = p.page.request.get(f"{p.base}/api/tables/{code}/ledger")
    assert r.status == 200, r.text()
    data: dict[str, Any] = r.json()
    return data


def conserved(p: Player, code: str) -> dict[str, Any]:
    book = ledger(p, code)
    t = book["totals"]
    assert t["chips_in"] == t["on_table"] + t["cashed_out"], book
    assert sum(line["net"] for line in book["players"]) == 0, book
    return book


# What the page is waiting for in hand {n}: nothing (falsy), the hand over, or its turn with
# what it needs to decide (one round trip to the browser per decision).
READY = """() => {
  const c = window.__omaha.ctrl; const h = c.state.hand;
  if (!h) return null;
  if (h.number > {n} || h.ended) return {over: true};
  if (!c.isMyTurn() || c.pending) return null;
  return {phase: h.phase, legal: h.legal, stack: h.players[c.state.you.seat].stack,
          counter: h.counter};
}"""


def act(p: Player, turn: dict[str, Any]) -> None:
    """One decision from the page: cheap calls and free checks by key, else fold."""
    page = p.page
    if turn["phase"] == "showdown":
        page.get_by_role("button", name="Show", exact=True).click()
    elif turn["phase"] == "run-it-twice":
        page.get_by_role("button", name="Run it twice").click()
    elif "check" in turn["legal"]["actions"] or turn["legal"]["call"] * 5 <= turn["stack"]:
        page.keyboard.press("c")
    else:
        page.keyboard.press("f")


def play_until(p: Player, number: int, timeout: float = 60) -> None:
    """Play hand `number` from the page until it is over."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        turn = p.page.wait_for_function(READY.replace("{n}", str(number)), timeout=20000)
        state = turn.json_value()
        if state.get("over"):
            return
        act(p, state)
        wait_moved_on(p, (number, state["counter"]))
    raise AssertionError(f"hand {number} did not end in {timeout} s")


@pytest.mark.parametrize("config", CONFIGS, ids=[str(i) for i in range(len(CONFIGS))])
def test_one_browser_and_five_bots_play_every_hand_to_the_end(
    solo: Player, config: dict[str, Any]
) -> None:
    p = solo
    frames = Frames()
    p.page.on("websocket", frames.attach)
    r = p.page.request.post(p.base + "/api/tables", data={"decision_time": 10, **config})
    assert r.status == 201, r.text()
    code = r.json()["code"]
    page = p.page
    p.open(f"/t/{code}")
    p.sit(0)

    # The host seats five practice bots from the panel, paused so all six start together.
    page.get_by_role("button", name="Host controls").click()
    host = page.get_by_role("region", name="Host")
    host.get_by_role("button", name="Pause").click()
    expect(host.get_by_role("button", name="Resume")).to_be_visible()
    for seat in range(2, 7):
        host.get_by_role("button", name=f"Add a bot to seat {seat}").click()
        expect(page.get_by_role("group", name=f"Seat {seat}, Bot ", exact=False)).to_be_visible()
    started = time.monotonic()
    host.get_by_role("button", name="Resume").click()
    host.get_by_role("button", name="Hide").click()

    played: list[int] = []
    number = 0
    while len(played) < HANDS:
        page.wait_for_function(
            "() => { const h = window.__omaha.ctrl.state.hand;"
            f" return h && h.number > {number}; }}",
            timeout=20000,
        )
        number = int(p.state("c.state.hand.number"))
        play_until(p, number)
        played.append(number)
        conserved(p, code)
        stack = p.state("c.state.seats[0] ? c.state.seats[0].stack : 0")
        if stack < config.get("buy_in_min", 40):
            page.locator("[data-cmd=top-up]").click()
            page.locator("[data-cmd=confirm-top-up]").click()
    elapsed = time.monotonic() - started

    ended = {m["hand"] for m in frames.of("hand_ended")}
    began = {m["hand"]: m["number"] for m in frames.of("hand_started")}
    finished = [n for h, n in began.items() if h in ended]
    assert len(finished) >= HANDS, (len(finished), len(began))
    errors = frames.of("error")
    assert not errors, errors
    bots = {m["seat"] for m in frames.of("seat") if m.get("bot")}
    assert len(bots) == 5, bots
    slow = [m for m in frames.of("turn") if m["seat"] in bots and m.get("in_time_bank")]
    assert not slow, slow
    if config.get("bomb_pot_every"):
        assert any(m["bomb_pot"] for m in frames.of("hand_started"))
    if config.get("boards") == 2:
        assert any(m["board"] == 1 for m in frames.of("board"))
    book = conserved(p, code)
    assert sum(1 for line in book["players"] if line["bot"]) == 5, book
    # Something happened at the table: chips moved between players.
    assert any(line["net"] for line in book["players"]), book
    assert not p.errors, p.errors
    print(f"{config}: {HANDS} hands in {elapsed:.1f} s")
