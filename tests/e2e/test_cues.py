"""Issue 26, items 15, 16, 8 and the action sounds: chips that move (bets to the pot, the pot
to the winner) in short CSS animations that never hold back the next action's buttons and
are not drawn with reduced motion; "your turn" in the tab's title and icon and a system
notification while the tab is hidden, and nothing while it is shown; a dialog open when the
turn comes closes, saying so; a sound per action that the settings turn off.

What the page does is recorded from inside it (a MutationObserver for the chips in flight,
stand-ins for the audio context and notifications, a switch for the tab's visibility), so
nothing here waits on a moment it could miss."""

from __future__ import annotations

from typing import Any, cast

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import ViewportSize, expect

from tests.e2e.conftest import BotFactory, PlayerFactory
from tests.e2e.harness import Player, calling_station
from tests.e2e.play import act_once, play_hand, wait_for_hand
from tests.e2e.test_games import new_table
from tests.e2e.test_preactions import Puppet, feed
from tests.waits import within_sync

# Every chip in flight added to the page: its kind, animation, how long it moves (its CSS
# animation's keyframes: moving, then still until it ends), and whether it was the viewer's
# turn with the action buttons live in the same frame; how long each stayed in the page; the
# chips' animations that ran to their end, and the cards eased that were not being lifted.
# Times are the frames' (the document timeline's), as the page counts a flight's life from
# the frame that drew it: an observer's own clock runs late by whatever the page did after
# adding the node in that frame (on a loaded machine, more than a flight's last 50 ms).
WATCH_FLIGHTS = """
window.__flights = []; window.__ended = []; window.__eased = [];
const added = new Map();
const still = (k, last) => k.transform === last.transform && k.opacity === last.opacity;
new MutationObserver((records) => {
  for (const r of records) {
    for (const n of r.addedNodes) {
      if (!(n instanceof Element) || !n.classList.contains('fly')) continue;
      const c = window.__omaha && window.__omaha.ctrl;
      const style = getComputedStyle(n);
      const [a] = n.getAnimations();
      const keys = a ? a.effect.getKeyframes() : [];
      const first = keys.findIndex((k) => still(k, keys[keys.length - 1]));
      const f = {
        kind: n.classList.contains('to-pot') ? 'to-pot' : 'to-seat',
        duration: style.animationDuration, name: style.animationName,
        moves: a ? keys[first].computedOffset * a.effect.getTiming().duration : 0,
        turn: !!(c && c.isMyTurn() && !c.pending),
        buttons: document.querySelectorAll('.actions.betting [data-act]:not([disabled])').length,
        added: document.timeline.currentTime, stayed: null,
      };
      added.set(n, f);
      window.__flights.push(f);
    }
    for (const n of r.removedNodes) {
      const f = added.get(n);
      if (f) f.stayed = document.timeline.currentTime - f.added;
    }
  }
}).observe(document, { childList: true, subtree: true });
document.addEventListener('animationend', (e) => {
  if (e.animationName.startsWith('chips-')) window.__ended.push(e.animationName);
}, true);
document.addEventListener('transitionrun', (e) => {
  const t = e.target;
  if (t.matches('.card:not(.win, .win-low)')) window.__eased.push(t.className);
}, true);
"""

# A stand-in for WebAudio that writes down each tone's first frequency, and each suspension
# and resumption of the context.
FAKE_AUDIO = """
window.__tones = []; window.__audio = [];
class FakeParam { setValueAtTime(v) { this.v = v; } exponentialRampToValueAtTime() {} }
class FakeNode {
  constructor(kind) {
    this.kind = kind; this.frequency = new FakeParam(); this.gain = new FakeParam();
  }
  connect(n) { return n; }
  start() { if (this.kind === 'osc') window.__tones.push(this.frequency.v); }
  stop() {}
}
window.AudioContext = class { constructor() { this.state = 'running'; this.destination = {}; }
  get currentTime() { return performance.now() / 1000; }
  createOscillator() { return new FakeNode('osc'); } createGain() { return new FakeNode('gain'); }
  resume() { this.state = 'running'; window.__audio.push('resume'); }
  suspend() { this.state = 'suspended'; window.__audio.push('suspend'); } };
"""

# A switch for the tab's visibility, and a stand-in for system notifications.
FAKE_TAB = """
let hidden = false;
Object.defineProperty(document, 'hidden', { configurable: true, get: () => hidden });
Object.defineProperty(document, 'visibilityState', {
  configurable: true, get: () => (hidden ? 'hidden' : 'visible') });
window.__hide = (h) => { hidden = h; document.dispatchEvent(new Event('visibilitychange')); };
window.__notes = [];
window.Notification = class {
  constructor(title, o) {
    this.title = title; this.body = o.body; this.closed = false; window.__notes.push(this);
  }
  close() { this.closed = true; } };
window.Notification.permission = 'default';
window.Notification.requestPermission = async () => {
  window.Notification.permission = 'granted'; return 'granted'; };
"""


