"""Done-when 3: a reload mid-hand shows the same hand and cards and the player can act; a
socket cut mid-hand (the browser context offline, then online) shows the banner, resumes with
`stream` and `since`, and an action pressed while offline is applied once; pressed after the
turn passed, it is dropped with a clear message."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.e2e.conftest import BotFactory, PlayerFactory
from tests.e2e.harness import Bot, Player, calling_station
from tests.e2e.play import hand_number, mark, wait_for_hand, wait_moved_on
from tests.e2e.test_games import new_table
from tests.waits import within_sync

READY = ":is([data-act=check], [data-act=call]):not([disabled])"


def heads_up(p: Player, bots: BotFactory, **config: object) -> Bot:
    p.join()
    code = new_table(p, **config)
    p.open(f"/t/{code}")
    bot = bots("Bot", calling_station)
    bot.start(code, 1, 200)
    p.sit(0)
    return bot


def acted(bot: Bot, hand: str, seat: int) -> list[dict[str, object]]:
    return [
        m for m in list(bot.messages)
        if m.get("type") == "acted" and m.get("hand") == hand and m.get("seat") == seat
    ]  # fmt: skip


def test_reload_and_socket_cut_mid_hand(players: PlayerFactory, bots: BotFactory) -> None:
    p = players("Remy")
    bot = heads_up(p, bots, decision_time=0)
    page = p.page
    wait_for_hand(p)
    page.wait_for_selector(READY)
    number, cards = hand_number(p), p.my_cards()
    assert len(cards) == 4

    p.reload()
    page.wait_for_selector(READY)
    assert hand_number(p) == number
    assert p.my_cards() == cards
    since = mark(p)
    page.locator(READY).first.click()
    wait_moved_on(p, since)  # the counter rose, or the hand ended (and the next began)

    # The next decision of this hand (or of a later one), taken while the network is down.
    page.wait_for_selector(READY)
    hand = p.state("c.state.hand.id")
    counter = p.state("c.state.hand.counter")
    snapshots = p.state("c.socket.snapshots")
    before = len(acted(bot, hand, 0))
    p.context.set_offline(True)
    expect(page.locator("[data-conn=offline]")).to_be_visible()
    page.locator(READY).first.click()  # queued: sent once the connection is back
    page.wait_for_function(
        "() => window.__omaha.ctrl.socket.queue.some((m) => m.type === 'act')"
    )  # not sent: nothing can reach the server while offline
    assert len(acted(bot, hand, 0)) == before, "nothing can reach the server while offline"
    p.context.set_offline(False)
    expect(page.locator("[data-conn=offline]")).to_have_count(0, timeout=10000)
    page.wait_for_function(
        f"() => {{ const h = window.__omaha.ctrl.state.hand;"
        f" return h.id !== '{hand}' || h.counter > {counter}; }}"
    )
    # Resumed from where it was (the missed events), not from a fresh snapshot.
    assert p.state("c.socket.snapshots") == snapshots
    # The offline action was applied: the bot sees it (its own connection, in its own time).
    within_sync(lambda: len(acted(bot, hand, 0)) > before, what="the bot saw the action")
    # A resend of the same action (as after a reconnect) is refused as a duplicate, quietly.
    p.page.evaluate(
        "([hand, counter]) => { const s = window.__omaha.ctrl.socket, on = s.onMessage;"
        " window.__again = []; s.onMessage = (m) => { if (m.id === 'again')"
        " window.__again.push(m); on(m); };"
        " s.send({type: 'act', id: 'again', hand, counter, action: 'check'}); }",
        [hand, counter],
    )
    page.wait_for_function("() => window.__again.length > 0")  # the server's answer to it
    answer = page.evaluate("() => window.__again[0]")
    assert answer["type"] == "error" and answer["code"] == "duplicate", answer
    mine = [m for m in acted(bot, hand, 0) if m not in acted(bot, hand, 0)[:before]]
    assert len(mine) == 1, f"the offline action was applied {len(mine)} times"
    expect(page.locator(".toast")).to_have_count(0)
    assert not p.errors, p.errors


def test_action_after_the_turn_passed_is_dropped_with_a_message(
    players: PlayerFactory, bots: BotFactory
) -> None:
    p = players("Tess")
    bot = heads_up(p, bots, decision_time=1, time_bank=0)
    page = p.page
    wait_for_hand(p)
    page.wait_for_selector(READY)
    hand = p.state("c.state.hand.id")
    before = len(acted(bot, hand, 0))
    p.context.set_offline(True)
    expect(page.locator("[data-conn=offline]")).to_be_visible()
    page.locator(READY).first.click()
    # The clock acts for the player meanwhile (the bot, still connected, sees it).
    within_sync(lambda: len(acted(bot, hand, 0)) > before, what="the clock acted for the player")
    p.context.set_offline(False)
    expect(page.locator(".toast")).to_contain_text("turn had passed", timeout=10000)
