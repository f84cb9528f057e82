"""The director's store writes: each before the answer that depends on it."""

from __future__ import annotations

import logging
from collections.abc import Coroutine
from typing import Any

from app.tables.errors import TableError
from app.tables.store_protocol import OwnershipLost
from app.tournaments.state import Tournament

log = logging.getLogger("omaha.tournaments")


async def write(t: Tournament, work: Coroutine[Any, Any, None]) -> None:
    """A store write before the answer: refused (`unavailable`) if it fails."""
    try:
        await work
    except OwnershipLost:
        raise
    except Exception as error:
        log.error("tournament %s: a write failed (%s)", t.id, type(error).__name__)
        raise TableError("unavailable", "that could not be stored; try again") from None


async def save_state(t: Tournament) -> None:
    """The status, the clock's reading and the tables (the broken too: to reveal their
    seeds at the end)."""
    tables = [*t.tables, *t.broken]
    await write(t, t.store.save_state(t.id, t.status, t.elapsed(), tables))
