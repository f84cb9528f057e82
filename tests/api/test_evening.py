"""The host's evening through the protocol, against a real uvicorn server: practice bots,
the ledger and settle-up, chat, a show after an uncontested win, a bomb pot called for the
next hand, the sit-out switches and "need more time"."""

from __future__ import annotations

import asyncio
import random
import uuid
from pathlib import Path
from typing import Any

from sqlalchemy import func, select

from app.config import Settings
from app.poker import HandState
from app.store.db import create_engine, session_factory
from app.store.models import ChatRow, HandActionRow, HandRow, LedgerEntry, Player
from app.tables.hand import action_from_json, setup_from_json
from app.tables.ledger import people_nets, settle_up
from tests.api.live import Client, bot, live_server
from tests.api.test_play import live_settings
from tests.sizes import sample
from tests.waits import within


def evening(tmp_path: Path, url: str, redis_url: str | None = None, **knobs: Any) -> Settings:
    base = live_settings(tmp_path, url, redis_url)
    # Bots that think for no time play faster than a person's connection may send: the test
    # players' own connections get a rate limit they cannot reach.
    return base.model_copy(update={"bot_think": 0.0, "ws_rate": 1000.0, "ws_burst": 1000, **knobs})


async def clients(base: str, *names: str) -> list[Client]:
    out = []
    for name in names:
        c = Client(base)
        await c.join(name)
        out.append(c)
    return out


#: a table maximum no stack reaches in the ledger test (its amounts are then never cut)
BIG_MAX = 10_000


async def ok(c: Client, **message: Any) -> dict[str, Any]:
    reply = await c.request(**message)
    assert reply["type"] == "ok", (message, reply)
    return reply


async def refused(c: Client, code: str, **message: Any) -> None:
    reply = await c.request(**message)
    assert reply["type"] == "error" and reply["code"] == code, (message, reply)


def started(c: Client) -> list[dict[str, Any]]:
    return [m for m in c.messages if m["type"] == "hand_started"]


def ended(c: Client) -> list[dict[str, Any]]:
    return [m for m in c.messages if m["type"] == "hand_ended"]


async def stored_hands(url: str, table_id: str) -> list[tuple[HandRow, list[HandActionRow]]]:
    engine = create_engine(url)
    try:
        async with session_factory(engine)() as s:
            hands = list(await s.scalars(select(HandRow).where(
                HandRow.table_id == uuid.UUID(table_id)).order_by(HandRow.number)))  # fmt: skip
            out = []
            for h in hands:
                actions = list(await s.scalars(select(HandActionRow).where(
                    HandActionRow.hand_id == h.id).order_by(HandActionRow.counter)))  # fmt: skip
                out.append((h, actions))
            return out
    finally:
        await engine.dispose()


def replay(row: HandRow, actions: list[HandActionRow]) -> HandState:
    return HandState.replay(setup_from_json(row.record["setup"]), row.deck, [
        action_from_json({"player": a.player, "kind": a.kind, "amount": a.amount,
                          "agree": a.agree}) for a in actions])  # fmt: skip


async def table_id_of(c: Client, code: str) -> str:
    return str((await c.http.get(f"/api/tables/{code}")).json()["table"]["id"])


