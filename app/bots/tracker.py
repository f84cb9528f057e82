"""What one player knows of a table, kept from the protocol's messages (docs/protocol.md).

Pure: feed it every message a connection receives (`see`); when it is this player's turn,
`situation` is what the policy decides on. Used by the practice bots inside the server and by
the bots of the protocol tests, so both read the same messages the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.bots.policy import Situation


@dataclass
class Tracker:
    player_id: str
    game: str = "omaha"
    board_count: int = 1
    decision_time: float = 0.0  # seconds per decision at this table (0: no clock)
    seat: int | None = None
    hand: str | None = None
    hole: tuple[str, ...] = ()
    boards: dict[int, list[str]] = field(default_factory=dict)  # first run only
    stacks: dict[int, int] = field(default_factory=dict)  # seat -> live stack
    live: set[int] = field(default_factory=set)  # seats still in the hand
    pot: int = 0
    stack: int | None = None  # own stack between hands (the last `seat` record)

    def see(self, m: dict[str, Any]) -> None:
        kind = m.get("type")
        if kind == "snapshot":
            self._snapshot(m)
        elif kind == "table":
            config = m["config"]
            self.game, self.board_count = config["game"], config["boards"]
            self.decision_time = float(config.get("decision_time", 0))
        elif kind == "hand_started":
            self.hand, self.hole, self.boards, self.pot = m["hand"], (), {}, 0
            self.stacks = dict(zip(m["seats"], m["stacks"], strict=True))
            self.live = set(m["seats"])
        elif kind == "seat":
            if m["player_id"] == self.player_id:
                self.seat, self.stack = m["seat"], m["stack"]
        elif kind == "left":
            if m["player_id"] == self.player_id:
                self.seat = None
        elif m.get("hand") != self.hand:
            return
        elif kind == "hole_cards" and m["seat"] == self.seat and "cards" in m:
            self.hole = tuple(m["cards"])
        elif kind == "board" and m["run"] == 0:
            self.boards.setdefault(m["board"], []).extend(m["cards"])
        elif kind == "forced_bet":
            self._pay(m["seat"], m["amount"])
        elif kind == "acted":
            seat = m["seat"]
            if m["action"] == "fold":
                self.live.discard(seat)
            else:
                self._pay(seat, self.stacks.get(seat, m["stack"]) - m["stack"])
        elif kind == "bet_returned":
            self._pay(m["seat"], -m["amount"])
        elif kind == "hand_ended":
            self.hand = None

    def _pay(self, seat: int, amount: int) -> None:
        self.stacks[seat] = self.stacks.get(seat, 0) - amount
        self.pot += amount

    def _snapshot(self, m: dict[str, Any]) -> None:
        config = m["table"]["config"]
        self.game, self.board_count = config["game"], config["boards"]
        self.decision_time = float(config.get("decision_time", 0))
        self.seat = m["you"]["seat"]
        if self.seat is not None and m["seats"][self.seat] is not None:
            self.stack = m["seats"][self.seat]["stack"]
        hand = m.get("hand")
        if hand is None or hand.get("phase") == "complete":
            self.hand, self.hole, self.boards, self.stacks, self.live = None, (), {}, {}, set()
            return
        self.hand = hand["id"]
        self.pot = hand["pot"]
        self.stacks = {p["seat"]: p["stack"] for p in hand["players"]}
        self.live = {p["seat"] for p in hand["players"] if not p["folded"]}
        self.hole = ()
        for p in hand["players"]:
            if p["seat"] == self.seat and "cards" in p:
                self.hole = tuple(p["cards"])
        runs = hand["boards"]
        self.boards = {b: list(cards) for b, cards in enumerate(runs[0])} if runs else {}

    def situation(self, turn: dict[str, Any]) -> Situation | None:
        """This player's situation for a `turn` carrying its `legal`, else None."""
        if "legal" not in turn or turn.get("hand") != self.hand or not self.hole:
            return None
        count = max(self.board_count, len(self.boards))
        boards = tuple(tuple(self.boards.get(b, ())) for b in range(count))
        return Situation(
            game=self.game,
            hole=self.hole,
            boards=boards,
            opponents=max(0, len(self.live - {self.seat}) if self.seat is not None else 0),
            pot=self.pot,
            legal=turn["legal"],
        )
