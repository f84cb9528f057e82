"""A seat at a table and the player in it, as the table actor keeps it between hands."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

#: ``Seat.missed_blinds`` bits.
MISSED_SMALL: Final = 1
MISSED_BIG: Final = 2


@dataclass
class Seat:
    """One occupied seat.

    ``stack`` is the player's chips between hands (during a hand the hand state holds the
    live stack; the seat's is the stack the hand started from). ``waiting`` is a player who
    came in (or came back) and waits for the big blind, unless ``post`` says they post one
    to come in at once. ``leaving`` players are folded when the action reaches them and
    cashed out after the hand; ``removed`` players (by the host) play the hand out first.
    ``missed_blinds`` are the blinds the seat missed while sitting out (``MISSED_SMALL``,
    ``MISSED_BIG``): a player who comes back owes them (see ``app.tables.button``).
    """

    number: int
    player_id: str
    name: str
    stack: int
    sitting_out: bool = False
    waiting: bool = True
    post: bool = False
    straddle: bool = False
    leaving: bool = False
    removed: bool = False
    away: bool = False
    #: when the player went away (`time.time()`, stored: the grace outlasts a restart)
    away_since: float | None = None
    time_bank: float = 0.0
    #: a practice bot (app.bots) plays this seat
    bot: bool = False
    #: the player's switches: sit out from the next hand, or when the big blind reaches them
    sit_out_next: bool = False
    sit_out_next_bb: bool = False
    #: chips added after the current hand (top-ups and host adjustments made during a hand)
    pending_top_up: int = 0
    pending_adjust: int = 0
    pending_adjust_reason: str = ""  # their reasons (app.tables.adjust)
    missed_blinds: int = 0
    #: the player's latest client seed for the deal (app.tables.fairness); "" none sent
    client_seed: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def status(self) -> str:
        if self.leaving or self.removed:
            return "leaving"
        if self.sitting_out:
            return "sitting_out"
        if self.waiting:
            return "posting" if self.post else "waiting"
        return "playing"

    @property
    def missed(self) -> list[str]:
        """The blinds owed, as the protocol names them."""
        return [
            name
            for bit, name in ((MISSED_SMALL, "small_blind"), (MISSED_BIG, "big_blind"))
            if self.missed_blinds & bit
        ]

    def can_be_dealt(self) -> bool:
        return self.stack > 0 and not self.sitting_out and not self.leaving and not self.removed


@dataclass
class SeatRequest:
    player_id: str
    name: str
    seat: int
    buy_in: int
    post: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "player_id": self.player_id,
            "name": self.name,
            "seat": self.seat,
            "buy_in": self.buy_in,
        }

    def stored(self) -> dict[str, Any]:
        return {**self.to_json(), "post": self.post}

    @classmethod
    def from_stored(cls, data: dict[str, Any]) -> SeatRequest:
        return cls(str(data["player_id"]), str(data["name"]), int(data["seat"]),
                   int(data["buy_in"]), bool(data.get("post", False)))  # fmt: skip