def bot_turn(p: Player) -> None:
    """The viewer checks or calls until it is the bot's turn."""
    while p.state("c.state.hand && !c.state.hand.ended ? c.state.hand.actor : null") != 1:
        if p.my_turn():
            act_once(p, keyboard=False)
        p.page.wait_for_timeout(50)


def bot_passes(p: Player, puppet: Puppet) -> None:
    """The bot, to act, checks (or calls when it cannot)."""
    p.page.wait_for_function("() => window.__omaha.ctrl.state.hand.actor === 1")
    while puppet.legal is None:
        p.page.wait_for_timeout(20)
    feed({1: puppet}, p, {"action": "check" if "check" in puppet.legal["actions"] else "call"})


def bot_passes_to_viewer(p: Player, puppet: Puppet) -> None:
    """The bot checks or calls until it is the viewer's turn."""
    while True:
        bot_passes(p, puppet)
        p.page.wait_for_function(
            "() => { const h = window.__omaha.ctrl.state.hand;"
            " return h && !h.ended && h.actor != null; }"
        )
        if p.state("c.state.hand.actor") == 0:
            return


def turn_over_the_settings(p: Player, bots: BotFactory) -> Puppet:
    """Heads-up with a puppet bot (held): the viewer's turn comes while Settings is open."""
    puppet = Puppet()
    heads_up(p, bots, puppet)
    wait_for_hand(p)
    puppet.auto = False
    bot_turn(p)
    p.page.click("[data-cmd=settings]")
    expect(p.page.get_by_role("dialog", name="Settings")).to_be_visible()
    bot_passes_to_viewer(p, puppet)
    return puppet


def heads_up(p: Player, bots: BotFactory, policy: Any, **config: Any) -> str:
    p.join()
    code = new_table(p, name="Cue table", decision_time=0, **config)
    p.open(f"/t/{code}")
    bots("Bot", policy).start(code, 1, 200)
    p.sit(0)
    return code


def test_chips_move_in_short_animations_that_never_hold_the_buttons(
    players: PlayerFactory, bots: BotFactory
) -> None:
    p = players("Mo")
    p.context.add_init_script(WATCH_FLIGHTS)
    heads_up(p, bots, calling_station)
    number = 0
    # Until a flight was drawn on the viewer's own turn (heads-up, the big blind acts first
    # after the flop: every other hand), and a pot went to a winner.
    for _ in range(6):
        number = wait_for_hand(p, after=number)
        play_hand([p], number)
        flights = p.page.evaluate("() => window.__flights")
        kinds = {f["kind"] for f in flights}
        if {"to-pot", "to-seat"} <= kinds and any(f["turn"] for f in flights):
            break
    else:
        raise AssertionError(f"no flights of both kinds on a turn: {flights}")
    # They go: nothing in flight stays on the felt.
    expect(p.page.locator(".fly")).to_have_count(0)
    flights = p.page.evaluate("() => window.__flights")
    for f in flights:
        assert 200 <= f["moves"] <= 400, f
        assert f["name"] in ("chips-to-pot", "chips-to-seat"), f
        if f["turn"]:  # the buttons were there in the frame the chips began to move
            assert f["buttons"] >= 2, f
        # Taken off once landed, before its animation's end (still and unseen until then):
        # the browser serves an animation's last moments on the main thread in every frame.
        seconds = float(f["duration"].removesuffix("s"))
        assert f["moves"] <= f["stayed"] < 1000 * seconds, f
    assert p.page.evaluate("() => window.__ended") == []
    # A card is eased as it is lifted, never as the next hand puts it back down.
    assert p.page.evaluate("() => window.__eased") == []
    assert not p.errors, p.errors


def test_no_chips_fly_with_reduced_motion(players: PlayerFactory, bots: BotFactory) -> None:
    p = players("Rey", reduced_motion="reduce")
    p.context.add_init_script(WATCH_FLIGHTS)
    heads_up(p, bots, calling_station)
    number = wait_for_hand(p)
    play_hand([p], number)
    number = wait_for_hand(p, after=number)
    play_hand([p], number)
    # The bets still went to the pot and the pot to its winner (the state, at once).
    assert p.state("c.state.lastHand.awards.length") > 0
    assert p.page.evaluate("() => window.__flights") == []
    assert not p.errors, p.errors


