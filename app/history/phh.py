"""PHH exports from the viewer's seat: one hand (`.phh`) or a session (`.phhs`).

The rules core's writer (`app.poker.phh.dumps`) does the redaction, by the same rule as live
play and review (`app.tables.views.may_see_hole` afterwards): hole cards never shown are
``????``, except the viewer's own. The deck order is not written (burns never are; unknown
cards are ``??``). A session file is what pokerkit's ``dumps_all`` writes: each hand under a
``[k]`` header, k counting from 1, hands separated by a blank line. Each hand opens with a
TOML comment naming it as players do, by its table and its number at that table; what was
asked for once it was over (a rabbit hunt, cards shown by choice) closes it in comments.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC
from typing import Any

from app.history.pokerstars import after_comments
from app.history.record import StoredHand, replay
from app.poker.phh import dumps


def phh_hand(stored: StoredHand, viewer: str | None) -> str:
    hand = replay(stored)
    position = hand.position_of_player(viewer) if viewer is not None else None
    started = stored.started_at
    if started.tzinfo is None:
        started = started.replace(tzinfo=UTC)
    started = started.astimezone(UTC)
    names = list(hand.names) or [stored.names.get(pid, "?") for pid in hand.players]
    metadata: dict[str, Any] = {
        "hand": stored.serial,
        "table": stored.table_name,
        "seat_count": stored.table_seats,
        "seats": [s + 1 for s in hand.seats],
        "players": names,
        "year": started.year,
        "month": started.month,
        "day": started.day,
        "time": started.time().replace(microsecond=0, tzinfo=None),
        "time_zone": "UTC",
    }
    # The hand as players name it: its table and its number there (`hand` is the server's).
    title = f"# {' '.join(stored.table_name.split()) or 'Table'}, hand {stored.at_table}\n"
    by_seat = {seat: _toml_safe(name) for seat, name in zip(hand.seats, names, strict=True)}
    notes = "".join(line + "\n" for line in after_comments(hand.after, by_seat))
    return title + dumps(hand.state, metadata=metadata, redact=True, viewer=position) + notes


def _toml_safe(name: str) -> str:
    """A name on one comment line (names are cleaned of control characters already)."""
    return " ".join(name.split())


def phhs_session(hands: Iterable[StoredHand], viewer: str | None) -> str:
    return "\n\n".join(f"[{k}]\n{phh_hand(h, viewer)}" for k, h in enumerate(hands, start=1))