# ----------------------------------------------------------------------------- bots
async def test_the_host_seats_a_bot_and_takes_it_out_and_it_is_marked_everywhere(
    tmp_path: Path, sqlite_url: str
) -> None:
    async with live_server(evening(tmp_path, sqlite_url)) as base:
        host, guest = await clients(base, "host", "guest")
        code = await host.create_table(decision_time=10, seats=4)
        for c in (host, guest):
            await c.connect(code)
        await ok(host, type="sit", seat=0, buy_in=200)
        await refused(guest, "not_host", type="add_bot", seat=1)
        await refused(host, "seat_taken", type="add_bot", seat=0)
        await refused(host, "bad_buy_in", type="add_bot", seat=1, buy_in=5)
        reply = await ok(host, type="add_bot", seat=1)
        assert reply["seat"] == 1 and reply["status"] == "seated"
        bot_id = reply["player_id"]
        record = await guest.wait_for(lambda m: m["type"] == "seat" and m["seat"] == 1)
        assert record["bot"] is True and record["name"].startswith("Bot")
        await ok(host, type="add_bot", seat=3, buy_in=100)
        await refused(host, "bot_cannot_host", type="transfer_host", player_id=bot_id)
        mark = len(host.messages)
        stop = asyncio.Event()
        me = asyncio.create_task(bot(host, random.Random(1), 10**6, stop, smart=True))
        await within(lambda: len(ended(guest)) >= 3)
        snapshot_seats = None
        watcher = (await clients(base, "watcher"))[0]
        await watcher.connect(code)
        snap = await watcher.wait_for(lambda m: m["type"] == "snapshot")
        snapshot_seats = snap["seats"]
        assert (
            snapshot_seats[1]["bot"] and snapshot_seats[3]["bot"] and not snapshot_seats[0]["bot"]
        )
        # Taken out: after the hand in play (if any), cashed out like anyone.
        await ok(host, type="remove", seat=1)
        left = await guest.wait_for(lambda m: m["type"] == "left" and m["seat"] == 1)
        assert left["player_id"] == bot_id
        await ok(host, type="pause")
        stop.set()
        await asyncio.gather(me, return_exceptions=True)
        ledger = (await guest.http.get(f"/api/tables/{code}/ledger")).json()
        lines = {line["player_id"]: line for line in ledger["players"]}
        assert lines[bot_id]["bot"] is True and lines[host.player_id]["bot"] is False
        assert lines[bot_id]["cash_out"] == left["cash_out"]
        table_id = await table_id_of(host, code)
        hands = await stored_hands(sqlite_url, table_id)
        assert len(hands) >= 3
        for row, _ in hands:  # the hand record names the positions bots played
            players = row.record["players"]
            bots = {players[p] for p in row.record["bots"]}
            assert bots == {p for p in players if p != host.player_id}
        engine = create_engine(sqlite_url)
        async with session_factory(engine)() as s:
            player = await s.get(Player, uuid.UUID(bot_id))
            assert player is not None and player.bot
        await engine.dispose()
        # The seat can take a bot again: the same bot player, one per seat.
        assert (await ok(host, type="add_bot", seat=1))["player_id"] == bot_id
        assert not [m for m in host.messages[mark:] if m["type"] == "error"]
        for c in (host, guest, watcher):
            await c.close()


GAMES: list[dict[str, Any]] = [
    {"game": "omaha", "run_it_twice": True, "straddle": True},
    {"game": "omaha-hi-lo", "betting": "fixed-limit"},
    {"game": "five-card-omaha", "betting": "no-limit", "ante": 1},
    {"game": "big-o", "boards": 2, "run_it_twice": True},
    {"game": "six-card-omaha", "bomb_pot_every": 3},
    {"game": "six-card-omaha-hi-lo", "betting": "no-limit"},
    {"game": "courchevel", "run_it_twice": True},
    {"game": "courchevel-hi-lo", "betting": "fixed-limit", "boards": 2},
]
#: hands of each game at least (every game at once, one table each): ten by default, and on
#: until every bot has acted and one has raised; twenty under OMAHA_FULL=1
HANDS = sample(10, 20)


def played_fully(human: Client) -> bool:
    """Every bot (seats 1-5) has acted, and one has bet or raised."""
    acted = {m["seat"] for m in human.messages if m["type"] == "acted"}
    raised = {m["seat"] for m in human.messages
              if m["type"] == "acted" and m["action"] in ("bet", "raise")}  # fmt: skip
    return set(range(1, 6)) <= acted and bool(raised & set(range(1, 6)))