def test_chips_in_flight_leave_the_page_once_landed(players: PlayerFactory) -> None:
    """A quick table gathers bets every few hundred ms: each flight is taken off once landed,
    so at most those of the last flight's time are in the page (one timer restarted by each
    new flight kept every flight of a quick evening in the page, each a layer to draw)."""
    p = players("Flo")
    p.page.goto(p.base + "/")
    most, left = p.page.evaluate(
        r"""async () => {
          const main = document.querySelector('script[src$="/js/main.js"]').src;
          const { Cues } = await import(main.replace(/main\.js$/, 'cues.js'));
          const cues = new Cues({ animations: true }, () => {});
          let most = 0;
          for (let i = 0; i < 20; i += 1) {  // a flight every 100 ms or more
            cues.fly('to-pot', 0, 1);
            cues.drawn();  // as the view draws it
            most = Math.max(most, cues.flights.length);
            await new Promise((resolve) => { setTimeout(resolve, 100); });
          }
          await new Promise((resolve) => { setTimeout(resolve, 500); });
          return [most, cues.flights.length];
        }"""
    )
    assert most <= 4 and left == 0, (most, left)  # a bet's flight stays 350 ms
    assert not p.errors, p.errors


def test_turn_while_hidden_title_icon_and_notification(
    players: PlayerFactory, bots: BotFactory
) -> None:
    p = players("Hid")
    p.context.add_init_script(FAKE_TAB)
    puppet = Puppet()
    heads_up(p, bots, puppet)
    page = p.page
    plain_icon = page.locator("link[rel~=icon]").get_attribute("href")
    # The notification needs the player's permission: asked when the setting is turned on.
    # (the dialog closes when the turn comes, so it may have to be opened again)
    box = page.get_by_role("checkbox", name="A notification when it is my turn")

    def ticked() -> bool:
        if not box.is_visible():
            page.click("[data-cmd=settings]")
        try:
            box.check(timeout=2000)
        except PlaywrightError:
            return False
        return True

    within_sync(ticked, 60, 0.1, "the notification setting ticked")
    page.get_by_role("button", name="Done").click()
    assert page.evaluate("() => Notification.permission") == "granted"
    assert p.state("c.settings.notify") is True

    wait_for_hand(p)
    puppet.auto = False
    # Until it is the bot's turn (the viewer acting when it is theirs), then hide the tab.
    bot_turn(p)
    page.evaluate("() => window.__hide(true)")
    bot_passes_to_viewer(p, puppet)
    page.wait_for_function("() => document.title.startsWith('● Your turn')")
    icon = page.locator("link[rel~=icon]").get_attribute("href")
    assert icon and icon.startswith("data:image/svg+xml") and icon != plain_icon
    notes = page.evaluate("() => window.__notes.map((n) => [n.title, n.body, n.closed])")
    assert len(notes) == 1 and notes[0][0] == "Your turn" and not notes[0][2], notes
    assert notes[0][1].startswith("Cue table: "), notes
    # Shown again: all of it goes.
    page.evaluate("() => window.__hide(false)")
    page.wait_for_function("() => !document.title.startsWith('●')")
    assert page.locator("link[rel~=icon]").get_attribute("href") == plain_icon
    assert page.evaluate("() => window.__notes[0].closed") is True
    # A turn while the tab is shown: no notification, no mark.
    act_once(p, keyboard=False)
    bot_passes_to_viewer(p, puppet)
    assert page.evaluate("() => window.__notes.length") == 1
    assert not page.title().startswith("●")
    puppet.auto = True
    assert not p.errors, p.errors


def test_a_dialog_closes_when_the_turn_comes(players: PlayerFactory, bots: BotFactory) -> None:
    p = players("Dee")
    puppet = turn_over_the_settings(p, bots)
    page = p.page
    # The dock is usable at once: the dialog has gone, the turn said, the focus on an action.
    expect(page.get_by_role("dialog")).to_have_count(0)
    expect(page.locator(".toast")).to_contain_text("Your turn")
    expect(page.locator("[data-act]:not([disabled])").first).to_be_visible()
    page.wait_for_function("() => !!document.activeElement.closest('.dock')")
    puppet.auto = True
    act_once(p, keyboard=False)
    assert not p.errors, p.errors


