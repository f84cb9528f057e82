"""The tournament's tables: their configuration, the host's limit of open tables, opening
one, and a player seated at one with their stack or taken off it."""

from __future__ import annotations

import logging

from app.tables.config import MAX_CHIPS, BankRefill, TableConfig
from app.tables.errors import TableError
from app.tournaments.state import FieldTable, Tournament, draw
from app.tournaments.structure import Level

log = logging.getLogger("omaha.tournaments")


def table_config(t: Tournament, level: Level, number: int) -> TableConfig:
    s = t.settings
    return TableConfig(
        name=f"{s.name} {number + 1}"[:40],
        game=s.game,
        betting=s.betting,
        small_blind=level.small_blind,
        big_blind=level.big_blind,
        ante=level.ante,
        big_blind_ante=level.big_blind_ante,
        seats=s.seats,
        buy_in_min=MAX_CHIPS,  # nobody buys in: the director seats players with stacks
        buy_in_max=MAX_CHIPS,
        decision_time=s.decision_time,
        time_bank=s.time_bank,
        time_bank_refill=BankRefill.LEVEL,  # the usual tournament rule: full each level
        cap_heads_up=True,
        dead_button=True,  # TDA 32: "Tournament play will use a dead button."
        tournament=True,
    )


async def table_room(t: Tournament, count: int) -> None:
    """Refuse (`too_many_tables`) tables the host may not open: a tournament's tables
    count against the per-host limit of open tables like any table."""
    if t.tables_per_host is None:
        return
    try:
        hosted = await t.registry.store.hosted_open_tables(t.host_id)
    except Exception as error:
        log.error("tournament %s: cannot count tables (%s)", t.id, type(error).__name__)
        raise TableError("unavailable", "the tables could not be counted; try again") from None
    if hosted + count > t.tables_per_host:
        limit = t.tables_per_host
        raise TableError("too_many_tables", f"{count} more tables are needed and the host "
                         f"has {hosted} open of {limit}: close some first")  # fmt: skip


async def open_table(t: Tournament, config: TableConfig) -> str:
    """A new table of the tournament, whose hands' ends are told to its director."""
    table = await t.registry.create(t.host_id, config)
    t.registry.directors[table.id] = table.director = t.hand_ended
    t.table_codes[table.code] = table.id
    t.tables[table.id] = FieldTable(table.id)
    return table.id


async def seat(t: Tournament, pid: str, table_id: str, number: int | None, stack: int) -> None:
    """Seat a player with `stack` at seat `number` (None: a free seat drawn)."""
    state = t.tables[table_id]
    if number is None:
        free = [n for n in range(t.settings.seats) if n not in state.seats]
        number = free[draw.randrange(len(free))]
    entry = t.entry_of(pid)
    await t.registry.get(table_id).request(
        "t_seat", None, player_id=pid, name=entry.name, seat=number, stack=stack, bot=entry.bot
    )
    state.seats[number] = pid
    state.stacks[pid] = stack
    entry.table, entry.seat = table_id, number


async def unseat(t: Tournament, table_id: str, pid: str) -> None:
    """Take a player off a table, their stack carried to the next (`Tournament.carried`)."""
    state = t.tables[table_id]
    stack = await take_off(t, table_id, pid)
    t.carried[pid] = state.stacks.get(pid, 0) if stack is None else stack
    state.seats = {n: p for n, p in state.seats.items() if p != pid}
    state.stacks.pop(pid, None)


async def take_off(t: Tournament, table_id: str, pid: str) -> int | None:
    """`t_unseat`: the stack the player leaves with; None if the table has them no more (a
    write in doubt that was stored: the table reloaded without them, its answer lost), so
    the director's reading of it after the last hand stands."""
    try:
        result = await t.registry.get(table_id).request("t_unseat", None, player_id=pid)
    except TableError as error:
        if error.code != "not_seated":
            raise
        return None
    return int(result["stack"])
