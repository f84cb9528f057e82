"""Issue 13, done-when 3: chat between browsers beside the table; `<script>` in a message is
shown as text; a muted player's messages are hidden on the muting page only; the host turns
spectators' chat off; a flood is refused as `rate_limited`."""

from __future__ import annotations

from playwright.sync_api import FloatRect, expect

from tests.e2e.conftest import PlayerFactory
from tests.e2e.harness import Player, create_table, rects


def say(p, text: str) -> None:  # type: ignore[no-untyped-def]
    chat = p.page.get_by_role("region", name="Chat")
    chat.get_by_role("textbox", name="Chat message").fill(text)
    chat.get_by_role("button", name="Send").click()


def test_chat(players: PlayerFactory) -> None:
    alice, bob, carol = players("Alice"), players("Bob"), players("Carol")
    alice.join()
    code = create_table(alice, name="Chatty")
    alice.sit(0)
    bob.join(f"/t/{code}")
    bob.sit(1)
    carol.join(f"/t/{code}")  # watches

    say(bob, "hello all")
    for p in (alice, bob, carol):
        expect(p.page.get_by_role("region", name="Chat")).to_contain_text("Bob")
        expect(p.page.locator(".chat-text").last).to_have_text("hello all")

    evil = "<script>window.__pwned = 1</script><b>bold</b>"
    say(bob, evil)
    expect(alice.page.locator(".chat-text").last).to_have_text(evil)
    assert alice.page.evaluate("() => window.__pwned") is None
    assert alice.page.locator(".chat-log b:not(.chat-name)").count() == 0

    say(carol, "nice table")
    expect(alice.page.locator(".chat-line", has_text="nice table")).to_contain_text(
        "Carol (watching)"
    )

    # Alice mutes Bob: his lines go from her page only.
    alice.page.get_by_role("button", name="Mute Bob").first.click()
    expect(alice.page.locator(".chat-text", has_text="hello all")).to_have_count(0)
    expect(alice.page.get_by_role("region", name="Chat")).to_contain_text(
        "2 messages from muted players hidden"
    )
    expect(carol.page.locator(".chat-text", has_text="hello all")).to_have_count(1)
    say(bob, "can you hear me")
    expect(carol.page.locator(".chat-text").last).to_have_text("can you hear me")
    expect(alice.page.locator(".chat-text", has_text="can you hear me")).to_have_count(0)
    alice.page.get_by_role("button", name="Unmute Bob").click()
    expect(alice.page.locator(".chat-text", has_text="can you hear me")).to_have_count(1)

    # The host turns spectators' chat off: Carol's box goes; sent by hand, it is refused.
    alice.page.get_by_role("button", name="Host controls").click()
    alice.page.get_by_role("checkbox", name="Spectators may chat").uncheck()
    expect(carol.page.get_by_role("region", name="Chat")).to_contain_text(
        "turned spectators' chat off"
    )
    expect(carol.page.get_by_role("textbox", name="Chat message")).to_have_count(0)
    carol.page.evaluate("() => window.__omaha.ctrl.request({type: 'chat', text: 'sneaky'})")
    expect(carol.page.get_by_role("status")).to_contain_text("spectators' chat off")
    expect(alice.page.locator(".chat-text", has_text="sneaky")).to_have_count(0)

    # A flood: the server refuses it and the page says so.
    for i in range(8):
        say(bob, f"spam {i}")
    expect(bob.page.get_by_role("status")).to_contain_text("too many chat messages")


def test_chat_sits_beside_the_table_when_wide_and_below_it_on_a_phone(
    players: PlayerFactory,
) -> None:
    wide = players("Wendy", viewport={"width": 1400, "height": 900})
    wide.join()
    code = create_table(wide, name="Layout")
    wide.sit(0)
    phone = players("Pete", viewport={"width": 375, "height": 667}, is_mobile=True, has_touch=True)
    phone.join(f"/t/{code}")
    phone.sit(1)

    def boxes(p: Player) -> tuple[FloatRect, FloatRect, FloatRect]:
        got = rects(p.page, felt=".felt", dock=".dock", chat="section.chat[aria-label=Chat]")
        assert [len(got[k]) for k in ("felt", "dock", "chat")] == [1, 1, 1], got
        return got["felt"][0], got["dock"][0], got["chat"][0]

    felt, dock, chat = boxes(wide)
    assert chat["x"] >= felt["x"] + felt["width"], (felt, chat)  # to the right of the table
    assert chat["y"] < felt["y"] + felt["height"] / 2, (felt, chat)  # level with it
    assert chat["width"] >= 300
    felt, dock, chat = boxes(phone)
    assert chat["y"] >= dock["y"] + dock["height"], (dock, chat)  # under the cards and actions
    assert chat["x"] + chat["width"] <= 375.5