def test_each_action_has_its_sound_and_the_setting_silences_them(
    players: PlayerFactory, bots: BotFactory
) -> None:
    p = players("Sol")
    p.context.add_init_script(FAKE_AUDIO)
    puppet = Puppet()
    heads_up(p, bots, puppet)
    page = p.page
    number = wait_for_hand(p)
    puppet.auto = False
    page.mouse.click(5, 5)  # a first gesture: the audio context starts
    # With nothing to sound (the bot's turn, or the viewer's turn sounded), the context rests.
    page.wait_for_function("() => window.__audio.includes('suspend')")

    def tones() -> list[int]:
        return cast(list[int], page.evaluate("() => window.__tones.slice()"))

    # A call is chips (2400 Hz), a check a knock (170 Hz), a fold a swish (from 520 Hz), a win
    # a chord (from 523 Hz).
    # Pre-flop the small blind calls and the big blind checks (whichever of them is the bot).
    bot_turn(p)
    bot_passes(p, puppet)
    bot_turn(p)
    heard = tones()
    assert 2400 in heard and 170 in heard, heard
    feed({1: puppet}, p, {"action": "fold"})
    page.wait_for_function("() => window.__tones.includes(523)")  # the win
    assert 520 in tones()  # the fold
    # The sounds since resumed it, and once the last has sounded it rests again.
    page.wait_for_function("() => window.__audio[window.__audio.length - 1] === 'suspend'")
    rests = page.evaluate("() => window.__audio.slice()")
    assert "resume" in rests[rests.index("suspend") :], rests
    # Off: the next hand makes no action sound.
    page.click("[data-cmd=settings]")
    page.get_by_role("checkbox", name="Sounds for actions").uncheck()
    page.get_by_role("checkbox", name="Sound when it is my turn").uncheck()
    page.get_by_role("button", name="Done").click()
    before = len(tones())
    puppet.auto = True
    number = wait_for_hand(p, after=number)
    play_hand([p], number)
    assert len(tones()) == before, tones()[before:]
    assert not p.errors, p.errors


# Each chip in flight, paused at its first and last frame: its centre, and where it should be
# (a bet's place or the pot's going in, the pot's or a seat's coming out).
FLIGHT_ENDS = """async () => {
  const c = window.__omaha.ctrl;
  const h = c.state.hand;
  const box = document.querySelector('.flights').getBoundingClientRect();
  const potTop = parseFloat(getComputedStyle(document.querySelector('.felt'))
    .getPropertyValue('--pot-top')) || 52;
  const pot = [box.left + box.width / 2, box.top + box.height * potTop / 100];
  const centre = (el) => {
    const r = el.getBoundingClientRect();
    return [r.left + r.width / 2, r.top + r.height / 2];
  };
  for (const pl of Object.values(h.players)) {
    if (pl.bet > 0) c.cues.fly('to-pot', pl.seat, pl.bet);
    c.cues.fly('to-seat', pl.seat, 5);
  }
  c.redraw();
  await new Promise((done) => { requestAnimationFrame(() => { setTimeout(done, 0); }); });
  return [...document.querySelectorAll('.fly')].map((el) => {
    const [a] = el.getAnimations();
    a.pause();
    a.currentTime = 0;
    const start = centre(el);
    a.currentTime = a.effect.getTiming().duration;
    const end = centre(el);
    const k = el.dataset.k;
    const toPot = el.classList.contains('to-pot');
    const bet = document.querySelector(`.bet[data-k="${k}"]`);
    const seat = document.querySelector(`.seat[data-k="${k}"]`);
    return { kind: toPot ? 'to-pot' : 'to-seat', k, start, end,
             want: toPot ? [centre(bet), pot] : [pot, centre(seat)] };
  });
}"""


def test_a_flight_goes_from_its_bet_to_the_pot_and_from_the_pot_to_its_seat(
    players: PlayerFactory, bots: BotFactory
) -> None:
    """The chips in flight are their own size, moved by their place's offset from the pot in
    units of the felt: on a desktop's felt and a phone's, each starts and lands where it
    should (within 2 px)."""
    p = players("Geo")
    puppet = Puppet()
    puppet.auto = False  # the blinds stay in front of the players
    heads_up(p, bots, puppet)
    wait_for_hand(p)
    p.page.wait_for_function(
        "() => Object.values(window.__omaha.ctrl.state.hand.players).filter(x => x.bet > 0)"
        ".length === 2"
    )
    sizes: list[ViewportSize] = [{"width": 1280, "height": 860}, {"width": 375, "height": 667}]
    for size in sizes:
        p.page.set_viewport_size(size)
        flights = p.page.evaluate(FLIGHT_ENDS)
        assert sorted(f["kind"] for f in flights) == ["to-pot", "to-pot", "to-seat", "to-seat"]
        for f in flights:
            for got, want in zip((f["start"], f["end"]), f["want"], strict=True):
                assert abs(got[0] - want[0]) <= 2 and abs(got[1] - want[1]) <= 2, (size, f)
        expect(p.page.locator(".fly")).to_have_count(0)
    assert not p.errors, p.errors
