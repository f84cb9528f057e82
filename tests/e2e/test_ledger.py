"""Issue 13, done-when 2: after hands with a top-up and a cash-out, the ledger on the page
equals the server's ledger, the nets add up to zero, the settle-up payments square every net
with at most players - 1 payments, and the CSV downloads."""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import PlayerFactory
from tests.e2e.harness import create_table, screenshot_all
from tests.e2e.play import play_hand, wait_for_hand


@pytest.fixture(scope="module")
def base(quick_base: str) -> str:
    """The worker's quick server (tests/e2e/conftest.py): the hands follow each other at once and
    the practice bot acts at once (nothing here watches the pace)."""
    return quick_base


FETCH = "async (path) => { const r = await fetch(path); return [r.status, await r.text()]; }"


def test_ledger_and_settle_up(players: PlayerFactory) -> None:
    alice, bob, carol = players("Alice"), players("Bob"), players("Carol")
    alice.join()
    code = create_table(alice, name="Ledger night", buy_in_min=50, buy_in_max=200)
    alice.sit(0, 200)
    bob.join(f"/t/{code}")
    bob.sit(1, 120)
    carol.join(f"/t/{code}")
    carol.sit(2, 80)
    number = wait_for_hand(alice)
    play_hand([alice, bob, carol], number)
    number = wait_for_hand(alice, number)
    # The host pauses during the second hand: it is played out and no other is dealt (the
    # next would be at once at this server), so what follows happens between hands.
    page = alice.page
    page.evaluate("() => window.__omaha.ctrl.command('pause')")
    page.wait_for_function("() => window.__omaha.ctrl.state.table.paused")
    play_hand([alice, bob, carol], number)
    # Bob tops up, Carol cashes out: at once, no hand running.
    bob.page.click("[data-cmd=top-up]")
    bob.page.fill("input[name=top_up]", "10")
    bob.page.click("[data-cmd=confirm-top-up]")
    expect(bob.page.get_by_role("status")).to_contain_text("Added 10 chips")
    carol.page.click("[data-cmd=leave]")
    page.wait_for_function(
        "() => { const s = window.__omaha.ctrl.state; return !s.seats[2]; }", timeout=60000
    )

    page.get_by_role("button", name="Ledger").click()
    dialog = page.get_by_role("dialog", name="Ledger")
    expect(dialog.get_by_role("table")).to_be_visible()
    status, text = page.evaluate(FETCH, f"/api/tables/{code}/ledger")
    assert status == 200
    server: dict[str, Any] = json.loads(text)
    rows = {p["name"]: p for p in server["players"]}
    assert set(rows) == {"Alice", "Bob", "Carol"}
    assert rows["Carol"]["cash_out"] > 0 and rows["Bob"]["top_up"] == 10
    assert sum(p["net"] for p in server["players"]) == 0
    totals = server["totals"]
    assert totals["chips_in"] == totals["on_table"] + totals["cashed_out"]

    def sign(n: int) -> str:
        return f"+{n}" if n > 0 else str(n)

    for p in server["players"]:
        row = dialog.get_by_role("row").filter(
            has=page.get_by_role("rowheader", name=p["name"], exact=False)
        )
        cells = row.get_by_role("cell").all_inner_texts()
        assert cells == [
            sign(p["net"]), str(p["stack"] + p["in_play"]), str(p["buy_in"]),
            str(p["top_up"]), sign(p["adjustment"]), str(p["cash_out"]),
        ]  # fmt: skip
    # Settle-up: at most players - 1 payments, and they square every net.
    pays = server["payments"]
    assert len(pays) <= len(rows) - 1
    owed = {p["player_id"]: p["net"] for p in server["players"]}
    for pay in pays:
        owed[pay["payer"]] += pay["amount"]
        owed[pay["payee"]] -= pay["amount"]
    assert set(owed.values()) == {0}
    if pays:
        expect(dialog.get_by_role("list", name="Payments").get_by_role("listitem")).to_have_text(
            [p["text"] for p in pays]
        )
        dialog.get_by_role("button", name="Copy payments").click()
        expect(page.get_by_role("status")).to_contain_text("Payments copied")
    else:
        expect(dialog).to_contain_text("Everyone is even")
    link = dialog.get_by_role("link", name="Download CSV")
    status, csv = page.evaluate(FETCH, link.get_attribute("href"))
    assert status == 200 and csv.startswith("player_id,name,bot,seated,buy_in")
    # Bob, a player, sees the same ledger.
    bob.page.get_by_role("button", name="Ledger").click()
    expect(bob.page.get_by_role("dialog", name="Ledger").get_by_role("row")).to_have_count(
        len(rows) + 2
    )


