"""Issue 26, items 12 and 13, by clicking: after a hand that ended before the river, a seated
player hunts the rabbit (the cards that would have come, faded and said not played, on every
page and after a reload); the winner of a pot nobody called shows one card of their choice,
and the other page sees that card and no other of theirs; a beaten player at a showdown
shows one card instead of mucking, and that card alone is seen, in review and exports too."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import PlayerFactory
from tests.e2e.harness import Player, create_table, screenshot_all
from tests.e2e.play import wait_for_hand
from tests.e2e.test_showdown import beaten_hand
from tests.history.test_privacy import phh_cards, text_cards
from tests.waits import within_sync


@pytest.fixture(scope="module")
def base(quick_base: str) -> str:
    """The worker's quick server (tests/e2e/conftest.py): the hands follow each other at once (each
    test pauses the table on the hand it looks at)."""
    return quick_base


def seated_pair(players: PlayerFactory, **settings: object) -> tuple[Player, Player]:
    alice, bob = players("Alice"), players("Bob")
    alice.join()
    code = create_table(alice, name="After", **settings)
    alice.sit(0)
    bob.join(f"/t/{code}")
    bob.sit(1)
    return alice, bob


def fold_the_hand(ps: list[Player]) -> tuple[Player, Player]:
    """The table waits after this hand (the host paused it: the window stays open while the
    test clicks); whoever acts first folds, by clicking. Returns (winner, folder)."""
    wait_for_hand(ps[0])
    ps[0].page.evaluate("() => window.__omaha.ctrl.command('pause')")
    ps[0].page.wait_for_function("() => window.__omaha.ctrl.state.table.paused")
    folder: Player = within_sync(
        lambda: next((p for p in ps if p.my_turn()), None), what="a turn in the first hand"
    )
    winner = next(p for p in ps if p is not folder)
    folder.page.locator("[data-act=fold]").click()
    for p in ps:
        p.page.wait_for_function("() => window.__omaha.ctrl.state.hand.ended")
    return winner, folder


def test_a_seated_player_hunts_the_rabbit_and_everyone_sees_it_not_played(
    players: PlayerFactory,
) -> None:
    alice, bob = seated_pair(players, rabbit_hunt=True)
    ps = [alice, bob]
    winner, folder = fold_the_hand(ps)
    assert winner.state("c.state.hand.boards[0][0].length") == 0  # over preflop
    button = folder.page.get_by_role("button", name="Rabbit hunt")
    expect(button).to_be_visible()
    button.click()
    for p in ps:
        expect(p.page.locator(".card.rabbit")).to_have_count(5)  # flop, turn and river
        expect(p.page.locator("[data-rabbit]")).to_contain_text("not played")
        expect(p.page.get_by_role("button", name="Rabbit hunt")).to_have_count(0)  # once
    rabbit = set(
        winner.page.locator(".card.rabbit").evaluate_all("els => els.map(e => e.dataset.card)")
    )
    # only board cards: neither player's hole cards are among them
    assert not rabbit & (set(alice.my_cards()) | set(bob.my_cards()))
    bob.reload()  # kept with the hand: a reload draws it again
    expect(bob.page.locator(".card.rabbit")).to_have_count(5)
    screenshot_all(ps, "rabbit-hunt")
    assert not alice.errors and not bob.errors, alice.errors + bob.errors


def test_the_uncontested_winner_shows_one_card_and_only_that_card_is_seen(
    players: PlayerFactory,
) -> None:
    alice, bob = seated_pair(players)
    ps = [alice, bob]
    winner, folder = fold_the_hand(ps)
    held = winner.my_cards()
    expect(folder.page.get_by_role("button", name="Rabbit hunt")).to_have_count(0)  # table off
    chosen = held[2]
    winner.page.locator(f"[data-show-card='{chosen}']").click()
    seat = winner.state("c.state.you.seat")
    other_view = folder.page.locator(f".seat[data-seat='{seat}'] [data-shown-cards]")
    expect(other_view).to_have_attribute("data-shown-cards", chosen)
    expect(winner.page.locator(f"[data-show-card='{chosen}']")).to_have_count(0)
    expect(winner.page.locator("[data-show-card]")).to_have_count(len(held) - 1)
    for p in (folder,):  # the winner's other cards are nowhere in the other page
        assert not (set(held) - {chosen}) & p.dom_cards()
    folder.reload()
    expect(folder.page.locator(f".seat[data-seat='{seat}'] [data-shown-cards]")).to_have_attribute(
        "data-shown-cards", chosen
    )
    assert not (set(held) - {chosen}) & folder.dom_cards()
    assert not alice.errors and not bob.errors, alice.errors + bob.errors


def test_a_beaten_player_shows_one_card_at_the_showdown_and_only_that_card_is_ever_seen(
    players: PlayerFactory,
) -> None:
    """Item 13 at a showdown: a beaten hand (auto-muck off) is shown card by card, one click
    a card, instead of mucked; "Muck the rest" hides the others. The other page sees that
    card and none of the rest: live, after a reload, in the review and in both exports."""
    alice, bob = seated_pair(players, showdown_time=30, decision_time=30)
    ps = [alice, bob]
    for p in ps:
        p.page.get_by_role("checkbox", name="Auto-muck losing hands").uncheck()
        p.page.wait_for_function(
            "() => window.__omaha.ctrl.state.you.preferences.auto_muck === false"
        )
    loser, _ = beaten_hand(ps)
    alice.page.evaluate("() => window.__omaha.ctrl.command('pause')")  # the next hand waits
    other = bob if loser is alice else alice
    held = loser.my_cards()
    chosen, hidden = held[1], set(held) - {held[1]}
    buttons = loser.page.locator(".actions.showdown [data-show-card]")
    expect(buttons).to_have_count(len(held))
    screenshot_all([loser], "showdown-show-some")
    loser.page.locator(f"[data-show-card='{chosen}']").click()
    seat = loser.state("c.state.you.seat")
    shown_there = other.page.locator(f".seat[data-seat='{seat}'] [data-shown-cards]")
    expect(shown_there).to_have_attribute("data-shown-cards", chosen)
    expect(buttons).to_have_count(len(held) - 1)  # still their turn: more, or muck the rest
    assert loser.state("c.isMyTurn() && c.state.hand.phase === 'showdown'")
    seen = other.hand_cards()  # the last hand's results may hold these cards from its deck
    assert not hidden & seen.keys(), {c: seen[c] for c in hidden & seen.keys()}
    loser.page.get_by_role("button", name="Muck the rest").click()
    for p in ps:
        p.page.wait_for_function("() => window.__omaha.ctrl.state.hand.ended")
    expect(shown_there).to_have_attribute("data-shown-cards", chosen)  # mucked, one card up
    screenshot_all([other], "showdown-shown-one")
    assert not hidden & other.dom_cards()
    other.reload()
    expect(shown_there).to_have_attribute("data-shown-cards", chosen)
    assert not hidden & other.dom_cards()
    at = other.state("c.state.hand.number")
    code = other.page.url.rsplit("/", 1)[-1]
    record = other.page.request.get(f"{other.base}/api/tables/{code}/hands/{at}").json()
    mucked = next(s for s in record["seats"] if s["seat"] == seat)
    assert mucked["mucked"] and mucked["shown_cards"] == [chosen] and mucked["cards"] is None
    other.page.goto(f"{other.base}/h/{record['number']}")  # the review, on the result
    expect(other.page.locator(f".seat[data-seat='{seat}'] [data-shown-cards]")).to_have_attribute(
        "data-shown-cards", chosen
    )
    assert not hidden & other.dom_cards()
    for export in ("hands.txt", "hands.phhs"):  # the session's: it says so too
        text = other.page.request.get(f"{other.base}/api/tables/{code}/{export}").text()
        assert f"showed at the showdown: [{chosen}]" in text, text
    # This hand's own (the session's others may show the hidden cards on a board)
    for export in ("pokerstars.txt", "hand.phh"):
        text = other.page.request.get(f"{other.base}/api/hands/{record['number']}/{export}").text()
        assert f"showed at the showdown: [{chosen}]" in text, text
        named = text_cards(text) | phh_cards(text)
        assert chosen in named and not hidden & named, (export, hidden & named)
    assert not alice.errors and not bob.errors, alice.errors + bob.errors
