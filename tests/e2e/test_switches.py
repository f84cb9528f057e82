"""Issue 13, done-when 1 and the issue's last items: "need more time" starts the time bank at
once; after an uncontested win the winner may show once (the others see the cards); the "sit
out next hand" and "sit out at my next big blind" switches, kept by the server."""

from __future__ import annotations

import re
import threading
from typing import Any

import pytest
from playwright.sync_api import Page, WebSocketRoute, expect

from tests.e2e.conftest import PlayerFactory
from tests.e2e.harness import create_table
from tests.e2e.play import wait_for_hand
from tests.e2e.test_games import new_table


def test_more_time_show_and_sit_out_switches(players: PlayerFactory) -> None:
    alice, bob = players("Alice"), players("Bob")
    alice.join()
    code = create_table(alice, name="Switches", decision_time=20, time_bank=300)
    alice.sit(0)
    bob.join(f"/t/{code}")
    bob.sit(1)
    number = wait_for_hand(alice)
    actor_seat = alice.state("c.state.hand.actor")
    actor, other = (alice, bob) if actor_seat == 0 else (bob, alice)
    other_seat = 1 - actor_seat
    page = actor.page
    page.wait_for_function("() => window.__omaha.ctrl.isMyTurn()")

    # Need more time: the time bank runs at once (long enough for all that follows).
    page.get_by_role("button", name="Need more time").click()
    expect(page.locator(".bank.on")).to_have_text("Time bank running")
    assert actor.state("c.state.hand.inBank") is True
    expect(page.get_by_role("button", name="Need more time")).to_have_count(0)

    # The switches, set by the player waiting for the actor (their dock shows them then), all
    # before the hand ends: set after it, they raced the next deal, which a loaded machine
    # dealt first (and then the seat sat out only after a hand nobody played).
    # Sit out at the next big blind: a switch the server keeps, seen by the others.
    bb = other.page.get_by_role("checkbox", name="Sit out at my next big blind")
    bb.check()
    actor.page.wait_for_function(
        f"() => window.__omaha.ctrl.state.seats[{other_seat}].sit_out_next_bb === true"
    )
    bb.uncheck()
    actor.page.wait_for_function(
        f"() => window.__omaha.ctrl.state.seats[{other_seat}].sit_out_next_bb === false"
    )
    # Sit out next hand: at the next deal the seat sits out (so with two, no hand starts).
    other.page.get_by_role("checkbox", name="Sit out next hand").check()
    actor.page.wait_for_function(
        f"() => window.__omaha.ctrl.state.seats[{other_seat}].sit_out_next === true"
    )

    # The actor folds: the other wins uncontested and may show, once.
    page.locator("[data-act=fold]").click()
    if page.get_by_role("alertdialog").count():
        page.locator("[data-act=confirm-fold]").click()
    show = other.page.get_by_role("button", name="Show my hand")
    expect(show).to_be_visible()
    expect(actor.page.get_by_role("button", name="Show my hand")).to_have_count(0)
    cards = other.my_cards()
    show.click()
    expect(show).to_have_count(0)
    shown = actor.page.locator(f".seat[data-seat='{other_seat}'] .cards.shown [data-card]")
    expect(shown).to_have_count(len(cards))
    assert shown.evaluate_all("els => els.map(e => e.dataset.card)") == cards

    # At the next deal the winner sits out: no hand starts.
    actor.page.wait_for_function(
        f"() => window.__omaha.ctrl.state.seats[{other_seat}].status === 'sitting_out'",
        timeout=30000,
    )
    expect(other.page.get_by_role("checkbox", name="Sit out next hand")).to_have_count(0)
    assert alice.state("c.state.hand.number") == number


