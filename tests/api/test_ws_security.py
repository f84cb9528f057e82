"""Who may connect and what they may do: Origin, session, acting for another, host-only
commands; and hostile input: 10,000 malformed messages, oversized frames, floods."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

import pytest
import websockets
from pydantic import SecretStr

from app.config import Settings
from tests.api.live import Client, bot, heads_up, live_server
from tests.api.test_play import live_settings


def ws_url(base: str, code: str) -> str:
    return base.replace("http", "ws", 1) + f"/ws/tables/{code}"


async def handshake_status(url: str, **kw: Any) -> int:
    with pytest.raises(websockets.InvalidStatus) as e:
        async with websockets.connect(url, **kw):
            pass
    return int(e.value.response.status_code)


async def test_foreign_origin_and_missing_session_are_refused(
    tmp_path: Path, postgres_url: str, redis_url: str
) -> None:
    async with live_server(live_settings(tmp_path, postgres_url, redis_url)) as base:
        host = Client(base)
        await host.join("host")
        code = await host.create_table(decision_time=0)
        cookie = {"Cookie": f"omaha_session={host.token}"}
        url = ws_url(base, code)
        assert (
            await handshake_status(url, origin="https://evil.example", additional_headers=cookie)
            == 403
        )
        assert await handshake_status(url, additional_headers=cookie) == 403  # no Origin at all
        assert await handshake_status(url, origin=base) == 403  # no session
        bad = {"Cookie": "omaha_session=forged"}
        assert await handshake_status(url, origin=base, additional_headers=bad) == 403
        # The same origin with the cookie is accepted.
        await host.connect(code)
        snapshot = await host.wait_for(lambda m: m["type"] == "snapshot")
        assert snapshot["you"]["host"] is True
        await host.close()


async def close_code(url: str, **kw: Any) -> int | None:
    """The code a socket the server accepts is closed with, before any message."""
    async with websockets.connect(url, **kw) as ws:
        with pytest.raises(websockets.ConnectionClosed):
            await asyncio.wait_for(ws.recv(), 10)
        return ws.close_code


@pytest.mark.parametrize("stores", ["sqlite", "postgres_redis"])
async def test_a_code_of_no_table_or_of_a_closed_one_says_so(
    stores: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """A code that names no table is closed with 4404, one whose table the host closed with
    4410, both after the accept: a close before it is an HTTP 403, which a browser reads as a
    lost connection and retries for ever (a link to last night's table read "Reconnecting")."""
    if stores == "sqlite":
        url = request.getfixturevalue("sqlite_url")
        settings = Settings(
            data_dir=tmp_path / "d", database_url=url, secret_key=SecretStr("k" * 40)
        )
    else:  # several processes' stores: the closed table's lease is taken, then given back
        settings = live_settings(tmp_path, request.getfixturevalue("postgres_url"),
                                 request.getfixturevalue("redis_url"))  # fmt: skip
    async with live_server(settings) as base:
        host = Client(base)
        await host.join("host")
        code = await host.create_table(decision_time=0)
        cookie = {"Cookie": f"omaha_session={host.token}"}
        unknown = ws_url(base, "nope")
        assert await close_code(unknown, origin=base, additional_headers=cookie) == 4404
        await host.connect(code)
        await host.wait_for(lambda m: m["type"] == "snapshot")
        await host.send(type="close")  # no hand running: closed at once
        await asyncio.wait_for(host.reader, 10)  # type: ignore[arg-type]
        assert host.ws is not None and host.ws.close_code == 4410
        for _ in range(2):  # and again: nothing was started by the first try
            assert await close_code(ws_url(base, code), origin=base,
                                    additional_headers=cookie) == 4410  # fmt: skip
        # Still refused before the accept: no session (403), whatever the code.
        assert await handshake_status(unknown, origin=base) == 403
        await host.http.aclose()


async def test_allowed_origins_setting(tmp_path: Path, sqlite_url: str) -> None:
    settings = Settings(data_dir=tmp_path / "d", database_url=sqlite_url,
                        secret_key=SecretStr("k" * 40),
                        allowed_origins="https://poker.example.org")  # type: ignore[arg-type]  # fmt: skip
    async with live_server(settings) as base:
        host = Client(base)
        await host.join("host")
        code = await host.create_table()
        cookie = {"Cookie": f"omaha_session={host.token}"}
        assert (
            await handshake_status(ws_url(base, code), origin=base, additional_headers=cookie)
            == 403
        )
        await host.connect(code, origin="https://poker.example.org")
        await host.wait_for(lambda m: m["type"] == "snapshot")
        await host.close()


async def test_one_player_can_never_act_for_another(
    tmp_path: Path, postgres_url: str, redis_url: str
) -> None:
    async with live_server(live_settings(tmp_path, postgres_url, redis_url)) as base:
        a, b, _ = await heads_up(base)
        turn = await a.wait_for(lambda m: m["type"] == "turn")
        actor, other = (a, b) if "legal" in turn else (b, a)
        hand, counter = turn["hand"], turn["counter"]
        reply = await other.request(type="act", hand=hand, counter=counter, action="fold")
        assert reply["code"] == "not_your_turn"
        # There is no way to name another seat: the seat is the sender's own.
        reply = await other.request(type="act", hand=hand, counter=counter, action="fold", seat=0)
        assert reply["code"] == "bad_message"
        reply = await other.request(type="pause")
        assert reply["code"] == ("not_host" if other is b else "ok") or reply["type"] == "ok"
        reply = await b.request(type="adjust", seat=1, amount=1000)
        assert reply["code"] == "not_host"
        reply = await b.request(type="transfer_host", player_id=b.player_id)
        assert reply["code"] == "not_host"
        assert (await actor.request(type="act", hand=hand, counter=counter, action="fold"))[
            "type"
        ] == "ok"
        for c in (a, b):
            await c.close()


def hostile(rng: random.Random, hand: str, counter: int, me: str) -> str | bytes:
    """One malformed or hostile message."""
    big = rng.choice([10**13, 10**30, -(10**30), 2**63, -1, -(2**31)])
    choices: list[Any] = [
        "not json",
        "{",
        "[]",
        "null",
        "42",
        '"act"',
        json.dumps({}),
        json.dumps({"type": rng.choice(["", "hack", "ACT", "admin", "__class__", "snapshot"])}),
        json.dumps({"type": 7}),
        json.dumps({"type": None}),
        json.dumps({"type": "act", "hand": hand, "counter": str(counter), "action": "fold"}),
        json.dumps({"type": "act", "hand": hand, "counter": counter, "action": "raise",
                    "amount": big}),
        json.dumps({"type": "act", "hand": hand, "counter": counter, "action": "bet",
                    "amount": 1.5}),
        json.dumps({"type": "act", "hand": hand, "counter": counter, "action": "nuke"}),
        json.dumps({"type": "act", "hand": hand, "counter": counter, "action": "call"}),
        json.dumps({"type": "act", "hand": hand, "counter": counter, "action": "fold",
                    "seat": 0}),  # for another seat
        json.dumps({"type": "act", "hand": hand, "counter": counter, "action": "fold",
                    "player_id": me}),
        json.dumps({"type": "act", "hand": "0" * 36, "counter": counter, "action": "fold"}),
        json.dumps({"type": "act", "hand": hand, "counter": -1, "action": "fold"}),
        json.dumps({"type": "act", "hand": hand, "counter": counter + rng.randint(1, 9),
                    "action": "check"}),
        json.dumps({"type": "act", "hand": "x" * 500, "counter": 0, "action": "fold"}),
        json.dumps({"type": "act", "hand": 12, "counter": 0, "action": "fold"}),
        json.dumps({"type": "sit", "seat": rng.choice([-1, 99, 2]), "buy_in": big}),
        json.dumps({"type": "sit", "seat": 2, "buy_in": "100"}),
        json.dumps({"type": "top_up", "amount": big}),
        json.dumps({"type": "top_up", "amount": 0}),
        json.dumps({"type": "adjust", "seat": 0, "amount": big}),
        json.dumps({"type": "pause"}),
        json.dumps({"type": "set_stakes", "big_blind": big}),
        json.dumps({"type": "remove", "seat": 0}),
        json.dumps({"type": "transfer_host", "player_id": me}),
        json.dumps({"type": "approve", "player_id": "nobody"}),
        json.dumps({"type": "ping", "extra": 1}),
        json.dumps({"type": "sit_in", "post": "yes"}),
        "[" * 1000 + "]" * 1000,
        json.dumps({"type": "act", "hand": hand, "counter": counter, "action": "fold",
                    "pad": "x" * 5000}),  # over the message cap
        b"\x00\x01binary",
    ]  # fmt: skip
    return rng.choice(choices)  # type: ignore[no-any-return]


async def fuzz_connection(
    client: Client, rng: random.Random, count: int, hand: str, counter: int
) -> tuple[int, dict[str, int]]:
    """Send `count` hostile messages; every one must be answered by a typed error."""
    assert client.ws is not None
    codes: dict[str, int] = {}
    sent = 0
    for _ in range(count):
        message = hostile(rng, hand, counter, client.player_id)
        client.messages.clear()
        await client.ws.send(message)
        sent += 1
        reply = await client.wait_for(lambda m: m["type"] in ("error", "ok", "pong"), 10)
        assert reply["type"] == "error", (message, reply)
        assert isinstance(reply["code"], str) and isinstance(reply["message"], str)
        codes[reply["code"]] = codes.get(reply["code"], 0) + 1
        client.messages.clear()
    return sent, codes


async def test_ten_thousand_hostile_messages_then_a_normal_hand(
    tmp_path: Path, postgres_url: str, redis_url: str
) -> None:
    settings = live_settings(tmp_path, postgres_url, redis_url).model_copy(
        update={"ws_rate": 100000.0, "ws_burst": 100000}
    )
    async with live_server(settings) as base:
        players = [Client(base) for _ in range(3)]
        for i, c in enumerate(players):
            await c.join(f"p{i}")
        code = await players[0].create_table(decision_time=0, seats=4)
        for i, c in enumerate(players):
            await c.connect(code)
            if i == 0:
                assert (await c.request(type="pause"))["type"] == "ok"
            assert (await c.request(type="sit", seat=i, buy_in=100))["type"] == "ok"
        assert (await players[0].request(type="resume"))["type"] == "ok"
        turn = await players[0].wait_for(lambda m: m["type"] == "turn")
        assert turn["seat"] == 0  # the button acts first three-handed: seat 2 never does
        hand, counter = turn["hand"], turn["counter"]
        fuzzers = [players[2]]
        for i in range(3):  # and spectators
            c = Client(base)
            await c.join(f"s{i}")
            await c.connect(code)
            await c.wait_for(lambda m: m["type"] == "snapshot")
            fuzzers.append(c)
        rng = random.Random(7)
        results = await asyncio.gather(
            *(fuzz_connection(f, random.Random(rng.random()), 2500, hand, counter) for f in fuzzers)
        )
        total = sum(sent for sent, _ in results)
        codes: dict[str, int] = {}
        for _, counts in results:
            for k, v in counts.items():
                codes[k] = codes.get(k, 0) + v
        print(f"\n{total} hostile messages, replies by code: {dict(sorted(codes.items()))}")
        assert total >= 10000
        # Frames over uvicorn's limit are closed with 1009; the server stays up.
        huge = Client(base)
        await huge.join("huge")
        await huge.connect(code)
        assert huge.ws is not None
        await huge.ws.send("x" * (settings.ws_max_message * 16 + 10))
        await asyncio.wait_for(huge.reader, 10)  # type: ignore[arg-type]
        assert huge.ws.close_code == 1009
        # Nothing changed: the same hand at the same action, and a normal hand plays on.
        state = (await players[0].http.get(f"/api/tables/{code}")).json()
        assert state["hand"]["id"] == hand and state["hand"]["counter"] == counter
        stop = asyncio.Event()
        bots = [asyncio.create_task(bot(c, random.Random(i), 10**6, stop))
                for i, c in enumerate(players)]  # fmt: skip
        await players[0].wait_for(lambda m: m["type"] == "hand_ended", 30)
        stop.set()
        await asyncio.gather(*bots)
        for c in [*players, *fuzzers[1:]]:
            await c.close()


async def test_a_steady_flood_is_closed_within_seconds_and_not_answered_per_message(
    tmp_path: Path, postgres_url: str, redis_url: str
) -> None:
    """700 messages a second, steadily (the bucket refills 20 a second, so a message now and
    then is allowed): closed with 1008 after WS_FLOOD_SECONDS of it, with one `rate_limited`
    error a spell of it (one when the sender keeps up), not one per dropped message."""
    settings = live_settings(tmp_path, postgres_url, redis_url).model_copy(
        update={"ws_flood_seconds": 2.0}
    )
    async with live_server(settings) as base:
        c = Client(base)
        await c.join("flood")
        code = await c.create_table()
        await c.connect(code)
        await c.wait_for(lambda m: m["type"] == "snapshot")
        assert c.ws is not None and c.reader is not None
        loop = asyncio.get_running_loop()
        started = loop.time()
        sent = 0
        with pytest.raises(websockets.ConnectionClosed):
            while loop.time() - started < 15 and not c.reader.done():
                for _ in range(7):
                    await c.ws.send('{"type":"ping"}')
                    sent += 1
                await asyncio.sleep(0.01)
            await asyncio.wait_for(c.reader, 10)
            await c.ws.send('{"type":"ping"}')
        closed_after = loop.time() - started
        await asyncio.wait_for(c.reader, 10)
        limited = sum(1 for m in c.messages if m.get("code") == "rate_limited")
        print(f"\nflood of {sent} messages closed after {closed_after:.1f}s, {limited} errors")
        assert c.ws.close_code == 1008
        # Closed while the flood went on (the loop floods for 15 s; a server that never closed
        # would leave `wait_for` to time out), and not before WS_FLOOD_SECONDS of it. Not a
        # tighter wall-clock bound: a loaded machine (a run beside a second suite) stalled this
        # sender for over a second, long enough for the bucket to refill by half, which ends a
        # spell, and the close came after a second one (6.5 s).
        assert settings.ws_flood_seconds <= closed_after < 15, closed_after
        # One error a spell, and a spell starts at most once per WS_BURST / 2 / WS_RATE seconds
        # (the server's own bound): never one per dropped message.
        spells = 1 + closed_after * settings.ws_rate / (settings.ws_burst / 2)
        assert 1 <= limited <= spells, (limited, spells)
        assert limited * 100 < sent, (limited, sent)
        # The server is up and the same player connects again.
        again = Client(base)
        again.token, again.player_id = c.token, c.player_id
        await again.connect(code)
        await again.wait_for(lambda m: m["type"] == "snapshot")
        await again.close()
        await c.http.aclose()


async def test_a_session_that_cannot_be_looked_up_is_refused_cleanly(
    tmp_path: Path,
    sqlite_url: str,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The database down as a WebSocket connects: its session cannot be checked. Refused like
    a table that cannot be looked up (try again soon), not an "Exception in ASGI
    application" traceback (seen in the fault run when PostgreSQL stopped)."""
    from sqlalchemy.exc import OperationalError

    from app.api import ws

    settings = Settings(
        data_dir=tmp_path / "d", database_url=sqlite_url, secret_key=SecretStr("k" * 40)
    )
    async with live_server(settings) as base:
        host = Client(base)
        await host.join("host")
        code = await host.create_table()

        async def down(*args: Any) -> None:
            raise OperationalError("SELECT", {}, ConnectionRefusedError("refused"))

        monkeypatch.setattr(ws, "player_for", down)
        cookie = {"Cookie": f"omaha_session={host.token}"}
        with caplog.at_level("WARNING"):
            status = await handshake_status(ws_url(base, code), origin=base,
                                            additional_headers=cookie)  # fmt: skip
        assert status == 403  # closed before the handshake's answer (as 1013 is, so far)
        assert "cannot look a session up (OperationalError)" in caplog.text
        assert "Exception in ASGI application" not in caplog.text
        monkeypatch.undo()
        await host.connect(code)  # back: connects
        await host.wait_for(lambda m: m["type"] == "snapshot")
        await host.close()