async def one_human_five_bots(base: str, config: dict[str, Any], seed: int) -> dict[str, Any]:
    (human,) = await clients(base, f"human{seed}")
    code = await human.create_table(seats=6, decision_time=10, time_bank=30, **config)
    await human.connect(code)
    await ok(human, type="sit", seat=0, buy_in=200)
    for seat in range(1, 6):
        await ok(human, type="add_bot", seat=seat)
    stop = asyncio.Event()
    me = asyncio.create_task(bot(human, random.Random(seed), 10**6, stop, smart=True))
    try:
        # Ten hands at least, and on until every bot has acted and one has raised: the bots
        # draw their run-outs at random, and six-handed a bot raises only a strong share of the
        # pot (0.46), so ten hands of one game can pass with no bot raising (one run in about
        # twenty met that for one of the eight games).
        await within(lambda: len(ended(human)) >= HANDS and played_fully(human), seconds=240)
        await ok(human, type="pause")
        await within(lambda: len(ended(human)) == len(started(human)))
    finally:
        stop.set()
        await asyncio.gather(me, return_exceptions=True)
    ledger = (await human.http.get(f"/api/tables/{code}/ledger")).json()
    await human.close()
    return {"human": human, "ledger": ledger, "code": code}


async def test_one_human_and_five_bots_play_hands_of_every_game(
    tmp_path: Path, postgres_url: str, redis_url: str
) -> None:
    async with live_server(evening(tmp_path, postgres_url, redis_url)) as base:
        results = await asyncio.gather(
            *(one_human_five_bots(base, cfg, seed) for seed, cfg in enumerate(GAMES))
        )
    for cfg, result in zip(GAMES, results, strict=True):
        human: Client = result["human"]
        assert not [m for m in human.messages if m["type"] == "error"], cfg
        assert len(ended(human)) >= HANDS, cfg
        # Nobody ran out of decision time: a bot that did would have had its time bank started.
        assert not [m for m in human.messages if m["type"] == "turn" and m["in_time_bank"]], cfg
        acted = {m["seat"] for m in human.messages if m["type"] == "acted"}
        assert set(range(1, 6)) <= acted, cfg  # every bot played
        raised = {m["seat"] for m in human.messages
                  if m["type"] == "acted" and m["action"] in ("bet", "raise")}  # fmt: skip
        assert raised & set(range(1, 6)), cfg  # and not only passively
        totals = result["ledger"]["totals"]
        assert totals["chips_in"] == totals["on_table"] + totals["cashed_out"], cfg
        assert sum(line["net"] for line in result["ledger"]["players"]) == 0


