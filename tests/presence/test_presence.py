"""One suite for both presence backends: in process and a real redis-server."""

import asyncio
from collections.abc import AsyncIterator

import pytest
import redis.asyncio

from app.presence import InProcessPresence, Presence, RedisPresence, create_presence

TTL = 1.0
#: the TTL of the tests that watch entries expire: a wait on a state that only a stall of a
#: whole TTL could break (these machines stall for a second under load)
EXPIRY_TTL = 3.0


def _backend(request: pytest.FixtureRequest, ttl: float) -> Presence:
    if request.param == "redis":
        return RedisPresence.from_url(request.getfixturevalue("redis_url"), ttl=ttl)
    return InProcessPresence(ttl=ttl)


@pytest.fixture(params=["in_process", "redis"])
async def presence(request: pytest.FixtureRequest) -> AsyncIterator[Presence]:
    backend = _backend(request, TTL)
    yield backend
    await backend.close()


@pytest.fixture(params=["in_process", "redis"])
async def expiring(request: pytest.FixtureRequest) -> AsyncIterator[Presence]:
    """A backend whose entries a test watches expire (`EXPIRY_TTL`)."""
    backend = _backend(request, EXPIRY_TTL)
    yield backend
    await backend.close()


async def test_connect_shows_seat_and_spectator(presence: Presence) -> None:
    await presence.ping()
    await presence.connect("t1", "alice", 3)
    await presence.connect("t1", "bob", None)
    await presence.connect("t2", "carol", 0)
    assert await presence.online("t1") == {"alice": 3, "bob": None}
    assert await presence.online("t2") == {"carol": 0}
    assert await presence.online("nowhere") == {}


async def test_connect_again_replaces_the_seat(presence: Presence) -> None:
    await presence.connect("t1", "alice", None)
    await presence.connect("t1", "alice", 5)
    assert await presence.online("t1") == {"alice": 5}


async def test_disconnect_removes_only_that_session(presence: Presence) -> None:
    await presence.connect("t1", "alice", 1)
    await presence.connect("t1", "bob", 2)
    await presence.disconnect("t1", "alice")
    await presence.disconnect("t1", "alice")  # again: not an error
    await presence.disconnect("t9", "zed")
    assert await presence.online("t1") == {"bob": 2}


async def test_entries_expire_after_ttl_without_heartbeat(expiring: Presence) -> None:
    # Waits for states, not for moments (a loaded machine stretches any sleep): bob beats
    # every 0.1 s (a TTL is 30 beats: only a stall of a whole TTL could lose him) until alice,
    # who never beats, is gone; then nobody beats until both are gone.
    await expiring.connect("t1", "alice", 1)
    await expiring.connect("t1", "bob", 2)
    loop = asyncio.get_running_loop()
    bound = loop.time() + 10 * EXPIRY_TTL  # a wait no passing run comes near
    while "alice" in await expiring.online("t1"):
        assert await expiring.heartbeat("t1", "bob") is True  # alive while he beats
        assert loop.time() < bound, "alice never expired"
        await asyncio.sleep(0.1)
    assert await expiring.online("t1") == {"bob": 2}
    assert await expiring.heartbeat("t1", "alice") is False  # expired: not brought back
    assert await expiring.online("t1") == {"bob": 2}
    while await expiring.online("t1"):
        assert loop.time() < bound, "bob never expired"
        await asyncio.sleep(0.1)
    assert await expiring.heartbeat("t1", "bob") is False


async def test_heartbeat_for_an_unknown_session_changes_nothing(presence: Presence) -> None:
    assert await presence.heartbeat("t1", "ghost") is False
    assert await presence.online("t1") == {}


async def test_redis_keys_expire_with_the_table(redis_url: str) -> None:
    import redis.asyncio as aioredis

    presence = RedisPresence.from_url(redis_url, ttl=EXPIRY_TTL)
    client = aioredis.Redis.from_url(redis_url)
    keys = ("omaha:presence:t1:expiry", "omaha:presence:t1:seat")
    try:
        await presence.connect("t1", "alice", 1)
        assert await client.exists(*keys) == 2
        assert 0 < min([await client.pttl(k) for k in keys]) <= EXPIRY_TTL * 1000
        # Gone on Redis's clock: waited for, within a bound no passing run comes near.
        loop = asyncio.get_running_loop()
        bound = loop.time() + 10 * EXPIRY_TTL
        while await client.exists(*keys):
            assert loop.time() < bound, "the keys never expired"
            await asyncio.sleep(0.1)
        assert await presence.online("t1") == {}
    finally:
        await client.aclose()
        await presence.close()


