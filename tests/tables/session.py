"""A scripted evening over the WebSocket protocol, recorded: what every connection received.

Two tables on a real server (uvicorn, SQLite, stacked decks). The first: seat requests
approved and refused, chat (and spectators' chat switched off), a client seed, a straddle,
blinds, every kind of action, a bomb pot, all in with side pots and run it twice, show and
muck, the uncontested winner's `show`, top-ups, sitting out and the sit-out switches,
leaving and removal mid-hand, the host's commands (pause, stakes, adjust, host handover,
rotate the seed, close), refused commands, reconnecting with `since` and without. The
second: the decision clock, the time bank (run out, and started early with `more_time`)
and the clock acting (fold, check, the showdown).

Deterministic by construction: each step waits for what the previous one caused before the
next is sent, hands are dealt only when the host resumes (the first table is paused before
each hand ends; the second, whose clock a pause would stop, deals `between_hands` after a
hand, and nothing else happens meanwhile), and the decks are stacked. The decision clock
runs on the table's clock: real time, or a test's fake clock that the script moves on
(`advance`) where it waits for a time-out. What stays random (ids, seeds, salts,
commitments, the stream) and what depends on time (a snapshot's `timeout`) is replaced by
stable placeholders (`normalise`).

Run on one commit it records; `tests/tables/test_recorded_session.py` replays it on another
and compares every message (`python -m tests.tables.session OUT.json` records).
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from app.api.history import history_of
from app.config import Settings
from app.history.work import workers
from app.main import create_app
from tests.api.live import Client, app_of, live_server
from tests.waits import within

#: a bound on each wait (a failure, not a pace: every wait is for a message)
PATIENCE = 60.0
#: seconds between a hand's end and the next deal
BETWEEN_HANDS = 2.0
Message = dict[str, Any]
Advance = Callable[[float], None]


class Player(Client):
    """One browser (tests/api/live.py's client) whose commands carry the ids 1, 2, 3...:
    every message it got, across its connections, is `got`."""

    def __init__(self, base: str, name: str) -> None:
        super().__init__(base)
        self.name = name
        self.ids = 0

    @property
    def got(self) -> list[Message]:
        return self.messages

    async def connect(self, code: str, *, resume: bool = False, origin: str | None = None) -> None:
        """Connect (`resume`: from this player's stream and last seq), then wait for the
        snapshot or the first event caught up."""
        mark = len(self.messages)
        await super().connect(code, resume=resume, origin=origin)
        await self.wait(lambda m: m["type"] == "snapshot" or (resume and "seq" in m), mark)

    async def disconnect(self) -> None:
        assert self.ws is not None and self.reader is not None
        await self.ws.close()
        await self.reader
        self.ws = None

    async def wait(self, predicate: Callable[[Message], bool], start: int = 0) -> Message:
        """The first message from index `start` on that matches."""
        return await self.wait_for(predicate, PATIENCE, start)

    async def command(self, kind: str, **fields: Any) -> Message:
        """Send a command and wait for its reply (`ok` or `error`)."""
        self.ids += 1
        ref, mark = self.ids, len(self.messages)
        await self.send(type=kind, id=ref, **fields)
        return await self.wait(lambda m: m.get("id") == ref and m["type"] in ("ok", "error"), mark)

    async def ok(self, kind: str, **fields: Any) -> Message:
        reply = await self.command(kind, **fields)
        assert reply["type"] == "ok", (self.name, kind, reply)
        return reply

    async def refused(self, code: str, kind: str, **fields: Any) -> Message:
        reply = await self.command(kind, **fields)
        assert reply["type"] == "error" and reply["code"] == code, (self.name, kind, reply)
        return reply


class Table:
    """One table of the evening: its players by seat, and a watcher of its public events."""

    def __init__(self, code: str, watcher: Player, players: dict[int, Player]) -> None:
        self.code, self.watcher, self.players = code, watcher, players
        self.hand = ""
        self.seen = 0  # the watcher's seq up to which turns were handled
        self.held: Message | None = None  # a turn looked at (`next`) and not handled yet
        self.origin = len(watcher.got)  # the watcher's messages of this table start here

    async def event(self, predicate: Callable[[Message], bool]) -> Message:
        return await self.watcher.wait(predicate, self.origin)

    async def dealt(self, number: int) -> Message:
        started = await self.event(lambda m: m["type"] == "hand_started" and m["number"] == number)
        self.hand, self.seen, self.held = started["hand"], started["seq"], None
        return started

    async def next(self) -> Message:
        """The next `turn` of the hand (public), or its `hand_ended`, in order."""
        if self.held is not None:
            public, self.held = self.held, None
            return public
        public = await self.event(
            lambda m: m.get("hand") == self.hand and m["type"] in ("turn", "hand_ended")
            and m["seq"] > self.seen
        )  # fmt: skip
        self.seen = public["seq"]
        return public

    async def turn(self) -> tuple[Player, Message]:
        """The next `turn`, as its player sees it (with `legal`)."""
        public = await self.next()
        assert public["type"] == "turn", public
        player = self.players[public["seat"]]
        mine = await player.wait(
            lambda m: m["type"] == "turn" and m["hand"] == self.hand
            and m["seq"] == public["seq"] and "legal" in m
        )  # fmt: skip
        return player, mine

    async def act(self, action: str, amount: str | None = None) -> Message:
        """Whoever is to act acts; `amount` names a legal amount: min, max or pot."""
        player, turn = await self.turn()
        return await self.answer(player, turn, action, amount)

    async def answer(self, player: Player, turn: Message, action: str,
                     amount: str | None = None, **extra: Any) -> Message:  # fmt: skip
        legal = turn["legal"]
        assert action in legal["actions"], (action, legal)
        fields: dict[str, Any] = {"hand": turn["hand"], "counter": turn["counter"], **extra}
        if amount is not None:
            fields["amount"] = legal[{"min": "min_to", "max": "max_to", "pot": "pot_to"}[amount]]
        return await player.ok("act", action=action, **fields)

    async def play_out(self, agree: dict[int, bool] | None = None,
                       gone: tuple[int, ...] = ()) -> Message:  # fmt: skip
        """Play the hand to its end: check, else call; vote as `agree` says (no otherwise);
        at the showdown muck when allowed, else show. The table folds the `gone` seats."""
        while True:
            public = await self.next()
            if public["type"] == "hand_ended":
                return public
            if public["seat"] in gone:
                continue  # the table acts for them
            self.held = public
            player, turn = await self.turn()
            actions = turn["legal"]["actions"]
            if "run-twice" in actions:
                vote = (agree or {}).get(turn["seat"], False)
                await self.answer(player, turn, "run-twice", agree=vote)
                continue
            action = next(a for a in ("muck", "show", "check", "call") if a in actions)
            await self.answer(player, turn, action)


async def settled_ledger(reader: Player, code: str) -> Message:
    """The table's ledger once every hand's all-in share is stored. The review worker
    computes the shares in the background (as an all-in hand ends, when it is idle; the rest
    when a ledger is read), so what one read counts depends on how quickly a process ran: a
    recording made the ledger of whatever the worker had finished by then (none, on the run
    recorded; all, on a quiet machine since). Read until nothing is left to compute and
    nothing runs, then read the one that is recorded."""
    app = app_of(reader.base)
    table = next(t for t in app.state.tables.tables.values() if t.code == code)
    pool, store = workers(app.state), history_of(app.state)

    async def settled() -> bool:
        running = [t for t in getattr(app.state, "luck_tasks", {}).values() if not t.done()]
        if not running and pool.idle() and not await store.luck_pending(table.id):
            return True
        await asyncio.gather(*running, return_exceptions=True)
        r = await reader.http.get(f"/api/tables/{code}/ledger")  # starts what is left
        assert r.status_code == 200, r.text
        return False

    # (300 s: a bound for a broken worker, not a pace)
    await within(settled, 300, 0.05, "every all-in share stored")
    r = await reader.http.get(f"/api/tables/{code}/ledger")
    assert r.status_code == 200, r.text
    ledger: Message = r.json()
    return ledger


def decks(seed: int) -> Callable[[], list[int]]:
    """Stacked decks: the same sequence of shuffles on every run."""
    rng = random.Random(seed)

    def deck() -> list[int]:
        cards = list(range(52))
        rng.shuffle(cards)
        return cards

    return deck


async def evening(base: str, advance: Advance | None) -> dict[str, list[Message]]:
    """The whole session; returns each connection's messages (not normalised yet), and the
    first table's ledger as its host read it before closing it."""
    names = ("Hana", "Ari", "Bo", "Cy", "Di")
    people = {name: Player(base, name) for name in names}
    try:
        for p in people.values():
            await p.join(p.name)
        ledger = await cash_table(people, advance)
        await clock_table(people, advance)
        return {**{name: p.got for name, p in people.items()}, "ledger": [ledger]}
    finally:
        for p in people.values():
            await p.close()


async def cash_table(people: dict[str, Player], advance: Advance | None) -> Message:
    hana, ari, bo, cy, di = (people[n] for n in ("Hana", "Ari", "Bo", "Cy", "Di"))
    r = await hana.http.post("/api/tables", json={
        "name": "Recorded", "seats": 6, "decision_time": 0, "run_it_twice": True,
        "straddle": True, "approval_required": True, "buy_in_min": 40, "buy_in_max": 200,
    })  # fmt: skip
    assert r.status_code == 201, r.text
    code = r.json()["code"]
    await hana.connect(code)
    t = Table(code, hana, {0: hana, 1: ari, 2: bo, 3: cy})
    await hana.ok("pause")
    await hana.ok("sit", seat=0, buy_in=100)
    for player, seat, buy_in in ((ari, 1, 100), (bo, 2, 150)):
        await player.connect(code)
        assert (await player.ok("sit", seat=seat, buy_in=buy_in))["status"] == "requested"
        await hana.ok("approve", player_id=player.player_id)
    await cy.connect(code)
    await cy.ok("sit", seat=3, buy_in=60)
    await cy.refused("already_requested", "sit", seat=3, buy_in=60)
    await hana.ok("refuse", player_id=cy.player_id)
    await cy.ok("sit", seat=3, buy_in=60)
    await hana.ok("approve", player_id=cy.player_id)
    await hana.refused("no_such_request", "approve", player_id=cy.player_id)
    await di.connect(code)  # a spectator, for now
    await ari.ok("chat", text="hello table")
    await di.ok("chat", text="hi from the rail")
    await hana.ok("spectator_chat", on=False)
    await di.refused("chat_off", "chat", text="still here?")
    await hana.ok("spectator_chat", on=True)
    await ari.ok("seed", seed="ari's dice")
    await ari.refused("not_host", "pause")
    await ari.refused("not_in_hand", "more_time")
    await cy.ok("straddle", on=True)
    await cy.ok("set_preference", auto_muck=False)  # Cy chooses at a showdown himself

    # Hand 1: a straddle, every betting action, a showdown with a show and a muck; a top-up,
    # an adjustment and a seat taken during the hand, each for after it.
    await hana.ok("resume")
    await t.dealt(1)
    await hana.ok("pause")  # after this hand
    await t.act("call")
    player, turn = await t.turn()
    other = next(p for p in t.players.values() if p is not player)
    await other.refused("not_your_turn", "act", hand=t.hand, counter=turn["counter"],
                        action="fold")  # fmt: skip
    await t.answer(player, turn, "raise", "pot")
    await t.act("fold")
    await t.act("call")
    await t.act("call")
    await ari.ok("top_up", amount=20)
    await hana.ok("adjust", seat=3, amount=-5, reason="pizza")
    assert (await di.ok("sit", seat=4, buy_in=50, post=True))["status"] == "requested"
    await hana.ok("approve", player_id=di.player_id)
    t.players[4] = di
    await flop_and_on(t)
    await t.play_out()

    # Between hands: host handover, sitting out and the switches, stakes, a bomb pot next,
    # the seed rotated (and revealed).
    await hana.ok("transfer_host", player_id=ari.player_id)
    await hana.refused("not_host", "resume")
    await ari.ok("transfer_host", player_id=hana.player_id)
    await ari.ok("sit_out")
    await bo.ok("sit_out_next", on=True)
    await cy.ok("sit_out_next_bb", on=True)
    await hana.ok("set_stakes", small_blind=2, big_blind=4)
    await hana.ok("bomb_pot_next", on=True)
    await hana.ok("rotate_seed")
    await hana.ok("resume")
    await t.dealt(2)
    await hana.ok("pause")
    await flop_and_on(t)
    await t.play_out()

    # Hand 3: everyone back, all in pre-flop, side pots, run it twice.
    await ari.ok("sit_in", post=False)
    await bo.ok("sit_out_next", on=False)
    await bo.ok("sit_in")
    await cy.ok("sit_out_next_bb", on=False)
    await cy.ok("sit_in", post=True)
    await hana.ok("resume")
    await t.dealt(3)
    await hana.ok("pause")
    while True:
        public = await t.next()
        if public["type"] == "hand_ended" or public["phase"] != "betting":
            t.held = public
            break
        t.held = public
        player, turn = await t.turn()
        actions = turn["legal"]["actions"]
        if "raise" in actions:
            await t.answer(player, turn, "raise", "max")
        else:
            await t.answer(player, turn, "call" if "call" in actions else "check")
    await t.play_out(agree={0: True, 1: True, 2: False, 3: True, 4: True})
    for seat, player in t.players.items():
        seats = [m for m in hana.got if m["type"] == "seat" and m["seat"] == seat]
        if seats and seats[-1]["stack"] == 0:
            await player.ok("top_up", amount=100)

    # Hand 4: a reconnect with `since`, a leave and a removal mid-hand, folds to one player,
    # who shows after the hand.
    await bo.disconnect()
    await hana.ok("chat", text="Bo stepped out")
    await hana.ok("resume")
    await t.dealt(4)
    await hana.ok("pause")
    await bo.connect(t.code, resume=True)
    await ari.ok("leave")
    await hana.ok("remove", seat=4)
    while True:
        public = await t.next()
        if public["type"] == "hand_ended":
            break
        if public["seat"] in (1, 4):
            continue  # folded by the table: they are leaving
        t.held = public
        player, turn = await t.turn()
        await t.answer(player, turn, "fold")
        await player.refused("duplicate", "act", hand=t.hand, counter=turn["counter"],
                             action="fold")  # fmt: skip
    winner = next(p for p in t.players.values()
                  if any(m["type"] == "hand_ended" and m.get("can_show") and m["hand"] == t.hand
                         for m in p.got))  # fmt: skip
    await winner.ok("show", hand=t.hand)
    await cy.ok("leave")
    await bo.disconnect()
    await bo.connect(t.code)  # no resume point: a snapshot
    ledger = await settled_ledger(hana, t.code)
    await hana.ok("close")
    if advance is not None:
        advance(0.1)  # the sockets close a moment after the answer
    for p in people.values():
        await p.wait(lambda m: m["type"] == "closed")
        await p.disconnect()
    return ledger


async def flop_and_on(t: Table) -> None:
    """After the pre-flop: a check, a bet and a raise (then `play_out`)."""
    await t.act("check")
    await t.act("bet", "min")
    await t.act("raise", "min")


async def clock_table(people: dict[str, Player], advance: Advance | None) -> None:
    """The clock: a decision time of 1 s and a bank of 0.5 s; nobody acts but one."""
    hana, ari, bo = people["Hana"], people["Ari"], people["Bo"]
    r = await hana.http.post("/api/tables", json={
        "name": "Clocked", "seats": 3, "decision_time": 1.0, "time_bank": 0.5,
    })  # fmt: skip
    assert r.status_code == 201, r.text
    code = r.json()["code"]
    t = Table(code, hana, {0: hana, 1: ari, 2: bo})
    await hana.connect(code)
    await hana.ok("pause")
    for seat, p in t.players.items():
        if p is not hana:
            await p.connect(code)
        await p.ok("sit", seat=seat, buy_in=100)

    async def time_out(turn: Message) -> Message:
        """The clock runs out: the next `turn` (the same player's in the time bank, or the
        next player's) or the hand's end."""
        if advance is not None:
            advance(turn["timeout"])
        return await t.next()

    # Not paused during its hands: the host's pause would stop their clock. The next hand is
    # dealt `between_hands` after one ends (`next_deal`).
    await hana.ok("resume")
    await t.dealt(1)
    turn = await t.next()
    banked = await time_out(turn)  # the decision time runs out: the bank runs
    assert banked["in_time_bank"] and banked["counter"] == turn["counter"], banked
    t.held = await time_out(banked)  # and runs out: folded
    player, turn = await t.turn()
    await player.ok("more_time")  # the bank starts at once
    banked = await t.next()
    assert banked["in_time_bank"] and banked["counter"] == turn["counter"], banked
    await player.refused("in_time_bank", "more_time")
    ended = await time_out(banked)
    assert ended["type"] == "hand_ended", ended

    await next_deal(hana, advance)  # hand 2: a call, then the clock checks, folds and shows down
    await t.dealt(2)
    player, turn = await t.turn()
    await t.answer(player, turn, "call")
    public = await t.next()
    while public["type"] != "hand_ended":
        public = await time_out(public)
    marks = {p: len(p.got) for p in (hana, ari, bo)}
    await hana.ok("close")
    if advance is not None:
        advance(0.1)
    for p, mark in marks.items():
        await p.wait(lambda m: m["type"] == "closed", mark)


async def next_deal(host: Player, advance: Advance | None) -> None:
    """A hand just ended at a table that is not paused: its next deal comes `between_hands`
    (2 s) later. The host's `resume` (nothing to resume) is answered once the table has
    settled the hand and armed that deal, then the fake clock is moved on to it."""
    await host.ok("resume")
    if advance is not None:
        advance(BETWEEN_HANDS)


HEX = re.compile(r"^[0-9a-f]{16,}$")
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def normalise(recording: dict[str, list[Message]]) -> dict[str, list[Message]]:
    """Random values become `<id N>` / `<hex N>` in order of first appearance; times that
    depend on the wall clock (a snapshot's `timeout`) become `<time>`."""
    names: dict[str, str] = {}

    def value(v: Any, key: str | None, parent: str | None) -> Any:
        if isinstance(v, dict):
            return {k: value(x, k, key) for k, x in v.items()}
        if isinstance(v, list):
            return [value(x, None, key) for x in v]
        if isinstance(v, str) and (UUID.match(v) or HEX.match(v)):
            kind = "id" if UUID.match(v) else "hex"
            return names.setdefault(v, f"<{kind} {len(names) + 1}>")
        if key == "timeout" and parent == "hand" and isinstance(v, float):
            return "<time>"
        return v

    return {who: [value(m, None, None) for m in got] for who, got in recording.items()}


async def record(settings: Settings, advance_clock: Any = None) -> dict[str, list[Message]]:
    """Run the evening on a live server; `advance_clock(app)` may give a fake clock's
    `advance` (installed in the app's tables), else the tables run on real time."""
    app = create_app(settings)
    async with live_server(settings, app) as base:
        registry = app.state.tables
        registry.deck_source = decks(24)
        advance = advance_clock(app) if advance_clock is not None else None
        return normalise(await evening(base, advance))


def canonical(recording: dict[str, list[Message]]) -> dict[str, dict[str, list[Message]]]:
    """Each connection's numbered messages in order, and apart from them the rest (replies,
    snapshots) in order: where a reply falls among the events of other commands depends on
    when the socket's reader ran, not on the table."""
    out: dict[str, dict[str, list[Message]]] = {}
    for who, got in recording.items():
        out[who] = {
            "events": [m for m in got if "seq" in m and m["type"] != "snapshot"],
            "others": [m for m in got if "seq" not in m or m["type"] == "snapshot"],
        }
    return out


def settings_for(tmp: Path) -> Settings:
    return Settings(
        data_dir=tmp / "data",
        database_url=f"sqlite+aiosqlite:///{tmp}/omaha.sqlite3",
        redis_url=None,
        secret_key=SecretStr("x" * 40),
        between_hands=BETWEEN_HANDS,
        away_grace=60.0,
    )


if __name__ == "__main__":  # record on this commit: python -m tests.tables.session OUT.json
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        result = asyncio.run(record(settings_for(Path(tmp))))
    Path(sys.argv[1]).write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
