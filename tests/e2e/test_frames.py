"""The table page stays idle between messages (docs/client.md, "What keeps a message cheap"):
no animation runs for the length of a turn, while the decision clock's ring still drains."""

from __future__ import annotations

from tests.e2e.conftest import BotFactory, PlayerFactory
from tests.e2e.harness import calling_station
from tests.e2e.test_games import new_table

# Animations running in the page that last longer than a short transition (160 ms).
LONG_ANIMATIONS = """() => document.getAnimations()
  .filter((a) => a.playState === 'running' && a.effect.getComputedTiming().activeDuration > 1000)
  .map((a) => a.animationName || a.transitionProperty || 'animation')"""

USED = """() => {
  const ring = document.querySelector('.seat.mine.acting .ring');
  return ring ? Number(ring.style.getPropertyValue('--used')) : null;
}"""


def test_a_turn_runs_no_long_animation_and_the_ring_drains(
    players: PlayerFactory, bots: BotFactory
) -> None:
    p = players("Pat")
    # The page keeps time by Playwright's clock (it flows as time does): its once-a-second
    # redraw, the page's own timer, is run through below rather than waited out.
    p.page.clock.install()
    p.join()
    code = new_table(p, decision_time=30)
    p.open(f"/t/{code}")
    bots("Bot", calling_station).start(code, 1, 200)
    p.sit(0)
    p.page.wait_for_selector(".seat.mine.acting .ring", timeout=20000)
    first = p.page.evaluate(USED)
    assert first is not None and 0 <= first < 20, first
    assert p.page.evaluate(LONG_ANIMATIONS) == []
    p.page.clock.run_for(2500)  # the page redraws every second while a clock runs
    later = p.page.evaluate(USED)
    assert later is not None and later > first, (first, later)
    assert p.page.evaluate(LONG_ANIMATIONS) == []
    assert not p.errors, p.errors


# Counts the animation frames the page's script asks for.
COUNT_FRAMES = """(() => {
  const raf = window.requestAnimationFrame.bind(window);
  window.__asked = 0;
  window.__raf = raf;  // the test's own frames, not counted
  window.requestAnimationFrame = (f) => { window.__asked += 1; return raf(f); };
})()"""

# Resolves once `n` frames have been drawn: time measured in frames, as the retries were.
FRAMES = """(n) => new Promise((done) => {
  const next = () => (--n <= 0 ? done() : window.__raf(next));
  window.__raf(next);
})"""


def test_a_seat_change_asks_a_spectator_for_no_empty_frames(
    players: PlayerFactory, bots: BotFactory
) -> None:
    # A seat change asks to give back a focus it may have removed; with no control to give it
    # to (a spectator), that retried for forty empty frames, and every message meanwhile
    # waited for them (docs/performance.md, "Message to frame").
    host = players("Hal")
    host.join()
    code = new_table(host, decision_time=30)
    s = players("Sue")
    s.context.add_init_script(COUNT_FRAMES)
    s.join(f"/t/{code}")
    s.page.wait_for_function("() => window.__omaha.drawn")
    s.page.evaluate(FRAMES, 60)  # the first drawing's frames are over
    before = s.page.evaluate("() => window.__asked")
    bots("Bot", calling_station).start(code, 1, 200)
    s.page.wait_for_selector(".seat[data-seat='1'] .name")
    s.page.evaluate(FRAMES, 60)  # the old retries asked for forty frames, one at a time
    asked = s.page.evaluate("() => window.__asked") - before
    assert asked <= 4, asked
    assert not s.errors, s.errors
