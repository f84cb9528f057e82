"""Upgrades keep everything: a database at every earlier migration head, holding the data of
that time (tests/store/eras.py, written as SQL in that schema), passes `migrate --check`'s dry
run unchanged, is upgraded to head, matches the models, and is served: the sessions still
open, the table is restored with its hand in progress, the finished hand replays from its
export to the stacks it ended with, the ledger balances, every deck (plain before era 5)
ends sealed and opens to what was dealt, the deals verify, the tournament takes registrations.

The heads are read from migrations/: a migration added later is one more era to upgrade from.
On PostgreSQL every era. On SQLite the eras whose next migrations rebuild tables in batch
mode with rows in them (0003-0005) or read the hands back (0006: plain decks, then sealed
ones), and the newest: every migration runs on SQLite in each of those.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from pydantic import SecretStr
from sqlalchemy import Connection, inspect, select, text

from app.config import Settings
from app.history.deals import verify
from app.main import create_app
from app.poker.phh import loads
from app.store import decks
from app.store.db import create_engine, session_factory
from app.store.migrate import alembic_config, dry_run, schema_state, upgrade_connection
from app.store.models import Base, HandRow
from tests.api.conftest import running
from tests.store.eras import ANN_TOKEN, SECRET, TABLE_CODE, TOURNAMENT_CODE, Written, write_era
from tests.waits import within


def earlier_heads() -> list[str]:
    """Every revision but the head(s), oldest first."""
    script = ScriptDirectory.from_config(alembic_config())
    chain = [s.revision for s in reversed(list(script.walk_revisions()))]
    return [revision for revision in chain if revision not in set(script.get_heads())]


EARLIER = earlier_heads()
CASES = [("postgres", r) for r in EARLIER] + [
    ("sqlite", r) for r in dict.fromkeys([*EARLIER[1:5], EARLIER[-1]])
]


def era_of(revision: str) -> int:
    return EARLIER.index(revision) + 1


def _diff(connection: Connection) -> list[Any]:
    return list(compare_metadata(MigrationContext.configure(connection), Base.metadata))


async def build(url: str, revision: str) -> Written:
    engine = create_engine(url)
    try:
        async with engine.begin() as c:
            await c.run_sync(upgrade_connection, revision)
        decks.use_secret(SECRET)
        async with engine.begin() as c:
            return await write_era(c, era_of(revision))
    finally:
        await engine.dispose()


async def upgraded(url: str, revision: str) -> None:
    engine = create_engine(url)
    try:
        await dry_run(url)  # `migrate --check`: every step runs, nothing is kept
        assert (await schema_state(engine)).current == {revision}
        async with engine.begin() as c:
            await c.run_sync(upgrade_connection)
        assert (await schema_state(engine)).at_head
        async with engine.connect() as c:
            assert await c.run_sync(_diff) == []
    finally:
        await engine.dispose()


async def served(http: httpx.AsyncClient, path: str) -> Any:
    """The JSON answer at `path`, asked again while the server answers 503 `unavailable` (its
    store read timed out: a loaded machine running a second suite beside this one did so
    once), as a client is told to; any other answer but 200 fails."""
    answers: list[httpx.Response] = []

    async def answered() -> bool:
        answers.append(await http.get(path))
        return answers[-1].status_code != 503

    await within(answered, 120, every=0.2, what=f"an answer to {path} but 503")
    assert answers[-1].status_code == 200, answers[-1].text
    return answers[-1].json()


async def check_served(http: httpx.AsyncClient, app: Any, written: Written) -> None:
    era = written.era
    http.cookies["omaha_session"] = ANN_TOKEN
    me = await http.get("/api/session")
    assert me.status_code == 200 and me.json()["name"] == "Ann", me.text
    if era < 2:
        return
    state = await served(http, f"/api/tables/{TABLE_CODE}")
    seated = {str(s["seat"]): (s["name"], s["stack"]) for s in state["seats"] if s}
    assert seated == {"0": ("Ann", written.stacks["0"]), "1": ("Ben", written.stacks["1"])}
    hand = state["hand"]
    assert (hand["number"], hand["counter"]) == written.in_progress  # restored mid-hand

    listed = (await served(http, f"/api/tables/{TABLE_CODE}/hands"))["hands"]
    finished = [h for h in listed if h["hand_at_table"] in written.finished]
    assert len(finished) == len(written.finished)
    for item in finished:
        phh = await http.get(f"/api/hands/{item['number']}/hand.phh")
        assert phh.status_code == 200, phh.text
        replayed = loads(phh.text)
        stacks = replayed.stacks_out(replayed.replay().stacks)
        by_seat = written.finished[item["hand_at_table"]]
        assert sorted(stacks) == sorted(by_seat.values())
        assert (await http.get(f"/api/hands/{item['number']}/pokerstars.txt")).status_code == 200

    totals = (await served(http, f"/api/tables/{TABLE_CODE}/ledger"))["totals"]
    assert totals["chips_in"] == written.chips_in == totals["on_table"] + totals["cashed_out"]

    engine = app.state.engine
    await decks.seal_legacy_decks(engine)  # (the server's start-up does it in the background)
    async with engine.connect() as c:
        stored = [r[0] for r in await c.execute(text("SELECT deck FROM hands"))]
    for raw in stored:
        value = orjson.loads(raw) if isinstance(raw, str | bytes) else raw
        assert isinstance(value, dict) and value["v"] == 1  # sealed, not a list of cards
    async with session_factory(engine)() as s:
        opened = {row.number: row.deck for row in await s.scalars(select(HandRow))}
    assert opened == written.decks

    if era >= 8:
        deals = (await http.get(f"/api/tables/{TABLE_CODE}/deals.json")).json()
        verdict = verify(deals)
        assert verdict.ok and verdict.verified == 1 and verdict.unrevealed == 1, verdict
    if era >= 10:
        tournament = (await http.get(f"/api/tournaments/{TOURNAMENT_CODE}")).json()
        assert tournament["status"] == "registering"
        assert {e["name"] for e in tournament["registered"]} == {"Ann", "Ben"}


async def serve_and_check(url: str, tmp_path: Path, written: Written) -> None:
    settings = Settings(data_dir=tmp_path / "data", database_url=url, secret_key=SecretStr(SECRET))
    app = create_app(settings)
    async with running(app) as http:
        await check_served(http, app, written)


@pytest.mark.parametrize(("database", "revision"), CASES)
async def test_an_upgrade_from_an_earlier_head_keeps_everything(
    database: str, revision: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    database_url = str(request.getfixturevalue(f"{database}_url"))  # postgres_url, sqlite_url
    written = await build(database_url, revision)
    await upgraded(database_url, revision)
    await serve_and_check(database_url, tmp_path, written)


async def test_a_failing_dry_run_changes_nothing(database_url: str) -> None:
    """0006 reads the hands back: under another SECRET_KEY their sealed decks do not open.
    The dry run says so, and leaves the database as it was (its first steps undone)."""
    revision = EARLIER[4]  # era 5: sealed decks, before 0006
    await build(database_url, revision)
    with pytest.raises(RuntimeError, match="SECRET_KEY"):
        await dry_run(database_url, secret="another key than the decks were sealed with")
    engine = create_engine(database_url)
    try:
        assert (await schema_state(engine)).current == {revision}
        async with engine.connect() as c:
            columns = await c.run_sync(lambda sync: {
                col["name"] for col in inspect(sync).get_columns("hands")})  # fmt: skip
        assert "serial" not in columns  # 0006's first column, added then rolled back
    finally:
        await engine.dispose()