async def test_two_processes_share_presence_through_redis(redis_url: str) -> None:
    first = RedisPresence.from_url(redis_url, ttl=5)
    second = RedisPresence.from_url(redis_url, ttl=5)
    try:
        await first.connect("t1", "alice", 4)
        assert await second.online("t1") == {"alice": 4}
    finally:
        await first.close()
        await second.close()


def test_create_presence_picks_the_backend(redis_url: str) -> None:
    assert isinstance(create_presence(None, 10), InProcessPresence)
    assert isinstance(create_presence(redis_url, 10), RedisPresence)


def test_in_process_clock_is_injectable() -> None:
    now = [100.0]
    presence = InProcessPresence(ttl=10, clock=lambda: now[0])

    async def scenario() -> None:
        await presence.connect("t", "a", 1)
        now[0] += 9.9
        assert await presence.online("t") == {"a": 1}
        now[0] += 0.2
        assert await presence.online("t") == {}

    asyncio.run(scenario())


async def test_many_concurrent_refreshes_share_a_bounded_pool(redis_url: str) -> None:
    """Every WebSocket refreshes its presence: 500 at once must queue for a few Redis
    connections, not open 500 (the default pool did, on a busy server). (Waits bounded by the
    test's timeout, not the server's 2 s: 500 calls through 4 connections outlast that on a
    machine loaded enough.)"""
    presence = RedisPresence.from_url(redis_url, ttl=60, max_connections=4, timeout=60)
    watcher = redis.asyncio.Redis.from_url(redis_url)
    try:
        before = len(await watcher.client_list())
        await asyncio.gather(*(presence.connect("t9", f"s{i}", i % 6) for i in range(500)))
        during = len(await watcher.client_list())
        assert during - before <= 4
        assert len(await presence.online("t9")) == 500
    finally:
        await presence.close()
        await watcher.aclose()


async def test_connect_many_connects_each_session_of_each_table(presence: Presence) -> None:
    await presence.connect("t1", "alice", None)
    await presence.connect_many({"t1": {"alice": 2, "bob": None}, "t2": {"carol": 0}, "t3": {}})
    assert await presence.online("t1") == {"alice": 2, "bob": None}  # alice's seat replaced
    assert await presence.online("t2") == {"carol": 0}
    assert await presence.online("t3") == {}
    assert await presence.heartbeat("t2", "carol") is True
    await presence.connect_many({})  # nothing: not an error


def test_connect_many_restarts_the_clock_in_process() -> None:
    now = [100.0]
    presence = InProcessPresence(ttl=10, clock=lambda: now[0])

    async def scenario() -> None:
        await presence.connect("t", "a", 1)
        await presence.connect("t", "b", 2)
        now[0] += 9
        await presence.connect_many({"t": {"a": 1}})
        now[0] += 2
        assert await presence.online("t") == {"a": 1}  # b expired, a refreshed
        await presence.connect_many({"u": {}})
        assert "u" not in presence._tables  # no table kept for nobody

    asyncio.run(scenario())


async def test_connect_many_is_one_script_per_table_in_one_round_trip(redis_url: str) -> None:
    """The refresh of every table of a process: one EVALSHA each, pipelined, and no SCRIPT
    EXISTS before them (what redis-py's `Script` adds to each pipeline); the keys expire."""
    presence = RedisPresence.from_url(redis_url, ttl=5)
    watcher = redis.asyncio.Redis.from_url(redis_url, decode_responses=True)
    try:
        await presence.connect_many({"t0": {"warm": None}})  # connected, its script loaded
        await watcher.config_resetstat()
        sessions = {f"t{i}": {f"p{i}/{j}": j for j in range(6)} for i in range(20)}
        await presence.connect_many(sessions)
        stats = await watcher.info("commandstats")
        assert stats["cmdstat_evalsha"]["calls"] == 20
        assert "cmdstat_script|exists" not in stats and "cmdstat_script" not in stats
        assert await presence.online("t7") == {f"p7/{j}": j for j in range(6)}
        assert 0 < await watcher.pttl("omaha:presence:t7:seat") <= 5000
    finally:
        await presence.close()
        await watcher.aclose()


async def test_connect_many_survives_a_redis_that_forgot_its_scripts(redis_url: str) -> None:
    """A restarted Redis has no script: the first refresh after it loads it and goes on."""
    presence = RedisPresence.from_url(redis_url, ttl=5)
    watcher = redis.asyncio.Redis.from_url(redis_url)
    try:
        await presence.connect_many({"t1": {"a": 1}})
        await watcher.script_flush()
        await presence.connect_many({"t1": {"a": 2}, "t2": {"b": None}})
        assert await presence.online("t1") == {"a": 2}
        assert await presence.online("t2") == {"b": None}
    finally:
        await presence.close()
        await watcher.aclose()
