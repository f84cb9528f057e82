"""Issue 26, items 4, 5 and 7: the screen says what is happening. A busted player is offered a
rebuy in the dock (within the table's buy-in limits); a seat request shows as pending to its
requester (also after a reload), can be cancelled, and a refusal is told; a pause is a banner
of one text on every page and stops the hand's clock, shown stopped (not counting down) until
the resume, a close is announced to everyone as soon as the host asks, and a sit-out asked
mid-hand says what will happen. Each on desktop and a 375x667 phone, with
screenshots in /tmp/manners-*.png."""

from __future__ import annotations

from playwright.sync_api import Locator, Page, expect

from tests.e2e.conftest import PlayerFactory
from tests.e2e.harness import Player, create_table
from tests.e2e.play import wait_for_hand

#: the pause banner's one text (app/tables/labels.py), mid-hand and between hands alike
PAUSED = "Paused by the host: the clock is stopped and no new hand is dealt."
#: the acting seat's clock while the pause stops it (app/tables/pausing.py)
STOPPED = ".seat.acting .clock.stopped"
PHONE = {"viewport": {"width": 375, "height": 667}, "is_mobile": True, "has_touch": True}


def shot(page: Page, name: str) -> None:
    page.screenshot(path=f"/tmp/manners-{name}.png")


def fits(page: Page, selector: str) -> None:
    """The element is on screen, inside the page's width (no sideways scrolling)."""
    box = page.locator(selector).bounding_box()
    width = page.viewport_size["width"] if page.viewport_size else 0
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width + 0.5, box


def host_panel(p: Player) -> Locator:
    p.page.get_by_role("button", name="Host controls").click()
    return p.page.get_by_role("region", name="Host")


def test_busted_player_is_offered_a_rebuy_in_the_dock(players: PlayerFactory) -> None:
    alice, bob = players("Alice"), players("Bob", **PHONE)
    alice.join()
    code = create_table(alice, name="Rebuys", buy_in_min=60, buy_in_max=150, decision_time=60)
    alice.sit(0)
    host = host_panel(alice)
    host.get_by_role("button", name="Pause").click()
    expect(host.get_by_role("button", name="Resume")).to_be_visible()
    bob.join(f"/t/{code}")
    bob.sit(1, buy_in=100)
    rebuy = bob.page.get_by_role("form", name="Rebuy")
    expect(rebuy).to_have_count(0)  # chips left: no offer

    # The host takes Bob's whole stack (between hands: at once): Bob is out of chips.
    host.get_by_label("Player").select_option("1")
    host.get_by_label("Amount (+ or −)").fill("-100")
    host.get_by_label("Reason").fill("Lost it all")
    host.get_by_role("button", name="Adjust stack").click()
    expect(bob.page.locator(".seat[data-seat='1'] .stack")).to_have_text("0")
    expect(rebuy).to_be_visible()
    expect(rebuy).to_contain_text("You are out of chips. Buy in again (60 to 150)?")
    amount = rebuy.get_by_role("spinbutton")
    expect(amount).to_have_attribute("min", "60")
    expect(amount).to_have_attribute("max", "150")
    expect(amount).to_have_value("150")
    expect(rebuy.get_by_role("slider")).to_have_attribute("min", "60")
    fits(bob.page, ".actions.rebuy [data-cmd=rebuy]")
    shot(bob.page, "busted-phone")
    # Only Bob is offered it: Alice has chips.
    expect(alice.page.get_by_role("form", name="Rebuy")).to_have_count(0)

    amount.fill("80")
    button = rebuy.get_by_role("button", name="Rebuy 80")
    expect(button).to_be_visible()
    button.click()
    expect(bob.page.locator(".seat[data-seat='1'] .stack")).to_have_text("80")
    expect(alice.page.locator(".seat[data-seat='1'] .stack")).to_have_text("80")
    expect(rebuy).to_have_count(0)
    assert bob.state("c.state.seats[1].stack") == 80

    # The same on a desktop page: Alice busts herself, and sees the offer.
    host.get_by_label("Player").select_option("0")
    host.get_by_label("Amount (+ or −)").fill(f"-{alice.state('c.state.seats[0].stack')}")
    host.get_by_role("button", name="Adjust stack").click()
    desk = alice.page.get_by_role("form", name="Rebuy")
    expect(desk).to_contain_text("Buy in again (60 to 150)?")
    fits(alice.page, ".actions.rebuy [data-cmd=rebuy]")
    shot(alice.page, "busted-desktop")
    assert not alice.errors and not bob.errors


