"""Review's REST on both databases, over hands stored through the real write path: "My
hands" with its filters, a hand by its number at its table, statistics, the session graph,
each street's equity (off the loop, stored), and the closed tables."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import select, update

from app.history.equity import SPECTATOR, answer
from app.history.record import build, luck
from app.history.stats import facts, totals
from app.poker import card_str
from app.poker.events import Acted, ForcedBet
from app.store.history import HistoryStore
from app.store.models import HandRow, TableRow, TournamentEntryRow, TournamentRow
from app.store.review import ReviewStore
from tests.api.test_history import AT_TABLE, HANDS, evening, join, pages, server
from tests.history.test_privacy import allowed
from tests.tables.harness import Recorder, cards_in
from tests.tables.test_watching import deal, finish
from tests.waits import within

PRIVATE = "private, no-store"


async def equity_of(client: httpx.AsyncClient, number: int, **params: str) -> dict[str, Any]:
    """Asks until the equity is ready (the worker computes it once; `pending` meanwhile)."""
    for _ in range(2000):
        r = await client.get(f"/api/hands/{number}/equity", params=params)
        assert r.headers["cache-control"] == PRIVATE
        if r.status_code == 200:
            return dict(r.json())
        assert r.status_code == 202, r.text  # pending (or busy): never a 503 for a race
        await asyncio.sleep(0.05)
    raise AssertionError("the equity never came")


async def test_my_hands_statistics_graph_and_equity(database_url: str, tmp_path: Path) -> None:
    async with server(tmp_path, database_url) as (http, app):
        e = await evening(app)
        host, stranger, players = e.host[0], e.stranger[0], e.players
        ids = [pid for _, pid in players]
        code, table_id, played = e.code, e.table_id, e.played
        history = HistoryStore(app.state.sessions)
        numbers = sorted(h.number for h in await history.table_hands(table_id, limit=100))
        by_number = dict(zip(numbers, played, strict=True))

        # My hands: Ann's own, newest first, with her cards, the boards and her net.
        ann, ann_id = players[0]
        first = await ann.get("/api/hands", params={"limit": 5})
        assert first.headers["cache-control"] == PRIVATE
        mine = await pages(ann, "/api/hands", limit=5)
        dealt = [n for n in reversed(numbers) if ann_id in by_number[n].players]
        assert [h["number"] for h in mine] == dealt
        for row in mine:
            hand = by_number[row["number"]]
            p = hand.players.index(ann_id)
            state = hand.state
            assert row["cards"] == [card_str(c) for c in state.hole[p]]
            boards = [[[card_str(c) for c in b] for b in run] for run in state.boards]
            assert row["boards"] == boards
            assert row["net"] == state.stacks[p] - state.setup.stacks[p]
            assert row["hand_at_table"] == hand.number and row["code"] == code
            assert not row["watched"] and row["position"]
        # The host was dealt in none: every hand of the table, watched, without cards.
        hosted = await pages(host, "/api/hands", limit=10)
        assert [h["number"] for h in hosted] == list(reversed(numbers))
        assert all(h["watched"] and h["cards"] is None and h["net"] is None for h in hosted)
        assert await pages(stranger, "/api/hands") == []

        # Filters.
        async def only(**params: str | int) -> list[int]:
            return [h["number"] for h in await pages(ann, "/api/hands", **params)]

        won = [n for n in dealt if (lambda h, p: h.state.stacks[p] > h.state.setup.stacks[p])(
            by_number[n], by_number[n].players.index(ann_id))]  # fmt: skip
        assert await only(result="won") == won and won
        assert set(await only(result="lost")).isdisjoint(won)
        showdowns = [
            n for n in dealt
            if sum(not f for f in by_number[n].state.folded) > 1
            and not by_number[n].state.folded[by_number[n].players.index(ann_id)]
        ]  # fmt: skip
        assert await only(result="showdown") == showdowns

        # All-in: the player's stack went in whole, by a blind or an action (the engine's log).
        def went_all_in(hand: Any, p: int) -> bool:
            return any(
                isinstance(e, ForcedBet | Acted) and e.player == p and e.all_in
                for e in hand.state.log
            )

        all_ins = [
            n for n in dealt if went_all_in(by_number[n], by_number[n].players.index(ann_id))
        ]
        assert await only(result="all-in") == all_ins and all_ins, all_ins
        seat = mine[0]["position"]
        assert await only(position=seat) == [r["number"] for r in mine if r["position"] == seat]
        assert await only(number=AT_TABLE + 3) == [n for n in dealt if by_number[n].number
                                                   == AT_TABLE + 3]  # fmt: skip
        assert await only(table=code) == dealt
        game = by_number[dealt[0]].state.config.game.key
        assert await only(game=game) == [
            n for n in dealt if by_number[n].state.config.game.key == game
        ]
        today = datetime.now(UTC).date()
        assert await only(since=str(today)) == dealt
        assert await only(until=str(today - timedelta(days=1))) == []
        assert [h["number"] for h in await pages(host, "/api/hands", result="won")] == []
        for bad in ({"position": "DEALER"}, {"result": "tied"}, {"since": "yesterday"},
                    {"table": "nope"}, {"number": 0}):  # fmt: skip
            r = await ann.get("/api/hands", params=bad)
            assert r.status_code in (404, 422) and r.json()["detail"]["code"], bad

        # A hand by the number players say: its table's code and its number there.
        n = numbers[4]
        at = await stranger.get(f"/api/tables/{code}/hands/{AT_TABLE + 5}")
        assert at.status_code == 200 and at.json()["number"] == n
        assert at.json()["hand_at_table"] == AT_TABLE + 5
        assert (await stranger.get(f"/api/tables/{code}/hands/{AT_TABLE + 999}")).status_code == 404

        # Statistics of the session, from the spectator's records (no unshown card).
        stats = (await stranger.get(f"/api/tables/{code}/stats")).json()
        spectator = [build(s, None, equity=False) for s in await history.hands(numbers)]
        rows = []
        for stored, record in zip(await history.hands(numbers), spectator, strict=True):
            for f in facts(record):
                rows.append({**f.__dict__, "player_id": stored.record["players"][
                    [s["seat"] for s in record["seats"]].index(f.seat)], "game": record["game"],
                    "luck": None})  # fmt: skip
        expected = totals(rows)
        assert {p["player_id"] for p in stats["players"]} == set(ids)
        for line in stats["players"]:
            want = expected[line["player_id"]]["all"]
            assert line["all"]["hands"] == want["hands"]
            for key in ("vpip", "pfr", "three_bet", "cbet", "wtsd", "wsd", "aggression", "net"):
                assert line["all"][key] == want[key], key
            assert line["all"]["net"] == sum(
                h.state.stacks[h.players.index(line["player_id"])]
                - h.state.setup.stacks[h.players.index(line["player_id"])]
                for h in played if line["player_id"] in h.players
            )  # fmt: skip
            assert set(line["games"]) <= {h.state.config.game.key for h in played}
        # A player's page, seen by Ben: the hands Ben was dealt in, no others.
        ben, ben_id = players[1]
        page = (await ben.get(f"/api/players/{ann_id}/stats")).json()
        both = [h for h in played if ann_id in h.players and ben_id in h.players]
        assert page["name"] == "Ann" and page["all"]["hands"] == len(both)
        assert (await ben.get(f"/api/players/{uuid.uuid4()}/stats")).status_code == 404
        host_view = (await host.get(f"/api/players/{ann_id}/stats")).json()
        assert host_view["all"]["hands"] == len([h for h in played if ann_id in h.players])

        # The session graph: each player's running net, ending on their net.
        graph = (await stranger.get(f"/api/tables/{code}/graph")).json()
        assert graph["hands"] == HANDS
        for line in graph["players"]:
            pid = line["player_id"]
            net = next(p["all"]["net"] for p in stats["players"] if p["player_id"] == pid)
            assert line["points"][-1]["net"] == net
            hands = [p["hand"] for p in line["points"]]
            assert hands == sorted(hands)
        # ... and the all-in adjusted line ends on the net plus each all-in's luck, the graph
        # alone having asked for it (computed in the background: asked again until it is).
        luck_by_player: dict[str, float] = {}
        for stored in await history.hands(numbers):
            for pid, value in luck(stored).items():
                luck_by_player[pid] = luck_by_player.get(pid, 0.0) + value
        # an all-in's luck among them
        assert any(abs(v) >= 0.01 for v in luck_by_player.values()), luck_by_player

        async def adjusted() -> bool:
            graph = (await stranger.get(f"/api/tables/{code}/graph")).json()
            return all(
                abs(last["adjusted"] - last["net"] - luck_by_player.get(line["player_id"], 0.0))
                < 0.02
                for line in graph["players"]
                for last in line["points"][-1:]
            )

        await within(adjusted, 120, 0.1, "the graph's adjusted line")

        # Equity: computed once off the loop, stored, the same answer each time.
        for number, hand in by_number.items():
            if ann_id not in hand.players or hand.state.complete is False:
                continue
            got = await equity_of(ann, number)
            p = hand.players.index(ann_id)
            seen = {hand.seats[q] for q in range(hand.state.n) if hand.state.shown[q]}
            for street in got["streets"]:
                assert {x["seat"] for x in street["players"]} <= seen | {hand.seats[p]}
            assert got == await equity_of(ann, number)
            stored = await app.state.review.equity(number)
            assert ann_id in stored["viewers"]
            spectator_view = await equity_of(stranger, number, code=code)
            for street in spectator_view["streets"]:
                assert {x["seat"] for x in street["players"]} <= seen
            cards = {c for s in got["streets"] for b in s["boards"] for board in b for c in board}
            assert {c for c in cards if len(c) == 2} <= allowed(hand.state, p)
            break
        assert (await stranger.get(f"/api/hands/{numbers[0]}/equity")).status_code == 404

        # The past: a closed table the viewer played at, with its code for the exports.
        async with app.state.sessions.begin() as s:
            await s.execute(
                update(TableRow)
                .where(TableRow.id == uuid.UUID(table_id))
                .values(closed_at=datetime.now(UTC))
            )
        past = (await ann.get("/api/me/past")).json()
        assert [t["code"] for t in past["tables"]] == [code]
        assert (await stranger.get("/api/me/past")).json()["tables"] == []
        assert (await http.get("/api/me/past")).status_code == 401
        # A finished tournament Ann entered twice (her last entry's place and prize count),
        # hosted by the host, whose table is this one; one still running is not past.
        ben_pid = uuid.UUID(players[1][1])
        async with app.state.sessions.begin() as s:
            done, running = uuid.uuid4(), uuid.uuid4()
            for tid, code_t, finished in ((done, "T-DONE", True), (running, "T-ON", False)):
                s.add(
                    TournamentRow(
                        id=tid, code=code_t, host_id=uuid.UUID(e.host[1]), status="finished",
                        settings={"name": f"Sunday {code_t}"},
                        tables=[table_id] if finished else [str(uuid.uuid4())],
                        finished_at=datetime.now(UTC) if finished else None,
                    )
                )  # fmt: skip
            await s.flush()
            for tid in (done, running):
                for number, place, prize in ((1, 5, 0), (2, 2, 30)):
                    s.add(
                        TournamentEntryRow(
                            tournament_id=tid, player_id=uuid.UUID(ann_id), name="Ann",
                            number=number, place=place, prize=prize,
                        )
                    )  # fmt: skip
            s.add(TournamentEntryRow(tournament_id=done, player_id=ben_pid, name="Ben", place=1))
        past = (await ann.get("/api/me/past")).json()
        assert [
            (t["code"], t["name"], t["place"], t["prize"], t["tables"]) for t in past["tournaments"]
        ] == [("T-DONE", "Sunday T-DONE", 2, 30, [{"code": code, "name": "Friday"}])]
        assert past["tables"] == []  # listed with its tournament, not twice
        hosted = (await host.get("/api/me/past")).json()["tournaments"]
        assert [(t["code"], t["place"], t["prize"]) for t in hosted] == [("T-DONE", None, 0)]
        assert (await stranger.get("/api/me/past")).json()["tournaments"] == []
        # The table's ledger is the tournament's standings (each entry's place and prize, a
        # re-entry's too), with no settle-up: its chips are nobody's money.
        ledger = (await ann.get(f"/api/tables/{code}/ledger")).json()
        played = ledger["tournament"]
        assert (played["code"], played["name"], played["status"]) == (
            "T-DONE", "Sunday T-DONE", "finished"
        )  # fmt: skip
        assert [(r["place"], r["name"], r["prize"]) for r in played["standings"]] == [
            (1, "Ben", 0), (2, "Ann", 30), (5, "Ann", 0)
        ]  # fmt: skip
        assert ledger["payments"] == [] and ledger["unsettled"] == [] and ledger["bots_net"] == 0
        csv = (await ann.get(f"/api/tables/{code}/ledger.csv")).text
        assert csv.splitlines()[:3] == [
            "place,player,bot,prize,chips", "1,Ben,False,0,", "2,Ann,False,30,"
        ], csv  # fmt: skip
        assert "pays" not in csv and "not_settled" not in csv
        await e.close()


async def test_my_hands_lists_the_hands_a_spectator_watched_as_a_spectator_saw_them(
    database_url: str, tmp_path: Path
) -> None:
    async with server(tmp_path, database_url) as (_, app):
        e = await evening(app)
        (stranger, stranger_id), (ann, ann_id) = e.stranger, e.players[0]
        history = HistoryStore(app.state.sessions)
        numbers = sorted(h.number for h in await history.table_hands(e.table_id, limit=100))
        by_number = dict(zip(numbers, e.played, strict=True))
        assert await pages(stranger, "/api/hands") == []
        # The stranger watched the table's hands 3 to 6 and 10 (as the table notes them), Ann
        # watched hand 2 (which she was dealt in, or not).
        store = app.state.table_store
        await store.note_watching(e.table_id, [(stranger_id, AT_TABLE + 3, AT_TABLE + 6),
                                               (stranger_id, AT_TABLE + 10, AT_TABLE + 10),
                                               (ann_id, AT_TABLE + 2, AT_TABLE + 2)])  # fmt: skip
        watched = await pages(stranger, "/api/hands", limit=2)
        at_table = [AT_TABLE + 10, AT_TABLE + 6, AT_TABLE + 5, AT_TABLE + 4, AT_TABLE + 3]
        assert [h["hand_at_table"] for h in watched] == at_table
        for row in watched:
            hand = by_number[row["number"]]
            assert row["watched"] and row["code"] == e.code
            # Only what a spectator saw: no hole cards, no net, the boards as dealt.
            assert row["cards"] is None and row["net"] is None and row["position"] is None
            assert cards_in(row) <= allowed(hand.state, None), row
            # The row's link opens the hand as a spectator sees it: never a folded card.
            r = await stranger.get(f"/api/tables/{e.code}/hands/{row['hand_at_table']}")
            assert r.status_code == 200 and r.json()["number"] == row["number"]
            assert cards_in(r.json()) <= allowed(hand.state, None)
        # Hidden cards there were to hide in these hands (the check above meant something).
        assert any(
            {card_str(c) for h in state.hole for c in h} - allowed(state, None)
            for state in (by_number[row["number"]].state for row in watched)
        )
        # Narrowed like every hand; a filter on what the viewer did matches none of them.
        only = await pages(stranger, "/api/hands", number=AT_TABLE + 4)
        assert [h["hand_at_table"] for h in only] == [AT_TABLE + 4]
        assert await pages(stranger, "/api/hands", result="lost") == []
        # A hand Ann was dealt in is listed once, as played, never as watched too.
        second = by_number[numbers[1]]
        listed = await pages(ann, "/api/hands")
        mine = {h["number"]: h for h in listed}
        assert len(mine) == len(listed)
        if ann_id in second.players:
            assert not mine[numbers[1]]["watched"]
        else:
            assert mine[numbers[1]]["watched"] and mine[numbers[1]]["cards"] is None
        await e.close()


async def test_an_all_in_hand_s_equities_are_stored_as_it_ends(
    database_url: str, tmp_path: Path
) -> None:
    """Every viewer's equities, the all-in equity and the luck are computed in the worker
    as the hand ends (the table tells: `Table.on_all_in`), before anyone asks."""
    async with server(tmp_path, database_url) as (_, app):
        (host, host_id), (ann, ann_id), (ben, ben_id) = [
            await join(app, name) for name in ("Host", "Ann", "Ben")
        ]
        config = {"name": "Shove", "seats": 2, "decision_time": 0, "betting": "no-limit"}
        r = await host.post("/api/tables", json=config)
        code, table_id = r.json()["code"], r.json()["id"]
        table = await app.state.tables.find(table_id)
        await table.request("pause", host_id)
        for seat, pid in enumerate((ann_id, ben_id)):
            await table.request("sit", pid, seat=seat, buy_in=200, name=f"p{seat}")
        await table.request("attach", ann_id, viewer=Recorder(ann_id))  # a hand is dealt
        await deal(table, host_id)
        hand = table.hand
        legal = hand.state.legal_actions()
        assert legal is not None and legal.raise_kind is not None
        for data in ({"action": str(legal.raise_kind), "amount": legal.max_to},
                     {"action": "call"}):  # fmt: skip
            actor = hand.players[hand.state.actor]
            await table.request("act", actor, hand=hand.id, counter=hand.counter, **data)
        await finish(table)
        history = HistoryStore(app.state.sessions)
        number = await history.serial_at(table_id, hand.number)
        assert number is not None
        review = ReviewStore(app.state.sessions)

        async def ready() -> bool:
            stored = await review.equity(number)
            return all(answer(stored, who) is not None for who in (ann_id, ben_id, SPECTATOR))

        await within(ready, 120, 0.05, "every viewer's equities stored")
        stored = await review.equity(number)
        assert stored is not None
        assert stored["all_in"] is not None and ann_id in stored["viewers"]
        async with app.state.sessions() as s:
            luck = await s.scalar(select(HandRow.luck).where(HandRow.serial == number))
        assert luck is not None and set(luck) <= {ann_id, ben_id}
        # Asked for, each viewer's answer is the stored one.
        for client, who, params in ((ann, ann_id, {}), (ben, ben_id, {}),
                                    (host, SPECTATOR, {"code": code})):  # fmt: skip
            r = await client.get(f"/api/hands/{number}/equity", params=params)
            assert r.status_code == 200 and r.json() == answer(stored, who)
        for client in (host, ann, ben):
            await client.aclose()