# ---------------------------------------------------------------------------- ledger
async def test_the_ledger_and_settle_up_match_the_store_at_every_moment(
    tmp_path: Path, postgres_url: str, redis_url: str
) -> None:
    async with live_server(evening(tmp_path, postgres_url, redis_url)) as base:
        host, alice, bob, stranger = await clients(base, "host", "alice", "bob", "stranger")
        # The amounts below never depend on the cards: no stack can come near this maximum in
        # a dozen hands (570 chips plus at most 100 a bust), so a top-up of 40 is accepted and
        # applied whole, even one waiting for the end of a hand; and a positive adjustment is
        # never cut to what the stack holds, as a negative one would be.
        code = await host.create_table(decision_time=0, seats=4, buy_in_max=BIG_MAX)
        for c in (host, alice, bob):
            await c.connect(code)
        await ok(host, type="sit", seat=0, buy_in=200)
        await ok(alice, type="sit", seat=1, buy_in=150)
        await ok(bob, type="sit", seat=2, buy_in=100)
        await ok(host, type="add_bot", seat=3, buy_in=120)
        stop = asyncio.Event()
        players = [asyncio.create_task(bot(c, random.Random(i), 10**6, stop))
                   for i, c in enumerate((host, alice, bob))]  # fmt: skip
        readings = 0
        try:
            while len(ended(host)) < 6:
                # Read while hands are being played: the identity holds mid-hand too.
                r = await stranger.http.get(f"/api/tables/{code}/ledger")
                assert r.status_code == 200, r.text
                data = r.json()
                totals = data["totals"]
                assert totals["chips_in"] == totals["on_table"] + totals["cashed_out"], data
                assert sum(line["net"] for line in data["players"]) == 0
                readings += any(line["in_play"] for line in data["players"])
                await asyncio.sleep(0.01)
            await ok(alice, type="top_up", amount=40)
            # A reason is one line of at most 100 characters; refused, nothing changes.
            await refused(host, "bad_reason", type="adjust", seat=3, amount=-5, reason="a\nb")
            await refused(host, "bad_message", type="adjust", seat=3, amount=-5, reason="x" * 101)
            await ok(host, type="adjust", seat=3, amount=20, reason="=rebuy owed")
            await within(lambda: len(ended(host)) >= 9)
            await ok(bob, type="leave")
            await within(lambda: any(m["type"] == "left" and m["seat"] == 2 for m in host.messages))
            await within(lambda: len(ended(host)) >= 11)
        finally:
            stop.set()
            await asyncio.gather(*players, return_exceptions=True)
        assert readings >= 1  # read in the middle of a hand at least once
        r = await stranger.http.get(f"/api/tables/{code}/ledger")
        data = r.json()
        table_id = await table_id_of(host, code)
        engine = create_engine(postgres_url)
        async with session_factory(engine)() as s:
            rows = await s.execute(
                select(LedgerEntry.player_id, LedgerEntry.kind, func.sum(LedgerEntry.amount))
                .where(LedgerEntry.table_id == uuid.UUID(table_id))
                .group_by(LedgerEntry.player_id, LedgerEntry.kind)
            )
            stored = {(str(p), k): int(a) for p, k, a in rows}
        await engine.dispose()
        lines = {line["player_id"]: line for line in data["players"]}
        assert len(lines) == 4
        for (pid, kind), amount in stored.items():
            assert lines[pid][kind] == amount
        assert lines[alice.player_id]["top_up"] >= 40
        assert all(line["stack"] + line["in_play"] < BIG_MAX - 40 for line in lines.values())
        assert lines[bob.player_id]["cash_out"] == stored[bob.player_id, "cash_out"]
        assert not lines[bob.player_id]["seated"]
        bot_line = next(line for line in lines.values() if line["bot"])
        assert bot_line["adjustment"] == 20
        # The reason is kept with the ledger entry (a formula-like text stays text in CSV).
        assert data["adjustments"] == [
            {"player_id": bot_line["player_id"], "name": bot_line["name"], "amount": 20,
             "reason": "=rebuy owed"}
        ]  # fmt: skip
        totals = data["totals"]
        assert totals["chips_in"] == totals["on_table"] + totals["cashed_out"]
        nets = {pid: line["net"] for pid, line in lines.items()}
        assert sum(nets.values()) == 0
        payments = data["payments"]
        assert len(payments) <= len(nets) - 1
        bots = {pid for pid, line in lines.items() if line["bot"]}
        people, unsettled = people_nets(nets, bots)  # a practice bot is never paid
        assert len(payments) == len(settle_up(people))
        left = dict(people)
        for p in payments:
            left[p["payer"]] += p["amount"]
            left[p["payee"]] -= p["amount"]
            assert p["text"] == f"{lines[p['payer']]['name']} pays {lines[p['payee']]['name']} " \
                                f"{p['amount']}"  # fmt: skip
        assert set(left.values()) == {0}
        csv = await stranger.http.get(f"/api/tables/{code}/ledger.csv")
        assert csv.status_code == 200 and csv.headers["content-type"].startswith("text/csv")
        text_lines = csv.text.splitlines()
        assert text_lines[0].startswith("player_id,name,bot,seated,buy_in,top_up")
        not_settled = 2 + len(unsettled) if unsettled else 0  # a blank line, a header, the rows
        assert len(text_lines) == 1 + 4 + 1 + 1 + len(payments) + 1 + 1 + 1 + not_settled
        at = text_lines.index("adjusted,amount,reason")
        assert text_lines[at + 1] == f"{bot_line['name']},20,'=rebuy owed"
        anonymous = Client(base)
        assert (await anonymous.http.get(f"/api/tables/{code}/ledger")).status_code == 401
        assert (await stranger.http.get("/api/tables/nope/ledger")).status_code == 404
        for c in (host, alice, bob, stranger, anonymous):
            await c.close()


