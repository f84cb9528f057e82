"""What the tournament pages read (issue 27): the preview of a new tournament's settings,
practice bots the host adds, hand-for-hand play in the state and every table's clock, the
viewer's place and prize, and a finished tournament read from the database after a restart."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from fastapi import FastAPI

from app.config import Settings
from app.tournaments import reading
from tests.api.test_tournament_limits import server
from tests.api.test_tournaments import join, use

FAST = [{"small_blind": sb, "big_blind": 2 * sb, "minutes": 0.002}
        for sb in (50, 200, 800, 3200, 12_800)]  # fmt: skip


async def test_the_preview_shows_the_schedule_and_the_prizes(client: httpx.AsyncClient) -> None:
    await join(client, "Host")
    body = {"structure": "turbo", "starting_stack": 1500, "level_minutes": 2,
            "break_every": 2, "break_minutes": 5, "expected_players": 9, "prize_pool": 90,
            "late_registration_level": 3}  # fmt: skip
    r = await client.post("/api/tournaments/preview", json=body)
    assert r.status_code == 200, r.text
    preview = r.json()
    levels, breaks = preview["levels"], preview["breaks"]
    assert [lv["minutes"] for lv in levels] == [2] * len(levels)  # every level's length
    assert [lv["starts"] for lv in levels[:4]] == [0, 2, 9, 11]  # a break after the second
    assert breaks[0] == {"after": 2, "minutes": 5, "starts": 4}
    assert preview["late_registration_until"] == 11  # the end of level 3
    assert sum(preview["payouts"]) == 90 and preview["places_paid"] == len(preview["payouts"])
    bad = await client.post("/api/tournaments/preview", json={"payouts": [6000, 3000]})
    assert bad.status_code == 422 and bad.json()["detail"]["code"] == "bad_config"
    client.cookies.clear()
    assert (await client.post("/api/tournaments/preview", json={})).status_code == 401


async def test_the_state_as_the_pages_read_it(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with server(settings) as client:
        host = await join(client, "Host")
        body = {"name": "Pages", "starting_stack": 1000, "structure": "custom", "levels": FAST,
                "payouts": [7000, 3000], "prize_pool": 100, "decision_time": 0.01,
                "time_bank": 0, "seats": 2}  # fmt: skip
        code = (await client.post("/api/tournaments", json=body)).json()["code"]
        alice = await join(client, "Alice")
        assert (await client.post(f"/api/tournaments/{code}/register")).status_code == 200
        assert (await client.post(f"/api/tournaments/{code}/add_bot")).status_code == 403
        use(client, host)
        bot = (await client.post(f"/api/tournaments/{code}/add_bot")).json()
        state = (await client.get(f"/api/tournaments/{code}")).json()
        registered = [(r["name"], r["bot"]) for r in state["registered"]]
        assert registered == [("Alice", False), ("Bot 1", True)]
        assert bot["player_id"] == state["registered"][1]["player_id"]
        assert state["you"] is None and state["hand_for_hand"] is False and state["seats"] == 2
        assert (await client.post(f"/api/tournaments/{code}/start")).status_code == 200
        use(client, alice)
        state = (await client.get(f"/api/tournaments/{code}")).json()
        table = state["your_table"]
        assert state["you"] == {"place": None, "prize": 0, "entries": 1}
        assert state["your_table_name"] == "Pages 1" and state["tables"][0]["code"] == table
        # Hand for hand (the director's, at the bubble): in the state and on every table.
        app: FastAPI = client._transport.app  # type: ignore[attr-defined]
        director = app.state.tournaments.get(code)
        monkeypatch.setattr(reading, "hand_for_hand", lambda t: t is director)
        assert (await client.get(f"/api/tournaments/{code}")).json()["hand_for_hand"] is True
        clock = (await client.get(f"/api/tournaments/table/{table}")).json()
        assert clock["hand_for_hand"] is True and clock["code"] == code
        for _ in range(600):  # the clock plays it out: nobody connects
            r = await client.get(f"/api/tournaments/{code}")
            assert r.status_code == 200, r.text
            state = r.json()
            if state["status"] == "finished":
                break
            await asyncio.sleep(0.05)
        assert state["status"] == "finished"
        clock = (await client.get(f"/api/tournaments/table/{table}")).json()
        mine = next(r for r in clock["standings"] if r["name"] == "Alice")
        assert clock["status"] == "finished"  # the table closed: its page still reads the end
        assert clock["you"] == {"place": mine["place"], "prize": mine["prize"], "entries": 1}
        for _ in range(600):  # its results stored, the director's task over
            if code in app.state.tournaments.finished:
                break
            await asyncio.sleep(0.05)
    # Another start of the server: the finished tournament is read from the database.
    async with server(settings) as client:
        state = (await client.get(f"/api/tournaments/{code}")).json()
        assert state["status"] == "finished" and len(state["standings"]) == 2
        assert sum(r["prize"] for r in state["standings"]) == 100
