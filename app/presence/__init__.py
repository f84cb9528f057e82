"""Who is connected to which table: in Redis when REDIS_URL is set, in process otherwise.

Every connection is an entry (table, session) with a seat (None for a spectator) that stays
online for `ttl` seconds after its last `connect` or `heartbeat`. `session_id` must be an id
that is safe to show (a player or connection id), never a session token.
"""

from __future__ import annotations

from app.presence.base import Presence
from app.presence.memory import InProcessPresence
from app.presence.redis import RedisPresence


def create_presence(redis_url: str | None, ttl: float) -> Presence:
    """Redis presence for a URL, in-process presence for None."""
    if redis_url:
        return RedisPresence.from_url(redis_url, ttl=ttl)
    return InProcessPresence(ttl=ttl)


__all__ = ["InProcessPresence", "Presence", "RedisPresence", "create_presence"]
