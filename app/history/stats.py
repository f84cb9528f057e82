"""Statistics per player, as hand trackers define them, in one place.

`facts` reads one finished hand's record as a spectator sees it (app.history.record.build
with no viewer): actions, boards, who showed down and what each player won. No hole card
is in it, so no statistic can reveal a folded (or any unshown) hand; the all-in luck
behind the adjusted net comes from the tabled hands alone (app.poker.equity). `Totals` sums
those facts over any set of hands and gives the figures; docs/hand-history.md has the
definitions.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, fields
from typing import Any

FLAGS = (
    "all_in",
    "saw_flop",
    "showdown",
    "won_showdown",
    "vpip_chance",
    "vpip",
    "pfr",
    "three_bet_chance",
    "three_bet",
    "cbet_chance",
    "cbet",
)


@dataclass(frozen=True)
class HandFacts:
    """One player in one hand."""

    seat: int
    position: str  # BTN, SB, BB, UTG, MP, HJ, CO
    net: int
    all_in: bool = False
    saw_flop: bool = False
    showdown: bool = False  # still in at a contested end (shown or mucked)
    won_showdown: bool = False  # ... and won chips there
    vpip_chance: bool = False  # acted before the flop (a bomb pot or a walk has no such act)
    vpip: bool = False  # called, bet or raised before the flop
    pfr: bool = False  # raised before the flop
    three_bet_chance: bool = False  # acted before the flop facing exactly one raise
    three_bet: bool = False  # ... and raised it
    cbet_chance: bool = False  # the last raiser before the flop, first to bet on it
    cbet: bool = False  # ... and bet
    bets_raises: int = 0  # bets and raises from the flop on
    calls: int = 0  # calls from the flop on


def position_name(position: int, players: int) -> str:
    """The seat's name counted from the button (positions are 0 = first after the button)."""
    if position == players - 1:
        return "BTN"
    if players == 2:
        return "BB"
    if position == 0:
        return "SB"
    if position == 1:
        return "BB"
    if position == 2:
        return "UTG"
    if position == players - 2:
        return "CO"
    if position == players - 3:
        return "HJ"
    return "MP"


def facts(record: dict[str, Any]) -> list[HandFacts]:
    """Every player dealt in, from a spectator's record of a finished hand."""
    if record["viewer"]["seat"] is not None or any(
        s["cards"] and not s["shown"] for s in record["seats"]
    ):
        raise ValueError("statistics read a spectator's record: no unshown card in it")
    seats = record["seats"]
    n = len(seats)
    street = "preflop"
    raises = 0  # voluntary raises before the flop so far
    aggressor: int | None = None  # the last of them
    flop_bet = False  # someone has bet on the flop
    acted_on_flop: set[int] = set()
    out: dict[int, dict[str, Any]] = {s["seat"]: {"bets_raises": 0, "calls": 0} for s in seats}
    for st in record["steps"]:
        kind = st["type"]
        if kind == "round":
            street = st["street"]
        elif kind == "forced_bet" and st["all_in"]:
            out[st["seat"]]["all_in"] = True
        elif kind == "acted":
            seat, action = st["seat"], st["action"]
            mine = out[seat]
            mine["all_in"] = mine.get("all_in", False) or st["all_in"]
            if street == "preflop":
                mine["vpip_chance"] = True
                if raises == 1 and aggressor != seat:
                    mine["three_bet_chance"] = True
                    if action == "raise":
                        mine["three_bet"] = True
                if action in ("call", "bet", "raise"):
                    mine["vpip"] = True
                if action in ("bet", "raise"):
                    mine["pfr"] = True
                    raises += 1
                    aggressor = seat
                continue
            if action in ("bet", "raise"):
                mine["bets_raises"] += 1
            elif action == "call":
                mine["calls"] += 1
            if street == "flop" and seat not in acted_on_flop:
                acted_on_flop.add(seat)
                if seat == aggressor and not flop_bet:
                    mine["cbet_chance"] = True
                    mine["cbet"] = action == "bet"
            if street == "flop" and action == "bet":
                flop_bet = True
    flop_dealt = any(len(board) >= 3 for run in record["boards"] for board in run)
    still_in = [s for s in seats if not s["folded"]]
    contested = len(still_in) > 1
    result = []
    for s in seats:
        mine = out[s["seat"]]
        saw_flop = flop_dealt and s["folded_on"] in (None, "flop", "turn", "river")
        showdown = contested and not s["folded"]
        result.append(
            HandFacts(
                seat=s["seat"],
                position=position_name(s["position"], n),
                net=s["net"],
                saw_flop=saw_flop,
                showdown=showdown,
                won_showdown=showdown and s["won"] > 0,
                **mine,
            )
        )
    return result


def _rate(part: int, whole: int) -> float | None:
    return round(100 * part / whole, 1) if whole else None


@dataclass
class Totals:
    """Facts summed over hands: the statistics of a player (in one game, or all)."""

    hands: int = 0
    net: int = 0
    luck: float = 0.0  # expected minus won at the all-ins whose equity is known
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(FLAGS, 0))
    bets_raises: int = 0
    calls: int = 0

    def add(self, row: dict[str, Any]) -> None:
        self.hands += 1
        self.net += int(row["net"])
        self.luck += float(row.get("luck") or 0.0)
        for flag in FLAGS:
            self.counts[flag] += bool(row[flag])
        self.bets_raises += int(row["bets_raises"])
        self.calls += int(row["calls"])

    def figures(self) -> dict[str, Any]:
        c = self.counts
        return {
            "hands": self.hands,
            "vpip": _rate(c["vpip"], c["vpip_chance"]),
            "pfr": _rate(c["pfr"], c["vpip_chance"]),
            "three_bet": _rate(c["three_bet"], c["three_bet_chance"]),
            "cbet": _rate(c["cbet"], c["cbet_chance"]),
            "wtsd": _rate(c["showdown"], c["saw_flop"]),
            "wsd": _rate(c["won_showdown"], c["showdown"]),
            "aggression": round(self.bets_raises / self.calls, 2) if self.calls else None,
            "net": self.net,
            "all_in_adjusted_net": round(self.net + self.luck, 2),
        }


def totals(rows: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Per player: their figures over all the rows, and per game."""
    players: dict[str, dict[str, Totals]] = {}
    for row in rows:
        games = players.setdefault(str(row["player_id"]), {})
        games.setdefault("all", Totals()).add(row)
        games.setdefault(str(row["game"]), Totals()).add(row)
    return {
        pid: {game: t.figures() for game, t in sorted(games.items())}
        for pid, games in players.items()
    }


def as_row(f: HandFacts) -> dict[str, Any]:
    """The facts as the columns of `hand_stats` (without the hand's own columns)."""
    row = asdict(f)
    row.pop("seat")
    return row


FACT_FIELDS = tuple(f.name for f in fields(HandFacts) if f.name != "seat")
