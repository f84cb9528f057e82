"""REST: a tournament created, registered for, started, read (clock, deal figures), played to
the end by the clock (nobody connects: everyone is blinded away) and its results as CSV."""

from __future__ import annotations

import asyncio
import csv
import io

import httpx
import pytest

from app.config import Settings

FAST = [{"small_blind": sb, "big_blind": 2 * sb, "minutes": 0.002}
        for sb in (50, 200, 800, 3200, 12_800)]  # fmt: skip


@pytest.fixture
def settings(settings: Settings) -> Settings:
    """The next hand is dealt at once (the default waits 2 s after each): the clock, not
    the pause between hands, is what ends the tournament."""
    return settings.model_copy(update={"between_hands": 0.0})


async def join(client: httpx.AsyncClient, name: str) -> dict[str, str]:
    client.cookies.clear()
    r = await client.post("/api/session", json={"name": name})
    assert r.status_code == 200
    return dict(client.cookies)


def use(client: httpx.AsyncClient, cookies: dict[str, str]) -> None:
    client.cookies.clear()
    client.cookies.update(cookies)


async def test_a_tournament_through_rest(client: httpx.AsyncClient) -> None:
    assert (await client.post("/api/tournaments", json={})).status_code == 401
    host = await join(client, "Host")
    for body in [
        {"structure": "custom"},  # no levels
        {"payouts": [6000, 3000]},  # not 100%
        {"game": "no-such-game"},
        {"seats": 11},
        {"structure": "custom", "levels": [{"small_blind": 30, "big_blind": 20}]},
        {"structure": "custom", "levels": FAST[:1], "addon_chips": 500, "addon_level": 2},
        {"addon_chips": -1},
    ]:
        r = await client.post("/api/tournaments", json=body)
        assert r.status_code == 422, body
        assert r.json()["detail"]["code"] in ("bad_config", "bad_request")
    body = {
        "name": "Friday",
        "starting_stack": 1000,
        "structure": "custom",
        "levels": FAST,
        "payouts": [7000, 3000],
        "prize_pool": 100,
        "decision_time": 0.01,
        "time_bank": 0,
    }
    r = await client.post("/api/tournaments", json=body)
    assert r.status_code == 201, r.text
    created = r.json()
    code = created["code"]
    assert created["clock_url"].endswith(f"/tournaments/{code}/clock")
    state = (await client.get(f"/api/tournaments/{code}")).json()
    assert state["status"] == "registering" and state["level"] == 1
    assert state["blinds"]["big_blind"] == 100 and state["next"]["big_blind"] == 400
    players = [await join(client, name) for name in ("Alice", "Bob", "Carol")]
    for cookies in players:
        use(client, cookies)
        r = await client.post(f"/api/tournaments/{code}/register")
        assert r.status_code == 200, r.text
    use(client, players[2])
    assert (await client.post(f"/api/tournaments/{code}/unregister")).status_code == 200
    again = await client.post(f"/api/tournaments/{code}/unregister")
    assert again.status_code == 409 and again.json()["detail"]["code"] == "not_registered"
    use(client, players[0])
    refused = await client.post(f"/api/tournaments/{code}/start")
    assert refused.status_code == 403 and refused.json()["detail"]["code"] == "not_host"
    use(client, host)
    assert (await client.post(f"/api/tournaments/{code}/start")).status_code == 200
    # A player still in is told their table; its page reads the clock by the table's code
    # (the tournament's code only for a player in it).
    use(client, players[0])
    seat_at = (await client.get(f"/api/tournaments/{code}")).json()["your_table"]
    clock = await client.get(f"/api/tournaments/table/{seat_at}")
    if clock.status_code == 200:  # (the fast clock may have ended it, and closed the table)
        assert clock.json()["code"] == code and clock.json()["your_table"] == seat_at
        assert {"level", "remaining", "blinds", "next", "players_left", "average_stack",
                "payouts"} <= set(clock.json())  # fmt: skip
        use(client, players[2])  # not in it: the clock, nothing else
        stranger = (await client.get(f"/api/tournaments/table/{seat_at}")).json()
        assert "code" not in stranger and "your_table" not in stranger
    use(client, players[2])
    assert (await client.get(f"/api/tournaments/{code}")).json()["your_table"] is None
    missing = await client.get("/api/tournaments/table/no-such-table")
    assert missing.status_code == 404 and missing.json()["detail"]["code"] == "no_such_tournament"
    late = await client.post(f"/api/tournaments/{code}/register")
    assert late.status_code == 409 and late.json()["detail"]["code"] == "registration_closed"
    figures = (await client.get(f"/api/tournaments/{code}/deal")).json()["players"]
    if figures:  # before the first bust: two players, the whole pool between them
        assert sum(f["chip_chop"] for f in figures) == 100
        assert sum(f["icm"] for f in figures) == 100
    for _ in range(600):
        state = (await client.get(f"/api/tournaments/{code}")).json()
        if state["status"] == "finished":
            break
        await asyncio.sleep(0.05)
    assert state["status"] == "finished", state
    assert [row["place"] for row in state["standings"]] == [1, 2]
    r = await client.get(f"/api/tournaments/{code}/results.csv")
    assert r.headers["content-type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(r.text)))
    assert rows[0] == ["place", "player", "prize"]
    assert sorted(rows[1:]) == sorted([["1", rows[1][1], "70"], ["2", rows[2][1], "30"]])
    assert {rows[1][1], rows[2][1]} == {"Alice", "Bob"}
    assert (await client.get("/api/tournaments/nope")).status_code == 404
    assert (await client.post(f"/api/tournaments/{code}/explode")).status_code in (401, 404)


async def test_a_full_field_refuses_a_registration_and_changes_nothing(
    client: httpx.AsyncClient,
) -> None:
    host = await join(client, "Host")
    r = await client.post("/api/tournaments", json={"name": "Small", "max_players": 2})
    assert r.status_code == 201, r.text
    code = r.json()["code"]
    for cookies in [host, await join(client, "Alice")]:
        use(client, cookies)
        assert (await client.post(f"/api/tournaments/{code}/register")).status_code == 200
    use(client, host)
    bot = await client.post(f"/api/tournaments/{code}/add_bot")
    assert bot.status_code == 409 and bot.json()["detail"]["code"] == "full"
    await join(client, "Bob")
    r = await client.post(f"/api/tournaments/{code}/register")
    assert r.status_code == 409 and r.json()["detail"]["code"] == "full"
    state = (await client.get(f"/api/tournaments/{code}")).json()
    assert state["entries"] == 2 and state["max_players"] == 2
    assert [p["name"] for p in state["registered"]] == ["Host", "Alice"]
