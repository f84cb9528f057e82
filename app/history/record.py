"""A hand's record for review: a pure function of the stored hand and who is looking.

The stored hand (setup, seat map, deck order, actions) is replayed through the engine, and
its events are rendered for the viewer by the live table's own redaction
(`app.tables.views.event_records` and `render`): a player gets their own hole cards in a
hand they played, everyone gets the cards shown at a showdown or tabled all in, nobody gets
a folded or mucked hand of someone else, the host included. Everything else in the record
(seat lines, hand names, pots, equity) is derived from those rendered steps or from public
facts, so the record holds no card the viewer may not see, and never the deck order.

The record is JSON-ready: the REST API returns it as is, the exports (`app.history.export`)
are pure functions of it, and a replayer steps through its `steps`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any

from app.poker import GAMES, Betting, HandState
from app.poker.cards import Card, card_str, parse_cards
from app.poker.equity import AllInSpot, all_in_spot, equities
from app.poker.evaluation import describe_high, describe_low, high_category
from app.poker.events import PotAwarded
from app.tables.hand import Hand, awarded
from app.tables.labels import game_label, stakes_text
from app.tables.notes import RABBIT, shown_by_choice
from app.tables.views import event_records, may_see_hole, render


@dataclass(frozen=True)
class StoredHand:
    """A finished hand as the store gives it to review (the deck never goes further)."""

    serial: int
    table_name: str
    table_seats: int
    small_blind: int  # the table's small blind (for stakes when the hand had no blinds)
    started_at: datetime
    ended_at: datetime | None
    record: dict[str, Any]
    deck: list[int]
    actions: list[dict[str, Any]]
    names: dict[str, str]  # player id -> display name, for hands stored without names
    at_table: int  # the hand's number at its table (`serial` is the server's)


def replay(stored: StoredHand) -> Hand:
    return Hand.replay(
        str(stored.serial), stored.serial, stored.record, stored.deck, stored.actions
    )


def stakes(hand: Hand, stored: StoredHand) -> dict[str, int]:
    setup = hand.state.setup
    cfg = setup.config
    big = cfg.small_bet
    blinds = [b for b in setup.per_player(setup.blinds, "blinds") if 0 < b < big]
    out = {
        "small_blind": min(blinds) if blinds else min(stored.small_blind, big),
        "big_blind": big,
        "ante": max(setup.per_player(setup.antes, "antes")),
    }
    if cfg.betting is Betting.FIXED_LIMIT:
        out["big_bet"] = cfg.big_bet
    return out


def _labels(hand: Hand) -> list[list[str]]:
    """Each position's forced-bet roles: button, small blind, big blind, straddle."""
    state = hand.state
    n = state.n
    setup = state.setup
    blinds = setup.per_player(setup.blinds, "blinds")
    big = state.config.small_bet
    out: list[list[str]] = [[] for _ in range(n)]
    out[n - 1].append("button")
    for p, amount in enumerate(blinds):
        if amount == 0:
            continue
        if hand.straddle is not None and hand.seats[p] == hand.straddle:
            out[p].append("straddle")
        elif amount >= big:
            out[p].append("big blind")
        else:
            out[p].append("small blind")
    return out


def _shown_hands(state: HandState, hole: list[str], hi_lo: bool) -> list[dict[str, Any]]:
    """The shown hand's best high (and low) on each complete board of each run."""
    cards = parse_cards("".join(hole))
    out = []
    for run, boards in enumerate(state.boards):
        for b, board in enumerate(boards):
            if len(board) != 5:
                continue
            high = describe_high(cards, board)
            entry: dict[str, Any] = {
                "run": run,
                "board": b,
                "high": {
                    "name": high.name,
                    "category": high_category(high.value),
                    "cards": [card_str(c) for c in high.cards],
                },
                "low": None,
            }
            if hi_lo:
                low = describe_low(cards, board)
                if low is not None:
                    entry["low"] = {"name": low.name, "cards": [card_str(c) for c in low.cards]}
            out.append(entry)
    return out


@lru_cache(maxsize=4096)
def _equity(
    hi_lo: bool,
    holes: tuple[tuple[int, tuple[Card, ...]], ...],
    boards: tuple[tuple[Card, ...], ...],
    pots: tuple[tuple[int, tuple[int, ...]], ...],
) -> tuple[str, int, int, tuple[tuple[int, float], ...]]:
    """Cached: a ledger sums the equity of every all-in hand of a table."""
    result = equities(AllInSpot(hi_lo, dict(holes), boards, pots))
    return result.method, result.runouts, result.pot, tuple(sorted(result.expected.items()))


def all_in_equity(state: HandState) -> dict[str, Any] | None:
    """The all-in equity of the hand (positions, not seats), or None if it had none."""
    spot = all_in_spot(state)
    if spot is None:
        return None
    method, runouts, pot, expected = _equity(
        spot.hi_lo, tuple(sorted(spot.holes.items())), spot.boards, spot.pots
    )
    street = {0: "preflop", 3: "flop", 4: "turn"}.get(len(spot.boards[0]), "preflop")
    if state.config.game.courchevel and len(spot.boards[0]) == 1:
        street = "preflop"
    return {
        "street": street,
        "boards": [[card_str(c) for c in board] for board in spot.boards],
        "method": method,
        "runouts": runouts,
        "pot": pot,
        "players": [
            {"position": p, "share": round(e / pot, 4) if pot else 0.0, "expected": round(e, 2)}
            for p, e in expected
        ],
    }


def _won(state: HandState) -> list[int]:
    won = [0] * state.n
    for e in state.log:
        if isinstance(e, PotAwarded):
            won[e.player] += e.amount
    return won


