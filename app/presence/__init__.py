"""Who is connected to which table: in Redis when REDIS_URL is set, in process otherwise.

Every connection is an entry (table, session) with a seat (None for a spectator) that stays
online for `ttl` seconds after its last `connect`, `connect_many` or `heartbeat`. A process
keeps its connections' entries through one `keeper.Keeper`: each written when it opens and
when its seat changes, all of them rewritten together every third of the TTL. `session_id`
must be an id that is safe to show (a player or connection id), never a session token. The
WebSocket endpoint uses one entry per connection (`connection_id`), so a player with two tabs
stays online until both are closed; `players_online` folds them back into players.
"""

from __future__ import annotations

import asyncio
import secrets

from app.presence.base import Presence
from app.presence.memory import InProcessPresence
from app.presence.redis import RedisPresence


def create_presence(redis_url: str | None, ttl: float) -> Presence:
    """Redis presence for a URL, in-process presence for None."""
    if redis_url:
        return RedisPresence.from_url(redis_url, ttl=ttl)
    return InProcessPresence(ttl=ttl)


#: how long a REST answer waits for presence before it says "unknown" (null)
ONLINE_TIMEOUT = 2.0


def connection_id(player_id: str) -> str:
    """A presence entry for one connection of `player_id` (`<player id>/<random>`)."""
    return f"{player_id}/{secrets.token_hex(6)}"


async def players_online(presence: Presence, table_id: str) -> dict[str, int | None] | None:
    """Each player online at the table, with their seat (None: watching); None when the
    backend does not answer (Redis down): the caller says "unknown", it does not fail."""
    try:
        async with asyncio.timeout(ONLINE_TIMEOUT):
            entries = await presence.online(table_id)
    except Exception:
        return None
    players: dict[str, int | None] = {}
    for session, seat in entries.items():
        player = session.split("/", 1)[0]
        if seat is not None or player not in players:
            players[player] = seat
    return players


__all__ = [
    "InProcessPresence",
    "Presence",
    "RedisPresence",
    "connection_id",
    "create_presence",
    "players_online",
]
