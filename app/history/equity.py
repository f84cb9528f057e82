"""The replayer's equities, as one viewer may see them: each street's share of the pot for
every hand they may see, and the all-in equity. Computed in the review worker
(app.history.work), stored with the hand (`hands.equity`), cached per process.

What a viewer may see is their own hand (if dealt in) and the shown ones; the equities of a
hand depend only on that set, so they are kept by it (`views`, keyed "0,3": the positions
seen), and each viewer is mapped to their set (`viewers`, by player id; "" for everyone not
dealt in). Hands the viewer may not see are random hands to the computation: no figure is
made from a folded or mucked hand.
"""

from __future__ import annotations

from typing import Any

from app.history.record import StoredHand, all_in_equity, hand_luck, replay, seat_equity
from app.poker.cards import card_str
from app.poker.equity import street_equity, street_spots
from app.tables.hand import Hand

#: who a viewer not dealt in is, in `viewers`
SPECTATOR = ""


def visible(hand: Hand, viewer: str | None) -> set[int]:
    """The positions whose hole cards `viewer` may see afterwards: their own and the shown
    ones (the rule of `app.tables.views.may_see_hole`)."""
    state = hand.state
    seen = {p for p in range(state.n) if state.shown[p]}
    position = hand.position_of_player(viewer) if viewer is not None else None
    if position is not None:
        seen.add(position)
    return seen


def view_key(seen: set[int]) -> str:
    return ",".join(str(p) for p in sorted(seen))


def streets(hand: Hand, seen: set[int]) -> list[dict[str, Any]]:
    out = []
    for spot in street_spots(hand.state, seen):
        result = street_equity(spot)
        out.append(
            {
                "street": result.street,
                "boards": [[card_str(c) for c in board] for board in spot.boards],
                "method": result.method,
                "runouts": result.runouts,
                "unknown": len(spot.unknown),  # hands in it the viewer does not see
                "players": [
                    {"seat": hand.seats[p], "share": round(share, 4)}
                    for p, share in sorted(result.shares.items())
                ],
            }
        )
    return out


def compute(stored: StoredHand, viewer: str | None, with_all_in: bool) -> dict[str, Any]:
    """In the worker: `{key, viewer, streets, all_in?, luck?}` for this viewer."""
    hand = replay(stored)
    seen = visible(hand, viewer)
    dealt = viewer is not None and hand.position_of_player(viewer) is not None
    out: dict[str, Any] = {
        "key": view_key(seen),
        "viewer": viewer if dealt else SPECTATOR,
        "streets": streets(hand, seen),
    }
    if with_all_in:
        out.update(_all_in_of(hand))
    return out


def every_view(stored: StoredHand, with_all_in: bool = True) -> list[dict[str, Any]]:
    """In the worker: `compute` for everyone who may ask, each set of hands seen computed
    once: a spectator's (the first, with the all-in equity and the luck if `with_all_in`),
    and each person's dealt in (not the practice bots'). What the end of an all-in hand
    stores ahead of any request; each view is bounded like any (`app.poker.equity`)."""
    hand = replay(stored)
    people = [hand.players[p] for p in range(hand.state.n) if p not in hand.bots]
    done: dict[str, list[dict[str, Any]]] = {}
    out: list[dict[str, Any]] = []
    for viewer in (None, *people):
        seen = visible(hand, viewer)
        key = view_key(seen)
        if key not in done:
            done[key] = streets(hand, seen)
        out.append({"key": key, "viewer": viewer or SPECTATOR, "streets": done[key]})
    if with_all_in:
        out[0].update(_all_in_of(hand))
    return out


def all_in(stored: StoredHand) -> dict[str, Any]:
    """In the worker: `{all_in, luck}`, the hand's all-in equity by seat and each player's
    luck; what the ledger's luck job stores for the replayer too, so a hand's (seconds
    long) exact all-in equity is computed once, whichever asks first."""
    return _all_in_of(replay(stored))


def all_in_of_hands(hands: list[StoredHand]) -> dict[int, dict[str, Any]]:
    """In the worker: `all_in` of each hand, by its number (the ledger's luck job). Here, not
    beside its caller in app.api.history: the worker imports the module of what it runs, and
    that one would bring the whole web stack into it (a second of CPU a start)."""
    return {stored.serial: all_in(stored) for stored in hands}


def _all_in_of(hand: Hand) -> dict[str, Any]:
    equity = all_in_equity(hand.state)
    return {"all_in": seat_equity(hand, equity), "luck": hand_luck(hand, equity)}


def merged(stored: dict[str, Any] | None, result: dict[str, Any]) -> dict[str, Any]:
    """`hands.equity` with a worker's result added. What is stored stays (a view or the
    all-in equity that two jobs computed at once is the same figure: the first kept)."""
    equity: dict[str, Any] = dict(stored or {})
    views = dict(equity.get("views", {}))
    views.setdefault(result["key"], result["streets"])
    viewers = dict(equity.get("viewers", {}))
    viewers[result["viewer"]] = result["key"]
    equity["views"], equity["viewers"] = views, viewers
    if "all_in" in result:
        equity.setdefault("all_in", result["all_in"])
    return equity


def merged_all_in(all_in: dict[str, Any] | None, stored: dict[str, Any] | None) -> dict[str, Any]:
    """`hands.equity` with the ledger's all-in equity added (None: not an all-in hand; the
    key's presence says it was computed). What is stored stays."""
    equity: dict[str, Any] = dict(stored or {})
    equity.setdefault("all_in", all_in)
    return equity


def answer(equity: dict[str, Any] | None, viewer: str) -> dict[str, Any] | None:
    """The viewer's equities from `hands.equity`, or None when not computed yet."""
    if not equity or "all_in" not in equity:
        return None
    key = equity.get("viewers", {}).get(viewer)
    if key is None or key not in equity.get("views", {}):
        return None
    return {"status": "ready", "streets": equity["views"][key], "all_in": equity["all_in"]}
