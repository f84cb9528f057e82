"""What a tournament that stopped moving was waiting for, said by the test that waited: the
director's state (status, clock, round, pending deal, mailbox) and each table's as the director
knows it and as the table actor has it (seats, the hand running, the deal called, the next
hand's timer), so a stall on a loaded machine says why without running it again."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from app.tables.clock import NEXT_HAND
from app.tournaments.director import Director
from tests.waits import within


def describe(director: Director) -> str:
    d = director
    moment = d.settings.schedule.at(d.elapsed())
    timer = d.deal_timer
    due = None if timer is None else round(timer.when() - asyncio.get_running_loop().time(), 3)
    lines = [
        f"director: status={d.status} ended={d.ended} elapsed={d.elapsed():.3f} "
        f"level={moment.level} on_break={moment.on_break} left={d.standings.left} "
        f"hands={len(d.hands)} mailbox={d.mailbox.qsize()} deal_due_in={due} "
        f"talks_until={d.talks_until} round_busts={d.round_busts} carried={d.carried}",
        f"  entries: {[(k, e.place, e.table, e.seat) for k, e in d.entries.items()]}",
    ]
    for tid, state in d.tables.items():
        lines.append(
            f"  table {tid} (director): seats={state.seats} stacks={state.stacks} "
            f"playing={state.playing} button={state.button} bb={state.big_blind}"
        )
        lines.append(f"    actor: {_actor(d, tid)}")
    if d.broken:
        lines.append(f"  broken: {[b[:8] for b in d.broken]}")
    return "\n".join(lines)


def _actor(d: Director, table_id: str) -> dict[str, Any] | str:
    tables = getattr(d.registry, "tables", {})
    table = tables.get(table_id) if isinstance(tables, dict) else None
    core = getattr(table, "core", None)
    if core is None:
        return "not loaded"
    hand = core.hand
    seats = [(s.number, s.player_id, s.stack, s.state.value, "away" if s.away else "")
             for s in core.seats.taken()]  # fmt: skip
    return {
        "seats": seats,
        "hand": None if hand is None else (hand.number, core.hand_running() and "running"),
        "deal_called": core.deal_called,
        "next_hand_armed": core.clock.armed(NEXT_HAND),
        "paused": core.kept.paused,
        "idle": core.idle,
        "closing": core.closing,
        "closed": core.closed,
        "draining": core.draining,
        "mailbox": table.mailbox.qsize() if table is not None else None,
    }


async def played_out(director: Director, task: asyncio.Task[None], seconds: float = 60) -> None:
    """Wait for the director's task to end (the tournament played out); past `seconds`, fail
    with what it was waiting for. The bound only keeps a stalled test from hanging."""
    done, _ = await asyncio.wait([task], timeout=seconds)
    if not done:
        state = describe(director)
        director.stop()
        task.cancel()
        raise AssertionError(f"the tournament did not end within {seconds} s:\n{state}")
    task.result()  # the director's own failure, if it failed


async def waited(
    director: Director, predicate: Callable[[], Any], seconds: float = 60, what: str = ""
) -> Any:
    """`within`, failing with the tournament's state as well as what it waited for."""
    try:
        return await within(predicate, seconds, what=what)
    except AssertionError as error:
        raise AssertionError(f"{error}:\n{describe(director)}") from None
