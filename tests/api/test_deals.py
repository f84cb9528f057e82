"""Verifiable deals end to end, against a real uvicorn server (SQLite and PostgreSQL): client
seeds over the WebSocket, the seed revealed when the host closes the table, the REST export,
and `python -m app verify-deals` on it: the recomputed decks equal the dealt (stored) ones,
and a deck changed in the store, or a tampered export, fails."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
import random
import uuid
from pathlib import Path
from typing import Any

from sqlalchemy import ScalarResult, select, text, update

from app.__main__ import main
from app.poker.fairness import deal_deck
from app.store.db import create_engine, session_factory
from app.store.models import HandRow
from tests.api.live import Client, bot, live_server
from tests.api.test_evening import clients, evening, ok, refused


async def export(c: Client, code: str, path: Path) -> dict[str, Any]:
    r = await c.http.get(f"/api/tables/{code}/deals.json")
    assert r.status_code == 200, r.text
    path.write_text(r.text)
    data: dict[str, Any] = r.json()
    return data


def by_hand(folder: Path) -> dict[int, str]:
    """docs/fairness.md's "Checking by hand", run as written on deals.json in `folder`."""
    doc = (Path(__file__).parents[2] / "docs" / "fairness.md").read_text(encoding="utf-8")
    section = doc.split("## Checking by hand")[1]
    code = "\n".join(part.split("```")[0] for part in section.split("```python\n")[1:])
    out = io.StringIO()
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        with contextlib.redirect_stdout(out):
            exec(code, {})
    finally:
        os.chdir(cwd)
    lines = [line.split() for line in out.getvalue().splitlines()[1:]]  # after the sample
    return {int(number): verdict for number, verdict in lines}


async def test_the_session_is_revealed_at_close_and_every_deck_is_recomputed(
    tmp_path: Path, database_url: str
) -> None:
    settings = evening(tmp_path, database_url)
    async with live_server(settings) as base:
        host, guest, watcher = await clients(base, "host", "guest", "watcher")
        code = await host.create_table(decision_time=0, seats=2, run_it_twice=True)
        for c in (host, guest, watcher):
            await c.connect(code)
        snap = await watcher.wait_for(lambda m: m["type"] == "snapshot")
        seed_hash = snap["table"]["deal_seed"]["seed_hash"]
        await refused(watcher, "not_seated", type="seed", seed="abc")
        await ok(host, type="sit", seat=0, buy_in=100)
        await refused(host, "bad_message", type="seed", seed="x" * 65)
        await refused(host, "bad_seed", type="seed", seed="new\nline")
        await ok(host, type="seed", seed="host's first seed")
        await ok(host, type="pause")  # the first deal waits for the guest's seed
        await ok(guest, type="sit", seat=1, buy_in=100)
        await ok(guest, type="seed", seed="guest-7")
        await ok(host, type="resume")
        stop = asyncio.Event()
        rng = random.Random(4)
        bots = [asyncio.create_task(bot(c, rng, 10**6, stop)) for c in (host, guest)]
        await guest.wait_for(lambda m: m["type"] == "hand_started" and m["number"] >= 6, 60)
        await ok(host, type="close")  # after the hand being played
        closed = await watcher.wait_for(lambda m: m["type"] == "closed", timeout=60)
        stop.set()
        await asyncio.gather(*bots)
        revealed = [m for m in watcher.messages if m["type"] == "seed_revealed"]
        assert len(revealed) == 1 and watcher.messages.index(revealed[0]) < watcher.messages.index(
            closed
        )
        assert revealed[0]["seed_hash"] == seed_hash
        started = {m["hand"]: m for m in guest.messages if m["type"] == "hand_started"}
        assert len(started) >= 6

        data = await export(watcher, code, tmp_path / "deals.json")
        (session,) = data["sessions"]
        assert session["seed"] == revealed[0]["seed"] and session["seed_hash"] == seed_hash
        hands = session["hands"]
        assert {h["hand"] for h in hands} == set(started)
        for h in hands:  # what the export says is what the table published
            assert started[h["hand"]]["deal"]["root"] == h["root"]
            assert started[h["hand"]]["deal"]["commitments"] == h["commitments"]
        assert hands[0]["client_seeds"] == ["host's first seed", "guest-7"]
        assert main(["verify-deals", str(tmp_path / "deals.json")]) == 0
        assert by_hand(tmp_path) == {h["number"]: "ok" for h in hands}

        # The recomputed decks are the dealt ones, as stored (sealed) by the table.
        engine = create_engine(settings.effective_database_url)
        sessions = session_factory(engine)
        seed = bytes.fromhex(session["seed"])
        table_id = data["table"]
        async with sessions() as s:
            rows = {
                str(i): (n, d)
                for i, n, d in await s.execute(select(HandRow.id, HandRow.number, HandRow.deck))
            }
        for h in hands:
            number, deck = rows[h["hand"]]
            assert deal_deck(seed, table_id, number, h["client_seeds"]) == deck
        # Sealed at rest: neither the seed nor a salt is readable in the database.
        async with engine.connect() as connection:
            seeds: ScalarResult[Any] = (
                await connection.execute(text("SELECT seed FROM deal_seeds"))
            ).scalars()
            deals: ScalarResult[Any] = (
                await connection.execute(text("SELECT deal FROM hands"))
            ).scalars()
            raw = " ".join(str(v) for v in [*seeds, *deals])
        assert session["seed"] not in raw and "salts" not in raw and "guest-7" not in raw

        # A tampered export fails: another client seed, a swapped commitment, not an export.
        bad = json.loads((tmp_path / "deals.json").read_text())
        bad["sessions"][0]["hands"][1]["client_seeds"][0] = "someone else"
        (tmp_path / "seeds.json").write_text(json.dumps(bad))
        assert main(["verify-deals", str(tmp_path / "seeds.json")]) == 1
        bad = json.loads((tmp_path / "deals.json").read_text())
        c0 = bad["sessions"][0]["hands"][0]["commitments"]
        c0[0], c0[1] = c0[1], c0[0]
        (tmp_path / "swapped.json").write_text(json.dumps(bad))
        assert main(["verify-deals", str(tmp_path / "swapped.json")]) == 1
        (tmp_path / "junk.json").write_text('{"sessions": []}')
        assert main(["verify-deals", str(tmp_path / "junk.json")]) == 2

        # A dealt card changed in the store after the deal: the export no longer verifies.
        first = hands[0]["hand"]
        number, deck = rows[first]
        deck = [deck[1], deck[0], *deck[2:]]
        async with sessions.begin() as s:
            await s.execute(update(HandRow).where(HandRow.id == uuid.UUID(first)).values(deck=deck))
        await export(watcher, code, tmp_path / "tampered.json")
        assert main(["verify-deals", str(tmp_path / "tampered.json")]) == 1
        await engine.dispose()
        for c in (host, guest, watcher):
            await c.close()