def test_seat_request_is_pending_cancellable_and_a_refusal_is_told(
    players: PlayerFactory,
) -> None:
    alice, bob, carol = players("Alice"), players("Bob", **PHONE), players("Carol")
    alice.join()
    code = create_table(alice, name="Approval", approval_required=True, decision_time=60)
    alice.sit(0)
    host = host_panel(alice)
    host.get_by_role("button", name="Pause").click()
    requests = alice.page.get_by_role("complementary", name="Seat requests")

    for p in (bob, carol):
        p.join(f"/t/{code}")
        p.page.click("[data-sit='2']" if p is bob else "[data-sit='3']")
        p.page.click("[data-cmd=confirm-sit]")
    pending = bob.page.locator("[data-notice=request]")
    expect(pending).to_contain_text("Your request for seat 3 waits for the host.")
    expect(requests).to_contain_text("Bob asks for seat 3")
    fits(bob.page, "[data-cmd=cancel-request]")
    # Asking for one seat, Bob is offered no other (the server would refuse it) until it ends.
    expect(bob.page.locator("[data-sit]")).to_have_count(0)
    expect(bob.page.locator(".my-hand.spectator")).to_have_count(0)
    expect(bob.page.locator("[data-asked='2']")).to_have_text("Asked for")
    shot(bob.page, "request-pending-phone")
    expect(carol.page.locator("[data-notice=request]")).to_contain_text("seat 4 waits")
    shot(carol.page, "request-pending-desktop")

    # Still pending after a reload (the snapshot gives the requester their request).
    bob.reload()
    expect(pending).to_contain_text("Your request for seat 3 waits for the host.")

    # Bob cancels: gone from the host's list, and Bob is told. The host's keyboard focus on
    # Bob's Approve goes with his row: it never lands on Carol's (keyed rows).
    requests.locator(".request", has_text="Bob").get_by_role("button", name="Approve").focus()
    bob.page.get_by_role("button", name="Cancel request").click()
    expect(pending).to_have_count(0)
    expect(
        bob.page.get_by_role("status").filter(has_text="You cancelled your seat request")
    ).to_be_visible()
    expect(requests.locator(".request", has_text="Bob")).to_have_count(0)
    expect(bob.page.locator("[data-sit='2']")).to_be_visible()
    expect(requests).to_contain_text("Carol asks for seat 4")
    focused = "() => document.activeElement.closest('.request')?.textContent ?? ''"
    assert "Carol" not in alice.page.evaluate(focused)
    assert bob.state("c.state.you.request") is None

    # Carol is refused: told so in her dock (and Bob, who is not asking, hears nothing).
    requests.locator(".request", has_text="Carol").get_by_role("button", name="Refuse").click()
    refused = carol.page.locator("[data-notice=refused]")
    expect(refused).to_have_text("The host refused your seat request.")
    toast = carol.page.get_by_role("status").filter(has_text="The host refused your seat request")
    expect(toast).to_be_visible()
    expect(carol.page.locator("[data-notice=request]")).to_have_count(0)
    expect(bob.page.locator("[data-notice=refused]")).to_have_count(0)
    shot(carol.page, "request-refused-desktop")

    # Bob asks again and is refused too, on the phone.
    bob.page.click("[data-sit='2']")
    bob.page.click("[data-cmd=confirm-sit]")
    expect(pending).to_be_visible()
    # Only Bob's row (Carol's gone): no redraw moves it under the click.
    expect(requests.locator(".request", has_text="Carol")).to_have_count(0)
    expect(requests.locator(".request")).to_have_count(1)
    requests.locator(".request", has_text="Bob").get_by_role("button", name="Refuse").click()
    expect(bob.page.locator("[data-notice=refused]")).to_have_text(
        "The host refused your seat request."
    )
    fits(bob.page, "[data-notice=refused]")
    shot(bob.page, "request-refused-phone")

    # A cancel with nothing waiting is refused with its code, and changes nothing.
    bob.page.evaluate("() => window.__omaha.ctrl.command('cancel_request')")
    expect(bob.page.get_by_role("status").filter(has_text="no seat request")).to_be_visible()
    assert alice.state("c.state.seats[2]") is None
    assert not [e for e in bob.errors + carol.errors if "no seat request" not in e]


