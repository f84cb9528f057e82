"""What a restart of the table keeps (the real store, SQLite and PostgreSQL): time bank spent
in the middle of a hand, the away grace already run, the dead button's blind seats, and the
clock of a hand the host's pause stopped (migration 0019's column)."""

from __future__ import annotations

from app.store.tables import SqlTableStore
from app.tables.clock import TURN, Timer
from app.tables.config import TableConfig
from app.tables.hand import Hand
from app.tables.table import Runtime, Table
from app.tables.viewer import Viewer
from app.tables.views import table_view
from tests.tables.harness import FakeClock, on
from tests.tables.stores import FAST, dealt, paused_with, running, sql_store

CLOCK = Runtime(between_hands=3600, clock_enabled=True, away_grace=3600, deal_unwatched=True)


async def clocked_table(store: SqlTableStore, host: str) -> tuple[str, FakeClock]:
    """A three-seat table with a 30 s decision clock and a 5 s bank, and its fake clock."""
    config = TableConfig(seats=3, decision_time=30, time_bank=5)
    return await store.create_table(host, config, "c"), FakeClock()


async def first_hand(table: Table, players: tuple[str, str, str]) -> Hand | None:
    """The three seated (the host first), then the first hand dealt."""
    await paused_with(table, players)
    await table.request("resume", players[0])
    return await dealt(table)


async def test_time_bank_spent_mid_hand_stays_spent_after_a_restart(database_url: str) -> None:
    """The bank was stored only with the hand's result: a restart in the middle of the hand
    gave back what the player had spent of it."""
    async with sql_store(database_url) as store:
        host, a, b = await store.make_players(3)
        table_id, clock = await clocked_table(store, host)
        stored = await store.load_table(table_id)
        async with running(Table(stored, store, on(clock, CLOCK))) as table:
            hand = await first_hand(table, (host, a, b))
            assert hand is not None and hand.state.actor is not None
            actor = hand.players[hand.state.actor]
            await table.request("more_time", actor)
            clock.advance(0.5)
            await table.request("act", actor, hand=hand.id, counter=0, action="call")
            assert not hand.state.complete  # three players: the hand goes on
            seat = table.seat_of(actor)
            assert seat is not None and seat.time_bank <= 4.5
        stored = await store.load_table(table_id)
        assert stored.hand is not None  # the table stopped in the middle of the hand
        kept = next(s for s in stored.seats if s.player_id == actor)
        assert kept.time_bank <= 4.5, kept.time_bank
        others = [s.time_bank for s in stored.seats if s.player_id != actor]
        assert others == [5.0, 5.0]


async def test_the_away_grace_continues_after_a_restart(database_url: str) -> None:
    """When each seat went away was not kept: after a restart the away grace started again in
    full, so a player gone before it sat there for the grace again (and again)."""
    clock = FakeClock()
    runtime = Runtime(between_hands=3600, clock_enabled=False, away_grace=60, deal_unwatched=True,
                      clock=clock)  # fmt: skip
    async with sql_store(database_url) as store:
        host, a = await store.make_players(2)
        table_id = await store.create_table(host, TableConfig(seats=3, decision_time=0), "c")
        async with running(Table(await store.load_table(table_id), store, runtime)) as table:
            await table.request("pause", host)
            viewers = {pid: Viewer(pid) for pid in (host, a)}
            for i, pid in enumerate((host, a)):
                await table.request("sit", pid, seat=i, buy_in=100, name=f"p{i}")
                await table.request("attach", pid, viewer=viewers[pid])
            await table.request("detach", a, viewer=viewers[a])
            left_at = clock.now()
            clock.advance(1.0)
        stored = {s.player_id: s for s in (await store.load_table(table_id)).seats}
        assert stored[a].away_since == left_at
        assert stored[host].away_since is None  # here when the table stopped
        async with running(Table(await store.load_table(table_id), store, runtime)) as table:
            await table.quiet()
            graces = table.core.clock.deadlines
            left = {pid: graces[Timer.grace(pid)] - table.now() for pid in (host, a)}
            assert left[a] == 59.0, left  # a minute less the second gone, not a fresh minute
            assert left[host] == 60.0, left  # away from the restart on: the grace in full
            # Coming back clears it (stored): a later restart gives a fresh grace again.
            await table.request("attach", a, viewer=Viewer(a))
            seat = table.seat_of(a)
            assert seat is not None and not seat.away and seat.away_since is None
        stored = {s.player_id: s for s in (await store.load_table(table_id)).seats}
        assert stored[a].away_since is None
        assert stored[host].away_since is not None  # away since the restart, never came back


