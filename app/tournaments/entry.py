"""A player's entry in a tournament."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Entry:
    """One entry: a player's first (`number` 1) or a re-entry after busting (2, 3, ...).
    Each entry is placed, and paid, on its own."""

    player_id: str
    name: str
    bot: bool = False
    table: str | None = None
    seat: int | None = None
    place: int | None = None
    prize: int = 0
    number: int = 1
    addon: bool = False  # bought the add-on (`Settings.addon_chips`)

    @property
    def key(self) -> str:
        return self.player_id if self.number == 1 else f"{self.player_id}/{self.number}"
