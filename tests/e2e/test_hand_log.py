"""Issue 26, items 11 and 6: the running hand log (every action, street, show and award, in
the screen-reader mode's sentences) beside the table on a desktop and as a sheet over the
felt on a phone, never over the dock, kept across a reload; and results that name their pot
(main pot, side pot 1) with its amount, from a real three-way all-in with two short stacks."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.e2e.conftest import BotFactory, PlayerFactory
from tests.e2e.harness import Player, calling_station
from tests.e2e.play import act_once, wait_for_hand
from tests.e2e.test_games import new_table

PHONE = {"viewport": {"width": 375, "height": 667}, "is_mobile": True, "has_touch": True}


def side_pot_table(p: Player, bots: BotFactory) -> str:
    """Vic (200) and two calling stations, Ann (30) and Ben (60), all seated before the first
    deal (the host holds the table paused meanwhile)."""
    p.join()
    code = new_table(p, name="Side pots", betting="no-limit", buy_in_min=20, run_it_twice=False,
                     decision_time=0, seats=3)  # fmt: skip
    p.open(f"/t/{code}")
    p.page.evaluate("() => window.__omaha.ctrl.command('pause')")
    p.page.wait_for_function("() => window.__omaha.ctrl.state.table.paused")
    p.sit(0, 200)
    for seat, (name, stack) in enumerate([("Ann", 30), ("Ben", 60)], start=1):
        bots(name, calling_station).start(code, seat, stack)
    p.page.wait_for_function("() => window.__omaha.ctrl.state.seats.every((s) => s)")
    p.page.evaluate("() => window.__omaha.ctrl.command('resume')")
    return code


def shove_preflop(p: Player) -> int:
    """Vic goes all in at the first turn; the others call; the hand is played out."""
    number = wait_for_hand(p)
    page = p.page
    page.wait_for_function("() => window.__omaha.ctrl.isMyTurn()", timeout=20000)
    page.click("[data-preset=all-in]")
    page.click(".main-actions [data-act=raise], .main-actions [data-act=bet]")
    page.wait_for_function(
        f"() => {{ const c = window.__omaha.ctrl; return (c.state.hand.number === {number}"
        f" && c.state.hand.ended) || c.state.hand.number > {number}; }}",
        timeout=30000,
    )
    page.evaluate("() => window.__omaha.ctrl.command('pause')")  # the result stays in view
    return number


def test_the_log_tells_the_hand_and_results_name_their_pots(
    players: PlayerFactory, bots: BotFactory
) -> None:
    p = players("Vic")
    side_pot_table(p, bots)
    number = shove_preflop(p)
    page = p.page

    # Results: the main pot (3 x 30) and side pot 1 (2 x 30), each with its amount.
    results = page.locator(".results").first
    main = results.locator(".pot-result[data-pot-index='0']")
    side = results.locator(".pot-result[data-pot-index='1']")
    expect(main.locator(".pot-name")).to_contain_text("Main pot")
    expect(main.locator(".pot-amount")).to_have_text("90")
    expect(side.locator(".pot-name")).to_contain_text("Side pot 1")
    expect(side.locator(".pot-amount")).to_have_text("60")
    expect(results.locator(".pot-result")).to_have_count(2)

    # The log, opened from the menu: the whole hand in sentences, cards written short.
    page.click("[data-cmd=log]")
    log = page.get_by_role("complementary", name="Hand log")
    expect(log).to_be_visible()
    hand = log.locator(f"[data-log-hand='{number}']")
    expect(hand.locator("h3")).to_have_text(f"Hand #{number}")
    text = hand.inner_text()
    assert re.search(rf"Hand {number}\. \w+ ha(s|ve) the button\.", text), text
    assert re.search(r"You (raise to|bet) 200, all in\.", text), text
    for name in ("Ann", "Ben"):
        assert re.search(rf"{name} calls \d+, all in\.", text), text
    for street in ("Flop", "Turn", "River"):
        assert re.search(rf"{street}: ((10|[2-9JQKA])[♠♥♦♣] ?)+\.", text), (street, text)
    assert re.search(r"Ann shows ((10|[2-9JQKA])[♠♥♦♣] ?){4}\.", text), text
    assert re.search(r"wins? (the (high|low) half of )?(the main pot|\d+ from the main pot)", text)
    assert "side pot 1" in text, text
    assert "Your cards:" in text  # the viewer's own deal, as the screen reader says it
    assert log.locator(".log-line.award").count() >= 2
    assert log.locator(".log-card").count() >= 5  # each card its suit's colour
    # Beside the table (1280 px): never over the dock.
    box, dock = log.bounding_box(), page.locator(".dock").bounding_box()
    assert box and dock
    assert box["x"] >= dock["x"] + dock["width"] or box["y"] + box["height"] <= dock["y"]

    # A reload keeps what this tab saw, and the log open.
    p.reload()
    log = page.get_by_role("complementary", name="Hand log")
    expect(log.locator(f"[data-log-hand='{number}'] .log-line.award").first).to_be_visible()
    # Closed with its button (and the setting kept).
    log.get_by_role("button", name="Close the hand log").click()
    expect(page.locator(".hand-log")).to_have_count(0)
    assert p.state("c.settings.logOpen") is False
    assert not p.errors, p.errors


def test_on_a_phone_the_log_is_a_sheet_over_the_felt_not_the_dock(
    players: PlayerFactory, bots: BotFactory
) -> None:
    p = players("Pho", **PHONE)
    p.join()
    code = new_table(p, decision_time=0)
    p.open(f"/t/{code}")
    bots("Bot", calling_station).start(code, 1, 200)
    p.sit(0)
    number = wait_for_hand(p)
    page = p.page
    page.get_by_role("button", name="Menu").click()
    page.click("[data-cmd=log]")
    log = page.get_by_role("complementary", name="Hand log")
    expect(log).to_be_visible()
    expect(log.locator(f"[data-log-hand='{number}']")).to_contain_text(f"Hand {number}.")
    # The turn's buttons stay clear of it and usable.
    page.wait_for_function("() => window.__omaha.ctrl.isMyTurn()", timeout=20000)
    box = log.bounding_box()
    for button in page.locator(".dock [data-act]").all():
        b = button.bounding_box()
        assert box and b and b["y"] >= box["y"] + box["height"], (box, b)
    act_once(p, keyboard=False)
    expect(log).to_contain_text(re.compile(r"You (call|check)"))
    assert not p.errors, p.errors