async def test_a_dead_button_places_the_first_hand_after_a_restart_by_its_rules(
    database_url: str,
) -> None:
    """With `dead_button` the previous hand's blind seats lived only in that hand's record:
    after a restart between hands the next hand was placed by the moving-button rules."""
    async with sql_store(database_url) as store:
        players = await store.make_players(4)
        config = TableConfig(seats=4, decision_time=0, dead_button=True)
        table_id = await store.create_table(players[0], config, "c")
        async with running(Table(await store.load_table(table_id), store, FAST)) as table:
            await paused_with(table, players)
            await table.request("resume", players[0])
            hand = await dealt(table)
            assert hand is not None and hand.blind_seats == (1, 2) and table.button == 0
            await table.request("pause", players[0])
            while not hand.state.complete:  # everyone folds to the big blind
                actor = hand.players[hand.state.actor or 0]
                await table.request("act", actor, hand=hand.id, counter=hand.counter,
                                    action="fold")  # fmt: skip
            await table.request("sit_out", players[1])  # the small blind leaves the game
        async with running(Table(await store.load_table(table_id), store, FAST)) as table:
            await table.request("resume", players[0])
            hand = await dealt(table)
            assert hand is not None and hand.number == 2
            # Dead button: the big blind moves on one seat (3), the small blind is the last
            # big blind (2), the button the seat of the last small blind (1, sitting out).
            # The moving button would have put the button on 2 and the blinds on 3 and 0.
            assert hand.blind_seats == (2, 3) and table.button == 1


async def test_the_showdown_preferences_are_kept_with_the_seat(database_url: str) -> None:
    """`set_preference` is stored before its `ok` (migration 0016's columns) and read back."""
    async with sql_store(database_url) as store:
        host, a = await store.make_players(2)
        table_id = await store.create_table(host, TableConfig(seats=3, decision_time=0), "c")
        async with running(Table(await store.load_table(table_id), store, FAST)) as table:
            await paused_with(table, (host, a))
            answer = await table.request("set_preference", a, auto_muck=False, always_show=True)
            assert answer == {"auto_muck": False, "always_show": True}
        stored = await store.load_table(table_id)
        prefs = {s.player_id: (s.auto_muck, s.always_show) for s in stored.seats}
        assert prefs == {host: (True, False), a: (False, True)}  # the default, and as set


async def test_a_table_paused_mid_hand_is_restarted_with_its_clock_stopped(
    database_url: str,
) -> None:
    """The pause stops the hand's clock; restarted an hour later (the store's `elapsed` since
    the last action is then an hour and more) the turn is still stopped with what it had
    left, the snapshot says so, and the resume gives it exactly that."""
    async with sql_store(database_url) as store:
        host, a, b = await store.make_players(3)
        table_id, clock = await clocked_table(store, host)
        stored = await store.load_table(table_id)
        async with running(Table(stored, store, on(clock, CLOCK))) as table:
            hand = await first_hand(table, (host, a, b))
            assert hand is not None
            clock.advance(10)
            await table.request("pause", host)
            clock.advance(1000)
            await table.quiet()
            assert hand.counter == 0  # no clock ran out
        stored = await store.load_table(table_id)
        assert stored.paused and stored.turn_clock is not None
        assert (stored.turn_clock["elapsed"], stored.turn_clock["since"]) == (10, None)
        clock.advance(3600)
        async with running(Table(stored, store, on(clock, CLOCK))) as table:
            await table.quiet()
            assert not table.core.clock.armed(TURN)
            view = table_view(table, host)["hand"]
            assert view["clock_stopped"] and view["timeout"] == 20
            await table.request("resume", host)
            assert table.core.clock.deadline(TURN) == table.now() + 20
            assert not table_view(table, host)["hand"]["clock_stopped"]
        stored = await store.load_table(table_id)
        assert not stored.paused and stored.turn_clock is not None
        assert stored.turn_clock["since"] == clock.now()  # counted on from the resume
