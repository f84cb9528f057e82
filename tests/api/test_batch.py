"""Batched frames (`?batch=1`, docs/protocol.md section 3): a burst the table sends at once
reaches a client that asked for it as one frame, a JSON array of the usual messages with their
own consecutive `seq`; a client that did not ask gets one message a frame; resuming after a cut
with batching on gets exactly the missed events."""

from __future__ import annotations

from pathlib import Path

from app.api.ws import BATCH_CHARS, batching, frames
from tests.api.live import Client, live_server
from tests.api.test_bounds import settings_for, status_of_upgrade, ws_url


def test_frames_join_a_run_and_split_it_at_the_size_cap() -> None:
    assert frames(['{"a":1}'], True) == ['{"a":1}']  # one message: bare, as without batching
    assert frames(['{"a":1}', '{"b":2}'], False) == ['{"a":1}', '{"b":2}']
    assert frames(['{"a":1}', '{"b":2}'], True) == ['[{"a":1},{"b":2}]']
    big = '{"x":"' + "y" * (BATCH_CHARS // 2) + '"}'
    out = frames([big, big, '{"c":3}'], True)
    assert out == [big, f'[{big},{{"c":3}}]']
    assert all(len(f) <= BATCH_CHARS + 2 for f in out)
    assert batching({}) is False
    assert batching({"batch": "1"}) is True
    assert batching({"batch": "2"}) is None
    assert batching({"batch": "true"}) is None


async def test_a_burst_is_one_frame_only_for_a_client_that_asked(
    tmp_path: Path, sqlite_url: str
) -> None:
    async with live_server(settings_for(tmp_path, sqlite_url)) as base:
        a, b, watcher = Client(base), Client(base), Client(base)
        for name, c in (("a", a), ("b", b), ("w", watcher)):
            await c.join(name)
        code = await a.create_table(decision_time=0, seats=2)
        a.batch = True
        watcher.batch = False
        for c in (a, b, watcher):
            await c.connect(code)
        for i, c in enumerate((a, b)):
            assert (await c.request(type="sit", seat=i, buy_in=100))["type"] == "ok"
        # Whoever is to act calls or checks: the action and the next turn go out at once.
        mark = 0
        for _ in range(3):
            turn = await a.wait_for(lambda m, s=mark: m["type"] == "turn" and m["seq"] > s)
            actor = a if "legal" in turn else b
            mark = turn["seq"]
            legal = (await actor.wait_for(lambda m, s=mark: m.get("seq") == s))["legal"]
            action = "call" if "call" in legal["actions"] else "check"
            await actor.send(type="act", hand=turn["hand"], counter=turn["counter"], action=action)
            await watcher.wait_for(lambda m, s=mark: m["type"] == "turn" and m["seq"] > s)
            await a.wait_for(lambda m, s=mark: m["type"] == "turn" and m["seq"] > s)
        assert max(a.frames) > 1, a.frames  # a burst came as one array frame
        # Each action and the next turn came in the same frame, numbered one after another.
        folds = [i for i, m in enumerate(a.messages) if m["type"] == "acted"]
        assert len(folds) == 3
        for i in folds:
            frame = [m for m, f in zip(a.messages, a.frame_of, strict=True) if f == a.frame_of[i]]
            seqs = [m["seq"] for m in frame if "seq" in m]
            assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))
            assert any(m["type"] == "turn" and m["seq"] > a.messages[i]["seq"] for m in frame)
        assert all(n == 0 for n in watcher.frames), watcher.frames  # never an array
        assert b.frames and all(n == 0 for n in b.frames)

        # The same events, numbered the same, to the batching and the plain client (the
        # reader asserts each frame's seqs are consecutive across and inside arrays).
        def events(c: Client) -> dict[int, str]:
            return {
                m["seq"]: m["type"] for m in c.messages if m["type"] != "snapshot" and "seq" in m
            }

        common = sorted(set(events(a)) & set(events(watcher)))
        assert len(common) > 10
        assert [events(a)[s] for s in common] == [events(watcher)[s] for s in common]
        for c in (a, b, watcher):
            await c.close()


async def test_resume_after_a_cut_with_batching(tmp_path: Path, sqlite_url: str) -> None:
    async with live_server(settings_for(tmp_path, sqlite_url)) as base:
        a, b = Client(base), Client(base)
        await a.join("a")
        await b.join("b")
        a.batch = b.batch = True
        code = await a.create_table(decision_time=0, seats=2)
        for i, c in enumerate((a, b)):
            await c.connect(code)
            assert (await c.request(type="sit", seat=i, buy_in=100))["type"] == "ok"
        turn = await a.wait_for(lambda m: m["type"] == "turn")
        actor = a if "legal" in turn else b
        other = b if actor is a else a
        seq_before = other.seq
        assert other.ws is not None
        await other.ws.close()
        if other.reader is not None:
            await other.reader
        # The fold and what follows (the hand's end, the next hand) happen while it is away.
        await actor.request(type="act", hand=turn["hand"], counter=turn["counter"], action="fold")
        await actor.wait_for(lambda m: m["type"] == "hand_started" and m["seq"] > turn["seq"])
        other.messages.clear()
        other.frames.clear()
        await other.connect(code, resume=True)
        first = await other.wait_for(lambda m: True)
        assert first["type"] != "snapshot"
        assert first["seq"] == seq_before + 1  # exactly the next event, nothing skipped
        await other.wait_for(lambda m: m["type"] == "hand_started")
        assert other.frames[0] > 1  # the missed events came together, as one array
        for c in (a, b):
            await c.close()


async def test_an_unknown_batch_version_is_refused(tmp_path: Path, sqlite_url: str) -> None:
    async with live_server(settings_for(tmp_path, sqlite_url)) as base:
        host = Client(base)
        await host.join("host")
        code = await host.create_table(decision_time=0)
        assert await status_of_upgrade(ws_url(base, code, "?batch=1"), base, host.token) == 101
        for query in ("?batch=2", "?batch=", "?batch=１"):
            assert await status_of_upgrade(ws_url(base, code, query), base, host.token) == 403
        await host.close()
