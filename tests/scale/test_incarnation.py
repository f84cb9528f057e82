"""A process is known by its incarnation, not its name (real server processes on one
PostgreSQL and one redis-server):

- one that dies and is back under the same PROCESS_NAME within the lease is a new gateway:
  the owner drops the dead one's relayed connections, and nothing meant for them reaches a
  connection of the new one (here a spectator who connects first after the restart, and so
  got the dead player's connection number before);
- a second process started under a name that a live process holds is refused."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

from tests.api.live import Client
from tests.scale.cluster import Cluster, owner
from tests.scale.test_failover import environment, table_id_of
from tests.tables.harness import cards_in


async def test_a_process_back_under_its_name_within_the_lease_gets_nothing_of_the_dead_one(
    tmp_path: Path, postgres_url: str, redis_url: str
) -> None:
    env = await environment(tmp_path, postgres_url, redis_url)
    # A lease long enough that the dead process is back before it lapses (as compose's
    # `restart: unless-stopped` does in about 4 s with the default of 10 s; a start takes up
    # to 15 s on a loaded test machine).
    env.update(LEASE_SECONDS="60", LEASE_RENEW="1")
    cluster = Cluster(env)
    try:
        for name in ("a", "b"):  # side by side: a start is seconds of imports
            cluster.launch(name)
        a, b = cluster.wait("a"), cluster.wait("b")
        host, player = Client(a.base), Client(b.base)
        await host.join("host")
        await player.join("player")
        code = await host.create_table(decision_time=0, seats=2)
        table_id = await table_id_of(postgres_url, code)
        assert owner(redis_url, table_id) == "a"
        await host.connect(code)
        assert (await host.request(type="pause"))["type"] == "ok"
        assert (await host.request(type="sit", seat=0, buy_in=100))["type"] == "ok"
        await player.connect(code)  # relayed: b's first connection to a's table
        assert (await player.request(type="sit", seat=1, buy_in=100))["type"] == "ok"

        cluster.signal("b", signal.SIGKILL)  # no detach, no goodbye: a keeps no word of it
        b.process.wait(10)
        await asyncio.wait_for(asyncio.gather(player.reader, return_exceptions=True), 10)  # type: ignore[arg-type]
        reborn = cluster.start("b")  # the same name, well within b's lease
        stranger = Client(reborn.base)
        await stranger.join("stranger")
        await stranger.connect(code)  # the new b's first relayed connection
        assert (await host.request(type="resume"))["type"] == "ok"  # the hand is dealt
        started = await stranger.wait_for(lambda m: m["type"] == "hand_started")
        # Two chats after the deal, each seen by the stranger: whatever a forwarded to the
        # dead b's connection around the deal reached Redis before them.
        for text in ("one", "two"):
            assert (await host.request(type="chat", text=text))["type"] == "ok"
            await stranger.wait_for(lambda m, text=text: m.get("text") == text)
        assert started["hand"]
        leaked = [m for m in stranger.messages if cards_in(m) or "legal" in m]
        assert leaked == [], leaked
        assert not any(m["type"] == "ok" for m in stranger.messages)  # no one else's answers
        # The player comes back through the new b and resumes: a snapshot of the hand with
        # their own cards, their turn offered to them alone.
        player.base = reborn.base
        await player.connect(code, resume=True)
        await player.wait_for(lambda m: m["type"] in ("snapshot", "hand_started"))
        for client in (host, player, stranger):
            await client.close()
    finally:
        cluster.close()


async def test_a_second_process_under_a_live_process_s_name_is_refused(
    tmp_path: Path, postgres_url: str, redis_url: str
) -> None:
    env = await environment(tmp_path, postgres_url, redis_url)
    cluster = Cluster(env)
    try:
        first = cluster.start("a")
        host = Client(first.base)
        await host.join("host")
        code = await host.create_table(decision_time=0, seats=2)
        twin = cluster.launch("a")  # `--scale app2=2` with a fixed PROCESS_NAME does this
        code_ = await asyncio.to_thread(twin.process.wait, 45)
        assert code_ != 0
        log = twin.log.read_text()
        assert "PROCESS_NAME" in log and "'a'" in log, log[-2000:]
        # The first goes on alone: its table is its own, its players play.
        assert first.alive()
        guest = Client(first.base)
        await guest.join("guest")
        for i, client in enumerate((host, guest)):
            await client.connect(code)
            assert (await client.request(type="sit", seat=i, buy_in=100))["type"] == "ok"
        await host.wait_for(lambda m: m["type"] == "hand_started")
        assert os.path.exists(twin.log)
        for client in (host, guest):
            await client.close()
    finally:
        cluster.close()