# ------------------------------------------------------------------------------ chat
async def test_chat_is_numbered_bounded_rate_limited_kept_and_spectators_can_be_muted(
    tmp_path: Path, sqlite_url: str
) -> None:
    async with live_server(evening(tmp_path, sqlite_url, chat_burst=3, chat_window=60)) as base:
        host, player, watcher = await clients(base, "host", "player", "watcher")
        code = await host.create_table(decision_time=0, seats=2)
        for c in (host, player, watcher):
            await c.connect(code)
        await ok(host, type="pause")
        await ok(player, type="sit", seat=1, buy_in=100)
        await ok(player, type="chat", text="  <script>alert(1)</script>  ")
        got = await host.wait_for(lambda m: m["type"] == "chat")
        assert got["text"] == "<script>alert(1)</script>"  # as text: the client renders text
        assert got["name"] == "player" and got["seat"] == 1 and got["seq"] > 0
        assert (await watcher.wait_for(lambda m: m["type"] == "chat"))["seq"] == got["seq"]
        await ok(watcher, type="chat", text="hello from the rail")
        w = await host.wait_for(lambda m: m["type"] == "chat" and m["seat"] is None)
        assert w["name"] == "watcher" and w["player_id"] == watcher.player_id
        await refused(player, "bad_message", type="chat", text="x" * 201)
        await refused(player, "bad_chat", type="chat", text="two\nlines")
        await refused(player, "bad_chat", type="chat", text="   ")
        # The host turns spectators' chat off: players still chat, watchers cannot.
        await refused(player, "not_host", type="spectator_chat", on=False)
        await ok(host, type="spectator_chat", on=False)
        await watcher.wait_for(
            lambda m: m["type"] == "table" and m["config"]["spectator_chat"] is False
        )
        await refused(watcher, "chat_off", type="chat", text="can I?")
        await ok(host, type="chat", text="house rules")
        # A flood: three messages a minute here, the fourth is refused and not sent.
        await ok(player, type="chat", text="two")
        await ok(player, type="chat", text="three")
        await refused(player, "rate_limited", type="chat", text="four")
        chats = [m["text"] for m in host.messages if m["type"] == "chat"]
        assert chats == ["<script>alert(1)</script>", "hello from the rail", "house rules",
                         "two", "three"]  # fmt: skip
        # Kept with the table: a new connection's snapshot has it, and so does the store.
        late = (await clients(base, "late"))[0]
        await late.connect(code)
        snap = await late.wait_for(lambda m: m["type"] == "snapshot")
        assert [c["text"] for c in snap["chat"]] == chats
        table_id = await table_id_of(host, code)
        engine = create_engine(sqlite_url)
        async with session_factory(engine)() as s:
            rows = list(await s.scalars(select(ChatRow.text).where(
                ChatRow.table_id == uuid.UUID(table_id)).order_by(ChatRow.id)))  # fmt: skip
        await engine.dispose()
        assert rows == chats
        for c in (host, player, watcher, late):
            await c.close()


async def test_chat_survives_a_restart(tmp_path: Path, sqlite_url: str) -> None:
    settings = evening(tmp_path, sqlite_url)
    async with live_server(settings) as base:
        (host,) = await clients(base, "host")
        code = await host.create_table(decision_time=0, seats=2)
        await host.connect(code)
        await ok(host, type="chat", text="before the restart")
        token = host.token
        await host.close()
    async with live_server(settings) as base:
        again = Client(base)
        again.token = token
        await again.connect(code)
        snap = await again.wait_for(lambda m: m["type"] == "snapshot")
        assert [c["text"] for c in snap["chat"]] == ["before the restart"]
        await again.close()


