"""Verifiable deals through the protocol: 150 random hands of every game, 1,000 under
OMAHA_FULL=1 (the table actors driven in-process, each connection a viewer that receives
exactly the texts a socket would carry). For every connection: each opening it receives
verifies against the commitments it received in `hand_started` (or its snapshot) before the
hand's first action, and it never receives an opening of a card it may not see at that moment
(a folded or mucked hand, another seat's hole cards, a card not dealt yet). The players' moves
come from the shared bot policy (`app.bots.policy.random_action`), with seats coming and going
and client seeds changing."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import random
import time
import uuid
from typing import Any

from app.bots.policy import random_action
from app.poker.cards import card_str, parse_card
from app.poker.fairness import Opening, merkle_root, verify_opening
from app.tables.errors import TableError
from app.tables.table import Runtime, Table
from app.tables.viewer import Viewer
from app.tables.views import legal_to_json
from tests.sizes import sample
from tests.tables.harness import allowed_cards, chaos_step, refill, start
from tests.tables.stores import MemoryTableStore
from tests.tables.test_leak import GAMES

HANDS_PER_GAME = sample(150, 1000, env="DEAL_HANDS")
FAST = Runtime(between_hands=0, clock_enabled=False, away_grace=3600, deal_unwatched=True)


# Every connection at a table receives the same commitments and the same openings of shared
# cards: each distinct one is verified once (a connection's check is of what it received,
# and equal values verify equally), not once per connection.
@functools.lru_cache(maxsize=4096)
def root_of(leaves: tuple[bytes, ...]) -> str:
    return merkle_root(leaves).hex()


@functools.lru_cache(maxsize=65536)
def opens(committed: tuple[bytes, ...], position: int, card: str, salt: str) -> bool:
    return verify_opening(committed, Opening(position, parse_card(card), bytes.fromhex(salt)))


class OpeningChecker(Viewer):
    """A connection that checks every opening when the table sends it."""

    def __init__(self, table: Table, player_id: str | None) -> None:
        super().__init__(player_id, limit=10**9)
        self.table = table
        self.commitments: dict[str, tuple[bytes, ...]] = {}
        self.acted: set[str] = set()  # hands whose first action this connection has seen
        self.verified = 0
        self.kinds: set[str] = set()
        self.failures: list[str] = []

    def send_many(self, messages: list[str]) -> None:
        for message in messages:
            self.send(message)

    def send(self, message: dict[str, Any] | str) -> None:
        if isinstance(message, str):
            # Only what carries commitments, openings or a hand's first action needs reading.
            if '"acted"' in message and '"openings"' not in message:
                at = message.find('"hand":"') + 8
                if message[at : at + 36] in self.acted:
                    return
            elif not any(k in message for k in ('"openings"', '"hand_started"')):
                return
            message = json.loads(message)
            assert isinstance(message, dict)
        kind = message.get("type")
        if kind == "snapshot":
            hand = message.get("hand")
            if hand and "deal" in hand:
                self._commit(hand["id"], hand["deal"])
                self._openings(hand["id"], hand["openings"], None)
            return
        hand_id = str(message.get("hand"))  # "None" for none: a failure below, as None was
        if kind == "hand_started" and "deal" in message:
            self._commit(message["hand"], message["deal"])
        elif kind == "acted":
            self.acted.add(hand_id)
            if hand_id not in self.commitments:
                self.failures.append(f"an action of hand {hand_id} before its commitments")
        if "openings" in message:
            self.kinds.add(str(kind))
            self._openings(hand_id, message["openings"], message.get("cards"))

    def _commit(self, hand_id: str, deal: dict[str, Any]) -> None:
        if hand_id in self.acted:
            self.failures.append(f"commitments of hand {hand_id} after its first action")
        leaves = tuple(bytes.fromhex(c) for c in deal["commitments"])
        if len(leaves) != 52 or root_of(leaves) != deal["root"]:
            self.failures.append(f"hand {hand_id}: the root is not its commitments'")
        self.commitments[hand_id] = leaves

    def _openings(self, hand_id: str, openings: list[dict[str, Any]], cards: Any) -> None:
        hand = self.table.hand
        if hand is None or hand.id != hand_id:
            self.failures.append(f"openings of hand {hand_id} outside it")
            return
        may_see = allowed_cards(hand.state, self.player_id, hand.players)
        committed = self.commitments.get(hand_id)
        if committed is None:
            self.failures.append(f"openings of hand {hand_id} before its commitments")
            return
        for o in openings:
            if o["card"] not in may_see:
                self.failures.append(f"an opening of {o['card']}, which it may not see")
            if not opens(committed, o["position"], o["card"], o["salt"]):
                self.failures.append(f"hand {hand_id}: the opening of {o['card']} fails")
            self.verified += 1
        if cards is not None and [o["card"] for o in openings] != cards:
            self.failures.append(f"hand {hand_id}: openings {openings} for cards {cards}")


async def play(table: Table, hands: int, rng: random.Random) -> int:
    """Play `hands` hands by the shared bot policy, with seats and client seeds changing."""
    start = table.hand_number
    stalled = 0
    while True:
        hand = table.hand
        running = hand is not None and not hand.state.complete
        done = table.hand_number - start - (1 if running else 0)
        if done >= hands:
            return done
        if hand is None or not running or hand.state.actor is None:
            await refill(table, rng)
            await table.quiet()
            stalled += 1
            assert stalled < 1000, f"the table stopped dealing after {done} hands"
            continue
        stalled = 0
        legal = hand.state.legal_actions()
        assert legal is not None
        pid = hand.players[hand.state.actor]
        data = random_action(legal_to_json(legal), rng)
        with contextlib.suppress(TableError):  # a seat that left meanwhile, a stale counter
            await table.request("act", pid, hand=hand.id, counter=hand.counter, **data)
        r = rng.random()
        if r < 0.02:
            await chaos_step(table, rng)
        elif r < 0.1:
            seated = [s for s in table.seats if s is not None]
            if seated:
                seat = rng.choice(seated)
                with contextlib.suppress(TableError):  # it may have left meanwhile
                    await table.request("seed", seat.player_id, seed=f"{rng.getrandbits(64):x}")


async def run_game(index: int, hands: int) -> tuple[int, list[OpeningChecker]]:
    config = GAMES[index]
    store = MemoryTableStore()
    players = [str(uuid.uuid4()) for _ in range(config.seats + 1)]
    table_id = await store.create_table(players[0], config, f"code{index}")
    table = Table(await store.load_table(table_id), store, FAST)
    table.test_players = players[: config.seats]  # type: ignore[attr-defined]
    task = asyncio.create_task(table.run())
    viewers = [OpeningChecker(table, pid) for pid in players]  # the last one only watches
    viewers.append(OpeningChecker(table, None))
    for v in viewers:
        await table.request("attach", v.player_id, viewer=v)
    for i, pid in enumerate(players[: config.seats]):
        await table.request("sit", pid, seat=i, buy_in=config.buy_in_max, name=f"n{i}")
    played = await play(table, hands, random.Random(index))
    task.cancel()
    return played, viewers


async def test_every_opening_verifies_and_none_is_of_a_card_out_of_sight() -> None:
    started = time.perf_counter()
    results = await asyncio.gather(*(run_game(i, HANDS_PER_GAME) for i in range(len(GAMES))))
    elapsed = time.perf_counter() - started
    viewers = [v for _, vs in results for v in vs]
    failures = [f for v in viewers for f in v.failures]
    hands, verified = sum(p for p, _ in results), sum(v.verified for v in viewers)
    print(f"\n{hands} hands ({HANDS_PER_GAME} of each of {len(GAMES)} games), "
          f"{verified} openings verified, {elapsed:.1f}s")  # fmt: skip
    assert all(played >= HANDS_PER_GAME for played, _ in results)
    assert not failures, failures[:5]
    # Not vacuous: every connection verified openings (a spectator: the boards and shown
    # hands), and every kind of message that opens cards was seen.
    assert all(v.verified > 0 for v in viewers)
    assert set.union(*(v.kinds for v in viewers)) == {"hole_cards", "board", "shown"}


async def test_the_checker_catches_a_forged_opening_and_a_card_out_of_sight() -> None:
    h = await start(GAMES[0])
    await h.sit("host", 0)
    await h.sit("a", 1)
    await h.settle()
    hand = h.table.hand
    assert hand is not None and hand.deal is not None and not hand.state.complete
    spectator, player = OpeningChecker(h.table, None), OpeningChecker(h.table, hand.players[0])
    for v in (spectator, player):
        v.commitments[hand.id] = tuple(hand.deal.committed.commitments)
    hole = hand.state.hole[0][0]
    position = hand.state.deck.index(hole)
    good = {"position": position, "card": card_str(hole),
            "salt": hand.deal.salts[position].hex()}  # fmt: skip
    message = {"type": "hole_cards", "hand": hand.id, "cards": [good["card"]]}
    player.send({**message, "openings": [good]})
    assert not player.failures and player.verified == 1
    player.send({**message, "openings": [{**good, "salt": bytes(16).hex()}]})
    assert any("fails" in f for f in player.failures)
    spectator.send({**message, "openings": [good]})
    assert any("may not see" in f for f in spectator.failures)
    h.task.cancel()
