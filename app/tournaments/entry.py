"""A player's entry in a tournament."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Entry:
    player_id: str
    name: str
    bot: bool = False
    table: str | None = None
    seat: int | None = None
    place: int | None = None
    prize: int = 0
