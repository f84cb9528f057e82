"""The hand-history REST API on both databases: hands stored through the real write path,
listed newest first by cursor and filtered, opened and exported per viewer, never leaking a
card (players, the host, a spectator with the code, a stranger without it)."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from pydantic import SecretStr

from app.config import Settings
from app.history.record import all_in_equity, luck, replay, seat_equity
from app.main import create_app
from app.poker import GAMES, HandState
from app.poker.events import Acted, BetReturned, ForcedBet
from app.poker.phh import loads_all
from app.store.history import HistoryStore
from app.store.review import ReviewStore
from app.tables.hand import Hand
from app.tables.seat import Seat
from tests.api.conftest import running
from tests.history.gen import random_hand
from tests.history.psparse import parse_session
from tests.history.test_privacy import allowed, phh_cards, text_cards
from tests.migrated import migrate
from tests.tables.harness import cards_in

# Each of the eight games twice and more, some all-in (exact and sampled equity), over three
# pages of 7. Hands 19 and 20 of this seed are sampled all-ins of ~8 s of CPU, computed twice
# (the server's worker, then this test): they proved nothing the first 18 do not.
HANDS = 18
AT_TABLE = 100


@asynccontextmanager
async def server(tmp_path: Path, url: str) -> AsyncIterator[tuple[httpx.AsyncClient, FastAPI]]:
    await migrate(url)
    settings = Settings(
        data_dir=tmp_path / "data", database_url=url, redis_url=None, secret_key=SecretStr("x" * 40)
    )
    app = create_app(settings)
    async with running(app) as http:
        yield http, app


async def join(app: FastAPI, name: str) -> tuple[httpx.AsyncClient, str]:
    client = httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app),
        base_url="http://127.0.0.1",
    )
    r = await client.post("/api/session", json={"name": name})
    assert r.status_code == 200
    return client, r.json()["player_id"]


async def store_hands(app: FastAPI, table_id: str, players: list[str]) -> list[Hand]:
    """Random finished hands, stored action by action through the table store. Their numbers
    at the table go on from `AT_TABLE` (the server's numbers start at 1): the two differ."""
    store = app.state.table_store
    rng = random.Random(2026)
    games = list(GAMES)
    played = []
    for n in range(1, HANDS + 1):
        stored, finished = random_hand(rng, games[n % len(games)], n, players)
        hand = Hand(
            id=finished.id,
            number=AT_TABLE + n,
            button=finished.button,
            seats=finished.seats,
            players=finished.players,
            state=HandState(finished.state.setup, stored.deck),
            straddle=finished.straddle,
            names=finished.names,
        )
        seats = [
            Seat(number=s, player_id=p, name=name, stack=stack)
            for s, p, name, stack in zip(
                hand.seats, hand.players, hand.names, hand.state.setup.stacks, strict=True
            )
        ]
        await store.start_hand(table_id, hand, stored.deck, seats, hand.button, hand.number)
        for counter, action in enumerate(finished.state.history):
            hand.state.apply(action)
            final = None
            if hand.state.complete:
                seats = [s._replace(stack=hand.state.stacks[p]) for p, s in enumerate(seats)]
                final = seats
            await store.record_action(table_id, hand, counter, action, final)
        played.append(hand)
    return played


@dataclass
class Evening:
    """A host, a stranger and four players, and a table of `HANDS` stored hands."""

    host: tuple[httpx.AsyncClient, str]
    stranger: tuple[httpx.AsyncClient, str]
    players: list[tuple[httpx.AsyncClient, str]]
    code: str
    table_id: str
    played: list[Hand]

    async def close(self) -> None:
        for client, _ in [self.host, self.stranger, *self.players]:
            await client.aclose()


async def evening(app: FastAPI) -> Evening:
    host = await join(app, "Host")
    stranger = await join(app, "Stranger")
    players = [await join(app, name) for name in ("Ann", "Ben", "Cat", "Dan")]
    r = await host[0].post("/api/tables", json={"name": "Friday", "seats": 6})
    code, table_id = r.json()["code"], r.json()["id"]
    played = await store_hands(app, table_id, [pid for _, pid in players])
    return Evening(host, stranger, players, code, table_id, played)


async def pages(client: httpx.AsyncClient, url: str, **params: str | int) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    cursor = None
    while True:
        query = {**params, **({"cursor": cursor} if cursor else {})}
        r = await client.get(url, params=query)
        assert r.status_code == 200, r.text
        body = r.json()
        items.extend(body["hands"])
        cursor = body["next"]
        if cursor is None:
            return items


async def test_lists_records_and_exports(database_url: str, tmp_path: Path) -> None:
    async with server(tmp_path, database_url) as (http, app):
        e = await evening(app)
        (host, host_id), (stranger, _), players = e.host, e.stranger, e.players
        code, table_id, played = e.code, e.table_id, e.played

        # A table's hands, newest first, by cursor: every hand once, numbers unique.
        listed = await pages(stranger, f"/api/tables/{code}/hands", limit=7)
        numbers = [h["number"] for h in listed]
        assert len(numbers) == HANDS and numbers == sorted(set(numbers), reverse=True)
        assert [h["hand_at_table"] for h in listed] == list(range(AT_TABLE + HANDS, AT_TABLE, -1))
        by_number = dict(zip(reversed(numbers), played, strict=True))
        pots = {h["number"]: h["pot"] for h in listed}
        for number, hand in by_number.items():  # every chip put in, less what came back
            log = hand.state.log
            put = sum(e.amount for e in log if isinstance(e, Acted | ForcedBet))
            assert pots[number] == put - sum(e.amount for e in log if isinstance(e, BetReturned))
        big_o = await pages(stranger, f"/api/tables/{code}/hands", game="big-o", limit=2)
        assert {h["game"] for h in big_o} == {"big-o"}
        assert len(big_o) == sum(1 for h in played if h.state.config.game.key == "big-o")
        rich = await pages(stranger, f"/api/tables/{code}/hands", min_pot=60)
        assert len(rich) == sum(1 for h in listed if h["pot"] >= 60) and all(
            h["pot"] >= 60 for h in rich
        )
        for bad in ({"cursor": "x"}, {"game": "holdem"}, {"min_pot": -1}, {"limit": 0}):
            r = await stranger.get(f"/api/tables/{code}/hands", params=bad)
            assert r.status_code == 422
        assert (await stranger.get("/api/tables/nope/hands")).status_code == 404

        # A player's hands: only theirs.
        ann, ann_id = players[0]
        mine = await pages(ann, "/api/hands", limit=9)
        assert [h["number"] for h in mine] == [n for n in numbers if ann_id in by_number[n].players]
        assert await pages(stranger, "/api/hands") == []
        assert (await http.get("/api/hands")).status_code == 401

        # One hand: to its players, the host, and whoever gives the code; nobody else.
        first = numbers[-1]
        assert (await stranger.get(f"/api/hands/{first}")).status_code == 404
        assert (await stranger.get(f"/api/hands/{first}?code=wrong")).status_code == 404
        assert (await stranger.get("/api/hands/999999")).status_code == 404
        one = await host.get(f"/api/hands/{first}")
        assert one.status_code == 200
        # Both numbers, each its own (the record gave the server's number as both).
        assert (one.json()["number"], one.json()["hand_at_table"]) == (first, AT_TABLE + 1)

        viewers: list[tuple[httpx.AsyncClient, str | None, dict[str, str]]] = [
            (client, pid, {}) for client, pid in players
        ]
        viewers += [(host, host_id, {}), (stranger, None, {"code": code})]
        for number, hand in by_number.items():
            for client, pid, params in viewers:
                position = hand.players.index(pid) if pid in hand.players else None
                may = allowed(hand.state, position)
                r = await client.get(f"/api/hands/{number}", params=params)
                if position is None and not params and pid != host_id:
                    assert r.status_code == 404
                    continue
                assert r.status_code == 200, r.text
                record = r.json()
                assert cards_in(record) <= may, (number, pid)
                assert record["number"] == number and "deck" not in record
                assert record["viewer"]["seat"] == (
                    hand.seats[position] if position is not None else None
                )
                text = (await client.get(f"/api/hands/{number}/pokerstars.txt", params=params)).text
                assert text_cards(text) <= may and text.startswith(f"PokerStars Hand #{number}:")
                phh = await client.get(f"/api/hands/{number}/hand.phh", params=params)
                assert phh_cards(phh.text) <= may
                assert "attachment" in phh.headers["content-disposition"]

        # Session exports from a player's seat read back and replay.
        ben, ben_id = players[1]
        session = (await ben.get(f"/api/tables/{code}/hands.txt")).text
        parsed = parse_session(session)
        assert [p.number for p in parsed] == sorted(numbers)
        named = {h["number"]: f"{h['table']}, hand {h['hand_at_table']}" for h in listed}
        for p in parsed:
            p.check_books()
            # named as the table's header names it: its number there, not the server's #N
            assert p.comments[0] == named[p.number] and not named[p.number].endswith(f" {p.number}")
            hand = by_number[p.number]
            assert {k: int(v) for k, v in p.final_stacks().items()} == dict(
                zip(hand.names, hand.state.stacks, strict=True)
            )
        phhs = (await ben.get(f"/api/tables/{code}/hands.phhs")).text
        for (_, history), number in zip(loads_all(phhs), sorted(numbers), strict=True):
            assert tuple(history.replay().stacks) == tuple(by_number[number].state.stacks)
            hand = by_number[number]
            position = hand.players.index(ben_id) if ben_id in hand.players else None
            assert phh_cards(history.dumps()) <= allowed(hand.state, position)

        ledger = (await host.get(f"/api/tables/{code}/ledger.csv")).text
        assert ledger.splitlines()[0].endswith(",net,all_in_adjusted_net")
        lines = (await host.get(f"/api/tables/{code}/ledger")).json()["players"]
        assert all("all_in_adjusted_net" in line for line in lines)
        # Each hand's all-in luck is computed once in the background and stored; the
        # ledger then sums each hand's.
        stored_history = HistoryStore(app.state.sessions)
        await app.state.luck_tasks[table_id]
        assert await stored_history.luck_pending(table_id) == []
        expected: dict[str, float] = {}
        for stored in await stored_history.hands(sorted(numbers)):
            for pid, value in luck(stored).items():
                expected[pid] = expected.get(pid, 0.0) + value
        totals = await stored_history.luck_totals(table_id)
        assert totals == pytest.approx(expected) and any(expected.values())
        # ... and each hand's all-in equity with it, for the replayer, which so never
        # computes it again (app.api.review asks the worker for it only when not stored).
        review = ReviewStore(app.state.sessions)
        for stored in await stored_history.hands(sorted(numbers)):
            hand = replay(stored)
            found = await review.equity(stored.serial)
            assert found is not None and "all_in" in found
            assert found["all_in"] == seat_equity(hand, all_in_equity(hand.state))
        await e.close()


@pytest.mark.parametrize("number", ["0", "-1", "abc"])
async def test_bad_hand_numbers(client: httpx.AsyncClient, number: str) -> None:
    r = await client.get(f"/api/hands/{number}")
    assert r.status_code in (404, 422)
