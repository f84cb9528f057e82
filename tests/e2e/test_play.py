"""Done-when 1: a table made on the home page with non-default settings; two friends join by
the invite link and sit; the three play hands to showdown by clicking and by keyboard; no page
ever holds another player's hole cards before they are shown (checked in the DOM)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from app.tables.config import TableConfig
from tests.e2e.conftest import PlayerFactory
from tests.e2e.harness import Player, create_table
from tests.e2e.play import hand_number, play_hand, wait_for_hand


@pytest.fixture(scope="module")
def base(quick_base: str) -> str:
    """The worker's quick server (tests/e2e/conftest.py): the hands follow each other at once (the
    last one's results stay on the page)."""
    return quick_base


def no_foreign_cards(ps: list[Player]) -> None:
    """While the betting goes on, a page's DOM holds its own hole cards and no one else's."""
    views = {p.name: p.page.evaluate(SNAP) for p in ps}
    for p in ps:
        mine = views[p.name]
        if mine is None or mine["phase"] != "betting":
            continue
        for q in ps:
            theirs = views[q.name]
            if q is p or theirs is None or theirs["hand"] != mine["hand"]:
                continue
            leaked = set(theirs["own"]) & set(mine["dom"])
            assert not leaked, f"{p.name}'s page holds {q.name}'s cards {leaked}"


# One read of a page's DOM (what is drawn, not the state behind it): its hand, its phase, its
# own hole cards and every card in it (but the previous hand's results, shown cards of another
# deal).
SNAP = """() => {
  const page = document.querySelector('.table-page');
  if (!page || !page.dataset.hand) return null;
  const cards = (sel) => [...document.querySelectorAll(sel)].map((e) => e.dataset.card);
  return { hand: page.dataset.hand, phase: page.dataset.phase,
           own: cards('.cards.mine [data-card]'),
           dom: cards(':not(.results.previous *)[data-card]') };
}"""


def test_create_join_and_play_to_showdown(players: PlayerFactory) -> None:
    alice, bob, carol = players("Alice"), players("Bob"), players("Carol")
    alice.join()
    expect(alice.page.locator(".me")).to_have_text("Alice")
    create_table(
        alice, name="Thursday game", game="omaha-hi-lo", betting="no-limit", seats=4,
        small_blind=1, big_blind=2, buy_in_min=50, buy_in_max=300, decision_time=25,
        time_bank=10,
    )  # fmt: skip
    page = alice.page
    expect(page.locator(".table-name")).to_have_text("Thursday game")
    expect(page.locator(".sub")).to_contain_text("NL Omaha hi-lo · 1/2")
    config = alice.state("c.state.table.config")
    assert (config["seats"], config["buy_in_max"], config["decision_time"]) == (4, 300, 25)
    assert page.locator(".seat").count() == 4

    page.click("[data-cmd=invite]")
    invite = page.locator(".invite-url").input_value()
    assert invite == page.url
    page.keyboard.press("Escape")

    alice.sit(0, 300)
    for friend in (bob, carol):
        friend.join(invite.removeprefix(friend.base))  # the invite link asks for a name first
        friend.page.wait_for_url(invite)
        expect(friend.page.locator(".seat.empty [data-sit]")).to_have_count(3)
    bob.sit(1, 200)
    # Carol posts a big blind to play from the next hand on.
    carol.page.click("[data-sit='2']")
    carol.page.check("input[name=post] >> nth=1")
    carol.page.click("[data-cmd=confirm-sit]")
    expect(carol.page.locator(".seat.mine[data-seat='2']")).to_be_visible()

    everyone = [alice, bob, carol]
    first = wait_for_hand(alice)
    expect(alice.page.locator(".cards.mine .card")).to_have_count(4)
    play_hand(everyone, first, keyboard=False, check=no_foreign_cards)
    for p in everyone:
        expect(p.page.locator(".results .award").first).to_be_visible()

    # Carol posted, but a new player is not dealt in on the small blind (Robert's; TDA 8-A,
    # docs/rules.md): she comes in once the blinds allow it, within two hands.
    second = wait_for_hand(carol, after=first)
    if 2 not in carol.state("c.state.hand.order"):
        play_hand([alice, bob], second, check=no_foreign_cards)
        second = wait_for_hand(carol, after=second)
    assert sorted(carol.state("c.state.hand.order")) == [0, 1, 2]
    for p in everyone:
        expect(p.page.locator(".cards.mine .card")).to_have_count(4)
    # The host pauses: this hand is played out, and no next one posts its blinds before the
    # chips are counted below (the next deal follows at once at this server).
    alice.page.evaluate("() => window.__omaha.ctrl.command('pause')")
    alice.page.wait_for_function("() => window.__omaha.ctrl.state.table.paused")
    play_hand(everyone, second, keyboard=True, check=no_foreign_cards)
    # The showdown: every hand still in was shown, each award names its hand and five cards.
    for p in everyone:
        results = p.page.locator(".results")
        expect(results.locator(".award .hand-name").first).to_be_visible()
        expect(results.locator(".award").first.locator(".card")).to_have_count(5)
    stacks = sum(alice.state(f"c.state.seats[{s}].stack") for s in range(3))
    assert stacks == 300 + 200 + 300, "chips are conserved on the page too"
    assert hand_number(alice) >= second
    for p in everyone:
        assert not p.errors, p.errors


def test_the_create_form_offers_every_table_setting(players: PlayerFactory) -> None:
    """Every setting the server takes at creation has its control on the home page (all but
    `tournament`, which only a tournament's director sets), and each reaches the table."""
    host = players("Hana")
    host.join()
    host.page.click("details.more summary")
    names = set(
        host.page.locator("form:has([data-cmd=create]) [name]").evaluate_all(
            "els => els.map(e => e.name)"
        )
    )
    assert set(TableConfig.model_fields) - {"tournament"} <= names, (
        set(TableConfig.model_fields) - names
    )
    host.page.click("details.more summary")  # create_table opens it again
    changed = {"big_blind_ante": 2, "cap_heads_up": True, "dead_button": True,
               "spectator_chat": False, "reveal_seed": False}  # fmt: skip
    create_table(host, name="Every switch", betting="fixed-limit", **changed)
    expect(host.page.locator(".table-name")).to_have_text("Every switch")
    config = host.state("c.state.table.config")
    assert {k: config[k] for k in changed} == changed
