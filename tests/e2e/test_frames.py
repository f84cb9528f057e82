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
    p.join()
    code = new_table(p, decision_time=30)
    p.page.goto(f"{p.base}/t/{code}")
    bots("Bot", calling_station).start(code, 1, 200)
    p.sit(0)
    p.page.wait_for_selector(".seat.mine.acting .ring", timeout=20000)
    first = p.page.evaluate(USED)
    assert first is not None and 0 <= first < 20, first
    assert p.page.evaluate(LONG_ANIMATIONS) == []
    p.page.wait_for_timeout(2500)  # the page redraws every second while a clock runs
    later = p.page.evaluate(USED)
    assert later is not None and later > first, (first, later)
    assert p.page.evaluate(LONG_ANIMATIONS) == []
    assert not p.errors, p.errors
