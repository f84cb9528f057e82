"""Rate limits, one module for every limit the server keeps: a sliding window per key (creations
per address, chat messages per player), the same window shared by every process through
Redis, and a token bucket (the messages of one WebSocket connection).

Each in-process limiter is pure: it holds nothing but its counts, bounded (a key whose
window is empty is dropped), and reads no clock of its own: each call takes `now` (seconds,
any monotonic clock), or reads the clock it was made with (`time.monotonic` by default).
`Limiter` is what a per-address check needs, in process or shared.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections import deque
from collections.abc import Callable
from typing import Protocol

import redis.asyncio as aioredis
from redis.exceptions import RedisError

log = logging.getLogger("omaha.limits")

Clock = Callable[[], float]


class Limiter(Protocol):
    """At most `limit` events per key in any window; `admit` counts one if it is allowed."""

    limit: int

    async def admit(self, key: str) -> bool: ...


class SlidingWindow:
    """At most `limit` events per key in any `window` seconds: each key's stamps in the last
    window. Keys whose window is empty are dropped (swept once a window), so memory is
    bounded by the keys active in the last window times `limit`.

    `allow` checks and counts at once; `full` and `count` apart, for an event counted only
    once it happened (a chat message counts once it is stored)."""

    def __init__(self, limit: int, window: float, clock: Clock = time.monotonic) -> None:
        self.limit, self.window, self.clock = limit, window, clock
        self.events: dict[str, deque[float]] = {}
        self._swept: float | None = None  # (on the clock of the first call)

    def _stamps(self, key: str, now: float) -> deque[float]:
        if self._swept is None:
            self._swept = now
        elif now - self._swept > self.window:
            self._sweep(now)
        stamps = self.events.setdefault(key, deque())
        while stamps and now - stamps[0] >= self.window:
            stamps.popleft()
        return stamps

    def full(self, key: str, now: float | None = None) -> bool:
        """Would one more event of `key` now be over the limit?"""
        return len(self._stamps(key, self.clock() if now is None else now)) >= self.limit

    def count(self, key: str, now: float | None = None) -> None:
        """Count an event of `key` now (the caller checked it is allowed)."""
        now = self.clock() if now is None else now
        self._stamps(key, now).append(now)

    def allow(self, key: str, now: float | None = None) -> bool:
        """Count an event of `key` now if it is within the limit; False (and not counted) if
        it is over."""
        now = self.clock() if now is None else now
        stamps = self._stamps(key, now)
        if len(stamps) >= self.limit:
            return False
        stamps.append(now)
        return True

    async def admit(self, key: str) -> bool:
        return self.allow(key)

    def _sweep(self, now: float) -> None:
        self._swept = now
        for key in [k for k, s in self.events.items() if not s or now - s[-1] >= self.window]:
            del self.events[key]


# The window in one sorted set per key, on Redis's own clock (processes' clocks may differ):
# drop the stamps older than the window, refuse at the limit, else stamp and keep the key no
# longer than the window.
_SLIDE = """
local now = redis.call('TIME')
local t = tonumber(now[1]) * 1000000 + tonumber(now[2])
local window = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', t - window)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], t, ARGV[3])
redis.call('PEXPIRE', KEYS[1], math.ceil(window / 1000))
return 1
"""


class SharedWindow:
    """`SlidingWindow` counted in Redis, so that several server processes (scale-out) allow a
    key `limit` events a window in all, not `limit` each. While Redis does not answer, this
    process counts alone (bounded still, per process) rather than refuse everyone."""

    def __init__(
        self,
        client: aioredis.Redis,
        limit: int,
        what: str,
        window: float = 60.0,
        prefix: str = "omaha",
        timeout: float = 1.0,
    ) -> None:
        self.limit, self.window, self.timeout = limit, window, timeout
        self.key = f"{prefix}:rate:{what}:"
        self.alone = SlidingWindow(limit, window)
        self._slide = client.register_script(_SLIDE)
        self._failing = False

    async def admit(self, key: str) -> bool:
        try:
            async with asyncio.timeout(self.timeout):
                args: list[int | str] = [
                    int(self.window * 1_000_000),
                    self.limit,
                    secrets.token_hex(8),
                ]
                allowed = await self._slide(keys=[self.key + key], args=args)
        except (RedisError, OSError, TimeoutError) as error:
            if not self._failing:
                log.warning("rate limits counted in this process alone: Redis %s",
                            type(error).__name__)  # fmt: skip
                self._failing = True
            return self.alone.allow(key)
        self._failing = False
        return bool(allowed)


class TokenBucket:
    """`rate` events a second on average, bursts up to `burst`: one bucket (one connection's
    messages), refilled continuously."""

    __slots__ = ("burst", "clock", "rate", "stamp", "tokens")  # two per open connection

    def __init__(self, rate: float, burst: float, clock: Clock = time.monotonic) -> None:
        self.rate, self.burst, self.clock = rate, burst, clock
        self.tokens = burst
        self.stamp: float | None = None  # full until the first event

    def take(self, now: float | None = None) -> bool:
        """Take a token if there is one: the event is allowed."""
        now = self.clock() if now is None else now
        if self.stamp is not None:
            self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False