class Held:
    """The server's messages to a page, held back while `holding` is set."""

    def __init__(self, page: Page) -> None:
        self.held: list[str | bytes] = []
        self.holding = threading.Event()
        self.routes: list[WebSocketRoute] = []
        page.route_web_socket(re.compile(r"/ws/tables/"), self._relay)

    def _relay(self, ws: WebSocketRoute) -> None:
        self.routes.append(ws)
        server = ws.connect_to_server()
        server.on_message(lambda m: self.held.append(m) if self.holding.is_set() else ws.send(m))

    def release(self) -> None:
        self.holding.clear()
        for m in self.held:
            self.routes[-1].send(m)
        self.held.clear()


def test_a_switch_shows_what_was_asked_until_the_server_answers(players: PlayerFactory) -> None:
    """Drawn from the seat alone, a switch flipped back at any redraw before the server's
    answer came (the clock redraws every second): a click seemed lost, then came back."""
    sam = players("Sam")
    messages = Held(sam.page)
    sam.join()
    code = new_table(sam, decision_time=20)
    sam.open(f"/t/{code}")
    sam.sit(0)
    switch = sam.page.get_by_role("checkbox", name="Sit out next hand")
    messages.holding.set()  # from here the server's messages are held back from the page
    switch.check()
    sam.page.evaluate("() => window.__omaha.redrawNow()")
    expect(switch).to_be_checked()
    expect(sam.page.locator("[data-switch=sit_out_next]")).to_have_class(re.compile(r"\bon\b"))
    assert sam.state("c.state.seats[0].sit_out_next") is False  # the server's word not in yet
    messages.release()
    sam.page.wait_for_function("() => window.__omaha.ctrl.state.seats[0].sit_out_next === true")
    sam.page.evaluate("() => window.__omaha.redrawNow()")
    expect(switch).to_be_checked()
    # Off again, answered at once: the seat's state and the switch agree.
    switch.uncheck()
    sam.page.wait_for_function("() => window.__omaha.ctrl.state.seats[0].sit_out_next === false")
    # The seat's news may come a moment before the answer to the request: wait for both.
    sam.page.wait_for_function("() => Object.keys(window.__omaha.ctrl.switching).length === 0")
    expect(switch).not_to_be_checked()
    assert not sam.errors, sam.errors


@pytest.mark.parametrize(
    ("label", "config", "kept", "opens"),
    [
        ("Spectators may chat", {}, "c.state.table.config.spectator_chat", "Host controls"),
        ("Straddle when first after the big blind", {"straddle": True},
         "c.state.seats[0].straddle", None),
    ],
    ids=["spectator_chat", "straddle"],
)  # fmt: skip
def test_the_tables_switches_show_what_was_asked_too(
    players: PlayerFactory, label: str, config: dict[str, Any], kept: str, opens: str | None
) -> None:
    """The other switches the server keeps (the host's spectator chat, a seat's straddle)
    flipped back the same way: a loaded run's click on "Spectators may chat" read "did not
    change its state" when a redraw came before the answer."""
    sam = players("Sam")
    messages = Held(sam.page)
    sam.join()
    code = new_table(sam, decision_time=20, **config)
    sam.open(f"/t/{code}")
    sam.sit(0)
    if opens:
        sam.page.get_by_role("button", name=opens).click()
    switch = sam.page.get_by_role("checkbox", name=label)
    before = switch.is_checked()
    assert sam.state(kept) is before
    messages.holding.set()
    switch.set_checked(not before)
    sam.page.evaluate("() => window.__omaha.redrawNow()")
    expect(switch).to_be_checked(checked=not before)
    assert sam.state(kept) is before  # the server's word not in yet
    messages.release()
    answered = f"() => window.__omaha.ctrl.{kept[2:]} === {str(not before).lower()}"
    sam.page.wait_for_function(answered)
    sam.page.wait_for_function("() => Object.keys(window.__omaha.ctrl.switching).length === 0")
    sam.page.evaluate("() => window.__omaha.redrawNow()")
    expect(switch).to_be_checked(checked=not before)
    assert not sam.errors, sam.errors