# ---------------------------------------------------------------- show after winning
async def test_the_winner_of_an_uncalled_pot_may_show_once_and_the_hand_keeps_it(
    tmp_path: Path, sqlite_url: str
) -> None:
    async with live_server(evening(tmp_path, sqlite_url)) as base:
        host, guest, watcher = await clients(base, "host", "guest", "watcher")
        code = await host.create_table(decision_time=0, seats=2)
        for c in (host, guest, watcher):
            await c.connect(code)
        await ok(host, type="sit", seat=0, buy_in=100)
        await ok(guest, type="sit", seat=1, buy_in=100)
        await ok(host, type="pause")  # after this hand: time to show before the next
        turn = await host.wait_for(lambda m: m["type"] == "turn")
        actor = host if turn["seat"] == 0 else guest
        winner = guest if actor is host else host
        mine = await actor.wait_for(lambda m: m["type"] == "turn" and "legal" in m)
        hand = mine["hand"]
        await refused(winner, "not_over", type="show", hand=hand)
        await ok(actor, type="act", hand=hand, counter=mine["counter"], action="fold")
        end_w = await winner.wait_for(lambda m: m["type"] == "hand_ended")
        end_l = await actor.wait_for(lambda m: m["type"] == "hand_ended")
        end_s = await watcher.wait_for(lambda m: m["type"] == "hand_ended")
        assert end_w.get("can_show") is True
        assert "can_show" not in end_l and "can_show" not in end_s
        await refused(actor, "hand_over", type="show", hand=hand)  # the folded hand: never
        dealt = await winner.wait_for(lambda m: m["type"] == "hole_cards" and "cards" in m)
        await ok(winner, type="show", hand=hand)
        shown = await watcher.wait_for(lambda m: m["type"] == "shown")
        assert shown["cards"] == dealt["cards"] and shown["hand"] == hand
        await refused(winner, "hand_over", type="show", hand=hand)  # once
        await refused(winner, "stale_hand", type="show", hand="not-a-hand")
        table_id = await table_id_of(host, code)
        ((row, actions),) = await stored_hands(sqlite_url, table_id)
        assert [a.kind for a in actions] == ["fold", "show"]
        state = replay(row, actions)
        winner_position = row.record["players"].index(winner.player_id)
        assert state.complete and state.shown[winner_position]
        for c in (host, guest, watcher):
            await c.close()


# ------------------------------------------------------------ bomb pot next, switches
async def test_a_bomb_pot_called_for_the_next_hand_is_dealt_once(
    tmp_path: Path, sqlite_url: str
) -> None:
    async with live_server(evening(tmp_path, sqlite_url)) as base:
        host, guest = await clients(base, "host", "guest")
        code = await host.create_table(decision_time=0, seats=2)
        for c in (host, guest):
            await c.connect(code)
        await ok(host, type="sit", seat=0, buy_in=100)
        await refused(guest, "not_host", type="bomb_pot_next")
        await ok(host, type="bomb_pot_next")
        record = await guest.wait_for(lambda m: m["type"] == "table")
        assert record["bomb_pot_next"] is True
        await ok(guest, type="sit", seat=1, buy_in=100)
        stop = asyncio.Event()
        players = [asyncio.create_task(bot(c, random.Random(i), 10**6, stop))
                   for i, c in enumerate((host, guest))]  # fmt: skip
        await within(lambda: len(ended(host)) >= 3)
        stop.set()
        await asyncio.gather(*players, return_exceptions=True)
        bombs = [m["bomb_pot"] for m in started(host)]
        assert bombs[:3] == [True, False, False]
        assert not [m for m in host.messages if m["type"] == "forced_bet"
                    and m["hand"] == started(host)[0]["hand"] and m["kind"] != "ante"]  # fmt: skip
        cleared = [m for m in host.messages if m["type"] == "table"][-1]
        assert cleared["bomb_pot_next"] is False
        for c in (host, guest):
            await c.close()