def test_practice_bots_are_shown_apart_and_never_settled_with(players: PlayerFactory) -> None:
    """Issue 26, item 10: a table with two people and a practice bot. After hands where the
    bot's stack moved, the ledger lists the bot apart ("Practice bots: play chips, not
    settled"), no payment names it, and what the people won from or lost to it is said as
    not settled, beside the people's own payments."""
    alice, bob = players("Alice"), players("Bob")
    alice.join()
    code = create_table(alice, name="Practice", buy_in_min=50, buy_in_max=200)
    alice.sit(0, 200)
    bob.join(f"/t/{code}")
    bob.sit(1, 100)
    alice.page.get_by_role("button", name="Host controls").click()
    host = alice.page.get_by_role("region", name="Host")
    host.get_by_role("button", name="Add a bot to seat 3").click()
    host.get_by_role("button", name="Hide").click()
    alice.page.wait_for_function(
        "() => { const s = window.__omaha.ctrl.state.seats[2]; return !!(s && s.bot); }"
    )
    number = 0
    book: dict[str, Any] = {}
    for _ in range(12):  # until the bot's chips moved (it folds, calls or wins: most hands)
        number = wait_for_hand(alice, number, timeout=30)
        play_hand([alice, bob], number)
        status, text = alice.page.evaluate(FETCH, f"/api/tables/{code}/ledger")
        assert status == 200
        book = json.loads(text)
        if any(p["bot"] and p["net"] for p in book["players"]):
            break
    else:
        raise AssertionError("twelve hands and the bot's stack never moved")
    alice.page.evaluate("() => window.__omaha.ctrl.command('pause')")

    bots = {p["player_id"] for p in book["players"] if p["bot"]}
    people = {p["player_id"]: p for p in book["players"] if not p["bot"]}
    assert len(bots) == 1 and len(people) == 2
    for pay in book["payments"]:  # money changes hands between people only
        assert pay["payer"] in people and pay["payee"] in people, pay
    bots_net = sum(p["net"] for p in book["players"] if p["bot"])
    assert book["bots_net"] == bots_net != 0
    assert sum(p["net"] for p in people.values()) == -bots_net  # the chips are conserved

    page = alice.page
    page.get_by_role("button", name="Ledger").click()
    dialog = page.get_by_role("dialog", name="Ledger")
    apart = dialog.locator("tbody.bots")
    expect(apart).to_contain_text("Practice bots: play chips, not settled")
    expect(apart.locator("[data-ledger-player]")).to_have_count(1)
    expect(apart).to_contain_text("(bot)")
    said = dialog.locator("[data-bots-net]")
    expect(said).to_have_attribute("data-bots-net", str(bots_net))
    expect(said).to_contain_text("nobody pays a bot or is paid by one")
    expect(said).to_contain_text(f"won {bots_net}" if bots_net > 0 else f"lost {-bots_net}")
    if book["payments"]:
        items = dialog.get_by_role("list", name="Payments").get_by_role("listitem")
        expect(items).to_have_text([p["text"] for p in book["payments"]])
        (bot_name,) = [p["name"] for p in book["players"] if p["bot"]]
        for text in items.all_inner_texts():
            assert bot_name not in text, text
    screenshot_all([alice], "ledger-practice-bots")
    assert not alice.errors and not bob.errors
