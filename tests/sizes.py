"""How much random work the sampled tests do (pokerkit comparisons, random hands through the
engine and the table actors, bots in a browser): a seeded sample chosen to still reach every
game and every rare case they check, or the full size with OMAHA_FULL=1 (`make test-full`)."""

from __future__ import annotations

import os

FULL = os.environ.get("OMAHA_FULL", "") == "1"


def sample(default: int, full: int, env: str | None = None) -> int:
    """`default` in `make test`, `full` under OMAHA_FULL=1; the variable `env`, when set,
    overrides both (a one-off size for a single test)."""
    if env and (value := os.environ.get(env)):
        return int(value)
    return full if FULL else default


#: run-outs a practice bot draws per decision on the test servers (BOT_SAMPLES; 300 in
#: production): no test measures how well bots play, and their run-outs were much of the CPU
#: of the tests where bots play many hands
BOT_SAMPLES = 60
