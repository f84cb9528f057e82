"""Issue 26, items 11 and 6: the running hand log (every action, street, show and award, in
the screen-reader mode's sentences) beside the table on a desktop and as a sheet over the
felt on a phone, never over the dock, kept across a reload; and results that name their pot
(main pot, side pot 1, side pot 2) with its amount, from real all-ins with short stacks: three
players (two pots) and four with three different stacks (three pots)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from playwright.sync_api import expect

from tests.e2e.conftest import BotFactory, PlayerFactory
from tests.e2e.harness import Player, calling_station, rects
from tests.e2e.play import act_once, mark, wait_for_hand, wait_moved_on
from tests.e2e.test_games import new_table

PHONE = {"viewport": {"width": 375, "height": 667}, "is_mobile": True, "has_touch": True}


def side_pot_table(
    p: Player,
    bots: BotFactory,
    others: Sequence[tuple[str, int]] = (("Ann", 30), ("Ben", 60)),
    before_deal: str | None = None,
) -> str:
    """Vic (200) and calling stations with the `others`' names and stacks (by default Ann, 30,
    and Ben, 60), all seated before the first deal (the host holds the table paused
    meanwhile); `before_deal`, a script, runs in the page just before the table resumes."""
    p.join()
    code = new_table(p, name="Side pots", betting="no-limit", buy_in_min=20, run_it_twice=False,
                     decision_time=0, seats=len(others) + 1)  # fmt: skip
    p.open(f"/t/{code}")
    p.page.evaluate("() => window.__omaha.ctrl.command('pause')")
    p.page.wait_for_function("() => window.__omaha.ctrl.state.table.paused")
    p.sit(0, 200)
    for seat, (name, stack) in enumerate(others, start=1):
        bots(name, calling_station).start(code, seat, stack)
    p.page.wait_for_function("() => window.__omaha.ctrl.state.seats.every((s) => s)")
    if before_deal is not None:
        p.page.evaluate(before_deal)
    p.page.evaluate("() => window.__omaha.ctrl.command('resume')")
    return code


def go_all_in(p: Player) -> None:
    """On the player's betting turn: the dock's All in preset, then its raise (or bet);
    waits until the page has it applied (the turn passed)."""
    since = mark(p)
    p.page.click("[data-preset=all-in]")
    p.page.click(".main-actions [data-act=raise], .main-actions [data-act=bet]")
    wait_moved_on(p, since)


def shove_preflop(p: Player) -> int:
    """Vic goes all in at the first turn; the others call; the hand is played out."""
    number = wait_for_hand(p)
    page = p.page
    page.wait_for_function("() => window.__omaha.ctrl.isMyTurn()", timeout=20000)
    go_all_in(p)
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
    got = rects(page, log="aside.hand-log", dock=".dock")
    (box,), (dock,) = got["log"], got["dock"]
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


def test_four_all_in_with_three_stacks_make_side_pot_2(
    players: PlayerFactory, bots: BotFactory
) -> None:
    """Vic (200) all in, called by Ann (30), Ben (60) and Cal (100), all in: the main pot is
    4 x 30, side pot 1 3 x (60 - 30), side pot 2 2 x (100 - 60), and Vic's last 100 go back
    to him uncalled (in no pot)."""
    p = players("Vic")
    side_pot_table(p, bots, (("Ann", 30), ("Ben", 60), ("Cal", 100)))
    number = shove_preflop(p)
    results = p.page.locator(".results").first
    expected = [("Main pot", 4 * 30), ("Side pot 1", 3 * 30), ("Side pot 2", 2 * 40)]
    expect(results.locator(".pot-result")).to_have_count(len(expected))
    for index, (name, amount) in enumerate(expected):
        pot = results.locator(f".pot-result[data-pot-index='{index}']")
        # the heading is the name and the amount, nothing more ("Side pot 1" is not "Side pot 12")
        expect(pot.locator(".pot-name")).to_have_text(re.compile(rf"^{name} {amount}$"))
        expect(pot.locator(".pot-amount")).to_have_text(str(amount))
        # each award line of the pot is its share of it, and the shares make the pot
        shares = pot.locator(".award .amount").all_inner_texts()
        assert shares and sum(int(s.lstrip("+")) for s in shares) == amount, (name, shares)
    # Side pot 2 is only Vic's and Cal's: its awards go to one of them.
    winners = results.locator(".pot-result[data-pot-index='2'] .award .who").all_inner_texts()
    assert set(winners) <= {"Vic", "Cal"}, winners
    # The log names it too.
    p.page.click("[data-cmd=log]")
    log = p.page.get_by_role("complementary", name="Hand log")
    expect(log.locator(f"[data-log-hand='{number}']")).to_contain_text("from side pot 2")
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
    expect(page.locator(".dock [data-act]").first).to_be_visible()  # drawn at the next frame
    got = rects(page, log="aside.hand-log", buttons=".dock [data-act]")
    (box,) = got["log"]
    assert got["buttons"], got
    for b in got["buttons"]:
        assert b["y"] >= box["y"] + box["height"], (box, b)
    act_once(p, keyboard=False)
    expect(log).to_contain_text(re.compile(r"You (call|check)"))
    assert not p.errors, p.errors
