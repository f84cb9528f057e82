"""The server-wide knobs every table actor runs with, and its clock."""

from __future__ import annotations

from dataclasses import dataclass, field

from app.bots.policy import SAMPLES
from app.tables.timers import Clock, RealClock


@dataclass(frozen=True)
class Runtime:
    """Server-wide knobs of every table (from the settings)."""

    between_hands: float = 2.0  # seconds between the end of a hand and the next deal
    away_grace: float = 60.0  # seconds a disconnected player stays seated in before sitting out
    outbox_limit: int = 256  # messages a connection may fall behind before it is closed
    replay_buffer: int = 1024  # at most this many sent records kept for clients to catch up
    clock_enabled: bool = True  # tests switch the decision clock off
    seat_requests: int = 20  # pending seat requests a table keeps (SEAT_REQUESTS_PER_TABLE)
    bot_think: float = 1.5  # seconds a practice bot thinks, on average
    bot_samples: int = SAMPLES  # run-outs a practice bot draws per decision (BOT_SAMPLES)
    chat_burst: int = 5  # chat messages a player may send within `chat_window` seconds
    chat_window: float = 10.0
    store_timeout: float = 5.0  # seconds a write may take before the command is `unavailable`
    retry_delay: float = 1.0  # seconds before the clock or the dealer tries a failed write again
    deal_unwatched: bool = False  # deal with no seated player connected (tests of the actor)
    #: every table's time (tests pass a fake one and move it on themselves)
    clock: Clock = field(default_factory=RealClock, compare=False)
