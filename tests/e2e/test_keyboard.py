"""Issue 13, done-when 5: the screen-reader mode, with the keyboard alone. A player turns the
mode on with the first Tab, sits down through a dialog that takes and gives back the focus,
plays a whole hand against a protocol bot by typing into the command box, and hears each
action and each turn in the live region. Commands the server did not offer are refused with
what it did offer. Every button and card has an accessible name; located by role and name
(Playwright's accessibility locators), never by CSS; no mouse click anywhere."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PageTimeout

from tests.e2e.conftest import BotFactory, PlayerFactory
from tests.e2e.harness import calling_station
from tests.e2e.play import mark, wait_moved_on

BUY_IN = re.compile(r"^Buy-in, \d+ to 200$")
CARD_NAME = re.compile(r"^(Ace|King|Queen|Jack|10|[2-9]) of (spades|hearts|diamonds|clubs)(, .+)?$")


def raises_small(legal: dict[str, Any]) -> dict[str, Any]:
    """Raises while a raise costs at most 6 (so the hand has a raise to announce), then calls."""
    if "raise" in legal["actions"] and legal["min_to"] <= 6:
        return {"action": "raise", "amount": legal["min_to"]}
    return calling_station(legal)


def focused_inside(page: Page, role: str) -> bool:
    return bool(page.evaluate(f"() => !!document.activeElement.closest('[role={role}]')"))


def say(page: Page, command: str) -> None:
    box = page.get_by_role("textbox", name="Command")
    expect(box).to_be_focused()
    page.keyboard.type(command)
    page.keyboard.press("Enter")


def test_a_hand_with_the_keyboard_alone(players: PlayerFactory, bots: BotFactory) -> None:
    kim = players("Kim")
    page = kim.page
    page.goto(kim.base + "/")
    page.get_by_label("Display name").fill("Kim")
    page.keyboard.press("Enter")
    expect(page.get_by_text("Kim", exact=True)).to_be_visible()
    r = page.request.post(kim.base + "/api/tables", data={"name": "Quiet game", "decision_time": 0})
    assert r.status == 201, r.text()
    code = r.json()["code"]
    kim.open(f"/t/{code}")
    expect(page.get_by_role("button", name="Sit in seat 1")).to_be_visible()

    # The first Tab reaches the switch; Enter turns the mode on and lands in the command box.
    page.keyboard.press("Tab")
    toggle = page.get_by_role("button", name="Screen reader mode")
    expect(toggle).to_be_focused()
    page.keyboard.press("Enter")
    expect(toggle).to_have_attribute("aria-pressed", "true")
    log = page.get_by_role("log", name="Table announcements")
    expect(log).to_contain_text("No hand is being played")
    say(page, "fold")
    expect(log.locator("p").last).to_have_text("No hand is being played.")
    say(page, "dance")
    expect(log.locator("p").last).to_contain_text('"dance" is not a command')

    # Tab on to the first open seat; its dialog takes the focus and keeps it; Escape closes
    # it and gives the focus back to the seat's button.
    sit = page.get_by_role("button", name="Sit in seat 1")
    for _ in range(4):
        page.keyboard.press("Tab")
        if page.evaluate("() => document.activeElement.dataset.sit") == "0":
            break
    expect(sit).to_be_focused()
    page.keyboard.press("Enter")
    dialog = page.get_by_role("dialog", name="Sit in seat 1")
    buy_in = dialog.get_by_role("spinbutton", name=BUY_IN)
    expect(buy_in).to_be_focused()
    for _ in range(8):
        page.keyboard.press("Tab")
        assert focused_inside(page, "dialog")
    page.keyboard.press("Shift+Tab")
    assert focused_inside(page, "dialog")
    page.keyboard.press("Escape")
    expect(dialog).to_have_count(0)
    expect(sit).to_be_focused()
    page.keyboard.press("Enter")
    expect(buy_in).to_be_focused()
    page.keyboard.press("Control+a")
    page.keyboard.type("150")
    page.keyboard.press("Enter")  # submits the dialog's form
    expect(
        page.get_by_role("group", name=re.compile(r"^Seat 1, Kim \(you\), 150 chips"))
    ).to_have_count(1)
    # The seat's button is gone: the focus goes to the command box.
    expect(page.get_by_role("textbox", name="Command")).to_be_focused()

    bob = bots("Bob", raises_small)
    bob.start(code, 1, 200)
    expect(log).to_contain_text("Bob sits in seat 2 with 200.")
    expect(log).to_contain_text("Your cards: ")
    expect(page.get_by_role("group", name="Your cards").get_by_role("img")).to_have_count(4)

    # The hand, by typed commands only: wrong commands first, then the right ones.
    turns = 0
    tried: set[str] = set()
    # The log draws its newest lines: what it was told is gathered along the hand from the
    # narrator itself (by line id), so a gather between two frames misses nothing.
    heard: list[str] = []
    told: set[int] = set()

    def hear() -> None:
        lines = page.evaluate("() => window.__omaha.ctrl.narrator.lines.map(l => [l.id, l.text])")
        for number, text in lines:
            if number not in told:
                told.add(number)
                heard.append(text)

    while True:
        hear()
        page.wait_for_function(
            "() => { const c = window.__omaha.ctrl; const h = c.state.hand;"
            " return h && (h.ended || (c.isMyTurn() && !c.pending)); }",
            timeout=20000,
        )
        if kim.state("c.state.hand.ended"):
            expect(log).to_contain_text(re.compile(r"(Bob|You) wins? \d+"))
            hear()
            break
        legal = kim.state("c.state.hand.legal")
        phase = kim.state("c.state.hand.phase")
        since = mark(kim)
        turns += 1
        last = log.locator("p").last
        if phase == "betting":
            expect(log).to_contain_text("Your turn: ")
            if "call" in legal["actions"]:
                expect(last).to_contain_text(f"call {legal['call']}")
            if "raise" in legal["actions"] and "raise" not in tried:
                expect(last).to_contain_text(f"raise from {legal['min_to']} to {legal['max_to']}")
                tried.add("raise")
                say(page, f"raise {legal['max_to'] + 1}")
                expect(last).to_contain_text(f"Not possible: raise {legal['max_to'] + 1}. You can ")
                expect(last).to_contain_text(f"raise from {legal['min_to']} to {legal['max_to']}")
                say(page, "raise")
                expect(last).to_contain_text("Say how much")
                say(page, f"raise to {legal['min_to']}")
            elif "check" in legal["actions"]:
                if "call" not in tried:
                    tried.add("call")
                    say(page, "call")
                    expect(last).to_contain_text("Not possible: there is nothing to call")
                if "fold" not in tried:
                    # Folding when checking is free asks once.
                    tried.add("fold")
                    say(page, "fold")
                    expect(last).to_contain_text("Checking is free")
                say(page, "check")
            else:
                if "check" not in tried:
                    tried.add("check")
                    say(page, "check")
                    expect(last).to_contain_text("Not possible: you cannot check")
                say(page, "call")
        elif phase == "showdown":
            expect(last).to_contain_text("Your turn: show")
            say(page, "show")
        else:
            say(page, "yes")
        wait_moved_on(kim, since)
    assert turns >= 3
    assert {"raise", "fold"} <= tried, tried
    text = "\n".join(heard)
    assert re.search(r"(Bob raises to \d+|You raise to \d+)", text), text
    assert re.search(r"You (call|check)", text), text
    assert re.search(r"Bob (calls|checks)", text), text
    for street in ("Flop: ", "Turn: ", "River: "):
        assert street in text, text
    say(page, "board")
    board = re.compile(r"^Board: (.+ of .+, ){4}.+ of \w+\.$")
    expect(log.locator("p").last).to_contain_text(board)

    # Every button has an accessible name, every card face is named "Rank of suit".
    nameless = page.evaluate(
        """() => [...document.querySelectorAll('button, a, input, select')].filter((e) => {
             const label = e.getAttribute('aria-label')
               || (e.labels && e.labels[0] && e.labels[0].textContent) || e.textContent || '';
             return !label.trim();
           }).map((e) => e.outerHTML)"""
    )
    assert not nameless, nameless
    cards = page.get_by_role("img").evaluate_all(
        "els => els.filter(e => e.dataset.card).map(e => e.getAttribute('aria-label'))"
    )
    assert cards and all(CARD_NAME.match(n) for n in cards), cards
    expect(page.get_by_role("group", name=re.compile(r"^Seat 2, Bob, \d+ chips"))).to_be_visible()

    # Menus and dialogs by keyboard: Settings opens, keeps the focus, Escape gives it back.
    settings = page.get_by_role("button", name="Settings")
    settings.focus()
    page.keyboard.press("Enter")
    expect(page.get_by_role("dialog", name="Settings")).to_be_visible()
    assert focused_inside(page, "dialog")
    page.keyboard.press("Escape")
    expect(page.get_by_role("dialog", name="Settings")).to_have_count(0)
    expect(settings).to_be_focused()

    # The mode is remembered by this browser.
    kim.reload()
    expect(page.get_by_role("button", name="Screen reader mode")).to_have_attribute(
        "aria-pressed", "true"
    )
    expect(page.get_by_role("log", name="Table announcements")).to_contain_text("Hand ")

    # Off again (Settings, Space, Escape); playing by Tab and Enter on the buttons, the focus
    # is not dropped when the pressed button is redrawn away. On Kim's turn first: a turn
    # arriving closes an open dialog (nothing covers the dock), the switch with it.
    page.wait_for_function(
        "() => { const c = window.__omaha.ctrl; return c.isMyTurn() && !c.pending"
        " && c.state.hand.phase === 'betting'; }",
        timeout=20000,
    )
    page.get_by_role("button", name="Settings").focus()
    page.keyboard.press("Enter")
    switch = page.get_by_role("checkbox", name=re.compile("^Screen reader mode"))
    switch.focus()
    page.keyboard.press("Space")
    page.keyboard.press("Escape")
    expect(page.get_by_role("log", name="Table announcements")).to_have_count(0)
    expect(page.get_by_role("dialog", name="Settings")).to_have_count(0)
    page.wait_for_function(
        "() => { const c = window.__omaha.ctrl; return c.isMyTurn() && !c.pending"
        " && c.state.hand.phase === 'betting'; }",
        timeout=20000,
    )
    since = mark(kim)
    page.get_by_role("button", name=re.compile(r"^(Check|Call \d+)$")).focus()
    page.keyboard.press("Enter")
    wait_moved_on(kim, since)  # the counter rose, or the hand ended (and the next began)
    in_dock = (
        "() => document.activeElement !== document.body"
        " && !!document.activeElement.closest('.dock')"
    )
    try:
        page.wait_for_function(in_dock, timeout=5000)
    except PageTimeout as e:  # say where the focus went
        where = page.evaluate("() => document.activeElement.outerHTML.slice(0, 300)")
        raise AssertionError(f"the focus left the dock, on: {where}") from e

    # A dialog closed gives the focus back only if nothing took it meanwhile: a control the
    # player moved to in the frame before (a quick Tab or click) keeps it.
    page.get_by_role("button", name="Settings").focus()
    page.keyboard.press("Enter")
    expect(page.get_by_role("dialog", name="Settings")).to_be_visible()
    kept = page.evaluate(
        """() => new Promise((done) => {
             window.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
             requestAnimationFrame(() => {  // the frame that removes the dialog
               const box = document.querySelector('.dock input[type=checkbox]');
               box.focus();
               requestAnimationFrame(() => requestAnimationFrame(
                 () => done(document.activeElement === box)));
             });
           })"""
    )
    assert kept, page.evaluate("() => document.activeElement.outerHTML.slice(0, 200)")
    assert not kim.errors, kim.errors
