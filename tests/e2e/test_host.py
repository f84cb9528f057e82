"""Issue 13, done-when 1: the host's panel. The host approves and refuses seat requests,
pauses and resumes, changes the blinds (the next hand uses them), calls a bomb pot for the
next hand, adds a practice bot and removes it, adjusts a stack, hands the host role over;
the new host closes the table. A non-host's page shows none of it, and the server refuses a
host command sent by hand from that page."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import PlayerFactory
from tests.e2e.harness import create_table
from tests.e2e.play import play_hand, wait_for_hand


@pytest.fixture(scope="module")
def base(quick_base: str) -> str:
    """The worker's quick server (tests/e2e/conftest.py): the hands follow each other at once
    (nothing here watches the pause between them)."""
    return quick_base


def test_host_panel(players: PlayerFactory) -> None:
    alice, bob, carol = players("Alice"), players("Bob"), players("Carol")
    alice.join()
    code = create_table(alice, name="Host night", approval_required=True, decision_time=20)
    page = alice.page
    alice.sit(0)
    page.get_by_role("button", name="Host controls").click()
    host = page.get_by_role("region", name="Host")
    # Paused first, so no hand starts while the panel is exercised.
    host.get_by_role("button", name="Pause").click()
    expect(host.get_by_role("button", name="Resume")).to_be_visible()
    expect(page.locator(".sub .paused")).to_be_visible()

    for p, seat in ((bob, 1), (carol, 2)):
        p.join(f"/t/{code}")
        p.page.click(f"[data-sit='{seat}']")
        p.page.click("[data-cmd=confirm-sit]")
        expect(p.page.get_by_role("status")).to_contain_text("waiting for approval")
    requests = page.get_by_role("complementary", name="Seat requests")
    expect(requests).to_contain_text("Bob asks for seat 2")
    expect(requests).to_contain_text("Carol asks for seat 3")
    requests.locator(".request", has_text="Bob").get_by_role("button", name="Approve").click()
    # Bob's row goes, and Carol's moves up into its place: clicked only once it has (a click
    # aimed while the list redrew landed where her row had been, on a loaded machine).
    expect(requests.locator(".request")).to_have_count(1)
    requests.locator(".request", has_text="Carol").get_by_role("button", name="Refuse").click()
    expect(bob.page.locator(".seat.mine[data-seat='1']")).to_be_visible()
    expect(requests).to_have_count(0)
    expect(carol.page.locator(".seat[data-seat='2'] [data-sit='2']")).to_be_visible()

    # Neither Bob nor Carol sees any host control; sent by hand, the server refuses it.
    for p in (bob, carol):
        expect(p.page.get_by_role("button", name="Host controls")).to_have_count(0)
        expect(p.page.get_by_role("region", name="Host")).to_have_count(0)
    carol.page.evaluate("() => window.__omaha.ctrl.command('pause')")
    expect(carol.page.get_by_role("status")).to_contain_text("host")
    bob.page.evaluate("() => window.__omaha.ctrl.command('add_bot', {seat: 3})")
    expect(bob.page.get_by_role("status")).to_contain_text("host")
    assert bob.state("c.state.seats[3]") is None

    # A practice bot in seat 4, then taken out again.
    host.get_by_role("button", name="Add a bot to seat 4").click()
    expect(page.locator(".seat[data-seat='3'] .name")).to_be_visible()
    # Marked a bot on another page too (which may draw it a moment later).
    bob.page.wait_for_function(
        "() => { const s = window.__omaha.ctrl.state.seats[3]; return s && s.bot; }"
    )
    bot_name = page.locator(".seat[data-seat='3'] .name").inner_text()
    host.get_by_role("button", name=f"Remove {bot_name}").click()
    expect(page.locator(".seat[data-seat='3'] .name")).to_have_count(0)

    # Adjust Bob's stack by -30 (no hand running: at once, everyone sees it).
    before = bob.state("c.state.seats[1].stack")
    host.get_by_label("Player").select_option("1")
    host.get_by_label("Amount (+ or −)").fill("-30")
    host.get_by_label("Reason").fill("<b>Owes</b> 30 for pizza")
    host.get_by_role("button", name="Adjust stack").click()
    expect(bob.page.locator(".seat[data-seat='1'] .stack")).to_have_text(str(before - 30))
    # The reason is in the ledger, for everyone at the table, as text.
    bob.page.get_by_role("button", name="Ledger").click()
    entered = bob.page.get_by_role("dialog", name="Ledger").get_by_role("list", name="Adjustments")
    expect(entered.get_by_role("listitem")).to_have_text(["Bob -30: <b>Owes</b> 30 for pizza"])
    expect(entered.locator("b", has_text="Owes")).to_have_count(0)
    bob.page.keyboard.press("Escape")
    expect(bob.page.get_by_role("dialog", name="Ledger")).to_have_count(0)

    # New blinds between hands apply at once; a bomb pot is called for the next hand.
    host.get_by_label("Small blind").fill("2")
    host.get_by_label("Big blind").fill("4")
    host.get_by_role("button", name="Change stakes").click()
    expect(bob.page.locator(".sub")).to_contain_text("2/4")
    host.get_by_role("button", name="Bomb pot next hand").click()
    expect(host.get_by_role("button", name="Bomb pot next hand: on")).to_be_visible()

    # Resume: the next hand is a bomb pot at the new stakes.
    host.get_by_role("button", name="Resume").click()
    number = wait_for_hand(bob)
    assert bob.state("c.state.hand.bombPot") is True
    assert bob.state("c.state.table.config.big_blind") == 4
    expect(page.locator(".badge.bomb")).to_be_visible()
    expect(host.get_by_role("button", name="Bomb pot next hand")).to_be_visible()

    # During a hand, new blinds wait for the next hand, and the page says so.
    host.get_by_label("Small blind").fill("3")
    host.get_by_label("Big blind").fill("6")
    host.get_by_label("Ante").fill("1")
    # The straddle, bomb pots every 3 hands and run it twice (on by default) off.
    assert bob.state("c.state.table.config.run_it_twice") is True
    host.get_by_role("checkbox", name="Straddle allowed").check()
    host.get_by_label("Bomb pot every N hands").fill("3")
    host.get_by_role("checkbox", name="Run it twice allowed").uncheck()
    host.get_by_role("button", name="Change stakes").click()
    expect(host.locator("[data-next-stakes]")).to_have_text(
        "From the next hand: 3/6, ante 1, buy-in 80 to 200, straddle, a bomb pot every 3 hands."
    )
    expect(page.get_by_role("status")).to_contain_text("New stakes from the next hand")
    expect(bob.page.locator(".sub")).to_contain_text("2/4")
    play_hand([alice, bob], number)
    number = wait_for_hand(bob, number)
    expect(bob.page.locator(".sub")).to_contain_text("3/6")
    assert bob.state("c.state.table.config.ante") == 1
    config = bob.state("c.state.table.config")
    assert (config["straddle"], config["bomb_pot_every"], config["run_it_twice"]) == (
        True, 3, False
    )  # fmt: skip
    expect(host.get_by_role("checkbox", name="Straddle allowed")).to_be_checked()
    assert bob.state("c.state.hand.bombPot") is False
    expect(host.locator("[data-next-stakes]")).to_have_text("A change applies from the next hand.")

    # Copy invite link says what it copied.
    host.get_by_role("button", name="Copy invite link").click()
    expect(page.get_by_role("status")).to_contain_text(f"/t/{code}")

    # Hand the host role to Bob: Alice's panel goes, Bob's comes.
    host.get_by_role("button", name="Make Bob the host").click()
    expect(page.get_by_role("region", name="Host")).to_have_count(0)
    bob.page.get_by_role("button", name="Host controls").click()
    bhost = bob.page.get_by_role("region", name="Host")
    expect(bhost).to_be_visible()

    # Bob closes the table: after the hand, everyone is cashed out and told so.
    bhost.get_by_role("button", name="Close table").click()
    bhost.get_by_role("button", name="Yes, close the table").click()
    play_hand([alice, bob], number)
    for p in (alice, bob, carol):
        expect(p.page.locator("[data-conn=closed]")).to_contain_text("The host closed this table")
