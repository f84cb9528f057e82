"""A tournament's settings, as the host chose them (stored as JSON with the tournament)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.poker import Betting
from app.tournaments.structure import Schedule


@dataclass(frozen=True)
class Settings:
    """A tournament's settings (validated by the REST layer; `Schedule` checks itself)."""

    name: str
    schedule: Schedule
    starting_stack: int
    seats: int = 6
    game: str = "omaha"
    betting: Betting = Betting.POT_LIMIT
    #: basis points per place; () pays nothing (places only); None: the preset for the field
    payouts: tuple[int, ...] | None = ()
    prize_pool: int = 0
    max_players: int = 100
    decision_time: float = 30.0
    time_bank: float = 60.0
    #: registration (and re-entry) stays open to the end of this level (1 the first; 0 none)
    late_registration_level: int = 0
    reentries: int = 0  # re-entries a player may make after busting (while registration is open)
    start_when_full: bool = False
    #: the add-on: chips each player still in may buy once, at a nominal `addon_price` added
    #: to the prize pool, while level `addon_level` (1 the first) or the break after it is on
    #: the clock; 0: the last level of late registration (the first without it)
    addon_chips: int = 0
    addon_price: int = 0
    addon_level: int = 0
    #: the start, at this wall-clock time (Unix seconds), if the host has not started it
    start_at: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name, "schedule": self.schedule.to_json(),
            "starting_stack": self.starting_stack, "seats": self.seats, "game": self.game,
            "betting": self.betting.value,
            "payouts": None if self.payouts is None else list(self.payouts),
            "prize_pool": self.prize_pool, "max_players": self.max_players,
            "decision_time": self.decision_time, "time_bank": self.time_bank,
            "late_registration_level": self.late_registration_level,
            "reentries": self.reentries, "start_when_full": self.start_when_full,
            "addon_chips": self.addon_chips, "addon_price": self.addon_price,
            "addon_level": self.addon_level, "start_at": self.start_at,
        }  # fmt: skip

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Settings:
        return cls(
            name=str(data["name"]), schedule=Schedule.from_json(data["schedule"]),
            starting_stack=int(data["starting_stack"]), seats=int(data["seats"]),
            game=str(data["game"]), betting=Betting(data["betting"]),
            payouts=None if data["payouts"] is None else tuple(int(p) for p in data["payouts"]),
            prize_pool=int(data["prize_pool"]), max_players=int(data["max_players"]),
            decision_time=float(data["decision_time"]), time_bank=float(data["time_bank"]),
            late_registration_level=int(data.get("late_registration_level", 0)),
            reentries=int(data.get("reentries", 0)),
            start_when_full=bool(data.get("start_when_full", False)),
            addon_chips=int(data.get("addon_chips", 0)),
            addon_price=int(data.get("addon_price", 0)),
            addon_level=int(data.get("addon_level", 0)),
            start_at=float(data["start_at"]) if data.get("start_at") is not None else None,
        )  # fmt: skip

    def addon_at(self) -> int:
        """The level (1 the first) whose time, with the break after it, is the add-on's."""
        return self.addon_level or self.late_registration_level or 1
