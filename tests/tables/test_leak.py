"""Leak test: random hands of every game through table actors; every message to every viewer
(each seat, and a spectator) is checked, at the moment it is sent, against what that viewer may
see then. Run against the store in memory and the real table store on PostgreSQL; the hands
per table are a fixed amount of work (OMAHA_FULL=1: 130 a table, over 1,000 in all)."""

from __future__ import annotations

import asyncio
import random
import time
import uuid
from typing import Any

import orjson

from app.poker import Betting, HandState
from app.tables.config import TableConfig
from app.tables.table import Runtime, Table
from tests.sizes import sample
from tests.tables.harness import CheckedViewer, play_hands
from tests.tables.stores import MemoryTableStore, sql_store

GAMES = [
    TableConfig(game="omaha", seats=6, run_it_twice=True, straddle=True),
    TableConfig(game="omaha-hi-lo", betting=Betting.FIXED_LIMIT, seats=5),
    TableConfig(game="five-card-omaha", betting=Betting.NO_LIMIT, seats=4, ante=1),
    TableConfig(game="big-o", seats=3, boards=2, run_it_twice=True),
    TableConfig(game="six-card-omaha", seats=6, bomb_pot_every=4),
    TableConfig(game="six-card-omaha-hi-lo", betting=Betting.NO_LIMIT, seats=2),
    TableConfig(game="courchevel", seats=5, run_it_twice=True),
    TableConfig(game="courchevel-hi-lo", betting=Betting.FIXED_LIMIT, seats=4, boards=2),
]
HANDS_PER_TABLE = sample(50, 130, env="LEAK_HANDS")
PG_HANDS_PER_TABLE = sample(20, 130, env="LEAK_PG_HANDS")


async def run_table(
    store: Any, config: TableConfig, seed: int, hands: int
) -> tuple[int, list[CheckedViewer]]:
    players = await store.make_players(config.seats + 1)
    host = players[0]
    table_id = await store.create_table(host, config, f"code{seed}")
    runtime = Runtime(between_hands=0, clock_enabled=False, away_grace=3600, deal_unwatched=True)
    table = Table(await store.load_table(table_id), store, runtime)
    table.test_players = players[: config.seats]  # type: ignore[attr-defined]
    task = asyncio.create_task(table.run())
    viewers = [CheckedViewer(table, pid) for pid in players]  # the last one only watches
    viewers.append(CheckedViewer(table, None))  # and a viewer with no session at all
    for v in viewers:
        await table.request("attach", v.player_id, viewer=v)
    for i, pid in enumerate(players[: config.seats]):
        await table.request("sit", pid, seat=i, buy_in=config.buy_in_max, name=f"n{i}")
    rng = random.Random(seed)
    played = await play_hands(table, hands, rng)
    await table.quiet()  # what the table does by itself (a showdown's shows) is done too
    # Ledger identity at the end: chips in == stacks + the middle (+ cash-outs, in balance).
    hand = table.hand
    middle = sum(hand.state.committed) if hand and not hand.state.complete else 0
    live = sum(hand.state.stacks) if hand and not hand.state.complete else 0
    in_hand = set(hand.seats) if hand and not hand.state.complete else set()
    seats = sum(s.stack for s in table.seats if s is not None and s.number not in in_hand)
    assert await store.balance(table_id) == seats + live + middle
    task.cancel()
    return played, viewers


class MemoryStore(MemoryTableStore):
    async def make_players(self, count: int) -> list[str]:
        return [str(uuid.uuid4()) for _ in range(count)]

    async def balance(self, table_id: str) -> int:  # type: ignore[override]
        return MemoryTableStore.balance(self, table_id)


async def play_all(store: Any, hands: int) -> tuple[list[tuple[int, list[CheckedViewer]]], float]:
    started = time.perf_counter()
    results = await asyncio.gather(
        *(run_table(store, cfg, seed, hands) for seed, cfg in enumerate(GAMES))
    )
    return list(results), time.perf_counter() - started


def check(results: list[tuple[int, list[CheckedViewer]]], elapsed: float, least: int) -> None:
    hands = sum(played for played, _ in results)
    viewers = [v for _, vs in results for v in vs]
    messages = sum(v.messages for v in viewers)
    leaks = [leak for v in viewers for leak in v.leaks]
    print(
        f"\n{hands} hands, {messages} messages, {sum(v.cards_seen for v in viewers)} cards "
        f"checked, {elapsed:.1f}s"
    )
    assert hands >= least
    assert not leaks, leaks[:3]
    # The seated viewers did see their own cards and the boards: the check is not vacuous.
    assert all(v.cards_seen > 0 for v in viewers)


async def test_no_card_leaks_in_random_hands_of_every_game() -> None:
    """Every game against the actors directly (the store in memory: the redaction does not
    depend on it), every message of every viewer checked."""
    results, elapsed = await play_all(MemoryStore(), HANDS_PER_TABLE)
    check(results, elapsed, len(GAMES) * HANDS_PER_TABLE)


async def test_no_card_leaks_with_the_postgresql_store(postgres_url: str) -> None:
    """The same through the real store on PostgreSQL (each action a commit)."""
    async with sql_store(postgres_url) as store:
        results, elapsed = await play_all(store, PG_HANDS_PER_TABLE)
    check(results, elapsed, 8 * PG_HANDS_PER_TABLE)


def test_the_oracle_catches_a_leak() -> None:
    from app.poker import GAMES as SPECS
    from app.poker import HandConfig, HandSetup
    from tests.tables.harness import allowed_cards, cards_in, cards_in_json

    state = HandState(
        HandSetup(HandConfig(SPECS["omaha"], Betting.POT_LIMIT, 2), (100, 100), (2, 1)),
        list(range(52)),
    )
    mine = allowed_cards(state, "a", ("a", "b"))
    assert len(mine) == 4
    assert cards_in({"cards": ["2c", "2d"], "x": [{"y": "Kh"}]}) == {"2c", "2d", "Kh"}
    # The text reading finds what the tree walk does, keys too, and no card inside a longer
    # string (a chat line quoting one), as the server writes JSON
    tricky = {"cards": ["2c", "Ah Kd", 'say "Qs"', "Td\\"], "7h": {"y": ["Kh"], "z": "As"}}
    text = orjson.dumps(tricky).decode()
    assert cards_in_json(text) == cards_in(tricky) == {"2c", "7h", "Kh", "As"}
    assert allowed_cards(state, None, ("a", "b")) == set()