def test_pause_closing_and_sitting_out_are_said(players: PlayerFactory) -> None:
    alice, bob = players("Alice"), players("Bob", **PHONE)
    alice.join()
    code = create_table(alice, name="Manners", decision_time=60, time_bank=0)
    alice.sit(0)
    host = host_panel(alice)
    host.get_by_role("button", name="Pause").click()
    bob.join(f"/t/{code}")
    bob.sit(1)

    # Paused between hands: a banner on every page, no hand dealt.
    for p in (alice, bob):
        banner = p.page.locator("[data-notice=paused]")
        expect(banner).to_have_text(PAUSED)
        assert p.state("c.state.hand") is None
    fits(bob.page, "[data-notice=paused]")
    shot(alice.page, "paused-desktop")
    shot(bob.page, "paused-phone")

    # Resumed: the banner goes and a hand is dealt.
    host.get_by_role("button", name="Resume").click()
    wait_for_hand(bob)
    for p in (alice, bob):
        expect(p.page.locator("[data-notice]")).to_have_count(0)

    # Sitting out mid-hand (the switch, then the menu) says what will happen.
    bob.page.get_by_role("checkbox", name="Sit out next hand").check()
    said = bob.page.locator("[data-notice=sit_out_next]")
    expect(said).to_have_text("You sit out from the next hand.")
    fits(bob.page, "[data-notice=sit_out_next]")
    shot(bob.page, "sit-out-next-phone")
    alice.page.get_by_role("button", name="Sit out", exact=True).click()
    expect(alice.page.locator("[data-notice=sit_out_next]")).to_have_text(
        "You sit out from the next hand."
    )
    assert alice.state("c.inHand()") is True  # the hand in play is still hers to play
    shot(alice.page, "sit-out-next-desktop")

    # Paused during the hand: the hand is played out, then no new one.
    host.get_by_role("button", name="Pause").click()
    for p in (alice, bob):
        expect(p.page.locator("[data-notice=paused]")).to_have_text(PAUSED)
    shot(bob.page, "pausing-phone")

    # The host closes during the hand: everyone is told at once, before the hand ends.
    host.get_by_role("button", name="Close table").click()
    host.get_by_role("button", name="Yes, close the table").click()
    for p in (alice, bob):
        expect(p.page.locator("[data-notice=closing]")).to_have_text(
            "The table closes after this hand."
        )
        # on screen, however far down the page the host scrolled to its panel
        expect(p.page.locator("[data-notice=closing]")).to_be_in_viewport()
        assert p.state("c.state.hand && !c.state.hand.ended") is True
    fits(bob.page, "[data-notice=closing]")
    shot(alice.page, "closing-desktop")
    shot(bob.page, "closing-phone")
    # A reload mid-hand still says so (the snapshot's `closing`).
    bob.reload()
    expect(bob.page.locator("[data-notice=closing]")).to_be_visible()
    assert not alice.errors and not bob.errors


def banner(p: Player) -> str:
    """The pause banner's text (whatever its key: there were two)."""
    return p.page.locator(".notice.paused").inner_text()


def seconds(p: Player, selector: str) -> int:
    """The whole seconds a clock shows ("42s", "42s bank")."""
    return int(p.page.locator(selector).inner_text().split("s")[0])


def let_time_pass(p: Player, ms: int) -> None:
    """The page's own clock moves on `ms` (a condition on time itself: what is checked next
    is that nothing counted meanwhile)."""
    start = p.page.evaluate("performance.now()")
    p.page.wait_for_function(f"() => performance.now() > {start + ms}")