def seat_equity(hand: Hand, equity: dict[str, Any] | None) -> dict[str, Any] | None:
    """`all_in_equity` by seat, with each player's all-in adjusted net: the net with what
    they won replaced by what they would win in expectation."""
    if equity is None:
        return None
    state = hand.state
    won = _won(state)
    players = []
    for entry in equity["players"]:
        p = entry["position"]
        net = state.stacks[p] - state.setup.stacks[p]
        players.append(
            {
                "seat": hand.seats[p],
                "share": entry["share"],
                "expected": entry["expected"],
                "adjusted_net": round(net - won[p] + entry["expected"], 2),
            }
        )
    return {**equity, "players": players}


def build(stored: StoredHand, viewer: str | None, *, equity: bool = True) -> dict[str, Any]:
    """The hand as `viewer` (a player id; None: a spectator) may see it. Being the host
    changes nothing: the host sees what any spectator (or, if dealt in, player) sees.
    `equity=False` leaves the all-in equity out (its exact enumeration can take seconds)."""
    hand = replay(stored)
    state = hand.state
    cfg = state.config
    position = hand.position_of_player(viewer) if viewer is not None else None
    steps = [render(r, viewer) for r in event_records(hand, state.log)]
    for step in steps:
        step.pop("hand", None)  # the internal hand id: the record is keyed by `number`
    labels = _labels(hand)
    won = _won(state)
    folded_on: dict[int, str] = {}
    street = "preflop"
    for step in steps:
        if step["type"] == "round":
            street = step["street"]
        elif step["type"] == "acted" and step["action"] == "fold":
            folded_on[step["seat"]] = street
    seen: dict[int, list[str]] = {}
    for step in steps:
        if step["type"] in ("hole_cards", "shown") and "cards" in step:
            seen[step["seat"]] = step["cards"]
    names = list(hand.names) or [stored.names.get(pid, "?") for pid in hand.players]
    seats = []
    for p in range(state.n):
        number = hand.seats[p]
        cards = seen.get(number)
        # The rendered steps are the redaction; this is the same rule, checked again.
        assert cards is None or may_see_hole(state, p, position, afterwards=True)
        start = state.setup.stacks[p]
        seats.append(
            {
                "seat": number,
                "position": p,
                "name": names[p],
                "roles": labels[p],
                "stack": start,
                "final_stack": state.stacks[p],
                "net": state.stacks[p] - start,
                "won": won[p],
                "folded": state.folded[p],
                "folded_on": folded_on.get(number),
                "shown": state.shown[p],
                "mucked": state.mucked[p],
                "cards": cards,
                # cards their player chose to show once the hand was over (public)
                "shown_cards": shown_by_choice(hand, number),
                "hands": _shown_hands(state, cards, cfg.hi_lo)
                if cards is not None and state.shown[p]
                else [],
            }
        )
    pots: dict[int, dict[str, Any]] = {}
    for step in steps:
        if step["type"] == "award":
            pot = pots.setdefault(step["pot"], {"pot": step["pot"], "amount": 0, "shares": []})
            pot["amount"] += step["amount"]
            pot["shares"].append({k: step[k] for k in ("run", "board", "half", "seat", "amount",
                                                        "hand_name", "cards")})  # fmt: skip
    spot_equity = seat_equity(hand, all_in_equity(state)) if equity else None
    game = GAMES[cfg.game.key]
    staked = stakes(hand, stored)
    return {
        "number": stored.serial,
        "table": {"name": stored.table_name, "seats": stored.table_seats},
        "hand_at_table": stored.at_table,
        "game": game.key,
        "game_name": game.name,
        "hi_lo": game.hi_lo,
        "courchevel": game.courchevel,
        "betting": str(cfg.betting),
        "stakes": staked,
        "labels": {
            "game": game_label(game.key, str(cfg.betting), cfg.boards),
            "stakes": stakes_text(staked["small_blind"], staked["big_blind"], staked["ante"]),
        },
        "boards_per_run": cfg.boards,
        "bomb_pot": cfg.bomb_pot,
        "run_it_twice": cfg.run_it_twice,
        "runs": state.runs,
        "started_at": stored.started_at.isoformat(),
        "ended_at": stored.ended_at.isoformat() if stored.ended_at else None,
        "button": hand.button,
        "straddle": hand.straddle,
        "viewer": {"seat": hand.seats[position] if position is not None else None},
        "seats": seats,
        "steps": steps,
        "boards": [[[card_str(c) for c in board] for board in run] for run in state.boards],
        "pots": [pots[k] for k in sorted(pots)],
        "total_pot": awarded(state),
        "equity": spot_equity,
        # Asked for once the hand was over: the rabbit hunt's boards (never played) and the
        # cards shown by choice, in order; public notes (app/tables/after.py).
        "after": [dict(n) for n in hand.after],
        "rabbit": next((n["boards"] for n in hand.after if n["kind"] == RABBIT), None),
    }


def luck(stored: StoredHand) -> dict[str, float]:
    """Each player's expected minus actual winnings in an all-in hand ({} otherwise)."""
    hand = replay(stored)
    return hand_luck(hand, all_in_equity(hand.state))


def hand_luck(hand: Hand, equity: dict[str, Any] | None) -> dict[str, float]:
    """`luck` of a replayed hand, from its `all_in_equity`."""
    if equity is None:
        return {}
    won = _won(hand.state)
    return {
        hand.players[entry["position"]]: entry["expected"] - won[entry["position"]]
        for entry in equity["players"]
    }
