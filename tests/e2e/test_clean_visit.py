"""Issue 26, item 9, in Chromium on a 375x667 phone: a clean first visit logs no console error
(the session check answers a new visitor 200 with no session), and the cosmetic defects once
seen stay fixed: a wrapped chat message keeps its name on its first line; an all-in seat says
"all in" once, and not after the hand; Min and ½ pot are never lit together; "Sit here" keeps
to one line; the Game select names games only (no "Pot-limit Omaha" beside No limit); the
slider, the check boxes and the "Hand #n" links are at least 44 px to the touch."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from tests.e2e.conftest import BotFactory, PlayerFactory
from tests.e2e.harness import Player, calling_station
from tests.e2e.play import act_once, hand_number, play_hand
from tests.e2e.test_chat import say
from tests.e2e.test_games import new_table
from tests.e2e.test_hand_log import shove_preflop, side_pot_table
from tests.e2e.test_phone import PHONE
from tests.waits import within_sync

TOUCH = 44 - 0.5

# Lines a text box's words take (one rectangle a line of an inline run).
LINES = (
    "(e) => { const r = document.createRange(); r.selectNodeContents(e);"
    " return new Set([...r.getClientRects()].map((x) => Math.round(x.top))).size; }"
)

# What the touch reaches for each small control: the slider itself, a check box's label (the
# box is 22 px, its label the target), a hand's link.
TARGETS = """() => [
  ...[...document.querySelectorAll('input[type=range]')].map((e) => ['slider', e]),
  ...[...document.querySelectorAll('input[type=checkbox]')].map((e) => ['check box ' + e.name,
    e.closest('label') || e]),
  ...[...document.querySelectorAll('.last-hands a')].map((e) => ['link ' + e.textContent, e]),
].filter(([, e]) => e.offsetParent !== null).map(([what, e]) => {
  const r = e.getBoundingClientRect(); return { what, width: r.width, height: r.height }; })"""


def small_targets(p: Player) -> list[dict[str, Any]]:
    found = p.page.evaluate(TARGETS)
    return [t for t in found if t["height"] < TOUCH or t["width"] < TOUCH]


def test_a_clean_visit_and_the_cosmetic_defects(players: PlayerFactory, bots: BotFactory) -> None:
    p = players("Nia", **PHONE)
    page = p.page
    # A first visit: no name yet, the session check answered 200 {"session": null}.
    page.goto(p.base + "/")
    page.wait_for_selector("input[name=name]")
    answer = page.evaluate(
        "async () => { const r = await fetch('/api/session'); return [r.status, await r.json()]; }"
    )
    assert answer == [200, {"session": None}], answer
    assert p.errors == [], p.errors

    # The Game select: games only, whatever the betting.
    p.join()
    page.click("details.more summary")
    page.locator("section.create [name=betting]").select_option("no-limit")
    games = page.locator("section.create [name=game] option").all_inner_texts()
    assert games and not [g for g in games if "limit" in g.lower()], games

    # "Sit here" on one line, at ten seats on the phone.
    code = new_table(p, decision_time=0, seats=10)
    p.open(f"/t/{code}")
    buttons = page.locator(".sit-btn")
    expect(buttons).to_have_count(10)
    assert [b.evaluate(LINES) for b in buttons.all()] == [1] * 10

    p.sit(0, 200)
    bots("Bot", calling_station).start(code, 5, 200)
    # A wrapped chat line: the name starts its first line, the text runs on beside it.
    say(p, "a long message that wraps on a phone's narrow chat, under the name, not beside "
           "an empty line")  # fmt: skip
    line = page.locator(".chat-line").last
    expect(line.locator(".chat-text")).to_contain_text("a long message")
    assert line.locator(".chat-text").evaluate(LINES) >= 2  # it wraps
    # The name's top and the text's first line's, in one read (the table redraws meanwhile).
    name_top, first = line.evaluate(
        "(l) => { const r = document.createRange();"
        " r.selectNodeContents(l.querySelector('.chat-text'));"
        " return [l.querySelector('.chat-name').getBoundingClientRect().top,"
        " r.getClientRects()[0].top]; }"
    )
    assert abs(first - name_top) < 4, (first, name_top)

    # Three turns: never two presets lit (Min and ½ pot are often the same amount: one is
    # lit); the slider and the check boxes big enough to touch; then a hand's link too.
    same = 0
    for _ in range(3):
        within_sync(p.my_turn, 30)
        page.wait_for_selector("[data-act]:not([disabled])")
        amounts = page.locator(".presets .preset").evaluate_all(
            "els => els.map((e) => [e.dataset.preset, Number(e.dataset.value),"
            " e.classList.contains('on')])"
        )
        lit = [name for name, _, on in amounts if on]
        assert len(lit) <= 1, amounts
        values = dict((name, value) for name, value, _ in amounts)
        if values and values.get("min") == values.get("half"):
            same += 1
            assert lit == ["min"], amounts
            page.click("[data-preset=half]")  # chosen: that one lit, alone (once drawn)
            expect(page.locator(".presets .preset.on")).to_have_attribute("data-preset", "half")
            expect(page.locator(".presets .preset.on")).to_have_count(1)
        assert small_targets(p) == []
        act_once(p, keyboard=False)
    assert same, "no turn where Min and ½ pot were the same amount"
    play_hand([p], hand_number(p))
    link = page.locator(".last-hands a[data-hand-link]").first
    expect(link).to_be_visible(timeout=30_000)
    assert small_targets(p) == []
    assert not p.errors, p.errors


# Every seat's text (its last action and marks) each time the felt is drawn, the hand then (if
# any) and whether it had ended.
WATCH_SEATS = """() => { window.__seatTexts = [];
  new MutationObserver(() => {
    const h = window.__omaha.ctrl.state.hand;
    for (const s of document.querySelectorAll('.felt .seat[data-player]')) {
      const said = [...s.querySelectorAll('.last, .marks')].map((e) => e.textContent).join(' | ');
      window.__seatTexts.push({ seat: s.dataset.seat, said, hand: h ? h.number : null,
        ended: !!(h && h.ended) });
    }
  }).observe(document.querySelector('.felt'), { childList: true, subtree: true,
    characterData: true }); }"""


def test_an_all_in_seat_says_so_once_and_not_after_the_hand(
    players: PlayerFactory, bots: BotFactory
) -> None:
    p = players("Vic", **PHONE)
    # Ann (30) and Ben (60) call Vic's all in, all in themselves. The seats are watched from
    # before the deal: the deal is drawn before Vic's turn, so at least one draw is mid-hand
    # (watching from after the resume could begin after that draw, and then the all in and
    # the run-out can reach the page in one batch, drawn once with the hand over).
    side_pot_table(p, bots, before_deal=WATCH_SEATS)
    shove_preflop(p)
    texts = p.page.evaluate("() => window.__seatTexts")
    # (the all-in moment itself may fall inside one batch of messages with the run-out when
    # the others call at once, so its mark is not required to have been drawn, only never
    # twice and never after the hand)
    assert any(t["hand"] is not None and not t["ended"] for t in texts), "not watched mid-hand"
    twice = [t for t in texts if t["said"].lower().count("all in") > 1]
    assert twice == [], twice[:3]
    after = [t for t in texts if t["ended"] and "all in" in t["said"].lower()]
    assert after == [], after[:3]
    # And as the page stands, the hand over.
    for seat in p.page.locator(".felt .seat[data-player]").all():
        assert "all in" not in seat.inner_text().lower()
    assert not p.errors, p.errors
