"""Which players move where, between hands (TDA 10, 11): as players bust, a player from the
table with the most players moves to the one with the fewest, taking the seat whose position
costs the move the least; tables break as the field shrinks; when the players left fit at one
table, the final table is drawn afresh.

"Costs the least" (TDA 11-A): the player moved is the one due to post the big blind next at
the table they leave, and takes the empty seat that will post the big blind soonest at the
new table, so a move neither skips a big blind nor pays one twice. "Due" and "soonest" are
counted as the table deals: a tournament table has a dead button (TDA 32), whose big blind
goes on from the last big blind's seat to the next player, whoever left (a bust at the
blinds leaves the button and the small blind dead, not moved on over the players left).

Players from a table that breaks draw their new tables and seats at random (TDA 10-B:
"assigned new tables and seats by a 2-step random process"): in a random order, each goes to
a table with the fewest players (drawn among them) and to a free seat drawn there. Whatever
seat they get, the big blind's too (so a player may post it twice in a row: TDA 10-A's "any
seat including the small or big blind"), the table deals them in only where the blinds
allow (`app.tables.button`: not between the button and the small blind, TDA 10-A).
"""

from __future__ import annotations

import math
import random
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

#: the draw of seats for players from a broken table when the caller gives none
_SYSTEM: random.Random = secrets.SystemRandom()


@dataclass(frozen=True)
class TableSeats:
    """A table between hands: its seats, who sits where, the last hand's button and big
    blind's seat (None before the first hand; no big blind: a moving button, counted from
    the button)."""

    table: str
    seats: int
    players: Mapping[int, str]
    button: int | None = None
    big_blind: int | None = None


@dataclass(frozen=True)
class Move:
    player: str
    from_table: str
    from_seat: int
    to_table: str
    to_seat: int


@dataclass(frozen=True)
class Plan:
    """What to do before the next hands: moves (in order), the tables that break (they are
    empty after the moves), and `final`: the final table's new draw (seat -> player) when
    the field comes down to one table."""

    moves: tuple[Move, ...] = ()
    broken: tuple[str, ...] = ()
    final: tuple[str, dict[int, str]] | None = None


def hands_to_big_blind(
    seat: int, occupied: set[int], button: int | None, size: int, big_blind: int | None = None
) -> int:
    """Hands until `seat` posts the big blind. With the last hand's `big_blind` (a dead
    button, `app.tables.button`), the big blind goes to the next player clockwise of it each
    hand, heads-up too; without, the button moves one player a hand (the next hand's button
    is the first occupied seat after `button`; before any hand, the lowest)."""
    seats = sorted(occupied | {seat})
    n = len(seats)
    if n < 2:
        return 0
    if big_blind is not None:
        # Not from the button: when the last blinds' players have gone, the button stays
        # behind (dead) and the big blind still moves one player on.
        after = [(s - big_blind - 1) % size for s in seats]  # 0: the seat just after it
        return sorted(after).index((seat - big_blind - 1) % size)
    start = 0 if button is None else next((k for k, s in enumerate(seats) if s > button), 0)
    order = seats[start:] + seats[:start]  # order[0]: next button, [1]: small, [2]: big
    big = 1 if n == 2 else 2  # heads-up the button is the small blind
    return (order.index(seat) - big) % n


def _mover(t: TableSeats) -> tuple[int, str]:
    occupied = set(t.players)
    seat = min(occupied, key=lambda s: (hands_to_big_blind(s, occupied, t.button, t.seats,
                                                           t.big_blind), s))  # fmt: skip
    return seat, t.players[seat]


def _landing(t: TableSeats, restarting: bool) -> int:
    """The free seat whose big blind comes soonest. `restarting`: the table had fewer than
    two players before the moves; three or more, it starts the blinds over from the button
    (`app.tables.button`: nobody waits while fewer than two are in), heads-up the big blind
    still goes on from the last one."""
    occupied = set(t.players)
    free = [s for s in range(t.seats) if s not in occupied]
    if not free:
        raise ValueError(f"table {t.table} has no free seat")
    big_blind = None if restarting and len(occupied) >= 2 else t.big_blind
    return min(free, key=lambda s: (hands_to_big_blind(s, occupied, t.button, t.seats,
                                                       big_blind), s))  # fmt: skip


def _move(tables: dict[str, TableSeats], source: str, target: str, restarting: bool) -> Move:
    """Balance: move the player due the big blind to the seat that posts it soonest."""
    src, dst = tables[source], tables[target]
    seat, player = _mover(src)
    to = _landing(dst, restarting)
    return _relocate(tables, Move(player, source, seat, target, to))


def _relocate(tables: dict[str, TableSeats], move: Move) -> Move:
    src, dst = tables[move.from_table], tables[move.to_table]
    left = {s: p for s, p in src.players.items() if s != move.from_seat}
    tables[move.from_table] = TableSeats(src.table, src.seats, left, src.button, src.big_blind)
    joined = {**dst.players, move.to_seat: move.player}
    tables[move.to_table] = TableSeats(dst.table, dst.seats, joined, dst.button, dst.big_blind)
    return move


def _break(tables: dict[str, TableSeats], victim: str, rng: random.Random) -> list[Move]:
    """Send every player of `victim` elsewhere by the draw: a table with the fewest players,
    then a free seat there."""
    players = sorted(tables[victim].players.items())
    rng.shuffle(players)
    moves = []
    for seat, player in players:
        others = [k for k in tables if k != victim]
        fewest = min(len(tables[k].players) for k in others)
        target = rng.choice([k for k in others if len(tables[k].players) == fewest])
        dst = tables[target]
        free = [s for s in range(dst.seats) if s not in dst.players]
        if not free:
            raise ValueError(f"table {target} has no free seat")
        moves.append(_relocate(tables, Move(player, victim, seat, target, rng.choice(free))))
    return moves


def plan(
    tables: Sequence[TableSeats],
    draw: Sequence[str] | None = None,
    rng: random.Random = _SYSTEM,
) -> Plan:
    """The moves that keep the tables within one player of each other, breaking a table when
    the players fit at one table fewer. `draw`: the players in a random order, used to seat
    the final table when the field fits at one table (seat k gets `draw[k]`, the final
    table is the first of `tables`); `rng` draws the seats of players from broken tables."""
    live = {t.table: t for t in tables}
    total = sum(len(t.players) for t in tables)
    if not tables:
        return Plan()
    per_table = min(t.seats for t in tables)
    if len(tables) > 1 and total <= per_table:
        order = list(draw) if draw is not None else [p for t in tables for p in t.players.values()]
        if sorted(order) != sorted(p for t in tables for p in t.players.values()):
            raise ValueError("the draw is of the players left")
        first = tables[0]
        rest = tuple(t.table for t in tables[1:])
        return Plan(broken=rest, final=(first.table, dict(enumerate(order))))
    moves: list[Move] = []
    broken: list[str] = []
    restarting = {t.table for t in tables if len(t.players) < 2}
    needed = max(1, math.ceil(total / per_table))
    while len(live) > needed:
        # Break the table with the fewest players (the last one of those on a tie).
        victim = min(reversed(list(live)), key=lambda k: len(live[k].players))
        moves += _break(live, victim, rng)
        del live[victim]
        broken.append(victim)
    while True:
        most = max(live, key=lambda k: len(live[k].players))
        fewest = min(live, key=lambda k: len(live[k].players))
        if len(live[most].players) - len(live[fewest].players) <= 1:
            break
        moves.append(_move(live, most, fewest, fewest in restarting))
    return Plan(tuple(moves), tuple(broken))