async def test_sit_out_next_hand_and_at_the_next_big_blind(tmp_path: Path, sqlite_url: str) -> None:
    async with live_server(evening(tmp_path, sqlite_url)) as base:
        a, b, c = await clients(base, "a", "b", "c")
        code = await a.create_table(decision_time=0, seats=3)
        for x in (a, b, c):
            await x.connect(code)
        await ok(a, type="pause")
        for seat, x in enumerate((a, b, c)):
            await ok(x, type="sit", seat=seat, buy_in=100)
        reply = await ok(b, type="sit_out_next_bb")
        assert reply["sit_out_next_bb"] is True
        await refused(c, "bad_message", type="sit_out_next_bb", on=1)
        await ok(a, type="resume")
        stop = asyncio.Event()
        players = [asyncio.create_task(bot(x, random.Random(i), 10**6, stop))
                   for i, x in enumerate((a, b, c))]  # fmt: skip
        try:
            await within(lambda: len(started(a)) >= 3)
            # Hand 1: button 0, blinds 1 and 2; hand 2: button 1, blinds 2 and 0; hand 3
            # would have b (seat 1) in the big blind: b sits out before it is dealt.
            hands = started(a)
            assert 1 in hands[0]["seats"] and 1 in hands[1]["seats"]
            assert 1 not in hands[2]["seats"]
            out = [m for m in a.messages if m["type"] == "seat" and m["seat"] == 1
                   and m["status"] == "sitting_out"]  # fmt: skip
            assert out and out[0]["sit_out_next_bb"] is False
            # "Sit out next hand": the current hand is played out, the next one is not dealt
            # to a (then only c is ready: no hand at all).
            await ok(a, type="sit_out_next")

            def sat_out(m: dict[str, Any]) -> bool:
                return bool(m["type"] == "seat" and m["seat"] == 0 and m["status"] == "sitting_out")

            await within(lambda: any(sat_out(m) for m in c.messages))
            # The step that sat a out (the next hand's planning) is the one that would have
            # dealt: a command handled after it is answered after all it sent.
            await ok(a, type="chat", text="still here")
            after = a.messages[next(i for i, m in enumerate(a.messages) if sat_out(m)) :]
            assert not [m for m in after if m["type"] == "hand_started"]
            assert len(started(a)) == len(ended(a))
        finally:
            stop.set()
            await asyncio.gather(*players, return_exceptions=True)
        for x in (a, b, c):
            await x.close()


async def test_need_more_time_starts_the_time_bank_at_once(tmp_path: Path, sqlite_url: str) -> None:
    async with live_server(evening(tmp_path, sqlite_url)) as base:
        host, guest = await clients(base, "host", "guest")
        code = await host.create_table(decision_time=30, time_bank=20, seats=2)
        for c in (host, guest):
            await c.connect(code)
        await ok(host, type="sit", seat=0, buy_in=100)
        await ok(guest, type="sit", seat=1, buy_in=100)
        turn = await host.wait_for(lambda m: m["type"] == "turn")
        assert turn["in_time_bank"] is False and turn["timeout"] == 30
        actor, other = (host, guest) if turn["seat"] == 0 else (guest, host)
        await refused(other, "not_your_turn", type="more_time")
        reply = await ok(actor, type="more_time")
        assert reply["time_bank"] == 20
        bank = await other.wait_for(lambda m: m["type"] == "turn" and m["in_time_bank"])
        assert bank["timeout"] == 20 and bank["counter"] == turn["counter"]
        await refused(actor, "in_time_bank", type="more_time")
        for c in (host, guest):
            await c.close()
