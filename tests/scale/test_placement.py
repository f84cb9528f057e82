"""Placement with three real server processes: each new table goes to the live process
running the fewest (its lease taken by that process, which runs it), whichever process the
host asked; the loads are published in Redis; a table placed elsewhere is played through the
process its host is connected to (relayed)."""

from __future__ import annotations

from pathlib import Path

import redis

from tests.api.live import Client
from tests.scale.cluster import held_by, incarnation_name
from tests.scale.test_failover import environment, processes, table_id_of


def loads(redis_url: str) -> dict[str, int]:
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        loaded = client.hgetall("omaha:load").items()  # type: ignore[union-attr]
        return {str(incarnation_name(k)): int(v) for k, v in loaded}
    finally:
        client.close()


async def test_new_tables_go_to_the_least_loaded_process(
    tmp_path: Path, postgres_url: str, redis_url: str
) -> None:
    env = await environment(tmp_path, postgres_url, redis_url)
    with processes(env, "a", "b", "c") as procs:
        host = Client(procs["a"][1])  # every create is asked of a
        await host.join("host")
        owners = []
        codes = []
        for _ in range(5):
            code = await host.create_table(decision_time=0, seats=3)
            codes.append(code)
            owners.append(held_by(redis_url, await table_id_of(postgres_url, code)))
        # a alone first (a tie stays where it was asked), then the others by their load
        assert owners[0] == "a"
        assert sorted(owners[:3]) == ["a", "b", "c"]
        assert sorted(owners) == ["a", "a", "b", "b", "c"]
        assert loads(redis_url) == {"a": 2, "b": 2, "c": 1}
        # a table placed on b is played through a: relayed, as any table run elsewhere
        placed = codes[owners.index("b")]
        await host.connect(placed)
        reply = await host.request(type="sit", seat=0, buy_in=100)
        assert reply["type"] == "ok", reply
        player = Client(procs["c"][1])
        await player.join("guest")
        await player.connect(placed)
        assert (await player.request(type="sit", seat=1, buy_in=100))["type"] == "ok"
        await host.wait_for(lambda m: m["type"] == "hand_started")
        await host.close()
        await player.close()