def test_a_pause_mid_hand_stops_the_clock_and_reads_the_same_for_the_host_and_a_guest(
    players: PlayerFactory,
) -> None:
    """The host pauses during a hand: the host's page (banner and toast) and the guest's say
    one text, the same while the hand is paused and once it is over; the acting seat's clock
    is shown stopped with what it has left and does not count down (the server's neither: a
    reload shows the same), and counts down again from there after the resume."""
    alice, bob = players("Alice"), players("Bob", **PHONE)
    alice.join()
    code = create_table(alice, name="One pause", decision_time=60, time_bank=0)
    alice.sit(0)
    bob.join(f"/t/{code}")
    bob.sit(1)
    wait_for_hand(bob)
    host = host_panel(alice)
    host.get_by_role("button", name="Pause").click()
    for p in (alice, bob):
        expect(p.page.locator(".notice.paused")).to_be_visible()
        expect(p.page.locator(STOPPED)).to_be_visible()
    during = {p.name: banner(p) for p in (alice, bob)}
    toast = alice.page.get_by_role("status").filter(has_text="Paused")
    expect(toast).to_be_visible()
    assert toast.inner_text() == during["Alice"]  # the host's toast says the banner's words
    assert alice.state("c.state.hand && !c.state.hand.ended") is True
    left = seconds(alice, STOPPED)
    assert 0 < left <= 60 and seconds(bob, STOPPED) == left  # one clock, on every page
    assert alice.state("c.state.hand.stopped && c.state.hand.deadline === null") is True
    expect(alice.page.locator(STOPPED)).to_have_attribute("data-clock-stopped", str(left))
    expect(alice.page.locator(".seat.acting .ring")).to_have_count(0)
    shot(alice.page, "pause-mid-hand-host")
    shot(bob.page, "pause-mid-hand-guest")
    alice.page.evaluate("window.scrollTo(0, 0)")  # the table, its acting seat's clock
    shot(alice.page, "pause-mid-hand-host-table")

    # Time passes: the clock shown does not count down, nor does the server's (a reload's
    # snapshot has the same seconds left, stopped).
    let_time_pass(alice, 2500)
    renders = alice.state("window.__omaha.renders")
    alice.state("(c.redraw(), true)")  # drawn again now: what it shows is what it knows
    alice.page.wait_for_function(f"() => window.__omaha.renders > {renders}")
    expect(alice.page.locator(STOPPED)).to_have_text(f"{left}s")
    bob.reload()
    expect(bob.page.locator(STOPPED)).to_have_text(f"{left}s")
    expect(bob.page.locator(".notice.paused")).to_have_text(PAUSED)

    # The resume: the same turn counts down again from what it had left.
    host.get_by_role("button", name="Resume").click()
    for p in (alice, bob):
        expect(p.page.locator(".notice.paused")).to_have_count(0)
        expect(p.page.locator(STOPPED)).to_have_count(0)
        running = p.page.locator(".seat.acting .clock")
        expect(running).to_be_visible()
        assert seconds(p, ".seat.acting .clock") <= left
        p.page.wait_for_function(  # it counts: a second later it shows less
            "(left) => { const c = document.querySelector('.seat.acting .clock');"
            " return c && !c.classList.contains('stopped') && parseInt(c.textContent) < left; }",
            arg=left,
        )
    shot(bob.page, "resumed-mid-hand-guest")

    # Paused again, the hand is played out at its players' pace: whoever acts folds; the
    # banner reads the same, and no new hand is dealt.
    host.get_by_role("button", name="Pause").click()
    for p in (alice, bob):
        expect(p.page.locator(STOPPED)).to_be_visible()
    folder = next(p for p in (alice, bob) if p.my_turn())
    folder.page.locator("[data-act=fold]").click()
    for p in (alice, bob):
        p.page.wait_for_function("() => window.__omaha.ctrl.state.hand.ended")
        expect(p.page.locator(".seat .clock")).to_have_count(0)
    after = {p.name: banner(p) for p in (alice, bob)}
    assert during == after == {"Alice": PAUSED, "Bob": PAUSED}, (during, after)
    assert not alice.errors and not bob.errors, alice.errors + bob.errors
