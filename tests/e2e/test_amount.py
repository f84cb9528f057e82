"""The amount box of a bet or raise: what the player types is what Enter sends, and a message
that arrives while they type (a chat line, another seat's move: the page redraws for each)
leaves their typing alone. Before, the box took its value back from the last amount chosen at
every redraw, and Enter sent that amount (the box's change came after the key)."""

from __future__ import annotations

import json

from playwright.sync_api import expect

from tests.e2e.conftest import BotFactory, PlayerFactory
from tests.e2e.harness import calling_station
from tests.e2e.play import mark, wait_moved_on
from tests.waits import within_sync

FRAMES = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"


def test_a_typed_amount_is_sent_as_typed_whatever_arrives_meanwhile(
    players: PlayerFactory, bots: BotFactory
) -> None:
    ann = players("Ann")
    ann.join()
    page = ann.page
    r = page.request.post(
        ann.base + "/api/tables",
        data={"name": "Typing", "betting": "no-limit", "decision_time": 0},
    )
    assert r.status == 201, r.text()
    code = r.json()["code"]
    ann.open(f"/t/{code}")
    ann.sit(0, 200)
    bo = bots("Bo", calling_station)
    bo.start(code, 1, 200)

    # Ann's first turn with a raise on offer (heads-up, the calling station never raises).
    page.wait_for_function(
        "() => { const c = window.__omaha.ctrl; return c.isMyTurn() && !!c.wagerKind(); }"
    )
    legal = ann.state("c.state.hand.legal")
    assert legal["min_to"] < 37 <= legal["max_to"], legal
    box = page.locator("#amount")
    box.click()
    page.keyboard.press("Control+a")
    page.keyboard.type("3")
    # Bo says something while Ann types: her page draws the line, and her "3" stays.
    assert bo.ws is not None
    bo.ws.send(json.dumps({"type": "chat", "text": "take your time"}))
    expect(page.locator(".chat-text").last).to_have_text("take your time")
    page.evaluate(FRAMES)
    expect(box).to_have_value("3")
    page.keyboard.type("7")
    expect(box).to_have_value("37")
    # The button says what Enter sends, and Enter sends it.
    expect(page.locator("[data-act=bet], [data-act=raise]").first).to_contain_text("37")
    since = mark(ann)
    page.keyboard.press("Enter")
    wait_moved_on(ann, since)
    seat = ann.state("c.state.you.seat")

    def wagers() -> list[dict[str, object]]:
        return [m for m in list(bo.messages) if m.get("type") == "acted" and m.get("seat") == seat
                and m.get("action") in ("bet", "raise")]  # fmt: skip

    [wager] = within_sync(wagers, 30, what="Ann's raise reaching Bo")
    assert wager["bet"] == 37, wager  # raised to 37 (`amount`: the chips it put in)
    assert not ann.errors, ann.errors
