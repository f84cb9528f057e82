"""Issue 26, item 14, in Chromium: a seated player's reaction, picked beside their own plate,
is shown on their seat on every page at the table (a watcher's too) for a few seconds, drawn
from a picture that loaded (never a font's missing-glyph box); a watcher has no picker; a
page that muted the player, or turned reactions off (kept across a reload), shows none; a
flood is refused and said. The action sounds' switch is kept across a reload too."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.e2e.conftest import PlayerFactory
from tests.e2e.harness import Player, create_table
from tests.e2e.test_chat import say

#: how long a reaction stays on its seat (static/js/reactions.js)
SHOW_MS = 3500

# Each reaction picture drawn on the page: loaded, and of its own size (an image that failed
# to load has no natural width).
PICTURES = """() => [...document.querySelectorAll(
  '.reaction img, .react-btn img, .react-toggle img')]
  .map((i) => ({ src: i.src, loaded: i.complete && i.naturalWidth > 0, width: i.width }))"""


def react(p: Player, name: str) -> None:
    p.page.get_by_role("button", name="React").click()
    p.page.locator(f"[data-react={name}]").click()


def shown(p: Player, seat: int, name: str):  # type: ignore[no-untyped-def]
    return p.page.locator(f".seat[data-seat='{seat}'] .reaction[data-reaction={name}]")


def test_a_reaction_shows_on_the_seat_for_everyone_and_a_mute_hides_it(
    players: PlayerFactory,
) -> None:
    alice, bob, carol = players("Alice"), players("Bob"), players("Carol")
    # Alice's page keeps time by a clock the test moves on (it flows as time does until
    # then): the bubble's own lifetime, a timer of the page, is run through, not waited out.
    alice.page.clock.install()
    alice.join()
    code = create_table(alice, name="Reactions")
    alice.sit(0)
    bob.join(f"/t/{code}")
    bob.sit(1)
    carol.join(f"/t/{code}")  # watches: no seat, no picker
    expect(carol.page.get_by_role("button", name="React")).to_have_count(0)

    react(bob, "laugh")
    for p in (alice, bob, carol):
        bubble = shown(p, 1, "laugh")
        expect(bubble).to_be_visible()
        expect(bubble).to_have_attribute("aria-label", "Bob: Laughing")
    # The picker closes once one is picked; every picture on the page loaded.
    expect(bob.page.locator(".react-picker")).to_have_count(0)
    bob.page.get_by_role("button", name="React").click()
    for p in (alice, bob):
        pictures = p.page.evaluate(PICTURES)
        assert pictures and all(x["loaded"] for x in pictures), pictures
    bob.page.get_by_role("button", name="React").click()
    # Gone after a few seconds (3.5 s, static/js/reactions.js SHOW_MS): Alice's clock is
    # moved on past them.
    alice.page.clock.run_for(SHOW_MS)
    expect(shown(alice, 1, "laugh")).to_have_count(0)

    # Alice mutes Bob (from the chat): his reactions go from her page only. Told apart
    # without waiting on a moment: Bob's chat after it reaches her page after it.
    say(bob, "hello")
    alice.page.get_by_role("button", name="Mute Bob").first.click()
    react(bob, "fire")
    expect(shown(carol, 1, "fire")).to_be_visible()
    say(bob, "after the fire")
    expect(carol.page.locator(".chat-text").last).to_have_text("after the fire")
    alice.page.wait_for_function(
        "() => window.__omaha.ctrl.state.chat.some((m) => m.text === 'after the fire')"
    )
    assert alice.state("c.reactions.shown.size") == 0
    assert shown(alice, 1, "fire").count() == 0
    alice.page.get_by_role("button", name="Unmute Bob").click()

    # Carol turns reactions off in her settings: none shown, still off after a reload; and
    # the action sounds' switch (turned off with it) is kept too.
    carol.page.click("[data-cmd=settings]")
    carol.page.get_by_role("checkbox", name="Reactions on the seats").uncheck()
    carol.page.get_by_role("checkbox", name="Sounds for actions").uncheck()
    carol.page.get_by_role("button", name="Done").click()
    carol.reload()
    assert carol.state("c.settings.reactions") is False
    assert carol.state("c.settings.actionSounds") is False
    react(bob, "clap")
    expect(shown(alice, 1, "clap")).to_be_visible()
    say(bob, "after the clap")
    carol.page.wait_for_function(
        "() => window.__omaha.ctrl.state.chat.some((m) => m.text === 'after the clap')"
    )
    assert carol.state("c.reactions.shown.size") == 0

    # A flood: CHAT_BURST (5) a CHAT_WINDOW, then refused and said.
    for _ in range(6):
        bob.page.evaluate("() => window.__omaha.ctrl.react('wow')")
    expect(bob.page.locator(".toast")).to_contain_text("too many reactions")
    for p in (alice, bob, carol):
        assert not p.errors, p.errors
