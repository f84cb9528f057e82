"""Verifiable deals in the browser: the page checks every opening against the hand's
commitments (Web Crypto) and marks the hand verified; a dealt card changed in the store after
the commitments were published (the server restarted on the tampered database) is caught by
that check, loudly."""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, expect

from app.poker.cards import card_str, parse_card
from app.store import decks
from tests.e2e.conftest import BotFactory, PlayerFactory
from tests.e2e.harness import Bot, Player, calling_station, server
from tests.e2e.play import play_hand, wait_for_hand
from tests.e2e.test_games import new_table
from tests.servers import free_port

SECRET = "fairness-e2e-" + "k" * 32


def swap_in_the_store(data_dir: Path, card: str) -> str:
    """Swap `card` in the open hand's stored (sealed) deck with the deck's last card, which
    a heads-up hand never deals. Returns the card now where `card` was."""
    decks.use_secret(SECRET)
    with sqlite3.connect(data_dir / "omaha.sqlite3") as db:
        ((hand_id, raw),) = db.execute("SELECT id, deck FROM hands WHERE ended_at IS NULL")
        deck = decks.unseal(json.loads(raw))
        i = deck.index(parse_card(card))
        deck[i], deck[-1] = deck[-1], deck[i]
        db.execute(
            "UPDATE hands SET deck = ? WHERE id = ?", (json.dumps(decks.seal(deck)), hand_id)
        )
    return card_str(deck[i])


def test_a_dealt_card_changed_in_the_store_is_caught_by_the_page(
    browser: Browser, tmp_path: Path
) -> None:
    env = {"PORT": str(free_port()), "SECRET_KEY": SECRET, "BETWEEN_HANDS": "0.5"}
    gate = threading.Event()  # the bot waits: the hand stays at its first decision

    def held(legal: dict[str, Any]) -> dict[str, Any]:
        gate.wait(60)
        return calling_station(legal)

    p: Player | None = None
    bot: Bot | None = None
    try:
        with server(tmp_path, **env) as base:
            p = Player(browser, base, "Vera", viewport={"width": 1280, "height": 860})
            p.join()
            code = new_table(p, decision_time=0)
            p.open(f"/t/{code}")
            bot = Bot(base, "Bot", held)
            bot.start(code, 1, 200)
            p.sit(0)
            wait_for_hand(p)
            mark = p.page.locator(".deal-check")
            expect(mark).to_have_text("✓ verified")
            assert p.state("c.deals.status(c.state.hand.id).checked") == 4  # the hole cards
            expect(p.page.locator(".deal-warning")).to_have_count(0)
            # The page sent a client seed of its own (the server kept it for the next deals).
            assert p.state("c.deals.seededAfter") is not None
            cards = p.my_cards()
        # The server is down; someone with the database and the key changes a dealt card.
        changed = swap_in_the_store(tmp_path, cards[0])
        with server(tmp_path, **env):
            warning = p.page.locator(".deal-warning")
            expect(warning).to_be_visible(timeout=30_000)  # after the page reconnects
            expect(warning).to_contain_text(f"the {changed} does not match")
            expect(mark).to_have_text("✗ mismatch")
            assert changed in p.my_cards()  # the restarted table did deal the changed card
    finally:
        gate.set()
        if bot is not None:
            bot.close()
        if p is not None:
            p.close()


def test_closing_reveals_the_seed_and_the_page_recomputes_every_deck(
    players: PlayerFactory, bots: BotFactory
) -> None:
    p = players("Sid")
    p.join()
    code = new_table(p, decision_time=0)
    p.open(f"/t/{code}")
    bots("Bot", calling_station).start(code, 1, 200)
    p.sit(0)
    number = 0
    for _ in range(2):
        number = wait_for_hand(p, number)
        play_hand([p], number)
    p.page.evaluate("() => window.__omaha.ctrl.command('close')")
    note = p.page.locator(".deal-session")
    expect(note).to_contain_text("Session verified", timeout=30_000)
    verified = int(p.state("c.deals.session.verified"))
    assert verified >= 2  # every hand of the session, the ones this page saw compared too
    expect(p.page.locator(".deal-warning")).to_have_count(0)


def test_the_host_reveals_the_seed_between_hands_and_play_goes_on(
    players: PlayerFactory, bots: BotFactory
) -> None:
    p = players("Rhea")
    p.join()
    code = new_table(p, decision_time=0)
    p.open(f"/t/{code}")
    bots("Bot", calling_station).start(code, 1, 200)
    p.sit(0)
    number = wait_for_hand(p)
    play_hand([p], number)
    p.page.get_by_role("button", name="Host controls").click()
    host = p.page.get_by_role("region", name="Host")
    host.get_by_role("button", name="Pause").click()
    reveal = host.get_by_role("button", name="Reveal the deal seed")
    p.page.wait_for_function(
        "() => { const h = window.__omaha.ctrl.state.hand; return !h || h.ended; }"
    )
    expect(reveal).to_be_enabled()
    reveal.click()
    expect(p.page.locator(".toast")).to_contain_text("Seed revealed")
    expect(p.page.locator(".deal-session")).to_contain_text("Session verified", timeout=30_000)
    host.get_by_role("button", name="Resume").click()
    play_hand([p], wait_for_hand(p, number))  # dealt from the new seed, checked as before
    expect(p.page.locator(".deal-warning")).to_have_count(0)
    sessions = p.page.request.get(f"{p.base}/api/tables/{code}/deals.json").json()["sessions"]
    assert len(sessions) == 2 and sessions[0]["seed"] and not sessions[1].get("seed"), sessions
